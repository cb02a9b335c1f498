"""Read-only SQL over the record (``recordkit query``, ``query`` blocks).

The database is the one ``recordkit export --sqlite`` writes, kept in the
cache folder as ``query-KEY.sqlite``, where KEY hashes recordkit's version,
the schema, the configuration, the content hash of every record file (read
back from the lint's stat cache, so an unchanged record is not even read)
and the check results: a query on an unchanged record opens the database
without loading the record.  The full-text index is added to the cached
database the first time a query asks for ``records_fts``.

Queries run on a connection opened read-only (``mode=ro``) with
``PRAGMA query_only``, no attached databases allowed (the attach limit is
0) and an authorizer that refuses pragmas that set anything: a write is
refused by SQLite itself, whatever the SQL looks like.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..common.text import terminal_safe
from ..version import code_fingerprint

#: pragmas a query may read (with no argument)
#: pragmas a query may run (they only read; what would write is refused by
#: the read-only connection, and every other pragma by the authorizer)
_READ_PRAGMAS = {"table_info", "table_xinfo", "table_list", "index_list", "index_info", "index_xinfo",
                 "foreign_key_list", "foreign_key_check", "integrity_check", "quick_check", "database_list",
                 "collation_list", "function_list", "module_list", "pragma_list", "compile_options",
                 "user_version", "schema_version", "data_version", "page_count", "page_size", "freelist_count",
                 "encoding"}


class QueryError(Exception):
    """The SQL failed (SQLite's message), or a named query is unknown."""


@dataclass
class Result:
    columns: list[str]
    rows: list[tuple]
    tables: set[str] = field(default_factory=set)   # the tables the query read

    def to_dicts(self) -> list[dict]:
        return [dict(zip(self.columns, r)) for r in self.rows]


# -- the cached database ---------------------------------------------------

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
    from ..corpus.resolve import dendron_config_bytes
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
    from .database import write_database
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


def _ensure_fts(path: Path) -> None:
    """Add the full-text index to a cached database that lacks it."""
    from .database import add_fts
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
        finally:
            conn.close()
    finally:
        os.close(fd)


# -- running -----------------------------------------------------------------

def connect_readonly(path: str | Path, tables: set | None = None) -> sqlite3.Connection:
    """A connection to ``path`` that cannot write: opened with
    ``mode=ro``, ``PRAGMA query_only``, no attached databases, and an
    authorizer that refuses ATTACH, DETACH and any pragma outside a list of
    reading ones.  ``tables``: a set that collects the tables read."""
    uri = "file:" + _uri_path(Path(path).resolve()) + "?mode=ro"
    conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
    conn.execute("PRAGMA query_only = ON")
    with contextlib.suppress(AttributeError):      # Python < 3.11
        conn.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)

    def authorize(action, arg1, arg2, dbname, source):
        if action in (sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH):
            return sqlite3.SQLITE_DENY
        if action == sqlite3.SQLITE_PRAGMA:
            if (arg1 or "").lower() not in _READ_PRAGMAS:
                return sqlite3.SQLITE_DENY
        if action == sqlite3.SQLITE_READ and tables is not None and arg1 and not arg1.startswith("sqlite_"):
            tables.add(arg1)
        return sqlite3.SQLITE_OK

    conn.set_authorizer(authorize)
    return conn


def _uri_path(p: Path) -> str:
    from urllib.parse import quote
    return quote(p.as_posix(), safe="/:")


_NO_FTS = re.compile(r"no such table: (?:main\.)?records_fts\b")


#: a ``query`` block in a record (run by lint, build and show) stops after
#: this many seconds, and makes no string or blob longer than this many
#: bytes: record content must not hang nor exhaust a pre-commit hook
BLOCK_TIME_LIMIT = 5.0
BLOCK_MAX_LENGTH = 64 << 20
#: ``recordkit query``'s default time limit (``--timeout``; 0: none)
QUERY_TIME_LIMIT = 60.0


def _seconds(t: float) -> str:
    return f"{t:g} s"


