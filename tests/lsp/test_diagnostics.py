"""Diagnostics over the real server: equal to ``recordkit lint --format
json`` (code, message, severity, range, fix), in the client's position
encoding, pushed or pulled, updated as one types and across open records,
held back for a target still being typed, cleared on close."""
from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types

from lspkit import (PROFILES, REPO, count_pushes, diagnostics, lsp_client, open_doc, pushes, server_env, uri,
                      wait_for)
from lspkit import records_copy  # noqa: F401  (pytest fixtures)

pytestmark = pytest.mark.asyncio(loop_scope="function")


def lint_json(root: Path) -> list[dict]:
    proc = subprocess.run([sys.executable, "-m", "recordkit", "lint", "--format", "json", "--exit-zero"],
                          cwd=root, capture_output=True, text=True, env=server_env(), timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def units(prefix: str, encoding: str) -> int:
    """Code units of ``prefix`` as a client counts them (computed here, not by the server's code)."""
    if encoding == "utf-8":
        return len(prefix.encode("utf-8"))
    if encoding == "utf-32":
        return len(prefix)
    return len(prefix.encode("utf-16-le")) // 2


def lsp_pos(lines: list[str], row: int, col: int, encoding: str) -> tuple[int, int]:
    line = lines[row - 1] if row - 1 < len(lines) else ""
    return row - 1, units(line.rstrip("\r")[:col - 1], encoding)


def expected(obj: dict, text: str, encoding: str = "utf-16") -> tuple:
    """One lint JSON object as the (code, message, severity, range, fix) the server must publish."""
    lines = text.split("\n")
    start = lsp_pos(lines, obj["location"]["row"], obj["location"]["column"], encoding)
    end = lsp_pos(lines, obj["end_location"]["row"], obj["end_location"]["column"], encoding)
    fix = None
    if obj["fix"]:
        edits = [(lsp_pos(lines, e["location"]["row"], e["location"]["column"], encoding),
                  lsp_pos(lines, e["end_location"]["row"], e["end_location"]["column"], encoding), e["content"])
                 for e in obj["fix"]["edits"]]
        fix = (obj["fix"]["message"], obj["fix"]["applicability"], edits)
    return (obj["code"], obj["message"], obj["severity"], start, end, fix)


SEVERITY = {types.DiagnosticSeverity.Error: "error", types.DiagnosticSeverity.Warning: "warning",
            types.DiagnosticSeverity.Information: "info"}


def published(d: types.Diagnostic) -> tuple:
    fix = None
    if d.data and d.data.get("fix"):
        f = d.data["fix"]
        fix = (f["message"], f["applicability"],
               [((e["range"]["start"]["line"], e["range"]["start"]["character"]),
                 (e["range"]["end"]["line"], e["range"]["end"]["character"]), e["newText"]) for e in f["edits"]])
    return (d.code, d.message, SEVERITY[d.severity], (d.range.start.line, d.range.start.character),
            (d.range.end.line, d.range.end.character), fix)


# -- parity ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def bench_record(tmp_path_factory):
    sys.path.insert(0, str(REPO / "bench"))
    from generate import generate
    out = tmp_path_factory.mktemp("bench")
    generate(out / "records", 150, seed=0, defects=0.05)
    (out / "recordkit.toml").write_text('root = "records"\n', encoding="utf-8")
    return out


@pytest.mark.slow
async def test_parity_with_lint_json_on_a_bench_with_planted_defects(bench_record):
    """Every file of a generated record with planted defects, opened: the
    published diagnostics equal ``recordkit lint --format json``'s for it."""
    root = bench_record
    want: dict[str, list] = {}
    for obj in lint_json(root):
        want.setdefault(obj["filename"], []).append(obj)
    assert sum(len(v) for v in want.values()) > 5   # the planted defects are found
    async with lsp_client(root, "visual-studio-code") as client:
        count_pushes(client)
        files = sorted((root / "records").rglob("*.md"))
        uris = {open_doc(client, f): f for f in files}
        await wait_for(lambda: all(u in client.diagnostics for u in uris), 60, "every file's diagnostics")
        await client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous_result_ids=[]))  # settle
        import asyncio
        await asyncio.sleep(1.0)    # the corpus-scope rules' pass after the opens settle
        bad = []
        for u, f in uris.items():
            text = f.read_text(encoding="utf-8")
            rel = str(f.relative_to(root))
            exp = sorted(expected(o, text) for o in want.get(rel, []))
            got = sorted(published(d) for d in client.diagnostics[u])
            if exp != got:
                bad.append((rel, exp, got))
        assert not bad, bad[:3]


# -- positions --------------------------------------------------------------------------------------
MENTION_LINE = "Café — 😀 and é again — see LIT-99999 here."


@pytest.mark.parametrize("profile,encoding", [("visual-studio-code", "utf-16"), ("neovim", "utf-8"),
                                              ("emacs", "utf-32")])
async def test_positions_in_the_negotiated_encoding(records_copy, profile, encoding):
    path = sorted((records_copy / "records" / "note").glob("*.md"))[0]
    text = path.read_text(encoding="utf-8").rstrip("\n") + "\n\n" + MENTION_LINE + "\n"
    async with lsp_client(records_copy, profile) as client:
        u = open_doc(client, path, text)
        got = await diagnostics(client, u)
    row = text.split("\n").index(MENTION_LINE)
    col = MENTION_LINE.index("LIT-99999")
    hits = [d for d in got if d.code == "RK305" and d.range.start.line == row]
    assert hits, [(d.code, d.range) for d in got]
    assert hits[0].range.start.character == units(MENTION_LINE[:col], encoding)
    assert hits[0].range.end.character == units(MENTION_LINE[:col + len("LIT-99999")], encoding)


