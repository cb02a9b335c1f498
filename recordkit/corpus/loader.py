"""Load a whole record: walk the root, parse each file (on every core for a
large record), gather the records in a :class:`Corpus`."""
from __future__ import annotations

import os
from pathlib import Path

from ..config import Config, ConfigError, load_config
from ..runtime import batch, workers
from ..schema import Schema, load_schema
from .analyses import traits
from .model import Corpus
from .store.parallel import parse_parallel
from .parse import parse_text
from .resolve import resolve_links
from .toolsettings import settle_walk
from ..common.walk import walk as _walk_tree


def skip_matcher(root, skip_dirs=None):
    """``skip(folder, name)``: whether the folder ``name`` inside ``folder``
    (under ``root``) is one ``skip_dirs`` keeps out of the walk (default:
    :data:`recordkit.config.DEFAULT_SKIP_DIRS`): a pattern without ``/``
    matches the folder's name, one with ``/`` its root-relative path."""
    import fnmatch
    from ..config import DEFAULT_SKIP_DIRS
    pats = list(DEFAULT_SKIP_DIRS if skip_dirs is None else skip_dirs)
    by_name = [p for p in pats if "/" not in p]
    by_path = [p.lstrip("/") for p in pats if "/" in p]     # (``/Templates``: that folder of the root)
    root = str(root)

    def skip(folder: str, name: str) -> bool:
        if any(fnmatch.fnmatchcase(name, p) for p in by_name):
            return True
        if by_path:
            rel = os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/")
            return any(fnmatch.fnmatchcase(rel, p) for p in by_path)
        return False

    return skip


def iter_files(root: Path, exclude: list[str] | None = None, skip_dirs=None,
               skipped: list | None = None) -> list[Path]:
    """Every ``*.md`` file under ``root``, in a stable order; hidden files
    are skipped, and the folders ``skip_dirs`` matches (default:
    :data:`recordkit.config.DEFAULT_SKIP_DIRS`); ``skipped`` receives the
    root-relative paths of the folders skipped."""
    skip = skip_matcher(root, skip_dirs)
    out = []
    for dirpath, dirnames, filenames in _walk_tree(root):
        keep = []
        for d in sorted(dirnames):
            if skip(dirpath, d):
                if skipped is not None:
                    skipped.append(os.path.relpath(os.path.join(dirpath, d), root).replace(os.sep, "/"))
            else:
                keep.append(d)
        dirnames[:] = keep
        folder = Path(dirpath)
        for name in sorted(filenames):
            if name.endswith(".md") and not name.startswith("."):
                out.append(folder / name)
    if exclude:
        import fnmatch
        out = [p for p in out if not any(fnmatch.fnmatch(p.relative_to(root).as_posix(), pat) for pat in exclude)]
    return out


def would_walk(root: Path, relpath: str, exclude: list[str] | None = None, skip_dirs=None) -> bool:
    """Whether :func:`iter_files` would list the file at the root-relative
    ``relpath`` (a ``.md`` file, not hidden, in no folder ``skip_dirs``
    keeps out, not excluded): where a command may put a note it means to
    be read."""
    import fnmatch
    parts = relpath.split("/")
    name = parts[-1]
    if not name.endswith(".md") or name.startswith("."):
        return False
    skip = skip_matcher(root, skip_dirs)
    folder = str(root)
    for part in parts[:-1]:
        if skip(folder, part):
            return False
        folder = os.path.join(folder, part)
    return not any(fnmatch.fnmatch(relpath, pat) for pat in exclude or ())


