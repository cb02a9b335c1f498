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


def with_texts(base: Corpus, texts: dict, moves: dict | None = None, add: bool = False) -> Corpus:
    """A copy of ``base`` in which the given files hold the given texts
    (``path -> text``, parsed again; ``None``: the file is gone) and the
    files of ``moves`` (``path -> (new path, new root-relative path)``) are
    read where they move to; with ``add``, a path of ``texts`` that
    ``base`` has no file at (a note not saved yet, under the root) is read
    from its text and put last; every other record is shared with ``base``, or
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
        # (a text only read when edited; a record restored from the store of
        # parsed records whose file changed since reads the new text, and
        # knows it was not parsed from it: parsed again)
        if rec.path in moves or edited and not rec.source.parsed_from(texts[rec.path]):
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
    if add:
        _add_new(c, base, texts)
    resolve_links(c)
    return c


def with_edits(prev: Corpus, texts: dict) -> Corpus | None:
    """``with_texts(prev, texts)`` for files ``prev`` has (``path -> new
    text``) at the cost of those files, not of the whole record: what a
    language server does after each keystroke.  Only the files edited are
    parsed and resolved again; every other record is ``prev``'s own (its
    links resolve as they did: the records they can name, and the keys
    they name them by, are the same), and so are ``prev``'s indexes (paths,
    ids, the resolver's keys and answers) where the edit left them as they
    were.  None when it cannot be done so: a path ``prev`` has no file at,
    a file gone (``None``), or, for links resolved by more than the id as
    written (a vault's settings), an edit that changed what other links may
    match the file by (its id, title or aliases, :func:`link_keys`).  The
    caller then asks :func:`with_texts`.  Equal to it otherwise (the same
    files in the same order, the same records, links and findings).
    A file is parsed again unless its record was parsed from the text
    given (:meth:`~recordkit.corpus.source.Source.parsed_from`: a record
    restored from the store of parsed records reads its text from the
    file when first asked, the new one when the file changed on disk,
    and knows then that it was not parsed from it)."""
    from .resolve import is_research_default, link_keys
    default = is_research_default(prev.schema.links)
    edits = []
    for path, text in texts.items():
        old = prev.by_path(path)
        if text is None or old is None or old.path != path:
            return None
        if old.source.parsed_from(text):
            continue
        new, diags = parse_text(text, old.path, old.relpath, prev.schema)
        same_keys = link_keys(old) == link_keys(new)
        if not default and not same_keys:
            return None
        edits.append((old, new, diags, same_keys))
    if not edits:
        return prev
    return _edited(prev, edits)


def _edited(prev: Corpus, edits: list) -> Corpus:
    """:func:`with_edits` once the edited files are parsed: ``(old record,
    new record, its findings, whether its link keys stayed)`` each."""
    paths = {old.path for old, _, _, _ in edits}
    files = list(prev.files)
    for old, new, _, _ in edits:
        files[files.index(old)] = new           # (records compare by identity)
    if all(same for _, _, _, same in edits):
        records = dict(prev.records)
        for old, new, _, _ in edits:
            if new.ok and records.get(new.id) is old:
                records[new.id] = new
    else:
        # as load() does (each id's first readable file, in file order), with
        # the loops in C but two: 10,000 files
        skip = object()
        ids = [rec.id if isinstance(rec.meta, dict) else skip for rec in files]
        first = dict(zip(reversed(ids), reversed(files)))      # (the last written, the first file, wins)
        records = {i: first[i] for i in dict.fromkeys(ids) if i is not skip}
    c = Corpus(root=prev.root, schema=prev.schema, config=prev.config, files=files, records=records)
    c.diagnostics = [d for d in prev.diagnostics if d.path not in paths]
    for _, _, diags, _ in edits:
        c.diagnostics.extend(diags)
    if prev._by_path is not None and len(prev._by_path) == len(prev.files):
        c._by_path = dict(prev._by_path)
        c._by_path.update((new.path, new) for _, new, _, _ in edits)
    same_ids = all(old.ok == new.ok and (not new.ok or old.id == new.id) for old, new, _, _ in edits)
    if same_ids or records.keys() == prev.records.keys():
        c._id_index = prev._id_index
        if prev._resolver is not None and all(same for _, _, _, same in edits):
            c._resolver = prev._resolver.carried(records)
    else:     # (built for prev if need be: the next edit, maybe back, starts from it)
        c._id_index = prev.id_index().updated(prev.records.keys() - records.keys(), records.keys() - prev.records.keys())
    resolve_links(c, [new for _, new, _, _ in edits])
    return c


def _add_new(c: Corpus, base: Corpus, texts: dict) -> None:
    """``with_texts(add=True)``: the files of ``texts`` that ``base`` has not,
    under its root, parsed and put last (in path order)."""
    known = {rec.path for rec in base.files}
    root = Path(base.root)
    for path in sorted(p for p, t in texts.items() if t is not None and p not in known):
        try:
            relpath = Path(path).relative_to(root).as_posix()
        except ValueError:
            continue
        rec, diags = parse_text(texts[path], Path(path), relpath, base.schema)
        c.diagnostics.extend(diags)
        c.files.append(rec)
        if rec.ok and rec.id not in c.records:
            c.records[rec.id] = rec
