"""Load a whole record: walk the root, parse each file, build the graph."""
from __future__ import annotations

import gc
import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .config import Config, load_config
from .model import Diagnostic, Record
from .schema import Schema, load_schema

if TYPE_CHECKING:  # networkx is imported when the graph is first asked for
    import networkx as nx


@dataclass(eq=False)
class Corpus:
    """The loaded record.

    ``records``: id -> Record (the first file of each id, in path order);
    ``files``: every file read, including those that failed to parse and
    duplicates; ``diagnostics``: what loading found (RK101–RK104);
    ``graph``: a :class:`networkx.MultiDiGraph` (see :mod:`recordkit.graph`).
    """
    root: Path
    schema: Schema
    config: Config
    files: list[Record] = field(default_factory=list)
    records: dict[str, Record] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: what the ``analyze`` function given to :func:`load` ran (see there)
    analysis_key: object = None
    _graph: "nx.MultiDiGraph | None" = None

    @property
    def graph(self) -> "nx.MultiDiGraph":
        if self._graph is None:
            from .graph import build_graph
            with gc_paused():
                self._graph = build_graph(self)
        return self._graph

    def get(self, record_id: str) -> Record | None:
        return self.records.get(record_id)

    def __contains__(self, record_id: str) -> bool:
        return record_id in self.records

    def __len__(self) -> int:
        return len(self.records)

    def by_path(self, path: str | Path) -> Record | None:
        """The file loaded from ``path`` (any spelling of it), or None."""
        index = self.__dict__.get("_by_path")
        if index is None or len(index) != len(self.files):
            index = {rec.path: rec for rec in self.files}
            self.__dict__["_by_path"] = index
        p = Path(path)
        # as named (a symbolic link is a record file in its own right), then resolved
        return index.get(p) or index.get(Path(os.path.abspath(p))) or index.get(p.resolve())

    def backlinks(self, record_id: str) -> dict[str, list[str]]:
        from .graph import backlinks
        return backlinks(self, record_id)


@contextmanager
def gc_paused():
    """Pause the cyclic garbage collector while a large, acyclic structure is
    built: with 10,000 records' worth of small objects, the collector's
    repeated walks over them cost about a third of the load time.  On exit
    what was built is moved to the oldest generation (see below)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            # Everything built meanwhile is still in the youngest generation,
            # so the first allocation after re-enabling would start a
            # collection that walks all of it (0.2 s after loading 10,000
            # records).  Freezing and unfreezing moves every tracked object
            # to the oldest generation without walking anything: collection
            # then proceeds as if those objects had already survived.  (Not
            # when something is frozen already: unfreezing would thaw it.)
            if not gc.get_freeze_count():
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def iter_files(root: Path, exclude: list[str] | None = None) -> list[Path]:
    """Every ``*.md`` file under ``root``, in a stable order; hidden folders
    and files are skipped."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "_")))
        folder = Path(dirpath)
        for name in sorted(filenames):
            if name.endswith(".md") and not name.startswith("."):
                out.append(folder / name)
    if exclude:
        import fnmatch
        out = [p for p in out if not any(fnmatch.fnmatch(p.relative_to(root).as_posix(), pat) for pat in exclude)]
    return out


def load(root: str | Path | None = None, *, config: Config | None = None,
         schema: Schema | None = None, jobs: int | None = None,
         files: list[Path] | None = None, analyze=None) -> Corpus:
    """Load the record under ``root`` (default: the configured root).

    Never raises for a bad record file: each problem becomes a diagnostic in
    ``corpus.diagnostics``.  A bad configuration or schema raises
    :class:`recordkit.config.ConfigError` or
    :class:`recordkit.schema.SchemaError`.

    ``jobs``: processes to parse with (default: one per core, up to 4, for
    records of 2,000 files or more; ``RECORDKIT_JOBS`` overrides).
    ``files``: :func:`iter_files` of the resolved root, when the caller has it.
    ``analyze``: a function of one record run where each readable file is
    parsed (on every core); its result, which must pickle, is kept as the
    record's ``_analysis``, and ``corpus.analysis_key`` is its ``key``
    attribute.  The lint runs its local rules this way.
    """
    if config is None:
        config = load_config(Path(root) if root is not None else Path.cwd())
    if root is None:
        root = config.root
    root = Path(root).resolve()
    if schema is None:
        schema = load_schema(config.schema)
    corpus = Corpus(root=root, schema=schema, config=config)
    if not root.is_dir():
        from .config import ConfigError
        raise ConfigError(f"record root {root} is not a folder")
    prefix = len(str(root)) + 1
    from .parallel import default_jobs, parse_parallel
    if files is None:
        files = iter_files(root, config.exclude)
    items = [(path, str(path)[prefix:].replace(os.sep, "/")) for path in files]
    with gc_paused():
        parsed = parse_parallel(items, schema, default_jobs(len(items)) if jobs is None else jobs, analyze,
                                max_size=config.max_file_size)
        corpus.analysis_key = getattr(analyze, "key", None) if analyze is not None else None
        for rec, diags in parsed:
            corpus.files.append(rec)
            corpus.diagnostics.extend(diags)
            if rec.ok and rec.id not in corpus.records:
                corpus.records[rec.id] = rec
    return corpus
