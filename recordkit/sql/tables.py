"""The tables of the record's database: their definition (:data:`SCHEMA`,
documented in ``docs/query.md``), their indexes, the full-text index, the
groups of tables filled together, the CHECK constraints checked once a
table is filled, and the connection a new database is written through."""
from __future__ import annotations

import re
import sqlite3

SCHEMA = """
CREATE TABLE kinds (
  name TEXT PRIMARY KEY,
  description TEXT,
  color TEXT,
  dir TEXT
);
CREATE TABLE records (
  id TEXT PRIMARY KEY,
  kind TEXT NOT NULL REFERENCES kinds(name),
  status TEXT,
  title TEXT NOT NULL,
  path TEXT NOT NULL,
  created TEXT,
  updated TEXT,
  status_note TEXT,
  body TEXT NOT NULL,
  body_line INTEGER NOT NULL,
  digest TEXT
);
CREATE TABLE fields (
  record TEXT NOT NULL REFERENCES records(id),
  name TEXT NOT NULL,
  item INTEGER,
  type TEXT NOT NULL,
  value
);
CREATE TABLE relations (
  source TEXT NOT NULL REFERENCES records(id),
  target TEXT NOT NULL REFERENCES records(id),
  relation TEXT NOT NULL,
  origin TEXT NOT NULL CHECK (origin IN ('frontmatter', 'body', 'derived')),
  line INTEGER,
  col INTEGER,
  count INTEGER NOT NULL DEFAULT 1,
  via TEXT
);
CREATE TABLE tags (
  record TEXT NOT NULL REFERENCES records(id),
  tag TEXT NOT NULL
);
CREATE TABLE mentions (
  record TEXT NOT NULL REFERENCES records(id),
  target TEXT NOT NULL,
  line INTEGER NOT NULL,
  col INTEGER NOT NULL,
  form TEXT NOT NULL CHECK (form IN ('bare', 'wikilink', 'embed', 'markdown', 'tag')),
  label TEXT,
  target_exists INTEGER NOT NULL
);
CREATE TABLE checks (
  id TEXT PRIMARY KEY,
  verdict TEXT NOT NULL,
  measured REAL,
  tolerance REAL,
  ran_at TEXT,
  seconds REAL,
  stale INTEGER NOT NULL DEFAULT 0,
  message TEXT,
  claim TEXT,
  form TEXT,
  path TEXT,
  line INTEGER
);
CREATE TABLE check_citations (
  record TEXT NOT NULL REFERENCES records(id),
  check_id TEXT NOT NULL REFERENCES checks(id)
);
CREATE TABLE requirements (
  record TEXT NOT NULL REFERENCES records(id),
  item INTEGER NOT NULL,
  text TEXT NOT NULL,
  type TEXT,
  state TEXT NOT NULL,
  reason TEXT,
  by_record TEXT REFERENCES records(id)
);
CREATE TABLE standings (
  record TEXT PRIMARY KEY REFERENCES records(id),
  state TEXT,
  detail TEXT,
  lifecycle TEXT,
  lifecycle_detail TEXT,
  undermined_path TEXT
);
"""

INDEXES = """
CREATE INDEX records_kind ON records(kind);
CREATE INDEX records_status ON records(kind, status);
CREATE INDEX fields_record ON fields(record);
CREATE INDEX fields_name ON fields(name, value);
CREATE INDEX relations_source ON relations(source, relation);
CREATE INDEX relations_target ON relations(target, relation);
CREATE INDEX tags_record ON tags(record);
CREATE INDEX tags_tag ON tags(tag);
CREATE INDEX mentions_record ON mentions(record);
CREATE INDEX mentions_target ON mentions(target);
CREATE INDEX check_citations_record ON check_citations(record);
CREATE INDEX check_citations_check ON check_citations(check_id);
CREATE INDEX requirements_record ON requirements(record);
CREATE INDEX requirements_by ON requirements(by_record);
"""

FTS_TABLE = ("CREATE VIRTUAL TABLE records_fts USING fts5(id UNINDEXED, title, body, "
             "content='records', content_rowid='rowid')")