def _open_query(path: str | Path, sql: str, params=(), timeout: float | None = None,
                max_length: int | None = None):
    """(connection, cursor, tables read) of ``sql`` run read-only against
    the database at ``path``; raises :class:`QueryError` with SQLite's
    message (the full-text index is made and the query run again when it
    is the one thing missing)."""
    import time
    for attempt in (0, 1):
        tables: set = set()
        conn = connect_readonly(path, tables)
        stop = _CtrlC()
        deadline = time.monotonic() + timeout if timeout else None
        # called every 10,000 virtual machine steps: a non-zero answer
        # interrupts.  Always there: it is also where Python gets to run
        # the Ctrl-C handler while SQLite works (without it a query with no
        # time limit could not be stopped)
        conn.set_progress_handler(lambda: stop.pressed or (deadline is not None and time.monotonic() > deadline),
                                  10_000)
        if max_length:
            conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, max_length)
        stop.install()
        try:
            return _Closing(conn, stop), conn.execute(sql, params), tables
        except sqlite3.Warning as exc:   # "You can only execute one statement at a time."
            stop.restore()
            conn.close()
            raise QueryError(str(exc)) from None
        except sqlite3.Error as exc:
            stop.restore()
            conn.close()
            stop.check()
            if attempt == 0 and _NO_FTS.search(str(exc)):
                _ensure_fts(Path(path))
                continue
            raise _query_error(exc, timeout, max_length) from None
        except BaseException:
            stop.restore()
            conn.close()
            raise
    raise AssertionError("unreachable")  # pragma: no cover


class _CtrlC:
    """While a query runs (in the main thread), Ctrl-C sets ``pressed``
    (the progress handler then stops SQLite) instead of raising
    KeyboardInterrupt inside the handler, where sqlite3 would swallow it
    and the stop would read as the time limit.  :meth:`check` raises the
    KeyboardInterrupt once SQLite has stopped."""

    def __init__(self):
        self.pressed = False
        self._old = None

    def install(self) -> None:
        import signal
        import threading
        if threading.current_thread() is threading.main_thread():
            try:
                self._old = signal.signal(signal.SIGINT, self._press)
            except (ValueError, OSError):     # pragma: no cover - no signals here
                self._old = None

    def _press(self, signum, frame) -> None:
        self.pressed = True

    def restore(self) -> None:
        if self._old is not None:
            import signal
            signal.signal(signal.SIGINT, self._old)
            self._old = None

    def check(self) -> None:
        if self.pressed:
            raise KeyboardInterrupt


class _Closing:
    """A query's connection whose ``close`` also gives Ctrl-C back."""

    def __init__(self, conn, stop: _CtrlC):
        self._conn, self.stop = conn, stop

    def close(self) -> None:
        self.stop.restore()
        self._conn.close()

    def __getattr__(self, name):
        return getattr(self._conn, name)


def _query_error(exc: sqlite3.Error, timeout, max_length) -> "QueryError":
    msg = str(exc)
    if msg == "not authorized":
        msg = ("not authorized: a query only reads (ATTACH, DETACH and pragmas that change "
               "settings are refused)")
    elif msg == "interrupted" and timeout:
        msg = f"the query ran longer than its time limit ({_seconds(timeout)}) and was stopped"
    elif msg == "string or blob too big" and max_length:
        msg = f"string or blob too big: a query block may make values of up to {max_length >> 20} MB"
    return QueryError(msg)


def run_sql(path: str | Path, sql: str, params=(), limit: int | None = None, timeout: float | None = None,
            max_length: int | None = None) -> Result:
    """Run ``sql`` read-only against the database at ``path``; raises
    :class:`QueryError` with SQLite's message.  ``timeout``: seconds after
    which the query is interrupted (a recursive CTE can run forever);
    ``max_length``: the longest string or blob the query may make."""
    conn, cur, tables = _open_query(path, sql, params, timeout, max_length)
    try:
        cols = [d[0] for d in cur.description or ()]
        rows = cur.fetchmany(limit) if limit else cur.fetchall()
        return Result(cols, [tuple(r) for r in rows], tables)
    except sqlite3.Error as exc:
        conn.stop.check()
        raise _query_error(exc, timeout, max_length) from None
    finally:
        conn.close()
        conn.stop.check()


