"""The record as a SQLite database (``recordkit export --sqlite FILE``).

One row per record, field value, relation, tag, mention, check, check
citation, promote_when requirement and standing, with declared column types,
foreign keys (so Datasette links the tables) and an index on every join key;
``records_fts`` is an FTS5 full-text index over titles and bodies.  The
tables are documented in ``docs/query.md``; :data:`SCHEMA` is their
definition.

The file is written to a temporary name and renamed into place, so a reader
never sees half a database.
"""
from __future__ import annotations

import datetime as _dt
import json
import os
import re
import sqlite3
import tempfile
from collections import Counter
from pathlib import Path

from ..common.writes import discard, umask
from ..runtime import tuning
from ..numeric.results import num_in

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


_I64_MIN, _I64_MAX = -2**63, 2**63 - 1

#: what a row holds, in a column most rows leave empty, for "no value":
#: SQLite's module binds a str, an int or a float as it is, but passes
#: ``None`` (and a bool) through its adapter lookup first (a key tuple, a
#: dict lookup, two failed attribute lookups): a third of the cost of a
#: mentions row.  The statements turn it into NULL (``NULLIF(?, 0)``, or
#: ``-1`` for a list item's index); a row may still hold ``None``.
NO_TEXT = 0
NO_ITEM = -1


def _big_int(value: int) -> str:
    """An integer SQLite cannot hold (beyond 64 bits): kept as its text."""
    from ..common.text import int_text
    return int_text(value)


def _typed(value) -> tuple[str, object]:
    """(type name, SQLite value) of a front-matter value."""
    t = type(value)
    if t is str:       # the common cases first, by exact type (one test each)
        return "string", value
    if t is int:
        return "integer", value if _I64_MIN <= value <= _I64_MAX else _big_int(value)
    if value is None:
        return "null", None
    if isinstance(value, bool):
        return "boolean", int(value)
    if isinstance(value, int):
        return "integer", int(value) if _I64_MIN <= value <= _I64_MAX else _big_int(value)
    if isinstance(value, float):
        return "number", value
    if isinstance(value, (_dt.date, _dt.datetime)):
        return "date", value.isoformat()
    if isinstance(value, str):
        return "string", value
    from ..common.text import to_plain
    if isinstance(value, (bytes, bytearray)):       # a YAML !!binary: its base64 text, as every JSON output
        return "string", to_plain(value)
    return ("object" if isinstance(value, dict) else "array"), json.dumps(to_plain(value), ensure_ascii=False,
                                                                          default=str)


def record_rows(rec, relation_names, mentions: bool = True) -> tuple[list, list, list]:
    """The rows of one record for ``fields``, ``tags`` and ``mentions``
    (without ``target_exists``, which needs the whole record): what can be
    worked out from the record alone."""
    rid = rec.id
    fields = []
    append = fields.append
    for name, value in rec.meta.items():
        if name in relation_names:
            continue
        if type(name) is not str:
            name = str(name)
        if isinstance(value, list):
            for i, v in enumerate(value):
                append((rid, name, i, *_typed(v)))
        else:
            append((rid, name, NO_ITEM, *_typed(value)))
    tags = [(rid, t) for t in rec.tags]
    ms = [(m.target, m.line, m.col, m.form, m.label) for m in rec.mentions] \
        if mentions and rec.mention_targets else []
    return fields, tags, ms


#: ``corpus.analysis_key`` of a corpus loaded with :class:`RowAnalysis`
ROWS_KEY = ("sql-rows", 3)


class RowAnalysis:
    """The ``analyze`` of :func:`recordkit.corpus.load` for a corpus that
    becomes a database: each record's ``fields`` rows are worked out where
    the record is parsed, on every core, instead of afterwards in the
    process that fills the table.  :func:`_fill_fields` uses them when
    ``corpus.analysis_key`` is :data:`ROWS_KEY`.  (The mentions' rows need
    no analysis: the loader keeps where each mention is with the record,
    ``Record.mention_spots``, a lint's load too.)"""
    key = ROWS_KEY
    #: a function of the record and the schema alone: the store of parsed
    #: records keeps it beside the record (:mod:`recordkit.corpus.store`)
    cacheable = True
    #: not worked out for records taken from the store without it (after a
    #: lint, say): their rows are made where the table is filled, while the
    #: other process fills its own tables, instead of in a pass of their own
    #: before
    on_restore = False

    def __init__(self, schema):
        self.relation_names = frozenset(schema.relations)

    def __call__(self, rec) -> list:
        return record_rows(rec, self.relation_names, mentions=False)[0]


