"""Rename an id from its file, its ``id:`` or any reference to it, as one
``WorkspaceEdit``: every file's text edits and the file's move
(``RenameFile``), planned by the library exactly as ``recordkit rename``
plans it (:func:`recordkit.author.rename.plan_rename` for ``KIND-NNN`` ids,
:func:`recordkit.author.relink.plan_vault_rename` in a vault whose ids are
paths or file names) and refused with its reason (a malformed id, another
kind, an id taken).  A file renamed in the editor's explorer
(``workspace/willRenameFiles``) gets the same links rewritten.
"""
from __future__ import annotations

import difflib
import posixpath
from pathlib import Path

from lsprotocol import types as lsp

from ...author.plan import AuthorError
from .context import Lines, encoding_name, index_of, lsp_range, offset_position, ref_at, units


class RenameRefused(Exception):
    """The rename cannot be made (the message says why, as the command line says it)."""


def prepare_rename(snap, uri: str, pos: lsp.Position):
    """The range of the id (or link target) under the cursor and the id as placeholder, or None."""
    rec, ref = ref_at(snap, uri, pos)
    if rec is None or ref is None or ref.target is None:
        return None
    rng = name_range(snap, rec, ref)
    return lsp.PrepareRenamePlaceholder(range=rng, placeholder=ref.target)


def name_range(snap, rec, ref) -> lsp.Range:
    """The range of the target's name inside the reference (``[[LIT-849|x]]``: ``LIT-849``)."""
    lines = Lines(rec.text)
    enc = encoding_name(snap)
    line = lines.line(ref.line)
    span = line[ref.col - 1:ref.end_col - 1] if ref.line == ref.end_line else ""
    name = ref.written or ref.target
    i = span.find(name) if name else -1
    if i < 0:
        return lsp_range(lines, ref.pos, enc)
    start = ref.col + i
    return lsp_range(lines, (ref.line, start, ref.line, start + len(name)), enc)


def rename(snap, uri: str, pos: lsp.Position, new_name: str) -> lsp.WorkspaceEdit | None:
    """The WorkspaceEdit renaming the record under the cursor to ``new_name``
    (raises :class:`RenameRefused` with the library's reason)."""
    rec, ref = ref_at(snap, uri, pos)
    if ref is None or ref.target is None:
        raise RenameRefused("no record id under the cursor")
    return rename_id(snap, ref.target, new_name.strip())


def plan_for(snap, old: str, new: str):
    """The library's rename plan (raises :class:`RenameRefused`)."""
    schema = snap.corpus.schema
    try:
        if schema.kind_ids:
            from ...author.rename import plan_rename
            # from the snapshot's files (the editor's unsaved texts
            # applied), not read again from disk: same tests, same refusals
            plan = plan_rename(snap.corpus.config, schema, old, new, records=snap.corpus.files)
        else:
            from ...author.relink import plan_vault_rename
            plan = plan_vault_rename(snap.corpus, old, new)
    except AuthorError as exc:
        raise RenameRefused(str(exc)) from None
    return plan


def rename_id(snap, old: str, new: str) -> lsp.WorkspaceEdit:
    plan = plan_for(snap, old, new)
    return plan_edit(snap, plan)


def plan_edit(snap, plan, *, move: bool = True) -> lsp.WorkspaceEdit:
    """A library :class:`~recordkit.author.plan.Plan` as one WorkspaceEdit:
    each changed file's edits (made against the text the editor holds: a
    file whose unsaved text differs from what the plan was made from is
    refused), then the move.  ``move``: include the ``RenameFile`` (not
    when the editor moves the file itself, ``willRenameFiles``)."""
    enc = encoding_name(snap)
    changes: list = []
    moves: list = []
    gone = {c.renamed_from: c for c in plan.changes if c.renamed_from is not None}
    for c in plan.changes:
        if c.renamed_from is not None:
            continue
        if c.after is None and c.path in gone:
            new = gone[c.path]
            changes.append(_document_edit(snap, c.path, c.before, new.after, enc))
            if move:
                moves.append(lsp.RenameFile(old_uri=snap.uri_of(c.path), new_uri=snap.uri_of(new.path),
                                            options=lsp.RenameFileOptions(overwrite=False, ignore_if_exists=False)))
            continue
        if c.before is None:
            changes.append(lsp.CreateFile(uri=snap.uri_of(c.path)))
            changes.append(_document_edit(snap, c.path, "", c.after, enc))
            continue
        if c.after is None:
            changes.append(lsp.DeleteFile(uri=snap.uri_of(c.path)))
            continue
        changes.append(_document_edit(snap, c.path, c.before, c.after, enc))
    return lsp.WorkspaceEdit(document_changes=[x for x in changes if x is not None] + moves)


