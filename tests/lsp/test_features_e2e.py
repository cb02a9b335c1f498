"""The features through the real server (pytest-lsp, over the capability
profiles shipped), on a copy of records/ and on each preset's vault: one
module-scoped server per profile, each feature asked once."""
from __future__ import annotations

import pytest
from lsprotocol import types as lsp

from lspkit import PRESETS, PROFILES, copy_records, copy_vault, lsp_client, open_doc, uri

pytestmark = pytest.mark.asyncio(loop_scope="module")


def _pos(text: str, needle: str, shift: int = 1) -> lsp.Position:
    i = text.index(needle) + shift
    return lsp.Position(line=text.count("\n", 0, i), character=i - (text.rfind("\n", 0, i) + 1))


# VS Code's profile in the quick run; Neovim's and Emacs' with the slow tests
@pytest.mark.parametrize("profile", [p if p == "visual-studio-code" else pytest.param(p, marks=pytest.mark.slow) for p in PROFILES])
async def test_every_feature_answers_on_the_record(profile, tmp_path_factory):
    root = copy_records(tmp_path_factory.mktemp("rec") / "r")
    path = root / "records" / "theory" / "THEORY-798.md"
    text = path.read_text(encoding="utf-8")
    async with lsp_client(root, profile) as client:
        u = open_doc(client, path)
        doc = lsp.TextDocumentIdentifier(uri=u)
        at = _pos(text, "THEORY-175")
        hov = await client.text_document_hover_async(lsp.HoverParams(text_document=doc, position=at))
        assert "THEORY-175" in hov.contents.value and "Standing" in hov.contents.value
        got = await client.text_document_definition_async(lsp.DefinitionParams(text_document=doc, position=at))
        assert got[0].uri == uri(root / "records" / "theory" / "THEORY-175.md")
        refs = await client.text_document_references_async(lsp.ReferenceParams(
            text_document=doc, position=at, context=lsp.ReferenceContext(include_declaration=False)))
        assert any(r.uri == u for r in refs)
        comp = await client.text_document_completion_async(lsp.CompletionParams(
            text_document=doc, position=_pos(text, "extends: [THEORY-175", len("extends: ["))))
        labels = [i.label for i in comp.items]
        assert labels and all(x.startswith("THEORY-") for x in labels) and "THEORY-798" not in labels
        syms = await client.text_document_document_symbol_async(lsp.DocumentSymbolParams(text_document=doc))
        assert any(s.name == "What is asserted" for s in syms)
        ws = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query="THEORY-17"))
        assert any(s.name.startswith("THEORY-175") for s in ws)
        prep = await client.text_document_prepare_rename_async(lsp.PrepareRenameParams(text_document=doc, position=at))
        assert prep is not None
        with pytest.raises(Exception, match="exists already"):
            await client.text_document_rename_async(lsp.RenameParams(text_document=doc, position=at,
                                                                     new_name="THEORY-798"))
        edit = await client.text_document_rename_async(lsp.RenameParams(text_document=doc, position=at,
                                                                        new_name="THEORY-176"))
        assert any(isinstance(c, lsp.RenameFile) for c in edit.document_changes)
        hints = await client.text_document_inlay_hint_async(lsp.InlayHintParams(
            text_document=doc, range=lsp.Range(start=lsp.Position(line=0, character=0),
                                               end=lsp.Position(line=30, character=0))))
        assert hints and "blocked" in hints[0].label
        lenses = await client.text_document_code_lens_async(lsp.CodeLensParams(text_document=doc))
        assert lenses and "Mentioned by" in lenses[0].command.title
        calls = await client.text_document_prepare_call_hierarchy_async(lsp.CallHierarchyPrepareParams(
            text_document=doc, position=at))
        inc = await client.call_hierarchy_incoming_calls_async(lsp.CallHierarchyIncomingCallsParams(item=calls[0]))
        assert any(c.from_.name == "THEORY-798" for c in inc)
        dangling = text.replace("source: [LIT-849]", "source: [LIT-894]", 1)
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=u, version=2),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=dangling)]))
        at = _pos(dangling, "LIT-894")
        acts = await client.text_document_code_action_async(lsp.CodeActionParams(
            text_document=doc, range=lsp.Range(start=at, end=at), context=lsp.CodeActionContext(diagnostics=[])))
        assert "Did you mean LIT-849?" in [a.title for a in acts]
        disabled = [a for a in acts if a.disabled is not None]      # (a LIT needs authors: not made up)
        assert [a.title for a in disabled] == (["Create a LIT from its skeleton (for LIT-894)"]
                                               if profile == "visual-studio-code" else [])
        ran = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
            command="recordkit.runCheck", arguments=["var-diff-identity"]))
        assert ran["verdict"] == "pass"
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(    # (back to the text on disk)
            text_document=lsp.VersionedTextDocumentIdentifier(uri=u, version=3),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)]))
        if profile == "visual-studio-code":     # (the one profile that declares willRenameFiles)
            old = root / "records" / "lit" / "LIT-849.md"
            moved = await client.workspace_will_rename_files_async(lsp.RenameFilesParams(files=[lsp.FileRename(
                old_uri=uri(old), new_uri=uri(old.with_name("LIT-850.md")))]))
            assert moved and any(e.new_text.endswith("50") for c in moved.document_changes for e in c.edits)


