"""The server's engine: documents in, diagnostics out, off the event loop.

One :class:`Engine` per server.  The event loop only records what the
client says (a text, a version, where the last edit ended) and arms
timers; the lint runs in the :class:`~recordkit.lsp.scheduling.Worker`
thread on a :class:`~recordkit.lsp.workspace.Snapshot`:

1. after the debounce, the edited document's own diagnostics: the record
   rules on that record and the loader's findings
   (:func:`recordkit.lint.files.lint_files`), with the corpus-scope
   rules' last findings for that file;
2. the other open documents the edit may concern, chosen by the lint's
   ``about`` keys (:mod:`recordkit.lint.involve`): those with a
   diagnostic about a key the edited file holds or held, those it points
   at, those pointing at it;
3. once the edits settle, the corpus-scope rules (duplicate ids, cycles,
   isolated records, query blocks) over the snapshot, and every open
   document whose findings changed.
"""
from __future__ import annotations

import asyncio
import logging
import threading
import time
from pathlib import Path

from lsprotocol import types

from .diagnostics import RuleDocs, convert, held_back, result_id
from .positions import Encoding
from .scheduling import Worker
from .settings import Settings
from .workspace import Workspace, path_of, uri_of

log = logging.getLogger(__name__)
#: seconds of quiet after the last edit before the corpus-scope rules run again
SETTLE_S = 0.4
#: seconds a burst of file events is gathered for before it is read
EVENTS_S = 0.1


