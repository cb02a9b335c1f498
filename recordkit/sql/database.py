"""The record as a SQLite database (``recordkit export --sqlite FILE``).

One row per record, field value, relation, tag, mention, check, check
citation, promote_when requirement and standing, with declared column types,
foreign keys (so Datasette links the tables) and an index on every join key;
``records_fts`` is an FTS5 full-text index over titles and bodies.  The
tables are documented in ``docs/query.md``; :data:`SCHEMA` is their
definition (:mod:`.tables`), their rows are made by :mod:`.rows`.

The file is written to a temporary name and renamed into place, so a reader
never sees half a database.
"""
from __future__ import annotations

import os
import sqlite3
import tempfile
from pathlib import Path

from ..common.writes import discard, umask
from .rows import (_FILL, NO_ITEM, NO_TEXT, ROWS_KEY, RowAnalysis, _CleanConnection, _fill_fts,  # noqa: F401
                   fill, mention_rows, record_rows)
from .tables import (CHECKED_BY_FILL, CHECKS, FTS_BUILD, FTS_BUILT, FTS_FILL, FTS_HASHSIZE,  # noqa: F401
                     FTS_SHADOW, FTS_TABLE, GROUPS, INDEX_SQL, INDEXES, SCHEMA, TABLE_SQL, TABLES, _check_constraints,
                     _connect, add_fts)
from ..runtime import tuning


def _side_file(corpus, results, groups: tuple, fts: bool, path: str) -> str:
    """The tables of ``groups`` (with their indexes, declared exactly as in
    the database) and, with ``fts``, the full-text index, in a database of
    their own at ``path``: made by a helper process, copied in by
    :func:`_copy_side`.  Whatever ``path`` held is dropped first (a
    helper that died half-way leaves half a database, made again here)."""
    os.truncate(path, 0)
    conn = _connect(path)
    try:
        with conn:
            for g in groups:
                for t in GROUPS[g]:
                    conn.execute(TABLE_SQL[t])
            for g in groups:
                _FILL[g](conn, corpus, results)
            for g in groups:
                for t in GROUPS[g]:
                    for stmt in INDEX_SQL.get(t, ()):
                        conn.execute(stmt)
            if fts:
                _fill_fts(conn, corpus)
            # its tables' statistics, made here rather than by one ANALYZE of
            # the whole database at the end (copied in by _copy_side)
            conn.execute("ANALYZE")
    finally:
        conn.close()
    return path


def _copy_side(conn: sqlite3.Connection, path: str, groups: tuple, fts: bool) -> None:
    """Copy what :func:`_side_file` made into ``conn``'s empty tables.
    Each table and index is declared alike in both, so SQLite copies the
    rows and the index entries as they are (its transfer optimization:
    nothing is sorted or parsed again), rowids kept; and their statistics
    (``sqlite_stat1``, from the helper's ANALYZE)."""
    conn.execute("ATTACH DATABASE ? AS side", (path,))
    try:
        with conn:
            for g in groups:
                for t in GROUPS[g]:
                    conn.execute(f"INSERT INTO main.{t} SELECT * FROM side.{t}")
            if fts:
                for t in FTS_SHADOW:
                    conn.execute(f"DELETE FROM main.{t}")
                    conn.execute(f"INSERT INTO main.{t} SELECT * FROM side.{t}")
            if conn.execute("SELECT 1 FROM side.sqlite_master WHERE name = 'sqlite_stat1'").fetchone():
                # (this database's own tables were analysed before; SQLite
                # lets sqlite_stat1 be written like any table)
                conn.execute("INSERT INTO main.sqlite_stat1 SELECT * FROM side.sqlite_stat1")
    finally:
        conn.execute("DETACH DATABASE side")



#: the groups of tables a helper process fills, with and without the
#: full-text index (which this process builds, from the ``records`` it
#: fills), in a database of its own that is copied in once it is whole
HELPER_GROUPS = tuning.SQL_HELPER_GROUPS