def stream_sql(path: str | Path, sql: str, params=(), timeout: float | None = None,
               chunk: int = 1000) -> tuple[list[str], Iterator[tuple]]:
    """(columns, rows) of ``sql`` as :func:`run_sql` runs it, the rows
    read from SQLite ``chunk`` at a time as they are asked for, so that a
    result of millions of rows is written out without being held (the
    connection closes when the rows are done; a failure on the way, the
    time limit, raises :class:`QueryError` then)."""
    conn, cur, _ = _open_query(path, sql, params, timeout)
    cols = [d[0] for d in cur.description or ()]

    def rows():
        try:
            while True:
                got = cur.fetchmany(chunk)
                if not got:
                    return
                yield from got
                conn.stop.check()
        except sqlite3.Error as exc:
            conn.stop.check()
            raise _query_error(exc, timeout, None) from None
        finally:
            conn.close()
    return cols, rows()


def query(config, sql: str, params=(), files=None, corpus_loader=None, meanwhile=None, store=None,
          timeout: float | None = QUERY_TIME_LIMIT) -> Result:
    """Run ``sql`` (or a named query of the configuration) over the record
    (``meanwhile``, ``store``: see :func:`cached_database`; ``timeout``:
    seconds the query may run, None for no limit)."""
    sql = named_queries(config).get(sql, {}).get("sql", sql)
    path, _ = cached_database(config, files, corpus_loader, meanwhile, store)
    return run_sql(path, sql, params, timeout=timeout)


def query_stream(config, sql: str, params=(), files=None, corpus_loader=None, meanwhile=None, store=None,
                 timeout: float | None = QUERY_TIME_LIMIT):
    """:func:`query`, its rows as they come (:func:`stream_sql`)."""
    sql = named_queries(config).get(sql, {}).get("sql", sql)
    path, _ = cached_database(config, files, corpus_loader, meanwhile, store)
    return stream_sql(path, sql, params, timeout=timeout)


def named_queries(config) -> dict[str, dict]:
    """``[tool.recordkit.queries]``: name -> {"sql", "description"}.  A
    query is a string of SQL, or a table with ``sql`` and ``description``."""
    raw = (config.raw or {}).get("queries", {})     # (false, [], "" are no table either)
    out = {}
    if not isinstance(raw, dict):
        from ..config import ConfigError, where
        raise ConfigError(f"{where(config.file, 'queries')}: queries must be a table of name = SQL "
                          f"([queries] in recordkit.toml, [tool.recordkit.queries] in pyproject.toml)")
    for name, q in raw.items():
        if isinstance(q, str):
            out[name] = {"sql": q, "description": ""}
        elif isinstance(q, dict) and isinstance(q.get("sql"), str):
            out[name] = {"sql": q["sql"], "description": str(q.get("description", ""))}
        else:
            from ..config import ConfigError, where
            raise ConfigError(f"{where(config.file, name, 'queries')}: query {name} must be SQL text "
                              f"({name} = \"SELECT ...\") or a table with sql = \"...\" (and description = \"...\")")
    return out


# -- query blocks in bodies --------------------------------------------------

_OPEN = re.compile(r"^([ \t]{0,3})(`{3,}|~{3,})[ \t]*query(?:[ \t]+([^\n`]*))?[ \t]*$")


@dataclass
class QueryBlock:
    """A fenced ```` ```query ```` block of a record's body."""
    record: str
    line: int          # file line of the opening fence
    sql: str
    col: int = 1
    end_col: int = 1


@dataclass
class BlockResult:
    block: QueryBlock
    result: Result | None = None
    error: str | None = None

    def to_dict(self) -> dict:
        out = {"line": self.block.line, "sql": self.block.sql, "error": self.error}
        if self.result is not None:
            out.update(columns=self.result.columns, rows=[list(r) for r in self.result.rows],
                       tables=sorted(self.result.tables))
        return out