class Engine:
    def __init__(self, server, default_root: Path | None = None):
        self.server = server
        self.default_root = default_root
        self.settings = Settings()
        self.workspace = Workspace(settings=self.settings)
        self.worker = Worker()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.docs: RuleDocs | None = None
        self.push = True
        self.refresh_support = False
        self.ready = threading.Event()
        self.timers: dict[str, asyncio.TimerHandle] = {}
        self.cursor: dict[str, types.Position] = {}
        #: uri -> (version, diagnostics) last published or answered
        self.reports: dict[str, tuple] = {}
        #: the corpus-scope rules' findings by path, and the generation they were found at
        self.corpus_part: dict[Path, list] = {}
        self.corpus_generation = -1
        self.pending_paths: set[Path] = set()
        #: files changed on disk are being read into the record (the worker is busy with them)
        self.reloading = False
        self.watcher = None
        self.timings: dict[str, float] = {}

    # -- start ---------------------------------------------------------------
    @staticmethod
    def path_of(uri: str) -> Path:
        return path_of(uri)

    def initialize(self, params: types.InitializeParams) -> None:
        t0 = time.perf_counter()
        self.loop = asyncio.get_running_loop()
        folder = self.default_root
        if params.workspace_folders:
            folder = path_of(params.workspace_folders[0].uri)
        elif params.root_uri:
            folder = path_of(params.root_uri)
        elif params.root_path:
            folder = Path(params.root_path)
        enc = Encoding(self.server.workspace.position_encoding)
        self.workspace.setup(Path(folder or Path.cwd()), enc)
        self.settings.update(params.initialization_options)
        caps = params.capabilities
        pull = bool(caps.text_document and caps.text_document.diagnostic)
        mode = self.settings.diagnostics
        self.push = mode == "push" or (mode == "auto" and not pull)
        ws_caps = caps.workspace
        self.refresh_support = bool(ws_caps and ws_caps.diagnostics and ws_caps.diagnostics.refresh_support)
        self.docs = RuleDocs(self.workspace.config.cache_dir)
        self.timings["initialize"] = time.perf_counter() - t0

    def initialized(self) -> None:
        caps = self.server.client_capabilities
        self.loop.create_task(self._index(caps))

    async def _index(self, caps) -> None:
        progress = None
        if caps.window and caps.window.work_done_progress:
            progress = "recordkit-index"
            try:
                await self.server.work_done_progress.create_async(progress)
                self.server.work_done_progress.begin(progress, types.WorkDoneProgressBegin(
                    title="recordkit", message="reading the record", cancellable=False))
            except Exception:   # a client that refused the token: no progress shown
                progress = None
        t0 = time.perf_counter()
        try:
            await asyncio.wrap_future(self.worker.submit("load", self.workspace.load))
        except Exception as exc:
            log.exception("loading the record failed")
            self.server.window_show_message(types.ShowMessageParams(types.MessageType.Error,
                                                                    f"recordkit: cannot read the record: {exc}"))
        self.timings["ready"] = time.perf_counter() - t0
        if progress:
            n = len(self.workspace.base.files) if self.workspace.base is not None else 0
            self.server.work_done_progress.end(progress, types.WorkDoneProgressEnd(message=f"{n} files read"))
        self.ready.set()
        self.server.window_log_message(types.LogMessageParams(
            types.MessageType.Info, f"recordkit: record ready in {self.timings['ready']:.2f} s"))
        self._watch(caps)
        self.relint_open()

    def _watch(self, caps) -> None:
        ws = caps.workspace
        if ws and ws.did_change_watched_files and ws.did_change_watched_files.dynamic_registration:
            watchers = [types.FileSystemWatcher(glob_pattern=g)
                        for g in ("**/*.md", "**/*.py", "**/recordkit.toml", "**/pyproject.toml", "**/*.schema.yaml")]
            reg = types.Registration(id="recordkit-watch", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                     register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers))
            self.server.client_register_capability(types.RegistrationParams([reg]))
            return
        from .watching import DiskWatcher
        self.watcher = DiskWatcher(self.workspace, self._from_thread(self.disk_changed)).start()

    def _from_thread(self, fn):
        def call(*args):
            self.loop.call_soon_threadsafe(fn, *args)
        return call

    def shutdown(self) -> None:
        ahead, self.workspace.preload = self.workspace.preload, None
        if ahead is not None:
            ahead.helper.stop()
        if self.watcher is not None:
            self.watcher.stop()
        self.worker.stop()

    def configure(self, raw) -> None:
        for problem in self.settings.update(raw):
            self.server.window_show_message(types.ShowMessageParams(types.MessageType.Warning, f"recordkit: {problem}"))
        self.relint_open()

    # -- documents -------------------------------------------------------------
    def _text(self, uri: str):
        doc = self.server.workspace.get_text_document(uri)
        return doc.source, doc.version

    def did_open(self, uri: str) -> None:
        text, version = self._text(uri)
        self.workspace.open(uri, text, version)
        self.schedule(uri, 0)

    def did_change(self, uri: str, changes) -> None:
        text, version = self._text(uri)
        self.workspace.change(uri, text, version)
        self.cursor[uri] = _end_of(changes[-1], text, self.workspace.encoding) if changes else None
        if self.settings.lint_on == "type":
            self.schedule(uri, self.settings.debounce_ms / 1000)

    def did_save(self, uri: str) -> None:
        self.cursor.pop(uri, None)
        self.schedule(uri, 0)

    def did_close(self, uri: str) -> None:
        self.workspace.close(uri)
        self.cursor.pop(uri, None)
        timer = self.timers.pop(uri, None)
        if timer is not None:
            timer.cancel()
        self.reports.pop(uri, None)
        if self.push:
            self.server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    # -- diagnostics -------------------------------------------------------------
    def schedule(self, uri: str, delay: float) -> None:
        old = self.timers.pop(uri, None)
        if old is not None:
            old.cancel()
        if not self.settings.enabled("diagnostics"):
            return
        self.timers[uri] = self.loop.call_later(delay, self._submit, uri)

    def _submit(self, uri: str) -> None:
        self.timers.pop(uri, None)
        if not self.ready.is_set():
            return   # relint_open() runs once the record is read
        doc = self.workspace.documents.get(uri)
        if doc is None:
            return
        version = doc.version

        def still_wanted():
            cur = self.workspace.documents.get(uri)
            return cur is not None and cur.version == version
        self.worker.submit("lint:" + uri, lambda: self._lint_edit(uri), still_wanted)

    def relint_open(self) -> None:
        for uri in list(self.workspace.documents):
            self.schedule(uri, 0)
        self._settle()

    def diagnostics_of(self, snap, uris) -> dict[str, list[types.Diagnostic]]:
        """The diagnostics of documents ``uris`` in ``snap`` (open or on disk)."""
        from ..corpus.model import Diagnostic
        from ..lint.files import lint_files
        out: dict[str, list] = {}
        if snap.corpus is None:
            return {u: [] for u in uris}
        docs = {u: snap.document(u) for u in uris}
        paths = [d.path for d in docs.values() if d is not None]
        found = lint_files(snap.corpus, paths, ctx=snap.lint_context(), corpus_rules=False)
        for uri, doc in docs.items():
            if doc is None:
                out[uri] = []
                continue
            diags = found.get(doc.path, []) + self.corpus_part.get(doc.path, [])
            diags.sort(key=Diagnostic.sort_key)
            got = convert(diags, doc.text, snap.encoding, snap.corpus, self.docs)
            out[uri] = held_back(got, self.cursor.get(uri))
        return out

    def _lint_edit(self, uri: str) -> None:
        """The worker's job after an edit: the document, then the open
        documents the edit concerns."""
        t0 = time.perf_counter()
        snap = self.workspace.snapshot()
        own = self.diagnostics_of(snap, [uri])
        self._publish(snap, own)
        self.timings["own"] = time.perf_counter() - t0
        others = self._concerned(snap, uri)
        if others:
            self._publish(snap, self.diagnostics_of(snap, others), inter_file=True)
        self.timings["others"] = time.perf_counter() - t0
        self._from_thread(self._settle)()

    def _concerned(self, snap, uri: str) -> list[str]:
        """The other open documents whose diagnostics an edit of ``uri``
        may change, by the lint's ``about`` keys."""
        from ..lint.involve import links_key, record_keys
        path = path_of(uri)
        keys: set[str] = set()
        for corpus in (snap.base, snap.corpus):
            rec = corpus.by_path(path) if corpus is not None else None
            if rec is not None:
                keys |= record_keys(rec, snap.schema)
        ids = {k for k in keys if not k.startswith(("<-", "check:"))}
        keys |= {links_key(i) for i in ids}
        out = []
        for other, doc in snap.documents.items():
            if other == uri:
                continue
            rec = snap.corpus.by_path(doc.path)
            held = record_keys(rec, snap.schema) if rec is not None else set()
            about = set()
            for d in self.reports.get(other, (None, []))[1]:
                about.update(self._about_of(d))
            if held & keys or about & keys or (rec is not None and links_key(rec.id) in keys):
                out.append(other)
        return out

    @staticmethod
    def _about_of(d) -> tuple:
        data = d.data if isinstance(d.data, dict) else {}
        return tuple(data.get("about") or ())

    def _settle(self) -> None:
        """Arm the corpus-scope rules for when the edits settle."""
        old = self.timers.pop("$settle", None)
        if old is not None:
            old.cancel()
        self.timers["$settle"] = self.loop.call_later(SETTLE_S, lambda: self.worker.submit("settle", self._corpus_pass))

    def _corpus_pass(self) -> None:
        from ..lint.files import corpus_findings
        snap = self.workspace.snapshot()
        if snap.corpus is None or snap.generation == self.corpus_generation:
            return
        t0 = time.perf_counter()
        found = corpus_findings(snap.corpus, ctx=snap.lint_context())
        changed = {p for p in set(found) | set(self.corpus_part) if _key(found.get(p)) != _key(self.corpus_part.get(p))}
        self.corpus_part = found
        self.corpus_generation = snap.generation
        self.timings["corpus"] = time.perf_counter() - t0
        uris = [u for u, d in snap.documents.items() if d.path in changed]
        if uris:
            self._publish(snap, self.diagnostics_of(snap, uris), inter_file=True)

    def _publish(self, snap, got: dict, inter_file: bool = False) -> None:
        changed = False
        for uri, diags in got.items():
            doc = snap.documents.get(uri)
            version = doc.version if doc is not None else None
            old = self.reports.get(uri)
            if old is not None and old[1] == diags and old[0] == version:
                continue
            self.reports[uri] = (version, diags)
            changed = True
            if self.push:
                params = types.PublishDiagnosticsParams(uri=uri, diagnostics=diags, version=version)
                self._from_thread(self.server.text_document_publish_diagnostics)(params)
        if changed and inter_file and not self.push and self.refresh_support:
            self._from_thread(self.server.workspace_diagnostic_refresh)(None)

    async def pull(self, uri: str, previous: str | None):
        if not self.ready.is_set():
            await self.loop.run_in_executor(None, self.ready.wait, 30)
        if self.reloading and uri in self.reports:
            # files changed on disk are being read (a checkout): the last
            # report now, not after the reload; a refresh or a push follows
            diags = self.reports[uri][1]
        else:
            fut = self.worker.submit("pull:" + uri,
                                     lambda: self.diagnostics_of(self.workspace.snapshot(), [uri])[uri])
            diags = await asyncio.wrap_future(fut)
        if diags is None:
            diags = []
        rid = result_id(diags)
        if previous == rid:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=rid)
        return types.RelatedFullDocumentDiagnosticReport(items=diags, result_id=rid)

    async def pull_workspace(self, previous):
        """``workspace/diagnostic``: the whole record's lint, from the lint cache when nothing changed."""
        if not self.ready.is_set():
            await self.loop.run_in_executor(None, self.ready.wait, 30)
        prev = {p.uri: p.value for p in previous or ()}
        fut = self.worker.submit("workspace", lambda: self._whole(prev))
        items = await asyncio.wrap_future(fut)
        return types.WorkspaceDiagnosticReport(items=items or [])

    def _whole(self, prev: dict) -> list:
        from ..lint.engine import lint_root
        snap = self.workspace.snapshot()
        result = lint_root(snap.config)
        by_path: dict[Path, list] = {}
        for d in result.diagnostics:
            by_path.setdefault(Path(d.path), []).append(d)
        items = []
        for path, diags in sorted(by_path.items(), key=lambda kv: str(kv[0])):
            uri = uri_of(path)
            if uri in snap.documents:
                continue   # an open document is reported by textDocument/diagnostic
            try:
                text = path.read_bytes().decode("utf-8")
            except (OSError, UnicodeDecodeError):
                text = ""
            got = convert(diags, text, snap.encoding, snap.corpus, self.docs)
            rid = result_id(got)
            if prev.get(uri) == rid:
                items.append(types.WorkspaceUnchangedDocumentDiagnosticReport(uri=uri, result_id=rid, version=None))
            else:
                items.append(types.WorkspaceFullDocumentDiagnosticReport(uri=uri, items=got, result_id=rid,
                                                                         version=None))
        return items

    # -- the disk ---------------------------------------------------------------
    def disk_changed(self, paths: set[Path]) -> None:
        """Files changed on disk: gathered for a moment, then read at once."""
        self.pending_paths |= set(paths)
        old = self.timers.pop("$disk", None)
        if old is not None:
            old.cancel()
        self.timers["$disk"] = self.loop.call_later(EVENTS_S, self._read_disk)

    def _read_disk(self) -> None:
        self.timers.pop("$disk", None)
        paths, self.pending_paths = self.pending_paths, set()
        if not paths or not self.ready.is_set():
            return
        config_changed = any(p.name in ("recordkit.toml", "pyproject.toml") or p.name.endswith(".schema.yaml")
                             for p in paths)

        def read():
            t0 = time.perf_counter()
            self.reloading = True
            try:
                if config_changed:
                    self.workspace.setup(self.workspace.root, self.workspace.encoding)
                    self.workspace.load()
                    how = "configuration changed: record read again"
                else:
                    how = "record read again" if self.workspace.files_changed(paths) else "parsed again"
            finally:
                self.reloading = False
            self.timings["disk"] = time.perf_counter() - t0
            self.server.window_log_message(types.LogMessageParams(
                types.MessageType.Log, f"recordkit: {len(paths)} files changed on disk: {how} "
                                       f"in {self.timings['disk']:.2f} s"))
            self._from_thread(self.relint_open)()
            if not self.push and self.refresh_support:
                self._from_thread(self.server.workspace_diagnostic_refresh)(None)
        self.worker.submit("disk", read)


def _key(diags) -> list:
    return [(d.code, d.line, d.col, d.end_line, d.end_col, d.message) for d in diags or ()]


def _end_of(change, text: str, enc) -> types.Position | None:
    """Where an edit left the cursor: the end of the text it inserted."""
    rng = getattr(change, "range", None)
    if rng is None:
        return None
    from .positions import Lines
    lines = Lines(text, enc)
    start = lines.offset(rng.start)
    return lines.position(start + len(change.text))