@pytest.mark.parametrize("preset", PRESETS)
async def test_definition_hover_and_completion_in_each_vault(preset, tmp_path_factory):
    """On a link the preset resolves (a wikilink by file name, title or
    alias, a Dendron hierarchy name, a MADR Markdown link): definition,
    hover and references through the server; ``[[`` completion where the
    preset writes wikilinks."""
    from featurekit import snap_of
    root = copy_vault(preset, tmp_path_factory.mktemp(preset) / "vault")
    local = snap_of(root)
    rec, m = next((r, m) for r in sorted(local.corpus.records.values(), key=lambda r: r.relpath)
                  for m in r.mentions if m.target in local.corpus.records and m.target != r.id)
    target = local.corpus.records[m.target]
    async with lsp_client(root, "neovim") as client:
        u = open_doc(client, rec.path)
        doc = lsp.TextDocumentIdentifier(uri=u)
        at = lsp.Position(line=m.line - 1, character=m.col + 1)
        got = await client.text_document_definition_async(lsp.DefinitionParams(text_document=doc, position=at))
        assert [x.uri for x in got] == [uri(target.path)]
        hov = await client.text_document_hover_async(lsp.HoverParams(text_document=doc, position=at))
        assert target.id in hov.contents.value
        refs = await client.text_document_references_async(lsp.ReferenceParams(
            text_document=doc, position=at, context=lsp.ReferenceContext(include_declaration=False)))
        assert any(r.uri == u and r.range.start.line == m.line - 1 for r in refs)
        if m.form == "wikilink":
            comp = await client.text_document_completion_async(lsp.CompletionParams(
                text_document=doc, position=lsp.Position(line=m.line - 1, character=m.col + 1)))
            assert comp.items


async def test_run_check_cancelled_through_the_server(tmp_path):
    """A long check run by the "Run check" command stops when the client
    cancels its work-done progress: the answer says cancelled within ~1 s."""
    import asyncio
    import time
    root = tmp_path / "r"
    (root / "records" / "note").mkdir(parents=True)
    (root / "recordkit.toml").write_text('root = "records"\n', encoding="utf-8")
    (root / "records" / "note" / "NOTE-001.md").write_text(
        "---\nid: NOTE-001\ntitle: Long\nstatus: draft\n---\n\n```python check id=slow tolerance=1 timeout=20\n"
        "import time\ntime.sleep(20)\nerror = 0\n```\n", encoding="utf-8")
    async with lsp_client(root, "visual-studio-code") as client:
        task = asyncio.ensure_future(client.workspace_execute_command_async(lsp.ExecuteCommandParams(
            command="recordkit.runCheck", arguments=["slow"])))
        token = None
        for _ in range(200):
            token = next((t for t, vs in client.progress_reports.items()
                          if any(getattr(v, "message", None) == "running slow" for v in vs)), None)
            if token is not None:
                break
            await asyncio.sleep(0.05)
        assert token is not None, client.progress_reports
        await asyncio.sleep(0.5)                    # (the check's process is running)
        t0 = time.monotonic()
        client.window_work_done_progress_cancel(lsp.WorkDoneProgressCancelParams(token=token))
        got = await asyncio.wait_for(task, 10)
        assert got["verdict"] == "cancelled" and time.monotonic() - t0 < 1.5