def query_blocks(rec) -> list[QueryBlock]:
    """The ``query`` blocks of a record's body, in order."""
    body = rec.body
    if "query" not in body:
        return []
    lines = body.split("\n")
    out = []
    i = 0
    while i < len(lines):
        line = lines[i].rstrip("\r")
        m = _OPEN.match(line)
        if m:
            fence = m.group(2)
            j = i + 1
            sql = []
            while j < len(lines):
                s = lines[j].rstrip("\r").strip()
                if s.startswith(fence[0] * len(fence)) and not s.strip(fence[0]):
                    break
                sql.append(lines[j].rstrip("\r"))
                j += 1
            out.append(QueryBlock(rec.id, rec.body_line + i, "\n".join(sql).strip(),
                                  len(m.group(1)) + 1, len(line) + 1))
            i = j + 1
            continue
        # skip other fenced blocks whole (a ```query line inside one is code)
        fm = re.match(r"^[ \t]{0,3}(`{3,}|~{3,})", line)
        if fm:
            fence = fm.group(1)
            j = i + 1
            while j < len(lines):
                s = lines[j].rstrip("\r").strip()
                if s.startswith(fence[0] * len(fence)) and not s.strip(fence[0]):
                    break
                j += 1
            i = j + 1
            continue
        i += 1
    return out


def evaluate_blocks(corpus, rec, path: str | Path | None = None, limit: int = 1000) -> list[BlockResult]:
    """Run every ``query`` block of ``rec`` against the record's database
    (built from ``corpus`` when it is not cached, or the one at ``path``).
    A site renders ``to_dict()`` of each; ``result.tables`` says what a
    page with the block depends on."""
    blocks = query_blocks(rec)
    if not blocks:
        return []
    if path is None:
        path = database_for(corpus)
    out = []
    for b in blocks:
        if not b.sql:
            out.append(BlockResult(b, error="the query block is empty"))
            continue
        try:
            out.append(BlockResult(b, run_sql(path, b.sql, limit=limit, timeout=BLOCK_TIME_LIMIT,
                                              max_length=BLOCK_MAX_LENGTH)))
        except QueryError as exc:
            out.append(BlockResult(b, error=str(exc)))
    return out


# -- rendering ---------------------------------------------------------------

def _cell(v, width: int | None) -> str:
    if v is None:
        return ""
    s = str(v) if not isinstance(v, float) else f"{v:.6g}"
    s = s.replace("\r\n", "⏎").replace("\n", "⏎").replace("\t", " ")
    # a title's ESC sequence or bidi override is shown, not obeyed by the terminal
    s = terminal_safe(s, keep_newlines=False)
    if width and len(s) > width:
        s = s[:width - 1] + "…"
    return s


def format_table(result: Result, width: int | None = 60) -> str:
    """An aligned text table (cells cut at ``width`` characters; numbers
    right-aligned; control characters and bidi overrides shown as escapes,
    :func:`recordkit.common.text.terminal_safe`)."""
    cols = [terminal_safe(str(c), keep_newlines=False) for c in result.columns]
    cells = [[_cell(v, width) for v in r] for r in result.rows]
    w = [len(c) for c in cols]
    for r in cells:
        for i, c in enumerate(r):
            w[i] = max(w[i], len(c))
    numeric = [all(isinstance(r[i], (int, float)) or r[i] is None for r in result.rows) and result.rows
               for i in range(len(cols))]
    lines = ["  ".join(c.ljust(w[i]) for i, c in enumerate(cols)).rstrip(),
             "  ".join("-" * w[i] for i in range(len(cols)))]
    for r in cells:
        lines.append("  ".join(c.rjust(w[i]) if numeric[i] else c.ljust(w[i]) for i, c in enumerate(r)).rstrip())
    return "\n".join(lines)