def load(root: str | Path | None = None, *, config: Config | None = None,
         schema: Schema | None = None, jobs: int | None = None,
         files: list[Path] | None = None, analyze=None, store=None) -> Corpus:
    """Load the record under ``root`` (default: the configured root).

    Never raises for a bad record file: each problem becomes a diagnostic in
    ``corpus.diagnostics``.  A bad configuration or schema raises
    :class:`recordkit.config.ConfigError` or
    :class:`recordkit.schema.SchemaError`.

    ``jobs``: processes to parse with (default: one per core, up to 4, for
    records of 2,000 files or more; ``RECORDKIT_JOBS`` overrides).
    ``files``: :func:`iter_files` of the resolved root, when the caller has it.
    ``analyze``: a function of one record run where each readable file is
    parsed (on every core; :class:`~recordkit.corpus.analyses.Analysis`);
    its results, which must pickle, are kept in
    ``corpus.analyses[analyze.key]`` (record path -> result).  The lint
    runs its local rules this way.
    ``store``: take what was parsed before from the store of parsed records
    (:mod:`recordkit.corpus.store`) and keep what is parsed now: ``True``
    for the configured cache folder's (saved before returning), or a
    :class:`~recordkit.corpus.store.RecordStore` (the caller saves it).
    The corpus is the same with or without it.  A store keeps the files of
    the last load only: give it every file of the root.
    """
    if config is None:
        config = load_config(Path(root) if root is not None else Path.cwd())
    if root is None:
        root = config.root
    settle_walk(config)
    root = Path(root).resolve()
    if schema is None:
        from ..schema import config_layers
        layers, error = config_layers(config)       # (read once: the walk read them)
        if error is not None:
            raise error
        schema = load_schema(config.schema, layers)
    corpus = Corpus(root=root, schema=schema, config=config)
    if not root.is_dir():
        raise ConfigError(f"record root {root} is not a folder")
    prefix = len(str(root)) + 1
    if files is None:
        files = iter_files(root, config.exclude, config.skip_dirs)
    items = [(path, str(path)[prefix:].replace(os.sep, "/")) for path in files]
    njobs = workers(len(items), name="parse") if jobs is None else jobs
    own_store = store is True
    if own_store:
        from .store.store import RecordStore
        store = RecordStore(config, root)
    with batch():
        results: dict = {}
        if store:
            parsed = store.parse(items, schema, njobs, analyze, max_size=config.max_file_size, results=results)
        else:
            parsed = parse_parallel(items, schema, njobs, analyze, max_size=config.max_file_size, results=results)
        if analyze is not None:
            corpus.analyses[traits(analyze).key] = results
        for rec, diags in parsed:
            corpus.files.append(rec)
            corpus.diagnostics.extend(diags)
            if rec.ok and rec.id not in corpus.records:
                corpus.records[rec.id] = rec
        resolve_links(corpus)
    if own_store:
        store.save()
    return corpus


def with_texts(base: Corpus, texts: dict, moves: dict | None = None) -> Corpus:
    """A copy of ``base`` in which the given files hold the given texts
    (``path -> text``, parsed again; ``None``: the file is gone) and the
    files of ``moves`` (``path -> (new path, new root-relative path)``) are
    read where they move to; every other record is shared with ``base``, or
    copied where resolving its links again could change them.  What ``lint
    --fix`` and ``promote --apply`` re-read after an edit, and what
    ``merge`` and a vault's ``rename`` check their links against.  Its
    files are ``base``'s in order, less the ones gone."""
    from .resolve import detached
    settings = base.schema.links
    moves = moves or {}
    c = Corpus(root=base.root, schema=base.schema, config=base.config)
    for rec in base.files:
        edited = rec.path in texts
        if edited and texts[rec.path] is None:
            continue
        if rec.path in moves or edited and texts[rec.path] != rec.text:   # (a text only read when edited)
            path, relpath = moves.get(rec.path, (rec.path, rec.relpath))
            new, diags = parse_text(texts[rec.path] if edited else rec.text, path, relpath, base.schema)
            c.diagnostics.extend(diags)
            rec = new
        else:
            c.diagnostics.extend(d for d in base.diagnostics if d.path == rec.path)
            rec = detached(rec, settings)       # (resolved again below: base keeps its links)
        c.files.append(rec)
        if rec.ok and rec.id not in c.records:
            c.records[rec.id] = rec
    resolve_links(c)
    return c
