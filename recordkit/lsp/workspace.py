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
        if not texts:
            return base
        from ..corpus.loader import with_texts
        return with_texts(base, texts, add=True)

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
        with self._lock_for("lint"):
            got = self.__dict__.get("_lint_context")
            if got is None:
                from ..lint.context import LintContext
                got = self.__dict__["_lint_context"] = LintContext(self.corpus, check_results=self.check_results)
            return got


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
        """Load the record (store of parsed records, the lint's local rules
        where each file is parsed) and the stored check results."""
        from ..corpus.loader import load
        from ..lint.engine import LocalRules, chosen_codes
        from ..numeric.store import load_results
        from ..schema import load_schema
        schema = load_schema(self.config.schema)
        analyze = LocalRules(schema, self.config, chosen_codes(self.config))
        corpus = load(self.root, config=self.config, schema=schema, analyze=analyze, store=True)
        results = load_results(corpus)
        with self._lock:
            self.schema = schema
            self.base = corpus
            self.check_results = results
            self._disk.clear()
            self._bump()

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

    def files_changed(self, paths) -> None:
        """Read the files changed on disk into ``base``: a few edits and
        deletions as one ``with_texts``; a created file, or many changes (a
        ``git checkout``), as one load with the store of parsed records."""
        if self.base is None:
            return
        paths = {Path(p) for p in paths}
        from ..corpus.loader import with_texts
        with self._lock:
            base = self.base
        texts = {}
        reload = len(paths) > 64
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
            return
        if not texts:
            return
        new = with_texts(base, texts)
        with self._lock:
            if self.base is base:
                self.base = new
                for p in texts:
                    self._disk.pop(p, None)
                self._bump()

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
