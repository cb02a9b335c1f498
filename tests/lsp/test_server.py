"""The server over stdio under each client profile: it starts, answers
``initialize`` before the record is read, reads it with progress, and
pushes or answers diagnostics."""
from __future__ import annotations

import asyncio
import time

import pytest
from lsprotocol import types

from lspkit import PROFILES, count_pushes, diagnostics, lsp_client, open_doc, uri, wait_for
from lspkit import records_copy, vault_copy  # noqa: F401  (pytest fixtures)

pytestmark = pytest.mark.asyncio(loop_scope="function")


@pytest.mark.parametrize("profile", PROFILES)
async def test_starts_and_lints_an_open_record(records_copy, profile):
    async with lsp_client(records_copy, profile) as client:
        path = sorted((records_copy / "records" / "theory").glob("*.md"))[0]
        u = open_doc(client, path)
        got = await diagnostics(client, u)
        assert isinstance(got, list)


@pytest.mark.parametrize("profile", ["neovim", "visual-studio-code"])
async def test_a_file_created_on_disk_is_picked_up(records_copy, profile):
    """Neovim registers no file watching: the server watches the record;
    VS Code registers ``didChangeWatchedFiles`` and sends the events."""
    theory = records_copy / "records" / "theory" / "THEORY-002.md"
    text = theory.read_text(encoding="utf-8").replace("source: [LIT-861, NOTE-738]", "source: [LIT-861, NOTE-738, LIT-4242]")
    async with lsp_client(records_copy, profile, settings={"debounce": 0}) as client:
        u = open_doc(client, theory, text)
        got = await diagnostics(client, u)
        assert [d for d in got if d.code == "RK301" and "LIT-4242" in d.message]
        lit = records_copy / "records" / "lit" / "LIT-4242.md"
        lit.write_text((records_copy / "records" / "lit" / "LIT-861.md").read_text(encoding="utf-8")
                       .replace("id: LIT-861", "id: LIT-4242"), encoding="utf-8")
        if client.registrations:
            assert any(r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES for r in client.registrations)
            client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
                [types.FileEvent(uri(lit), types.FileChangeType.Created)]))
        for _ in range(200):
            got = client.diagnostics.get(u, []) if not client.capabilities.text_document.diagnostic \
                else await diagnostics(client, u)
            if not [d for d in got if d.code == "RK301" and "LIT-4242" in d.message]:
                break
            await asyncio.sleep(0.05)
        assert not [d for d in got if d.code == "RK301" and "LIT-4242" in d.message]


@pytest.mark.slow
async def test_each_vault_preset_lints_as_the_command_line(vault_copy):
    """One vault per preset: every note opened, its diagnostics are the
    lint's for it (codes and lines)."""
    import json
    import subprocess
    import sys
    from lspkit import server_env
    proc = subprocess.run([sys.executable, "-m", "recordkit", "lint", "--format", "json", "--exit-zero"],
                          cwd=vault_copy, capture_output=True, text=True, env=server_env(), timeout=120)
    want: dict = {}
    for o in json.loads(proc.stdout):
        want.setdefault(o["filename"], []).append((o["code"], o["location"]["row"] - 1))
    async with lsp_client(vault_copy, "emacs") as client:
        count_pushes(client)
        notes = [p for p in sorted(vault_copy.rglob("*.md")) if ".recordkit" not in p.parts]
        uris = {open_doc(client, p): p for p in notes}
        await asyncio.sleep(1.0)
        await wait_for(lambda: all(u in client.diagnostics for u in uris), 30, "every note's diagnostics")
        await asyncio.sleep(1.0)      # the corpus-scope rules' pass
        for u, p in uris.items():
            rel = str(p.relative_to(vault_copy))
            got = sorted((d.code, d.range.start.line) for d in client.diagnostics[u])
            assert got == sorted(want.get(rel, [])), rel
