"""Rename as one WorkspaceEdit (text edits + RenameFile), refused with the
CLI's reason; willRenameFiles in a vault; the round trip: after the edit is
applied to disk, `recordkit lint` reports nothing new."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types as lsp

from featurekit import research_copy, snap_of, vault_copy
from recordkit.lsp.features import rename


def lint(root: Path) -> list[tuple]:
    proc = subprocess.run([sys.executable, "-m", "recordkit", "lint", "--no-cache", "--format", "json", "--exit-zero"],
                          cwd=root, capture_output=True, text=True, env={"PYTHONDONTWRITEBYTECODE": "1",
                                                                          "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr
    return sorted((d["code"], d["message"]) for d in json.loads(proc.stdout))


def apply(snap, edit: lsp.WorkspaceEdit) -> None:
    """Apply a WorkspaceEdit to the files, as an editor would."""
    for c in edit.document_changes or []:
        if isinstance(c, lsp.RenameFile):
            snap.path_of(c.old_uri).rename(snap.path_of(c.new_uri))
            continue
        path = snap.path_of(c.text_document.uri)
        text = path.read_text(encoding="utf-8")
        lines = text.split("\n")
        starts = [0]
        for line in lines:
            starts.append(starts[-1] + len(line) + 1)
        for e in sorted(c.edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
            a = starts[e.range.start.line] + e.range.start.character      # (ASCII records: units = characters)
            b = starts[e.range.end.line] + e.range.end.character
            text = text[:a] + e.new_text + text[b:]
        path.write_text(text, encoding="utf-8")


def test_rename_from_a_reference_round_trips_through_lint(tmp_path):
    root = research_copy(tmp_path)
    before = lint(root)
    snap = snap_of(root)
    u = snap.uri("THEORY-798")
    prep = rename.prepare_rename(snap, u, snap.at("THEORY-798", "[[LIT-849", shift=3))
    assert prep.placeholder == "LIT-849"
    edit = rename.rename(snap, u, snap.at("THEORY-798", "[[LIT-849", shift=3), "LIT-850")
    moves = [c for c in edit.document_changes if isinstance(c, lsp.RenameFile)]
    assert len(moves) == 1 and moves[0].new_uri.endswith("/lit/LIT-850.md")
    apply(snap, edit)
    assert not (root / "records" / "lit" / "LIT-849.md").exists()
    after = lint(root)
    assert after == before


@pytest.mark.parametrize("new, reason", [("THEORY-9x", "is not an id"), ("LIT-250", "exists already"),
                                         ("NOTE-900", "keeps the kind")])
def test_a_refused_rename_says_the_cli_reason(tmp_path_factory, new, reason):
    snap = snap_of(research_copy(tmp_path_factory.mktemp("r")))
    with pytest.raises(rename.RenameRefused, match=reason):
        rename.rename(snap, snap.uri("THEORY-798"), snap.at("THEORY-798", "LIT-849]", shift=2), new)


def test_rename_from_the_own_id_line(tmp_path):
    snap = snap_of(research_copy(tmp_path))
    edit = rename.rename(snap, snap.uri("THEORY-798"), snap.at("THEORY-798", "id: THEORY", shift=5), "THEORY-799")
    assert any(isinstance(c, lsp.RenameFile) and c.new_uri.endswith("THEORY-799.md") for c in edit.document_changes)


def test_will_rename_files_rewrites_links_in_a_vault(tmp_path):
    root = vault_copy("obsidian", tmp_path / "v")
    snap = snap_of(root)
    target = next(r for r in snap.corpus.records.values()
                  if any(t.target == r.id for o in snap.corpus.records.values() for t in o.mentions if o is not r))
    new = target.path.with_name("Renamed note.md")
    edit = rename.will_rename_files(snap, lsp.RenameFilesParams(files=[lsp.FileRename(
        old_uri=snap.uri_of(target.path), new_uri=snap.uri_of(new))]))
    assert edit is not None and edit.document_changes
    assert not any(isinstance(c, lsp.RenameFile) for c in edit.document_changes)
    assert any("Renamed note" in e.new_text for c in edit.document_changes for e in c.edits)


def test_rename_with_an_unsaved_file_edits_the_editors_text(tmp_path):
    root = research_copy(tmp_path)
    base = snap_of(root)
    note = next(r for r in base.corpus.files if r.ok and r.kind == "NOTE" and "LIT-849" not in r.text)
    unsaved = note.text + "\nAn unsaved mention of LIT-849 — here.\n"
    snap = snap_of(root, {note.path: unsaved})
    edit = rename.rename(snap, snap.uri("THEORY-798"), snap.at("THEORY-798", "[[LIT-849", shift=3), "LIT-850")
    mine = [c for c in edit.document_changes
            if isinstance(c, lsp.TextDocumentEdit) and c.text_document.uri == snap.uri_of(note.path)]
    assert len(mine) == 1
    (e,) = mine[0].edits
    last = unsaved.count("\n") - 1
    assert (e.range.start.line, e.range.start.character, e.new_text) == (last, len("An unsaved mention of LIT-8"), "50")