def _document_edit(snap, path: Path, before: str, after: str, enc: str) -> lsp.TextDocumentEdit | None:
    uri = snap.uri_of(path)
    doc = snap.document(uri)
    if before and doc is not None and doc.text != before:
        raise RenameRefused(f"{path.name} has unsaved changes that the rename was not planned from: save it first")
    if before == after:
        return None
    version = getattr(doc, "version", None) if doc is not None else None
    return lsp.TextDocumentEdit(text_document=lsp.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
                                edits=text_edits(before, after, enc))


def text_edits(before: str, after: str, enc: str) -> list[lsp.TextEdit]:
    """The few edits that turn ``before`` into ``after``: the changed runs of
    lines (a line-level diff, linear in practice; line by line when both
    have as many lines, as after a rename), each trimmed to the characters
    that differ."""
    if before.count("\r") == before.count("\r\n"):      # (lines end at "\n" as the client reads them)
        a, b = before.split("\n"), after.split("\n")
        if len(a) == len(b):
            return [_line_edit(i, x, y, enc) for i, (x, y) in enumerate(zip(a, b)) if x != y]
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    starts = [0]
    for line in a:
        starts.append(starts[-1] + len(line))
    bstarts = [0]
    for line in b:
        bstarts.append(bstarts[-1] + len(line))
    out = []
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for op, a0, a1, b0, b1 in sm.get_opcodes():
        if op == "equal":
            continue
        s0, s1 = starts[a0], starts[a1]
        t0, t1 = bstarts[b0], bstarts[b1]
        old, new = before[s0:s1], after[t0:t1]
        p = 0
        while p < min(len(old), len(new)) and old[p] == new[p]:
            p += 1
        q = 0
        while q < min(len(old), len(new)) - p and old[-1 - q] == new[-1 - q]:
            q += 1
        out.append(lsp.TextEdit(range=lsp.Range(start=offset_position(before, s0 + p, enc),
                                                end=offset_position(before, s1 - q, enc)),
                                new_text=new[p:len(new) - q]))
    return out


def _line_edit(line: int, old: str, new: str, enc: str) -> lsp.TextEdit:
    """The edit of one line, trimmed to the characters that differ."""
    p = 0
    while p < min(len(old), len(new)) and old[p] == new[p]:
        p += 1
    q = 0
    while q < min(len(old), len(new)) - p and old[-1 - q] == new[-1 - q]:
        q += 1
    return lsp.TextEdit(range=lsp.Range(start=lsp.Position(line=line, character=units(old[:p], enc)),
                                        end=lsp.Position(line=line, character=units(old[:len(old) - q], enc))),
                        new_text=new[p:len(new) - q])


def will_rename_files(snap, params: lsp.RenameFilesParams) -> lsp.WorkspaceEdit | None:
    """The links rewritten for files the editor is about to move (the move is the editor's)."""
    edits: list = []
    for f in params.files:
        rec = snap.record(f.old_uri)
        if rec is None or not rec.ok:
            continue
        new_path = snap.path_of(f.new_uri)
        new = _new_name(snap, rec, new_path)
        if new is None or new == rec.id:
            continue
        try:
            plan = plan_for(snap, rec.id, new)
            got = plan_edit(snap, plan, move=False)
        except RenameRefused:
            continue
        edits.extend(got.document_changes or [])
    return lsp.WorkspaceEdit(document_changes=edits) if edits else None


def _new_name(snap, rec, new_path: Path) -> str | None:
    """What the moved file is called, as ``rename``'s NEW: the new stem for
    ``KIND-NNN`` ids (only when it is one); in a vault, the path in the
    root when ids are paths, else the file name."""
    schema = snap.corpus.schema
    if new_path.suffix.lower() != ".md":
        return None
    if schema.kind_ids:
        return new_path.stem if schema.id_matches(new_path.stem) and rec.path.stem == rec.id else None
    from ...author.relink import vault_naming
    try:
        rel = new_path.resolve().relative_to(Path(snap.corpus.root).resolve()).as_posix()
    except ValueError:
        return None
    naming = vault_naming(rec, schema)
    if naming == "path":
        return rel[:-3]
    if naming == "stem" and posixpath.dirname(rel) == posixpath.dirname(rec.relpath):
        return new_path.stem
    return None


def references_count(snap, rid: str) -> int:
    return len(index_of(snap).references(rid))
