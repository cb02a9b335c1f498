"""Read-only SQL over the record (``recordkit query``, ``query`` blocks).

The database is the cached one (:mod:`.cache`); queries run on a
connection opened read-only (``mode=ro``) with ``PRAGMA query_only``, no
attached databases allowed (the attach limit is 0) and an authorizer that
refuses pragmas that set anything: a write is refused by SQLite itself,
whatever the SQL looks like.  A query stops at its time limit or at Ctrl-C.

The query blocks of a body (:mod:`.blocks`), the cached database
(:mod:`.cache`) and the output formats (:mod:`.formats`) are importable
from here too.
"""
from __future__ import annotations

import contextlib
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from .blocks import BlockResult, QueryBlock, format_query_blocks, query_blocks  # noqa: F401
from .cache import SIGNATURES, _ensure_fts, _usable, _walk, cached_database, database_for  # noqa: F401
from .formats import format_csv, format_json, format_table, write_csv, write_json, write_table  # noqa: F401
from .result import Result


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


#: a query that names the full-text index (which a cached database may
#: lack until a query asks for it); told by the SQL, not SQLite's wording
_NAMES_FTS = re.compile(r"records_fts", re.I)


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
            if attempt == 0 and _NAMES_FTS.search(sql):
                try:
                    added = _ensure_fts(Path(path))
                except (OSError, sqlite3.Error):   # a database recordkit cannot write: SQLite's error stands
                    added = False
                if added:
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
    """SQLite's error as a QueryError: in recordkit's words where recordkit
    knows the cause (a write refused, the time limit, the size limit), with
    SQLite's message as a detail; SQLite's message as it is otherwise (the
    command says ``SQL error:``, lint ``query block fails:``).  The cause is
    told by SQLite's error code (Python 3.11+), by its message before."""
    msg = str(exc)
    name = getattr(exc, "sqlite_errorname", None)
    if name in ("SQLITE_AUTH", "SQLITE_READONLY") or (name is None and (
            msg == "not authorized" or msg.startswith("attempt to write a readonly database"))):
        msg = (f"a query only reads: it may not change the database, nor use ATTACH, DETACH or a pragma "
               f"that changes a setting ({msg})")
    elif timeout and (name == "SQLITE_INTERRUPT" or (name is None and msg == "interrupted")):
        msg = f"the query ran longer than its time limit ({_seconds(timeout)}) and was stopped"
    elif max_length and (name == "SQLITE_TOOBIG" or (name is None and msg == "string or blob too big")):
        msg = f"a value is too big: a query block may make values of up to {max_length >> 20} MB ({msg})"
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