def _body_counts(rid: str, ms: list) -> list:
    """``(target, line, col, count)`` of each record a record's mentions
    ``ms`` name (but itself), in order of first mention: the position is the
    first mention's."""
    counts: dict[str, list] = {}
    for target, line, col, _, _ in ms:
        c = counts.get(target)
        if c is None:
            if target != rid:
                counts[target] = [line, col, 1]
        else:
            c[2] += 1
    return [(t, line, col, n) for t, (line, col, n) in counts.items()]


def _analysed(corpus) -> bool:
    return getattr(corpus, "analysis_key", None) == ROWS_KEY


def mention_rows(corpus) -> tuple[list, list]:
    """The rows of ``mentions``, and the ``relations`` rows of origin
    ``body`` (one per record and mentioned record, with the count and the
    position of the first mention)."""
    records = corpus.records
    mention_rel = corpus.schema.mention_relation
    # where the loader found each mention (``mention_spots``) holds the
    # links as written: right when links are ids (the research defaults); a
    # vault's links resolve by path, title or alias, which ``r.mentions`` has done
    from ..corpus.mentions import spot_places
    from ..corpus.resolve import link_settings
    default = link_settings(corpus.schema).is_default
    targets_re = corpus.schema.mention_targets_re
    # the records whose mentions are found here (a record the loader did
    # not make), with the research defaults found without a Mention object
    # each; on a large record on two cores
    scan = [r for r in records.values() if r.mention_targets and default and r.mention_spots is None
            and r._mentions is None and isinstance(r.mention_re, re.Pattern)]
    scanned = _scan_positions(scan, targets_re) if scan else {}
    mentions, rels = [], []
    for rid, r in records.items():
        targets = r.mention_targets
        if not targets:
            continue
        if default and r.mention_spots is not None:
            # the rows straight from the loader's arrays (no row per
            # mention made twice); the counts by C loops (Counter, dicts)
            lines, cols, wikilinks = spot_places(r.mention_spots)
            first_line = r.body_line
            rows = [(rid, t, first_line + n, col, "bare", NO_TEXT, 1 if t in records else 0)
                    for t, n, col in zip(targets, lines, cols)]
            if wikilinks:
                for i, label in wikilinks:
                    row = rows[i]
                    rows[i] = row[:4] + ("wikilink", label, row[6])
            mentions += rows
            # each target but the record itself, in order of first mention,
            # at its first mention (the first index: the last one a dict
            # built from the reversed list keeps), with its count
            n = len(targets)
            first = dict(zip(reversed(targets), range(n - 1, -1, -1)))
            counts = Counter(targets)
            rels += [(rid, t, mention_rel, "body", first_line + lines[i], cols[i], counts[t], NO_TEXT)
                     for t in dict.fromkeys(targets) if t != rid and t in records for i in (first[t],)]
            continue
        found = scanned.get(rid)
        if found is None:
            found = [(m.target, m.line, m.col, m.form, m.label) for m in r.mentions]
        counts = _body_counts(rid, found)
        mentions += [(rid, t, line, col, form, label, t in records) for t, line, col, form, label in found]
        rels += [(rid, t, mention_rel, "body", line, col, n, None) for t, line, col, n in counts if t in records]
    return mentions, rels


def _scan_positions(recs: list, targets_re) -> dict:
    """id -> :func:`~recordkit.corpus.mentions.mention_positions` of each
    record of ``recs`` (on a large record, a forked helper scans a share,
    reading its files' text there)."""
    from ..corpus.mentions import mention_positions
    from ..runtime import split, spread, workers

    def part(rs):
        return [mention_positions(r.body, targets_re, r.body_line, r.code) for r in rs]
    n = workers(len(recs), name="sql.scan")
    if n > 1:
        # a helper's share is smaller: it also sends its rows back
        got = [rows for share in spread(part, split(recs, n, name="sql.scan"), name="sql.scan") for rows in share]
    else:
        got = part(recs)
    return {r.id: rows for r, rows in zip(recs, got)}


