"""The cached query database: the one ``recordkit export --sqlite`` writes,
kept in the cache folder as ``query-KEY.sqlite``, where KEY hashes
recordkit's version, the schema, the configuration, the content hash of
every record file (read back from the file signatures stored when it was
built, so an unchanged record is not even read) and the check results: a
query on an unchanged record opens the database without loading the
record.  The full-text index is added to the cached database the first
time a query asks for ``records_fts``.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
from pathlib import Path

from ..version import code_fingerprint
from .database import write_database
from .tables import add_fts


def _key(config, hashes: dict[str, str]) -> str:
    from ..numeric.store import fingerprint
    from ..schema import default_schema_raw
    h = hashlib.blake2b(digest_size=16)
    h.update(f"recordkit {code_fingerprint()} query-db 4\0".encode())
    h.update(json.dumps(default_schema_raw(), sort_keys=True, default=str).encode())
    if config.schema is not None:
        from ..schema import schema_fingerprint_texts
        h.update(json.dumps(schema_fingerprint_texts(config.schema)).encode())
    h.update(json.dumps(config.raw, sort_keys=True, default=str).encode())
    h.update(str(config.root).encode("utf-8", "surrogatepass"))
    from ..corpus.vaults import dendron_config_bytes
    h.update(dendron_config_bytes(config.root))     # (the vault's name: which dendron:// links are its notes)
    for k in sorted(hashes):     # (a path may hold a lone surrogate: an odd file name)
        h.update(f"{k}\0{hashes[k]}\0".encode("utf-8", "surrogatepass"))
    h.update(fingerprint(config).encode())
    return h.hexdigest()


def _db_path(config, key: str) -> Path:
    return Path(config.cache_dir) / f"query-{key}.sqlite"


SIGNATURES = "query-files.json"


def _walk(root: str, exclude, skip_dirs=None) -> dict[str, os.stat_result]:
    """path -> stat of every record file under ``root``: the files
    :func:`recordkit.corpus.loader.iter_files` finds (``*.md``, hidden files
    skipped, the folders ``skip_dirs`` matches not walked, the same
    matcher), without building a Path per file."""
    from ..corpus.loader import skip_matcher
    skip = skip_matcher(root, skip_dirs)
    out: dict[str, os.stat_result] = {}
    stack = [root]
    while stack:
        folder = stack.pop()
        try:
            entries = os.scandir(folder)
        except OSError:
            continue
        with entries:
            for e in entries:
                name = e.name
                try:
                    is_dir = e.is_dir()
                except OSError:
                    continue
                if is_dir:
                    # (a link to a folder is not walked: os.walk does not follow links)
                    if not e.is_symlink() and not skip(folder, name):
                        stack.append(e.path)
                elif name.endswith(".md") and not name.startswith("."):
                    try:
                        out[e.path] = e.stat()
                    except OSError:
                        continue
    if exclude:
        import fnmatch
        cut = len(root) + 1
        out = {p: st for p, st in out.items()
               if not any(fnmatch.fnmatch(p[cut:].replace(os.sep, "/"), pat) for pat in exclude)}
    return out


def _unchanged_hashes(config) -> dict[str, str] | None:
    """The content hash of every record file, from the signatures stored
    when the database was last built, when no file is new, gone or changed
    (a file changed within the racy window of that read is hashed again:
    :func:`recordkit.runtime.freshness.unchanged_hashes`); else None."""
    try:
        with open(Path(config.cache_dir) / SIGNATURES, encoding="utf-8") as fh:
            stored = json.load(fh)
        entries, since = stored["files"], stored["t"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    from ..config import resolved_root
    from ..runtime.freshness import FileKey, unchanged_hashes
    now = _walk(str(resolved_root(config)), config.exclude, config.skip_dirs)

    def digest_of(p: str) -> str | None:
        try:
            with open(p, "rb") as fh:
                return hashlib.sha256(fh.read()).hexdigest()[:32]
        except OSError:
            return None
    got = unchanged_hashes(entries, since, ((p, FileKey.of(st)) for p, st in now.items()), len(now), digest_of)
    if got.settled:       # the files read again are old enough now: not read again by the next query
        from ..common.writes import atomic_write
        try:
            atomic_write(Path(config.cache_dir) / SIGNATURES,
                         json.dumps({"t": got.settled, "files": entries}, separators=(",", ":")))
        except OSError:
            pass
    return got.hashes


def _store_signatures(corpus, started_ns: int) -> dict[str, str]:
    """Store each file's stat signature with the hash the loader made of it
    (a file that is gone is left out: the next query loads again).
    A file changed after ``started_ns`` (before the load) is hashed again
    by the next :func:`_unchanged_hashes`."""
    from ..common.writes import atomic_write
    from ..runtime.freshness import FileKey
    files = {}
    for r in corpus.files:
        if r.digest is None:
            continue
        try:
            st = os.stat(r.path)
        except OSError:
            continue
        files[str(r.path)] = [*FileKey.of(st), r.digest]
    cache_dir = Path(corpus.config.cache_dir)
    try:
        cache_dir.mkdir(parents=True, exist_ok=True)
        atomic_write(cache_dir / SIGNATURES, json.dumps({"t": started_ns, "files": files}, separators=(",", ":")))
    except OSError:
        pass
    return {k: v[4] for k, v in files.items()}


def _usable(path: Path) -> bool:
    """Whether the cached database at ``path`` is whole: an SQLite header,
    and as many bytes as the pages its header counts (a file damaged or cut
    short outside recordkit is built again, not reported as an SQL error
    at every query after it)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(100)
        size = os.stat(path).st_size
    except OSError:
        return False
    if len(head) < 100 or not head.startswith(b"SQLite format 3\x00"):
        return False
    page = int.from_bytes(head[16:18], "big")
    page = 65536 if page == 1 else page
    pages = int.from_bytes(head[28:32], "big")
    return page >= 512 and pages > 0 and size == page * pages