#: FTS5 keeps the terms of the rows being inserted in a hash in memory and
#: writes them out as a new segment of the index each time that hash grows
#: past ``hashsize`` (1 MB by default); the segments are then merged again
#: and again.  While the index is built in one go it may grow to 64 MB
#: (85 MB of bodies make a few segments instead of a hundred): a third less
#: work, the same index as far as any query can tell (the terms, their
#: positions, the ranks and snippets; docs/query.md).  The setting is taken
#: out of ``records_fts_config`` once the index is built, so the file keeps
#: FTS5's defaults.
FTS_HASHSIZE = 64 << 20
FTS_BUILD = f"INSERT INTO records_fts(records_fts, rank) VALUES ('hashsize', {FTS_HASHSIZE})"
FTS_BUILT = "DELETE FROM records_fts_config WHERE k = 'hashsize'"
FTS_FILL = "INSERT INTO records_fts(rowid, id, title, body) SELECT rowid, id, title, body FROM records"
#: the tables FTS5 keeps an external-content index in
FTS_SHADOW = ("records_fts_data", "records_fts_idx", "records_fts_docsize", "records_fts_config")

#: every table, in the order docs/query.md describes them
TABLES = ("records", "kinds", "fields", "relations", "tags", "mentions", "checks", "check_citations",
          "requirements", "standings", "records_fts")



# -- the tables, in groups that can be filled in different processes ---------

def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]


def _table_of(stmt: str) -> str:
    m = re.match(r"CREATE (?:TABLE|INDEX \w+ ON) (\w+)", stmt)
    return m.group(1)


#: each table's CREATE statement, and its indexes' (in :data:`SCHEMA` and
#: :data:`INDEXES` order)
TABLE_SQL = {_table_of(s): s for s in _statements(SCHEMA)}
INDEX_SQL: dict[str, tuple[str, ...]] = {
    t: tuple(s for s in _statements(INDEXES) if _table_of(s) == t)
    for t in dict.fromkeys(_table_of(s) for s in _statements(INDEXES))}

#: tables filled together (one function makes their rows)
GROUPS = {
    "records": ("kinds", "records"),
    "fields": ("fields", "tags"),
    "relations": ("relations", "mentions"),
    "checks": ("checks", "check_citations", "requirements", "standings"),
}


#: each table's CHECK constraints (SQL expressions), from :data:`SCHEMA`
CHECKS = {t: re.findall(r"CHECK \((.*)\)", sql) for t, sql in TABLE_SQL.items()}
#: the tables whose CHECK constraints each fill function checks once it is
#: done (SQLite's per-row checks are off while filling, see :func:`_connect`):
#: every table with a CHECK must be named here (a test holds it to that)
CHECKED_BY_FILL = {"relations": ("relations", "mentions")}


def _check_constraints(conn, tables) -> None:
    """Raise :class:`sqlite3.IntegrityError` when a row of ``tables``
    breaks a CHECK constraint.  The tables are filled with SQLite's checks
    off (``PRAGMA ignore_check_constraints``, see :func:`_connect`) and
    checked here once, with one scan a table."""
    for t in tables:
        for expr in CHECKS[t]:
            if conn.execute(f"SELECT 1 FROM {t} WHERE NOT ({expr}) LIMIT 1").fetchone():
                raise sqlite3.IntegrityError(f"CHECK constraint failed: {t}: {expr}")


def add_fts(conn: sqlite3.Connection) -> None:
    """The full-text index over titles and bodies (of the records table)."""
    conn.execute(FTS_TABLE)
    _build_fts(conn, lambda: conn.execute(FTS_FILL))


def _build_fts(conn: sqlite3.Connection, insert) -> None:
    """Run ``insert`` (which fills ``records_fts``) with FTS5's hash of
    pending terms at :data:`FTS_HASHSIZE`, then put FTS5's default back.
    An SQLite whose FTS5 does not know the setting builds the index with
    its default."""
    try:
        conn.execute(FTS_BUILD)
    except sqlite3.OperationalError:      # pragma: no cover - FTS5 older than the setting
        insert()
        return
    insert()
    conn.execute(FTS_BUILT)


def _connect(path) -> sqlite3.Connection:
    """A connection for writing a new database: no journal, no syncs (the
    file is renamed into place once whole), CHECK constraints checked once
    the tables are filled, 16 KB pages (a body then rarely
    spills to overflow pages: 10% less work than 4 KB pages on the
    10,000-record bench; the pages' size is no part of the contents)."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA page_size=16384")
    conn.execute("PRAGMA journal_mode=OFF")
    conn.execute("PRAGMA synchronous=OFF")
    # a 16 MB page cache, not 64: what does not fit goes to the file (it is
    # written whole anyway), and less memory to fault in costs less than
    # reading pages back (measured on the export bench: bench/README.md)
    conn.execute("PRAGMA cache_size=-16384")
    # SQLite evaluates a CHECK constraint for each row inserted, and an
    # ``IN (...)`` list in one builds a lookup table each time: half the
    # cost of inserting the relations and the mentions.  The rows are
    # checked once with a scan instead (:func:`_check_constraints`)
    conn.execute("PRAGMA ignore_check_constraints=ON")
    return conn
