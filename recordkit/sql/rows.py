"""The rows of the record's database: a record's fields, tags and
mentions as rows (:func:`record_rows`, :class:`RowAnalysis`), and each
group of tables (:data:`~.tables.GROUPS`) filled from a corpus
(:data:`_FILL`, :func:`fill`)."""
from __future__ import annotations

import datetime as _dt
import json
import re
import sqlite3
from collections import Counter

from ..numeric.results import num_in
from .tables import CHECKED_BY_FILL, FTS_TABLE, INDEXES, SCHEMA, _build_fts, _check_constraints



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


#: the key of :class:`RowAnalysis`'s results in ``corpus.analyses``
ROWS_KEY = ("sql-rows", 3)


class RowAnalysis:
    """The ``analyze`` of :func:`recordkit.corpus.load` for a corpus that
    becomes a database: each record's ``fields`` rows are worked out where
    the record is parsed, on every core, instead of afterwards in the
    process that fills the table.  :func:`_fill_fields` uses them
    (``corpus.analyses[ROWS_KEY]``).  (The mentions' rows need no analysis:
    the loader keeps where each mention is with the record,
    ``Record.mention_places()``, a lint's load too.)"""
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


def mention_rows(corpus) -> tuple[list, list]:
    """The rows of ``mentions``, and the ``relations`` rows of origin
    ``body`` (one per record and mentioned record, with the count and the
    position of the first mention)."""
    records = corpus.records
    mention_rel = corpus.schema.mention_relation
    # where the loader found each mention (``mention_places()``) holds the
    # links as written: right when links are ids (the research defaults); a
    # vault's links resolve by path, title or alias, which ``r.mentions`` has done
    from ..corpus.resolve import is_research_default
    default = is_research_default(corpus.schema.links)
    targets_re = corpus.schema.mention_targets_re
    # the records whose mentions are found here (a record the loader did
    # not make), with the research defaults found without a Mention object
    # each; on a large record on two cores
    scan = [r for r in records.values() if r.mention_targets and default and not r.positions_known
            and isinstance(r.mention_re, re.Pattern)]
    scanned = _scan_positions(scan, targets_re) if scan else {}
    mentions, rels = [], []
    for rid, r in records.items():
        targets = r.mention_targets
        if not targets:
            continue
        places = r.mention_places() if default else None
        if places is not None:
            # the rows straight from the loader's arrays (no row per
            # mention made twice); the counts by C loops (Counter, dicts)
            lines, cols, wikilinks = places
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



# -- each group of tables, filled from a corpus ---------------------------------

def _fill_records(conn, corpus, results) -> None:
    from ..common.text import path_text
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
            # the body's UTF-8 bytes (a ``memoryview``) when the record holds
            # its text undecoded or not at all, which the INSERT turns into
            # text with ``CAST(? AS TEXT)``: the same text, without decoding
            # the file in Python only for SQLite to encode it again
            body = r.source.body_utf8(r.body_offset)
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
    pre = corpus.analyses.get(ROWS_KEY)
    fields, tags = [], []
    for rid, r in corpus.records.items():
        got = pre.get(r.path) if pre is not None else None
        if got is not None:
            fields += got
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



_FILL = {"records": _fill_records, "fields": _fill_fields, "relations": _fill_relations, "checks": _fill_checks}


def fill(conn: sqlite3.Connection, corpus, results=None, *, indexes: bool = True) -> None:
    """Create the tables (not the full-text index) and fill them from
    ``corpus``; ``indexes=False`` leaves the indexes to :data:`INDEXES`."""
    conn.executescript(SCHEMA)
    for group in ("records", "fields", "relations", "checks"):
        _FILL[group](conn, corpus, results)
    if indexes:
        conn.executescript(INDEXES)


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


def _fill_fts(conn: sqlite3.Connection, corpus) -> None:
    """The full-text index of ``corpus`` in ``conn`` (which need not hold
    the records table), its rowids those the records get in
    :func:`_fill_records` (1, 2, … in order)."""
    conn.execute(FTS_TABLE)
    _build_fts(conn, lambda: conn.executemany(
        "INSERT INTO records_fts(rowid, id, title, body) VALUES (?, ?, ?, ?)",
        ((i, rid, r.title, r.body) for i, (rid, r) in enumerate(corpus.records.items(), 1))))


# -- a lone surrogate, which UTF-8 cannot hold ----------------------------------

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