def _reusable(path: Path) -> bool:
    """``path`` exists and is whole (one that is not is built again, and
    replaced by a rename: a process still reading the old file keeps it)."""
    return path.exists() and _usable(path)


def cached_database(config, files=None, corpus_loader=None, meanwhile=None, store=None) -> tuple[Path, bool]:
    """The path of the record's database, built when the record changed:
    (path, whether it was built now).  ``files``: the record's files, when
    the caller has them; ``corpus_loader``: a function that loads the
    corpus, called only when the database must be built; ``meanwhile``:
    called once the corpus is loaded, while the database is built;
    ``store``: the store of parsed records ``corpus_loader`` loads through,
    saved while the database is built (both: see
    :func:`recordkit.sql.database.write_database`)."""
    import time
    hashes = _unchanged_hashes(config)
    if hashes is not None:
        path = _db_path(config, _key(config, hashes))
        if _reusable(path):
            return path, False
    started = time.time_ns()
    if corpus_loader is None:
        from ..corpus import load
        corpus = load(config.root, config=config, files=files)
    else:
        corpus = corpus_loader()
    # the key needs the hashes the loader made; the files' stat signatures
    # (a stat of every file, then a JSON file) are stored while the
    # database is being built, when the other core is busy
    hashes = {str(r.path): r.digest for r in corpus.files if r.digest is not None}

    def signatures_then_meanwhile():
        _store_signatures(corpus, started)
        if meanwhile is not None:
            meanwhile()
    return database_for(corpus, hashes, signatures_then_meanwhile, store), True


def database_for(corpus, hashes: dict[str, str] | None = None, meanwhile=None, store=None) -> Path:
    """The cached database of a loaded corpus (built when missing);
    ``meanwhile``, ``store``: see
    :func:`recordkit.sql.database.write_database` (run, saved in any case)."""
    config = corpus.config
    if hashes is None:
        hashes = {str(r.path): r.digest or hashlib.sha256(r.text.encode("utf-8")).hexdigest()[:32]
                  for r in corpus.files}
    key = _key(config, hashes)
    path = _db_path(config, key)
    if _reusable(path):
        if meanwhile is not None:
            meanwhile()
        if store is not None:
            store.save()
        return path
    cache_dir = Path(config.cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    from ..common.writes import ignore_in_git
    ignore_in_git(cache_dir)
    write_database(corpus, path, fts=False, meanwhile=meanwhile, store=store)
    for old in [*cache_dir.glob("query-*.sqlite"), *cache_dir.glob("query-*.lock")]:   # earlier states
        if old.stem != path.stem:
            with contextlib.suppress(OSError):
                old.unlink()
    return path


def _ensure_fts(path: Path) -> bool:
    """Add the full-text index to a cached database that lacks it; whether
    it was added."""
    lock = path.with_suffix(".lock")
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            import fcntl
            fcntl.flock(fd, fcntl.LOCK_EX)
        except (ImportError, OSError):  # pragma: no cover
            pass
        conn = sqlite3.connect(path)
        try:
            if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'records_fts'").fetchone():
                with conn:
                    add_fts(conn)
                return True
            return False
        finally:
            conn.close()
    finally:
        os.close(fd)
