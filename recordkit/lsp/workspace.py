"""What the server knows: the record on disk, the editor's open documents,
and immutable snapshots of both for one request.

:class:`Workspace` holds the configuration, the loaded corpus (``base``:
the record as it is on disk, loaded once with the store of parsed records
and the lint's local rules, then kept up to date from file events), the
open documents and the files changed on disk.  :meth:`Workspace.snapshot`
gives a :class:`Snapshot`: the record with every open document's unsaved
text applied (``corpus.loader.with_texts``), made once per state and
shared by every request until a document or a file changes.  A snapshot
never changes; what it computes (the graph, the lifecycle, the lint's
shared analyses) is kept on it.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from pygls.uris import from_fs_path, to_fs_path

from .positions import Encoding


#: files changed on disk read as edits of the record (each parsed again), at most; more: a load
EDITS_AT_MOST = 5000


@dataclass(frozen=True)
class Document:
    """One text: open in the editor (``version`` the editor's), or read
    from disk (``version`` None)."""
    uri: str
    path: Path
    text: str
    version: int | None = None


def path_of(uri: str) -> Path:
    fs = to_fs_path(uri)
    return Path(fs if fs is not None else uri)


def uri_of(path) -> str:
    return from_fs_path(str(path)) or str(path)


class Snapshot:
    """An immutable view of the record for one request (see the module)."""

    def __init__(self, workspace: "Workspace", base, documents: dict[str, Document], generation: int):
        self.workspace = workspace
        self.base = base
        self.documents = documents
        self.generation = generation
        self.config = workspace.config
        self.schema = workspace.schema
        self.root: Path = workspace.root
        self.encoding: Encoding = workspace.encoding
        self.check_results = workspace.check_results
        self._lock = threading.Lock()
        self._corpus = None
        #: (the lint context of the snapshot this one's record was made from,
        #: the (old, new) records of the files edited since): what
        #: :meth:`lint_context` carries over
        self._carry: tuple | None = None

    @property
    def corpus(self):
        """The record with every open document's unsaved text applied."""
        got = self._corpus
        if got is None:
            with self._lock:
                got = self._corpus
                if got is None:
                    got = self._corpus = self._applied()
        return got

    def _applied(self):
        base = self.base
        if base is None:
            return None
        texts = {}
        for doc in self.documents.values():
            rec = base.by_path(doc.path)
            if rec is None:
                if self.workspace.is_record_path(doc.path):
                    texts[doc.path] = doc.text
            elif doc.text != self.workspace.disk_text(rec):
                texts[rec.path] = doc.text
        last = self.workspace.applied
        corpus = base if not texts else None
        if corpus is None and last is not None and last.base is base:
            corpus = self._edited(last, texts)
        if corpus is None:
            from ..corpus.loader import with_texts
            corpus = with_texts(base, texts, add=True)
        self.workspace.remember(Applied(base, texts, corpus, self), self.generation)
        return corpus

    def _edited(self, last: "Applied", texts: dict):
        """The record of ``texts`` made from ``last`` (the record of an
        earlier snapshot on the same ``base``) by parsing again only the
        files whose text changed since (``corpus.loader.with_edits``); None
        when that cannot be done (a note not saved yet, an edit that changes
        what a vault's links match)."""
        from ..corpus.loader import with_edits
        changed = {p: t for p, t in texts.items() if last.texts.get(p) != t}
        for p in last.texts:
            if p not in texts:
                rec = last.base.by_path(p)
                if rec is None:
                    return None
                changed[p] = self.workspace.disk_text(rec)
        corpus = with_edits(last.corpus, changed)
        if corpus is not None:
            ctx = last.snapshot.__dict__.get("_lint_context")
            if ctx is not None and ctx.corpus is last.corpus:
                edits = [(last.corpus.by_path(p), corpus.by_path(p)) for p in changed]
                self._carry = (ctx, [(a, b) for a, b in edits if a is not b])
        return corpus

    @property
    def ready(self) -> bool:
        return self.base is not None

    def document(self, uri: str) -> Document | None:
        """The open document at ``uri``, else the file read from disk."""
        doc = self.documents.get(uri)
        if doc is not None:
            return doc
        path = path_of(uri)
        try:
            text = path.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        return Document(uri, path, text, None)

    def record(self, uri: str):
        corpus = self.corpus
        return None if corpus is None else corpus.by_path(path_of(uri))

    @staticmethod
    def uri_of(path) -> str:
        return uri_of(path)

    @staticmethod
    def path_of(uri: str) -> Path:
        return path_of(uri)

    def graph(self):
        """The record's graph (``recordkit.graph.of``), built on first ask."""
        from ..graph import of
        with self._lock_for("graph"):
            return of(self.corpus)

    @cached_property
    def _locks(self) -> dict:
        return {"graph": threading.Lock(), "lifecycle": threading.Lock(), "lint": threading.Lock()}

    def _lock_for(self, name: str):
        return self._locks[name]

    def lifecycle(self):
        """The lifecycle analysis of the snapshot's record, made once."""
        with self._lock_for("lifecycle"):
            got = self.__dict__.get("_lifecycle")
            if got is None:
                got = self.__dict__["_lifecycle"] = self.lint_context().lifecycle
            return got

    def lint_context(self):
        """The lint's :class:`~recordkit.lint.context.LintContext` of this
        snapshot: the analyses rules share, worked out once per snapshot."""
        corpus = self.corpus
        with self._lock_for("lint"):
            got = self.__dict__.get("_lint_context")
            if got is None:
                carry, self._carry = self._carry, None
                if corpus is not None and corpus is self.base:
                    got = self.workspace.base_context(corpus)
                elif carry is not None:
                    ctx, edits = carry
                    got = ctx.carried(corpus, edits) if edits else ctx
                else:
                    from ..lint.context import LintContext
                    got = LintContext(corpus, check_results=self.check_results)
                self.__dict__["_lint_context"] = got
            return got


@dataclass(frozen=True)
class Applied:
    """The record a snapshot made (``corpus``: ``base`` with the open
    documents' ``texts``), kept by the workspace for the next snapshot to
    start from (see :meth:`Snapshot._edited`)."""
    base: Any
    texts: dict
    corpus: Any
    snapshot: Snapshot


@dataclass
class Workspace:
    """The server's state (see the module).  Thread-safe: the event loop
    changes documents, the worker thread reads snapshots."""
    root: Path | None = None
    config: Any = None
    schema: Any = None
    encoding: Encoding = field(default_factory=Encoding)
    base: Any = None
    check_results: dict | None = None
    documents: dict = field(default_factory=dict)
    #: paths changed on disk and not yet read into ``base``
    changed: set = field(default_factory=set)
    generation: int = 0
    _snapshot: Snapshot | None = None
    _lock: threading.RLock = field(default_factory=threading.RLock)
    _disk: dict = field(default_factory=dict)
    #: the last record a snapshot made (:class:`Applied`) and the
    #: generation it was made at: where the next snapshot's starts from
    applied: Applied | None = None
    applied_generation: int = -1
    #: the record read ahead by a helper (:class:`recordkit.lsp.preload.Preload`), waited for by the first load
    preload: Any = None
    #: ``base``'s lint context (every snapshot without unsaved text shares it)
    _base_context: Any = None
    #: the server's settings (:class:`recordkit.lsp.settings.Settings`):
    #: what a feature asks before it answers (``settings.enabled("hover")``)
    settings: Any = None

    def setup(self, folder: Path, encoding: Encoding | None = None) -> None:
        """Find the record whose configuration ``folder`` names (as the
        command line does from there), at ``initialize``."""
        from ..config import load_config
        config = load_config(Path(folder))
        with self._lock:
            self.config = config
            self.root = Path(config.root).resolve()
            if encoding is not None:
                self.encoding = encoding
            self._bump()

    @classmethod
    def at(cls, folder: Path, encoding: Encoding | None = None) -> "Workspace":
        """The workspace of the record whose configuration ``folder`` finds."""
        ws = cls()
        ws.setup(folder, encoding)
        return ws

    # -- the record on disk ----------------------------------------------
    def load(self) -> None:
        """Load the record (through the store of parsed records: only the
        files changed since it saw them are parsed) and the stored check
        results.  The lint's local rules are not run at load, as ``recordkit
        lint`` runs them on every file: the server lints the documents
        opened, where :func:`recordkit.lint.files.lint_files` runs them
        (their results are not kept in the store, so running them at load
        was most of a warm start: 1-4 s at 10,000 records)."""
        from ..corpus.loader import load
        from ..numeric.store import load_results
        from ..schema import load_schema
        from ..runtime.batch import freeze, unfreeze
        ahead, self.preload = self.preload, None
        if ahead is not None:
            ahead.settle(self.root)      # the store, read ahead by a helper forked before any thread
        schema = load_schema(self.config.schema)
        unfreeze()                       # (what the last load froze may go once this one replaces it)
        corpus = load(self.root, config=self.config, schema=schema, store=True)
        results = load_results(corpus)
        # the record lives until the next load: out of every collection's
        # sight (a full collection walked its millions of objects, a pause
        # of 50-140 ms after an edit now and then at 10,000 records)
        freeze()
        with self._lock:
            self.schema = schema
            self.base = corpus
            self.check_results = results
            self._disk.clear()
            self.applied, self._base_context = None, None
            self._bump()

    def remember(self, applied: Applied, generation: int) -> None:
        """Keep ``applied`` for the next snapshot, unless a later one's is kept."""
        with self._lock:
            if generation > self.applied_generation and applied.base is self.base:
                self.applied, self.applied_generation = applied, generation

    def base_context(self, base):
        """The lint context of ``base`` (the record on disk), made once per base."""
        with self._lock:
            ctx = self._base_context
            if ctx is None or ctx.corpus is not base:
                from ..lint.context import LintContext
                ctx = self._base_context = LintContext(base, check_results=self.check_results)
            return ctx

    def is_record_path(self, path: Path) -> bool:
        """Whether the loader would read ``path`` (a ``.md`` file under the
        root, hidden by nothing, in no skipped or excluded folder)."""
        from ..corpus.loader import would_walk
        try:
            rel = Path(path).resolve().relative_to(self.root).as_posix()
        except ValueError:
            return False
        return would_walk(self.root, rel, self.config.exclude, self.config.skip_dirs)

    def disk_text(self, rec) -> str | None:
        """The text ``base`` holds for ``rec``, read once per base."""
        got = self._disk.get(rec.path)
        if got is None:
            try:
                got = rec.text
            except (OSError, UnicodeDecodeError, ValueError):
                got = ""
            self._disk[rec.path] = got
        return got

    def files_changed(self, paths) -> bool:
        """Read the files changed on disk into ``base``: files changed (up
        to :data:`EDITS_AT_MOST`, a ``git checkout`` of thousands) as one
        ``with_edits``, each parsed again (2,000 of 10,000 files: 0.5 s,
        where a load through the store took 1.1 s on two cores); a file
        created or deleted, or more changes, as one load with the store of
        parsed records.  Whether it loaded the record again."""
        if self.base is None:
            return False
        paths = {Path(p) for p in paths}
        with self._lock:
            base = self.base
        texts = {}
        reload = len(paths) > EDITS_AT_MOST
        for p in sorted(paths):
            if base.by_path(p) is None:
                if self.is_record_path(p) and p.exists():
                    reload = True
                continue
            try:
                texts[p] = p.read_bytes().decode("utf-8") if p.exists() else None
            except (OSError, UnicodeDecodeError):
                reload = True
        if reload:
            self.load()
            return True
        if not texts:
            return False
        from ..corpus.loader import with_edits
        # a record restored from the store reads the new text from its file
        # and knows it was not parsed from it (Source.parsed_from): parsed
        # again.  What with_edits cannot do (a file deleted, a vault's link
        # keys changed) is one load through the store
        new = with_edits(base, texts)
        if new is None:
            self.load()
            return True
        with self._lock:
            if self.base is base:
                self.base = new
                self.applied = None
                for p in texts:
                    self._disk.pop(p, None)
                self._bump()
        return False

    # -- the editor's documents --------------------------------------------
    def open(self, uri: str, text: str, version: int | None) -> Document:
        doc = Document(uri, path_of(uri), text, version)
        with self._lock:
            self.documents[uri] = doc
            self._bump()
        return doc

    def change(self, uri: str, text: str, version: int | None) -> Document:
        return self.open(uri, text, version)

    def close(self, uri: str) -> None:
        with self._lock:
            if self.documents.pop(uri, None) is not None:
                self._bump()

    def _bump(self) -> None:
        self.generation += 1
        self._snapshot = None

    def snapshot(self) -> Snapshot:
        """The current state as a :class:`Snapshot` (the same object until
        something changes)."""
        with self._lock:
            snap = self._snapshot
            if snap is None:
                snap = self._snapshot = Snapshot(self, self.base, dict(self.documents), self.generation)
            return snap