# -- as one types, across open records ---------------------------------------------------------------
def change(client, u: str, version: int, line: int, start: int, end: int, text: str) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=u, version=version),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(types.Position(line, start), types.Position(line, end)), text=text)]))


def codes(diags) -> list[str]:
    return sorted(d.code for d in diags)


@pytest.mark.parametrize("profile", ["visual-studio-code", "neovim"])
async def test_an_id_renamed_updates_the_other_open_record(records_copy, profile):
    """LIT-861's id changed in its unsaved text: THEORY-002, open, whose
    ``source`` names it, gets its dangling relation, without a save."""
    lit = records_copy / "records" / "lit" / "LIT-861.md"
    theory = records_copy / "records" / "theory" / "THEORY-002.md"
    async with lsp_client(records_copy, profile, settings={"debounce": 0}) as client:
        count_pushes(client)
        ut, ul = open_doc(client, theory), open_doc(client, lit)
        before = await diagnostics(client, ut)
        await diagnostics(client, ul)
        assert "RK301" not in codes(before)
        n = pushes(client, ut)
        line = lit.read_text(encoding="utf-8").split("\n").index("id: LIT-861")
        change(client, ul, 2, line, 4, 11, "LIT-86199")
        if client.capabilities.text_document.diagnostic:
            # (Neovim declares no workspace/diagnostic/refresh: it pulls again on its next event)
            for _ in range(100):
                after = await diagnostics(client, ut)
                if "RK301" in codes(after):
                    break
                await asyncio.sleep(0.05)
        else:
            after = await diagnostics(client, ut, after=n)
        dangling = [d for d in after if d.code == "RK301"]
        assert dangling and "LIT-861" in dangling[0].message
        assert dangling[0].code_description and dangling[0].code_description.href.startswith("file:")
        own = await diagnostics(client, ul)
        assert "RK106" in codes(own)       # the file's name no longer matches its id


async def test_a_target_being_typed_is_held_back_until_the_line_is_left(records_copy):
    theory = records_copy / "records" / "theory" / "THEORY-002.md"
    text = theory.read_text(encoding="utf-8")
    lines = text.split("\n")
    row = lines.index("source: [LIT-861, NOTE-738]")
    at = len("source: [LIT-861, NOTE-738")
    async with lsp_client(records_copy, "visual-studio-code", settings={"debounce": 0}) as client:
        count_pushes(client)
        u = open_doc(client, theory)
        await diagnostics(client, u)
        n = pushes(client, u)
        change(client, u, 2, row, at, at, ", LIT-9")
        got = await diagnostics(client, u, after=n)
        assert not [d for d in got if d.code == "RK301" and d.range.start.line == row], "flagged while typing"
        n = pushes(client, u)
        change(client, u, 3, len(lines) - 1, 0, 0, "x")      # an edit on another line: the line is left
        got = await diagnostics(client, u, after=n)
        assert [d for d in got if d.code == "RK301" and d.range.start.line == row and "LIT-9" in d.message]


async def test_push_is_cleared_on_close_and_pull_says_unchanged(records_copy):
    theory = records_copy / "records" / "theory" / "THEORY-002.md"
    async with lsp_client(records_copy, "emacs") as client:
        count_pushes(client)
        u = open_doc(client, theory, theory.read_text(encoding="utf-8").replace("status: proposed", "status: bogus"))
        got = await diagnostics(client, u)
        assert "RK204" in codes(got)
        n = pushes(client, u)
        client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(u)))
        assert await diagnostics(client, u, after=n) == []
    async with lsp_client(records_copy, "neovim") as client:
        u = open_doc(client, theory)
        first = await client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(u)))
        again = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(u), previous_result_id=first.result_id))
        assert first.kind == "full" and again.kind == "unchanged" and again.result_id == first.result_id
        whole = await client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous_result_ids=[]))
        n_lint = len([o for o in lint_json(records_copy) if o["filename"] != "records/theory/THEORY-002.md"])
        assert sum(len(i.items) for i in whole.items) == n_lint


async def test_a_cycle_carries_its_members_and_a_broken_file_keeps_the_server(records_copy):
    t = records_copy / "records" / "theory"
    a = t / "THEORY-002.md"
    text = a.read_text(encoding="utf-8").replace("contradicts: [THEORY-011]", "contradicts: [THEORY-011]\nextends: [THEORY-090]")
    (t / "THEORY-090.md").write_text(a.read_text(encoding="utf-8").replace("id: THEORY-002", "id: THEORY-090")
                                     .replace("contradicts: [THEORY-011]", "extends: [THEORY-002]"), encoding="utf-8")
    async with lsp_client(records_copy, "visual-studio-code", settings={"debounce": 0}) as client:
        count_pushes(client)
        u = open_doc(client, a, text)      # the cycle closed by the unsaved text
        u90 = open_doc(client, t / "THEORY-090.md")
        got = await wait_for(lambda: [d for d in client.diagnostics.get(u90, []) if d.code == "RK304"], 15, "RK304")
        related = got[0].related_information or []
        assert any("THEORY-002" in r.message and r.location.uri.endswith("THEORY-002.md") for r in related)
        broken = records_copy / "records" / "note" / "broken.md"
        ub = open_doc(client, broken, "---\nid: [unclosed\n---\nbody\n")
        got = await diagnostics(client, ub)
        assert [d for d in got if d.code.startswith("RK10")], codes(got)
        assert await diagnostics(client, u)   # still serving