def write_table(columns, rows, write, width: int | None = 60) -> int:
    """What :func:`format_table` gives for ``rows`` (and a final line
    break), written through ``write`` without holding the rows: a first
    pass keeps the cells in a temporary file (in memory up to 16 MB) while
    the columns' widths are found, a second writes the lines.  (The table
    held every row: 1.35 GB for 3 million.)  Returns the number of rows."""
    import tempfile
    cols = [terminal_safe(str(c), keep_newlines=False) for c in columns]
    w = [len(c) for c in cols]
    numeric = [True] * len(cols)
    n = 0
    # cells are shown text (terminal_safe: no raw control character), so
    # NUL and LF cannot be in one
    with tempfile.SpooledTemporaryFile(max_size=16 << 20, mode="w+", encoding="utf-8",
                                       errors="surrogatepass", newline="\n") as spool:
        for chunk in _chunks(rows):
            lines = []
            for r in chunk:
                cells = [_cell(v, width) for v in r]
                for i, c in enumerate(cells):
                    if len(c) > w[i]:
                        w[i] = len(c)
                    if numeric[i] and not (isinstance(r[i], (int, float)) or r[i] is None):
                        numeric[i] = False
                lines.append("\x00".join(cells))
            n += len(chunk)
            spool.write("\n".join(lines) + "\n")
        if not n:
            numeric = [False] * len(cols)
        write("  ".join(c.ljust(w[i]) for i, c in enumerate(cols)).rstrip() + "\n"
              + "  ".join("-" * w[i] for i in range(len(cols))) + "\n")
        spool.seek(0)
        out = []
        for line in spool:
            cells = line[:-1].split("\x00") if cols else []
            out.append("  ".join(c.rjust(w[i]) if numeric[i] else c.ljust(w[i])
                                 for i, c in enumerate(cells)).rstrip())
            if len(out) >= 1000:
                write("\n".join(out) + "\n")
                out = []
        if out:
            write("\n".join(out) + "\n")
    return n


def _json_value(v):
    if isinstance(v, bytes):   # a BLOB: as hexadecimal text
        return v.hex()
    raise TypeError(f"{type(v).__name__} is not JSON")


def _json_row(columns, row) -> dict:
    import math
    return {k: (("nan" if math.isnan(v) else "inf" if v > 0 else "-inf")
                if isinstance(v, float) and not math.isfinite(v) else v) for k, v in zip(columns, row)}


def _chunks(rows, n: int = 1000):
    from itertools import islice
    it = iter(rows)
    while True:
        got = list(islice(it, n))
        if not got:
            return
        yield got


def write_json(columns, rows, write) -> None:
    """What :func:`format_json` gives for ``rows``, written a thousand rows
    at a time through ``write`` (only those are held)."""
    enc = json.JSONEncoder(indent=2, ensure_ascii=False, default=_json_value, allow_nan=False)
    first = True
    for chunk in _chunks(rows):
        text = enc.encode([_json_row(columns, r) for r in chunk])     # "[\n  {...},\n  {...}\n]"
        write(("[\n" if first else ",\n") + text[2:-2])
        first = False
    write("[]" if first else "\n]")


def write_csv(columns, rows, write) -> None:
    """What :func:`format_csv` gives for ``rows``, written a thousand rows
    at a time."""
    import csv
    import io
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for chunk in _chunks(rows):
        w.writerows(chunk)
        write(buf.getvalue())
        buf.seek(0)
        buf.truncate()
    write(buf.getvalue())


def format_json(result: Result) -> str:
    """A list of objects; strict JSON (an infinite or NaN number as the
    string "inf", "-inf" or "nan", a BLOB as hexadecimal text)."""
    import math
    rows = [{k: (("nan" if math.isnan(v) else "inf" if v > 0 else "-inf")
                 if isinstance(v, float) and not math.isfinite(v) else v) for k, v in d.items()}
            for d in result.to_dicts()]
    return json.dumps(rows, indent=2, ensure_ascii=False, default=_json_value, allow_nan=False)


def format_csv(result: Result) -> str:
    import csv
    import io
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(result.columns)
    w.writerows(result.rows)
    return buf.getvalue()


def format_query_blocks(blocks: list[BlockResult], width: int | None = 60) -> str:
    """The results of a record's query blocks as text (for ``recordkit show``)."""
    if not blocks:
        return ""
    out = ["", "", "Queries"]
    for b in blocks:
        first = " ".join(b.block.sql.split())
        out.append(f"  line {b.block.line}: {first if len(first) <= 80 else first[:79].rstrip() + '…'}")
        if b.error:
            out.append(f"    error: {b.error}")
            continue
        n = len(b.result.rows)
        if b.result.columns:
            out.extend("    " + line for line in format_table(b.result, width).split("\n"))
        out.append(f"    ({n} row{'s' if n != 1 else ''})")
    return "\n".join(out)
