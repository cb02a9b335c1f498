"""The language features, registered on the server by :func:`register`.

Each handler takes ``snap = workspace.snapshot()`` and calls a plain
function of one module (``completion``, ``hover``, ``definition``,
``symbols``, ``hierarchy``, ``rename``, ``actions``, ``lenses``,
``queries``), which the tests call without a server.  Handlers run in
pygls's thread pool (never on the event loop, which keeps reading the
client's messages); before the record is read they answer nothing.
"""
from __future__ import annotations

import asyncio
import threading
import uuid

from lsprotocol import types as lsp


#: LSP's error code of a request that was valid but failed (a refused rename)
REQUEST_FAILED = -32803


def _ready(workspace):
    snap = workspace.snapshot()
    return snap if getattr(snap, "ready", True) and snap.corpus is not None else None


def register(server, workspace) -> None:
    """Register every feature handler on ``server`` (each asks ``workspace.snapshot()``)."""
    from . import actions, completion, definition, hierarchy, hover, lenses, rename, symbols
    from .carry import Carry
    carry = Carry()     # (what one snapshot's features kept, carried to the next: see carry.py)

    def on(method, options=None, plain=None):
        """A threaded handler of ``method`` answering ``plain(snap, params)`` (None before the record is read)."""
        def handler(params):
            snap = _ready(workspace)
            if snap is None:
                return None
            carry.prepare(snap)
            return plain(snap, params)
        handler.__name__ = "rk_" + method.replace("/", "_").replace("$", "")
        server.thread()(handler)
        if options is None:
            server.feature(method)(handler)
        else:
            server.feature(method, options)(handler)

    td = lambda p: p.text_document.uri  # noqa: E731
    on(lsp.TEXT_DOCUMENT_COMPLETION,
       lsp.CompletionOptions(trigger_characters=completion.TRIGGERS, resolve_provider=True),
       lambda s, p: completion.complete(s, td(p), p.position))
    on(lsp.COMPLETION_ITEM_RESOLVE, None, lambda s, p: completion.resolve(s, p))
    on(lsp.TEXT_DOCUMENT_HOVER, None, lambda s, p: hover.hover(s, td(p), p.position))
    on(lsp.TEXT_DOCUMENT_DEFINITION, None, lambda s, p: definition.definition(s, td(p), p.position))
    on(lsp.TEXT_DOCUMENT_REFERENCES, None, lambda s, p: definition.references(
        s, td(p), p.position, bool(p.context and p.context.include_declaration)))
    on(lsp.TEXT_DOCUMENT_DOCUMENT_LINK, None, lambda s, p: definition.document_links(s, td(p)))
    on(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL, None, lambda s, p: symbols.document_symbols(s, td(p)))
    on(lsp.WORKSPACE_SYMBOL, None, lambda s, p: symbols.workspace_symbols(s, p.query))
    on(lsp.TEXT_DOCUMENT_PREPARE_CALL_HIERARCHY, None, lambda s, p: hierarchy.prepare_call(s, td(p), p.position))
    on(lsp.CALL_HIERARCHY_INCOMING_CALLS, None, lambda s, p: hierarchy.incoming_calls(s, p.item))
    on(lsp.CALL_HIERARCHY_OUTGOING_CALLS, None, lambda s, p: hierarchy.outgoing_calls(s, p.item))
    on(lsp.TEXT_DOCUMENT_PREPARE_TYPE_HIERARCHY, None, lambda s, p: hierarchy.prepare_type(s, td(p), p.position))
    on(lsp.TYPE_HIERARCHY_SUPERTYPES, None, lambda s, p: hierarchy.supertypes(s, p.item))
    on(lsp.TYPE_HIERARCHY_SUBTYPES, None, lambda s, p: hierarchy.subtypes(s, p.item))
    on(lsp.TEXT_DOCUMENT_PREPARE_RENAME, None, lambda s, p: rename.prepare_rename(s, td(p), p.position))
    on(lsp.TEXT_DOCUMENT_RENAME, None, lambda s, p: _refusable(rename.rename, s, td(p), p.position, p.new_name))
    on(lsp.WORKSPACE_WILL_RENAME_FILES,
       lsp.FileOperationRegistrationOptions(filters=[lsp.FileOperationFilter(
           pattern=lsp.FileOperationPattern(glob="**/*.md"))]),
       lambda s, p: rename.will_rename_files(s, p))
    on(lsp.TEXT_DOCUMENT_CODE_ACTION,
       lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix, lsp.CodeActionKind.RefactorRewrite,
                                                actions.FIX_ALL]),
       lambda s, p: _shown(server, actions.code_actions(s, td(p), p.range, list(p.context.diagnostics or []),
                                                        list(p.context.only) if p.context.only else None)))
    on(lsp.TEXT_DOCUMENT_CODE_LENS, None, lambda s, p: lenses.code_lenses(s, td(p)))
    on(lsp.TEXT_DOCUMENT_INLAY_HINT, None, lambda s, p: lenses.inlay_hints(s, td(p), p.range))

    @server.command(lenses.RUN_CHECK)
    async def run_check(*args):
        """Run one check (argument: its id) with work-done progress; the client may cancel it."""
        cid = args[0] if args and isinstance(args[0], str) else (args[0][0] if args and args[0] else None)
        snap = _ready(workspace)
        if snap is None or not cid:
            return None
        token = f"recordkit-check-{uuid.uuid4().hex[:8]}"
        progress = server.work_done_progress
        try:
            await progress.create_async(token)
        except Exception:      # a client without work-done progress: run without it
            token = None
        if token:
            progress.begin(token, lsp.WorkDoneProgressBegin(title=f"recordkit check {cid}", cancellable=True))

        def report(msg):
            if token:
                progress.report(token, lsp.WorkDoneProgressReport(message=msg))

        stop = threading.Event()        # ($/cancelRequest: the task is cancelled, the thread told)

        def cancelled():
            fut = progress.tokens.get(token) if token else None
            return stop.is_set() or bool(fut is not None and fut.cancelled())
        try:
            got = await asyncio.to_thread(lenses.run_check, snap, cid, report=report, cancelled=cancelled)
        except lenses.Cancelled:
            got = {"id": cid, "verdict": "cancelled"}
        except asyncio.CancelledError:
            stop.set()                  # (the running check is stopped within ~50 ms)
            raise
        finally:
            if token:
                progress.end(token, lsp.WorkDoneProgressEnd(message=f"{cid} done"))
        refresh = getattr(server, "workspace_code_lens_refresh", None)
        if refresh is not None:
            try:
                refresh(None)
            except Exception:    # a client that does not refresh lenses
                pass
        return got


def _shown(server, got):
    """The code actions a client can show: a disabled one (with its reason)
    only to a client that declares ``disabledSupport``."""
    caps = getattr(server, "client_capabilities", None)
    ca = getattr(getattr(caps, "text_document", None), "code_action", None)
    if got and not getattr(ca, "disabled_support", False):
        got = [a for a in got if getattr(a, "disabled", None) is None]
    return got


def _refusable(fn, *args):
    """``fn(*args)``; a refused rename becomes the request's error, with the library's reason."""
    from pygls.exceptions import JsonRpcException
    from .rename import RenameRefused
    try:
        return fn(*args)
    except RenameRefused as exc:
        raise JsonRpcException(str(exc), code=REQUEST_FAILED) from None
