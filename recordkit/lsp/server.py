"""``recordkit lsp``: the language server (pygls 2).

``initialize`` is answered from imports alone; the record is loaded after
``initialized``, in the worker thread, with ``$/progress``.  Text sync is
incremental (pygls keeps the texts); each change is kept in the
:class:`~recordkit.lsp.workspace.Workspace` and linted, after the debounce,
by the worker (:mod:`recordkit.lsp.scheduling`).  Diagnostics are pushed
(``publishDiagnostics``, cleared on close) to a client that does not pull,
and pulled (``textDocument/diagnostic`` with ``resultId``,
``workspace/diagnostic``) by one that does.  Files changed on disk come
from ``workspace/didChangeWatchedFiles`` (registered dynamically when the
client can) or from watching the record (:mod:`recordkit.lsp.watching`).
The language features are registered last, by
:func:`recordkit.lsp.features.register`.
"""
from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from ..version import __version__
from .engine import Engine

log = logging.getLogger(__name__)


def make_server(root: Path | None = None) -> LanguageServer:
    """The server, its handlers registered.  ``root``: the folder whose
    configuration names the record, when the client names no workspace."""
    server = LanguageServer("recordkit", __version__,
                            text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
    engine = Engine(server, default_root=root)
    server.recordkit = engine          # (what the features and the tests reach)

    @server.feature(types.INITIALIZE)
    def initialize(params: types.InitializeParams):
        engine.initialize(params)

    @server.feature(types.INITIALIZED)
    def initialized(params: types.InitializedParams):
        engine.initialized()

    @server.feature(types.SHUTDOWN)
    def shutdown(params):
        engine.shutdown()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(params: types.DidOpenTextDocumentParams):
        engine.did_open(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(params: types.DidChangeTextDocumentParams):
        engine.did_change(params.text_document.uri, params.content_changes)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(params: types.DidSaveTextDocumentParams):
        engine.did_save(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(params: types.DidCloseTextDocumentParams):
        engine.did_close(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DIAGNOSTIC,
                    types.DiagnosticOptions(identifier="recordkit", inter_file_dependencies=True,
                                            workspace_diagnostics=True))
    async def diagnostic(params: types.DocumentDiagnosticParams):
        return await engine.pull(params.text_document.uri, params.previous_result_id)

    @server.feature(types.WORKSPACE_DIAGNOSTIC)
    async def workspace_diagnostic(params: types.WorkspaceDiagnosticParams):
        return await engine.pull_workspace(params.previous_result_ids)

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(params: types.DidChangeWatchedFilesParams):
        engine.disk_changed({engine.path_of(c.uri) for c in params.changes})

    @server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
    def configuration(params: types.DidChangeConfigurationParams):
        engine.configure(params.settings)

    from . import features
    features.register(server, engine.workspace)
    return server


def serve_stdio(root: Path | None = None) -> None:
    make_server(root).start_io()


def serve_tcp(port: int, root: Path | None = None) -> None:
    make_server(root).start_tcp("127.0.0.1", port)


__all__ = ["make_server", "serve_stdio", "serve_tcp", "asyncio"]