# -- the tables, in groups that can be filled in different processes ---------

def _statements(script: str) -> list[str]:
    return [s.strip() for s in script.split(";") if s.strip()]


def _table_of(stmt: str) -> str:
    m = re.match(r"CREATE (?:TABLE|INDEX \w+ ON) (\w+)", stmt)
    return m.group(1)


#: each table's CREATE statement, and its indexes' (in :data:`SCHEMA` and
#: :data:`INDEXES` order)
TABLE_SQL = {_table_of(s): s for s in _statements(SCHEMA)}
INDEX_SQL: dict[str, list[str]] = {}
for _s in _statements(INDEXES):
    INDEX_SQL.setdefault(_table_of(_s), []).append(_s)

#: tables filled together (one function makes their rows)
GROUPS = {
    "records": ("kinds", "records"),
    "fields": ("fields", "tags"),
    "relations": ("relations", "mentions"),
    "checks": ("checks", "check_citations", "requirements", "standings"),
}


def _read_bytes(path, stat) -> bytes | None:
    """The file's bytes, or None when it cannot be read or its stat
    signature ``(mtime_ns, size, inode, ctime_ns)`` is no longer ``stat``
    (the one its record was parsed from: the file changed since)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if stat is None or (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns) != tuple(stat):
            return None
        chunks = []
        while True:
            b = os.read(fd, 1 << 20)
            if not b:
                data = b"".join(chunks)
                return data if len(data) == st.st_size else None
            chunks.append(b)
    except OSError:
        return None
    finally:
        os.close(fd)


def _body_value(r, cached_type):
    """The record's body for ``records.body``: the ``str`` when the record
    holds its text decoded, else the body's UTF-8 bytes (a ``memoryview``),
    which the INSERT turns into text with ``CAST(? AS TEXT)``: the same
    text, without decoding the file in Python only for SQLite to encode it
    again.  A record in ``corpus.records`` decoded as strict UTF-8 when it
    was parsed (else it would be an RK103 file, no record), so its bytes
    are valid UTF-8; a record from the store of parsed records
    (``CachedRecord``, after a lint) is read here, where its ``text`` would
    read it, when the file's stat signature is still the one it was parsed
    from (else as its ``text`` reads it)."""
    if r._text is not None or r._body is not None:
        return r.body
    raw = r._raw
    if raw is None:
        if type(r) is not cached_type:
            return r.body
        raw = _read_bytes(r.path, r.stat)
        if raw is None:
            # unreadable, or changed since it was parsed: as the record's own
            # reading has it (decoded with replacement characters, or empty)
            return r.body
    off = r.body_offset
    if off and not raw[:off].isascii():
        # the front matter holds non-ASCII characters: the body's byte offset
        # from its text (at most 4 bytes a character)
        off = len(raw[:4 * off].decode("utf-8", "ignore")[:off].encode("utf-8"))
    return memoryview(raw)[off:]


def _fill_records(conn, corpus, results) -> None:
    from ..common.text import path_text
    from ..corpus.store import CachedRecord
    schema = corpus.schema
    conn.executemany("INSERT INTO kinds VALUES (?, ?, ?, ?)",
                     [(k.name, k.description, k.color, k.dir) for k in schema.kinds.values()])
    date = schema.date_text     # dates as ISO text; epoch numbers (a field's `epoch:`) converted

    def rows():
        # one row at a time, and a decoded body passed as its UTF-8 bytes,
        # freed once the row is in: SQLite reads a str as UTF-8, which
        # Python would otherwise make and keep beside each body (47 MB and a
        # page fault every 4 KB on the 10,000-record bench)
        for rid, r in corpus.records.items():
            meta = r.meta
            note = meta.get("status_note")
            body = _body_value(r, CachedRecord)
            if type(body) is str and not body.isascii():
                try:
                    body = body.encode("utf-8")
                except UnicodeEncodeError:      # a lone surrogate: as the text (see write_database)
                    pass
            # (path_text: a byte of the name that is not UTF-8 as \xff, as lint shows it)
            yield (rid, r.kind or "", r.status, r.title, path_text(r.relpath), date(r.kind, "created", meta.get("created")),
                   date(r.kind, "updated", meta.get("updated")), note if isinstance(note, str) else None,
                   body, r.body_line, r.digest)
    # (CAST leaves a str as it is, and makes the bytes of a body text)
    conn.executemany("INSERT INTO records VALUES (?, ?, ?, ?, ?, ?, ?, ?, CAST(? AS TEXT), ?, ?)", rows())


def _fill_fields(conn, corpus, results) -> None:
    relation_names = frozenset(corpus.schema.relations)
    pre = _analysed(corpus)
    fields, tags = [], []
    for rid, r in corpus.records.items():
        if pre and r.analysis is not None:
            fields += r.analysis
        else:
            fields += record_rows(r, relation_names, mentions=False)[0]
        tags += [(rid, t) for t in r.tags]
    conn.executemany("INSERT INTO fields VALUES (?, ?, NULLIF(?, -1), ?, ?)", fields)
    conn.executemany("INSERT INTO tags VALUES (?, ?)", tags)


def _fill_relations(conn, corpus, results) -> None:
    from ..graph.edges import derived_edges
    records = corpus.records
    rels = []
    for rid, r in records.items():
        for rel, targets in r.relations.items():
            for tg in targets:
                if tg.id in records and tg.id != rid:
                    rels.append((rid, tg.id, rel, "frontmatter", tg.pos[0], tg.pos[1], 1, NO_TEXT))
    ms, body = mention_rows(corpus)
    rels += body
    for u, v, d in derived_edges(corpus):
        rels.append((u, v, d["relation"], "derived", d.get("line"), d.get("col"), 1, d.get("via")))
    conn.executemany("INSERT INTO relations VALUES (?, ?, ?, ?, ?, ?, ?, NULLIF(?, 0))", rels)
    conn.executemany("INSERT INTO mentions VALUES (?, ?, ?, ?, ?, NULLIF(?, 0), ?)", ms)
    _check_constraints(conn, CHECKED_BY_FILL["relations"])


def _fill_checks(conn, corpus, results) -> None:
    _checks(conn, corpus, results)


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


_FILL = {"records": _fill_records, "fields": _fill_fields, "relations": _fill_relations, "checks": _fill_checks}


def fill(conn: sqlite3.Connection, corpus, results=None, *, indexes: bool = True) -> None:
    """Create the tables (not the full-text index) and fill them from
    ``corpus``; ``indexes=False`` leaves the indexes to :data:`INDEXES`."""
    conn.executescript(SCHEMA)
    for group in ("records", "fields", "relations", "checks"):
        _FILL[group](conn, corpus, results)
    if indexes:
        conn.executescript(INDEXES)


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


def _checks(conn, corpus, results) -> None:
    """The checks, who cites them, the promote_when requirements, the standings."""
    from ..lifecycle import analyze
    from ..numeric.discover import citations, discover_all
    from ..numeric.store import load_results
    disc = discover_all(corpus)
    if results is None:
        results = load_results(corpus, disc.checks)
    cited = citations(corpus, disc.checks)
    rows = []
    for cid in sorted(set(disc.checks) | set(cited)):
        spec = disc.checks.get(cid)
        r = results.get(cid)
        if spec is None:
            verdict = "undefined"
        elif cid in disc.duplicates:
            verdict = "duplicate"
        elif r is None:
            verdict = "not-run"
        else:
            verdict = r.verdict
        rows.append((cid, verdict, num_in(r.discrepancy) if r else None,
                     num_in(spec.tolerance) if spec else (num_in(r.tolerance) if r else None),
                     (r.ran_at or None) if r else None, r.seconds if r else None, int(bool(r and r.stale)),
                     (r.message or None) if r else None, spec.claim if spec else None,
                     spec.form if spec else None, str(spec.path) if spec else None, spec.line if spec else None))
    conn.executemany("INSERT INTO checks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
    conn.executemany("INSERT INTO check_citations VALUES (?, ?)",
                     [(rid, cid) for cid, rids in cited.items() for rid in rids if rid in corpus.records])
    lc = analyze(corpus, results=results, checks=set(disc.checks))
    reqs, stands = [], []
    for rid in corpus.records:
        st = lc.standing(rid)
        stands.append((rid, st.state, st.detail or NO_TEXT, st.lifecycle, st.lifecycle_detail or NO_TEXT,
                       st.path_text() if st.path else NO_TEXT))
        ev = st.evaluation if st.evaluation is not None else lc.evaluate(rid)
        if ev is not None:
            for i, item in enumerate(ev.items):
                by = item.by if item.by in corpus.records else None
                reqs.append((rid, i, item.text, item.requirement.type, item.state, item.reason, by))
    conn.executemany("INSERT INTO requirements VALUES (?, ?, ?, ?, ?, ?, ?)", reqs)
    conn.executemany("INSERT INTO standings VALUES (?, ?, NULLIF(?, 0), ?, NULLIF(?, 0), NULLIF(?, 0))", stands)


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
    # written whole anyway), and 48 MB less memory to fault in costs less
    # than reading pages back: cold export on the 10,000-record bench 4.34
    # -> 3.95 s (medians of 7, interleaved), the same bytes written
    conn.execute("PRAGMA cache_size=-16384")
    # SQLite evaluates a CHECK constraint for each row inserted, and an
    # ``IN (...)`` list in one builds a lookup table each time: half the
    # cost of inserting the relations and the mentions.  The rows are
    # checked once with a scan instead (:func:`_check_constraints`)
    conn.execute("PRAGMA ignore_check_constraints=ON")
    return conn


def _text_ok(value):
    """``value``, a text with each lone surrogate (which UTF-8 cannot
    encode) written as an escape: a byte of a file name that is not UTF-8
    as ``\\xff``, as ``recordkit lint`` shows it, any other as ``\\ud800``
    (:func:`recordkit.common.text.path_text`)."""
    if type(value) is str and not value.isascii():
        from ..common.text import path_text
        return path_text(value)
    return value


class _CleanConnection:
    """A connection whose statements' parameters go through :func:`_text_ok`
    (for a record that holds a lone surrogate: see :func:`write_database`)."""

    def __init__(self, conn: sqlite3.Connection):
        self._conn = conn

    def execute(self, sql, params=()):
        return self._conn.execute(sql, tuple(map(_text_ok, params)))

    def executemany(self, sql, rows):
        return self._conn.executemany(sql, (tuple(map(_text_ok, row)) for row in rows))

    def __enter__(self):
        self._conn.__enter__()
        return self

    def __exit__(self, *exc):
        return self._conn.__exit__(*exc)

    def __getattr__(self, name):
        return getattr(self._conn, name)


def _fill_fts(conn: sqlite3.Connection, corpus) -> None:
    """The full-text index of ``corpus`` in ``conn`` (which need not hold
    the records table), its rowids those the records get in
    :func:`_fill_records` (1, 2, … in order)."""
    conn.execute(FTS_TABLE)
    _build_fts(conn, lambda: conn.executemany(
        "INSERT INTO records_fts(rowid, id, title, body) VALUES (?, ?, ?, ?)",
        ((i, rid, r.title, r.body) for i, (rid, r) in enumerate(corpus.records.items(), 1))))


#: which groups of tables a helper process fills, with or without the
#: full-text index, in this order (each in a database of its own, copied in
#: as soon as it is whole): ``tuning.SQL_HELPER_GROUPS``.  With the index
#: this process fills ``records`` and builds the index from it (no second
#: reading of every file's text in the helper, no bodies passed through
#: Python twice), and fills ``checks``; the helper fills ``relations`` and
#: ``fields``, then saves its share of the store, so that each of its
#: databases is whole before this process is free to copy it in.
HELPER_GROUPS = tuning.SQL_HELPER_GROUPS


def _plan(fts: bool, store) -> tuple[tuple, tuple, list, list]:
    """(this process's groups, the helper's, the store's buckets this
    process saves, those the helper saves): the store's changed buckets
    (a cold load changes them all; after a lint none) are shared so that
    both processes end together, this one with the helper's tables still
    to copy in (``tuning.SQL_COST``, ``tuning.SQL_COPY_COST``)."""
    from ..corpus.store import BUCKETS
    from ..runtime.tuning import SQL_COPY_COST as COPY_COST, SQL_COST as COST
    theirs = HELPER_GROUPS[fts]
    mine = tuple(g for g in GROUPS if g not in theirs)
    dirty = sorted(store.dirty) if store is not None and store.dirty else []
    if not dirty:
        return mine, theirs, [], []
    here = sum(COST[g] for g in mine) + (COST["fts"] if fts else 0) + sum(COPY_COST[g] for g in theirs)
    there = sum(COST[g] for g in theirs)
    save = COST["save"] * len(dirty) / BUCKETS
    share = min(1.0, max(0.0, (here + save - there) / (2 * save)))
    k = round(share * len(dirty))
    return mine, theirs, dirty[k:], dirty[:k]


def _save_buckets(store, buckets: list) -> None:
    """Save these of the store's changed buckets, and no other (in this
    process: :class:`recordkit.corpus.store.RecordStore` ``save`` writes
    the buckets in ``dirty``)."""
    if store is not None:
        store.dirty = set(buckets)
        store.save()


def write_database(corpus, path: str | Path, *, fts: bool = True, results=None, meanwhile=None,
                   store=None) -> Path:
    """Write ``corpus`` as a SQLite database at ``path`` (replacing it
    atomically).  ``fts``: include the full-text index ``records_fts``.
    ``meanwhile``: a function called once in this process while the helper
    works (first, without a helper; in any case before this returns or
    raises): what the caller must do anyway, such as storing the files'
    signatures, done while the other core is busy.  ``store``: a store of
    parsed records (:class:`recordkit.corpus.store.RecordStore`) the caller
    loaded through and leaves to this to save: its changed buckets are
    saved by this process and the helper, each a share, while the tables
    are filled.

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
    from ..runtime import in_helper, spread, workers
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
                mine, theirs, my_buckets, their_buckets = _plan(fts, store)
                # the helper makes each of its groups in a database of its
                # own (``sides``) and says through a pipe when one is whole:
                # this process copies each in once its own tables are done,
                # while the helper still fills the rest and saves its share of
                # the store, instead of copying them all once both are done
                # (the copy of relations and mentions, 0.11 s on the
                # 10,000-record bench, off the critical path)
                sides = []
                for g in theirs:
                    fd, side = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part.tmp", dir=folder)
                    os.close(fd)
                    sides.append(((g,), side))
                copied: set = set()
                ready_r, ready_w = os.pipe()
                open_w = [ready_w]      # (closed once: its number may be reused after)

                def close_w():
                    if open_w:
                        os.close(open_w.pop())
                conn.executescript(SCHEMA)

                def tables(_):
                    # (the helper holds the pipe's other end now: once it
                    # has exited, a read here ends rather than waits)
                    close_w()
                    _save_buckets(store, my_buckets)
                    meanwhile()
                    with conn:
                        for g in mine:
                            _FILL[g](conn, corpus, results)
                        if fts:
                            add_fts(conn)
                        conn.executescript(INDEXES)
                        # the statistics of this process's tables (the
                        # helper's are empty here, and get none): each
                        # process analyses its own, while the other works
                        conn.execute("ANALYZE")
                    # each of the helper's databases, as soon as it is whole
                    # (no byte: the helper died, and what it left undone is
                    # done here after)
                    for i, (groups, side) in enumerate(sides):
                        if os.read(ready_r, 1) != bytes([i]):
                            break
                        _copy_side(conn, side, groups, False)
                        copied.add(i)
                    return None

                def helper(_):
                    here = not in_helper()      # (a helper that failed: its part done here)
                    for i, (groups, side) in enumerate(sides):
                        if i in copied:
                            continue
                        _side_file(corpus, results, groups, False, side)
                        if not here:
                            os.write(ready_w, bytes([i]))
                    # last, so that every database is whole while it saves
                    _save_buckets(store, their_buckets)
                    return None
                try:
                    spread(helper, ["tables", "helper"], name="sql.fill", first=tables)
                finally:
                    os.close(ready_r)
                    close_w()
                for i, (groups, side) in enumerate(sides):
                    if i not in copied:
                        _copy_side(conn, side, groups, False)
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
        for _, side in sides:
            discard(side)
    return asked