def write_database(corpus, path: str | Path, *, fts: bool = True, results=None, meanwhile=None,
                   store=None) -> Path:
    """Write ``corpus`` as a SQLite database at ``path`` (replacing it
    atomically).  ``fts``: include the full-text index ``records_fts``.
    ``meanwhile``: a function called once in this process while the helper
    works (first, without a helper; in any case before this returns or
    raises): what the caller must do anyway, such as storing the files'
    signatures, done while the other core is busy.  ``store``: a store of
    parsed records (:class:`recordkit.corpus.store.RecordStore`) the caller
    loaded through and leaves to this to save: saved by this process while
    the helper fills its tables.

    On a large record a forked helper fills some of the tables (with their
    indexes) in a database of its own while this process fills the others
    and the full-text index; the helper's tables are then copied in whole
    (see :func:`_copy_side`).  The database is the same either way."""
    from ..runtime import batch
    pending = [meanwhile] if meanwhile is not None else []
    if store is not None:
        pending.insert(0, store.save)

    def run_meanwhile():
        while pending:
            pending.pop()()
    try:
        with batch():       # millions of rows, no cycles among them
            try:
                return _write_database(corpus, path, fts, results, run_meanwhile, store)
            except UnicodeEncodeError:
                # a lone surrogate in a text (from an odd file name, or a YAML
                # "\udcxx"), which SQLite's UTF-8 cannot hold: written again
                # with each such character as its escape (``_text_ok``), in
                # one process; the first file was never renamed into place
                return _write_database(corpus, path, fts, results, run_meanwhile, store, clean=True)
    finally:
        run_meanwhile()


def _write_database(corpus, path, fts: bool, results, meanwhile, store, clean: bool = False) -> Path:
    from ..common.writes import is_stream
    from ..runtime import spread, workers
    asked = path = Path(path)
    stream = is_stream(path)
    if stream:
        # /dev/null, /dev/stdout, a named pipe: the database is made in a
        # temporary folder and its bytes written into it (never replaced)
        folder = Path(tempfile.gettempdir())
    else:
        if os.path.islink(path):        # written through: the link stays
            path = Path(os.path.realpath(path))
        folder = path.parent if str(path.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:      # name the file asked for, not the temporary one
        raise OSError(exc.errno, exc.strerror, str(asked)) from exc
    os.close(fd)
    sides: list = []
    try:
        conn = _connect(tmp)
        if clean:
            conn = _CleanConnection(conn)
        try:
            if not clean and workers(len(corpus.records), name="sql.fill") > 1:
                # a helper fills its groups in a database of its own while
                # this process fills the others and the full-text index (and
                # saves the store); the helper's tables are then copied in whole
                theirs = HELPER_GROUPS[fts]
                mine = tuple(g for g in GROUPS if g not in theirs)
                fd, side = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part.tmp", dir=folder)
                os.close(fd)
                sides.append(side)
                conn.executescript(SCHEMA)

                def tables(_):
                    meanwhile()
                    with conn:
                        for g in mine:
                            _FILL[g](conn, corpus, results)
                        if fts:
                            add_fts(conn)
                        conn.executescript(INDEXES)
                        # the statistics of this process's tables (the
                        # helper's come with its database)
                        conn.execute("ANALYZE")

                def helper(_):
                    _side_file(corpus, results, theirs, False, side)
                spread(helper, ["tables", "helper"], name="sql.fill", first=tables)
                _copy_side(conn, side, theirs, False)
            else:
                meanwhile()
                with conn:
                    fill(conn, corpus, results)
                    if fts:
                        add_fts(conn)
                conn.execute("ANALYZE")
        finally:
            conn.close()
        if stream:
            import shutil
            with open(tmp, "rb") as src, open(asked, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
            discard(tmp)
            return asked
        os.chmod(tmp, 0o666 & ~umask())
        os.replace(tmp, path)
    except BaseException:
        discard(tmp)
        raise
    finally:
        for side in sides:
            discard(side)
    return asked
