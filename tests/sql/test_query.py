"""recordkit export --sqlite and recordkit query: the record as SQLite, read-only SQL over it."""
import hashlib
import json
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, run_cli

RECORDS = REPO / "records"


@pytest.fixture
def record_copy(tmp_path):
    shutil.copytree(RECORDS, tmp_path / "records")
    shutil.copytree(REPO / "checks", tmp_path / "checks")
    (tmp_path / "recordkit.toml").write_text(
        'root = "records"\nchecks = "checks"\n\n[queries]\n'
        'unread = "SELECT id FROM records WHERE kind = \'LIT\' AND status = \'queued\' ORDER BY id"\n'
        'by-kind = {sql = "SELECT id FROM records WHERE kind = :kind ORDER BY id", description = "ids of a kind"}\n')
    return tmp_path


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    out = tmp_path_factory.mktemp("export") / "record.db"
    proc = run_cli("export", "--sqlite", str(out), cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    return out


def test_export_leaves_empty_columns_null(exported):
    """The rows stand for "no value" with a placeholder that binds fast
    (0, or -1 for a list item's index: NO_TEXT, NO_ITEM); every such
    column holds NULL or a real value, never the placeholder."""
    db = sqlite3.connect(exported)

    def types(sql):
        return dict(db.execute(sql).fetchall())
    assert types("SELECT typeof(label), count(*) FROM mentions GROUP BY 1").keys() == {"null", "text"}
    # (a TEXT column would keep the placeholder 0 as the text '0')
    assert db.execute("SELECT count(*) FROM mentions WHERE form = 'bare' AND label IS NOT NULL").fetchone() == (0,)
    assert db.execute("SELECT count(*) FROM mentions WHERE form = 'bare'").fetchone()[0] > 0
    assert types("SELECT typeof(target_exists), count(*) FROM mentions GROUP BY 1").keys() == {"integer"}
    assert types("SELECT typeof(via), count(*) FROM relations GROUP BY 1").keys() == {"null", "text"}
    assert db.execute("SELECT count(*) FROM relations WHERE via IS NOT NULL AND origin <> 'derived'").fetchone() == (0,)
    assert types("SELECT typeof(item), count(*) FROM fields GROUP BY 1").keys() == {"null", "integer"}
    assert db.execute("SELECT min(item) FROM fields").fetchone() == (0,)
    # a scalar field has no item; a list's items count from 0
    assert db.execute("SELECT item FROM fields WHERE record = 'LIT-849' AND name = 'year'").fetchone() == (None,)
    assert [r[0] for r in db.execute("SELECT item FROM fields WHERE record = 'LIT-849' AND name = 'tags'")][:2] == [0, 1]
    for col in ("detail", "lifecycle_detail", "undermined_path"):
        assert types(f"SELECT typeof({col}), count(*) FROM standings GROUP BY 1").keys() <= {"null", "text"}, col
        assert db.execute(f"SELECT count(*) FROM standings WHERE {col} IN ('', '0')").fetchone() == (0,), col
    assert db.execute("SELECT count(*) FROM standings WHERE detail IS NOT NULL").fetchone()[0] > 0


def test_export_has_every_table_typed_and_linked(exported):
    db = sqlite3.connect(exported)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type IN ('table')")}
    for t in ("records", "kinds", "fields", "relations", "tags", "mentions", "checks", "check_citations",
              "requirements", "standings", "records_fts"):
        assert t in tables, t
    assert db.execute("SELECT count(*) FROM records").fetchone()[0] == 48
    # declared types and foreign keys (what Datasette uses to link tables)
    cols = {r[1]: r[2] for r in db.execute("PRAGMA table_info(records)")}
    assert cols["id"] == "TEXT" and cols["body_line"] == "INTEGER"
    fks = {(r[3], r[2], r[4]) for r in db.execute("PRAGMA foreign_key_list(relations)")}
    assert fks == {("source", "records", "id"), ("target", "records", "id")}
    assert db.execute("PRAGMA foreign_key_check").fetchall() == []
    # an index leads with every join key
    indexed = set()
    for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '%fts%'"):
        for idx in db.execute(f"PRAGMA index_list({name})"):
            first = db.execute(f"PRAGMA index_info({idx[1]})").fetchone()
            indexed.add((name, first[2]))
    for key in [("relations", "source"), ("relations", "target"), ("fields", "record"), ("tags", "record"),
                ("tags", "tag"), ("mentions", "record"), ("mentions", "target"), ("check_citations", "record"),
                ("check_citations", "check_id"), ("records", "kind"), ("records", "id"), ("standings", "record")]:
        assert key in indexed, key
    # typed field values
    year = db.execute("SELECT type, value, typeof(value) FROM fields WHERE record = 'LIT-849' AND name = 'year'").fetchone()
    assert year == ("integer", 2022, "integer")
    created = db.execute("SELECT type, value FROM fields WHERE record = 'THEORY-175' AND name = 'created'").fetchone()
    assert created == ("date", "2026-10-09")
    pw = db.execute("SELECT type, value FROM fields WHERE record = 'THEORY-175' AND name = 'promote_when'").fetchone()
    assert pw[0] == "object" and json.loads(pw[1])["requires"][0] == {"check": "relrep-invariance-class"}
    # relations: front matter with its line, body with a count, derived with the reference
    assert db.execute("SELECT line, col FROM relations WHERE source = 'CLAIM-082' AND target = 'THEORY-175' "
                      "AND relation = 'grounds' AND origin = 'frontmatter'").fetchone() == (9, 11)
    body = db.execute("SELECT count, line FROM relations WHERE source = 'CLAIM-082' AND target = 'THEORY-175' "
                      "AND origin = 'body'").fetchone()
    assert body[0] == 1 and body[1] > 9
    assert db.execute("SELECT count(*) FROM relations WHERE origin = 'derived' AND via IS NOT NULL").fetchone()[0] > 0
    m = db.execute("SELECT line, col, form, label FROM mentions WHERE record = 'NOTE-652' AND target = 'THEORY-175' "
                   "AND form = 'wikilink'").fetchone()
    assert m[2] == "wikilink" and m[3] == "the invariance theory"
    assert db.execute("SELECT state FROM standings WHERE record = 'THEORY-013'").fetchone() == ("undermined",)
    assert db.execute("SELECT count(*) FROM check_citations WHERE check_id = 'relrep-invariance-class'").fetchone()[0] >= 3
    hit = db.execute("SELECT id FROM records_fts WHERE records_fts MATCH '\"relative representations\"' "
                     "ORDER BY rank LIMIT 1").fetchone()
    assert hit is not None


#: Datasette asked in a process of its own: it leaves its write thread and
#: executor running, and a pytest worker with threads alive may not fork (the
#: export tests after this one need their helpers)
DATASETTE_GET = """
import asyncio, json, sys
from datasette.app import Datasette

async def main(path, stem, urls):
    ds = Datasette(files=[path])
    out = []
    for url in urls:
        r = await ds.client.get(url.format(name=stem))
        out.append([r.status_code, r.text])
    print(json.dumps(out))

asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3:]))
"""


def test_datasette_opens_the_export(exported):
    pytest.importorskip("datasette.app")
    proc = subprocess.run([sys.executable, "-c", DATASETTE_GET, str(exported), exported.stem,
                           "/{name}/records.json?_shape=array&kind=THEORY&_sort=id",
                           "/{name}/relations.json?_shape=array&_labels=on&source=CLAIM-082&relation=grounds",
                           "/{name}/records.json?_search=anchors&_shape=array"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    (rows_status, rows), (_, rels), (search_status, search) = json.loads(proc.stdout)
    assert rows_status == 200, rows
    assert [r["id"] for r in json.loads(rows)][:3] == ["THEORY-002", "THEORY-004", "THEORY-008"]
    # the foreign key is a link: Datasette labels the target with the record's title
    labelled = {r["target"]["value"]: r["target"]["label"] for r in json.loads(rels)}
    assert labelled["THEORY-175"].startswith("Cosine profiles")
    assert search_status == 200 and len(json.loads(search)) > 0


@pytest.mark.parametrize("sql", [
    "DELETE FROM records",
    "UPDATE records SET title = 'x'",
    "INSERT INTO tags VALUES ('LIT-849', 'x')",
    "DROP TABLE records",
    "CREATE TABLE t (x)",
    "ATTACH DATABASE ':memory:' AS other",
    "PRAGMA writable_schema = ON",
    "PRAGMA query_only = OFF",
    "PRAGMA user_version = 7",
])
def test_writes_are_refused_by_sqlite(record_copy, sql):
    run_cli("query", "SELECT 1", cwd=record_copy, check=True)
    dbs = list((record_copy / ".recordkit").glob("query-*.sqlite"))
    assert len(dbs) == 1
    before = hashlib.sha256(dbs[0].read_bytes()).hexdigest()
    proc = run_cli("query", sql, cwd=record_copy)
    assert proc.returncode == 2
    # recordkit's words, SQLite's message (its wording is SQLite's own) a detail
    assert re.fullmatch(r"recordkit: SQL error: a query only reads: [^\n]+ \([^\n]+\)\n", proc.stderr), proc.stderr
    assert "Traceback" not in proc.stderr
    assert hashlib.sha256(dbs[0].read_bytes()).hexdigest() == before


@pytest.mark.slow
def test_sql_errors_are_clear(record_copy):
    """An SQL error is one line of recordkit's words with SQLite's message
    (worded by the SQLite Python was built with) after them."""
    for sql in ("SELEC id FROM records", "SELECT nope FROM records"):
        proc = run_cli("query", sql, cwd=record_copy)
        assert proc.returncode == 2 and re.fullmatch(r"recordkit: SQL error: \S[^\n]*\n", proc.stderr), proc.stderr
        assert "is not a named query" not in proc.stderr and "a query only reads" not in proc.stderr
    proc = run_cli("query", "unred", cwd=record_copy)
    assert proc.returncode == 2 and "'unred' is not a named query; did you mean unread?" in proc.stderr


@pytest.mark.slow
def test_formats_and_named_queries(record_copy):
    proc = run_cli("query", "unread", cwd=record_copy, check=True)
    lines = proc.stdout.splitlines()
    assert lines[0] == "id" and lines[1] == "-------" and lines[2] == "LIT-862" and lines[-1].endswith("rows)")
    proc = run_cli("query", "by-kind", "--param", "kind=NOTE", "--format", "json", cwd=record_copy, check=True)
    assert json.loads(proc.stdout) == [{"id": i} for i in ["NOTE-302", "NOTE-309", "NOTE-652", "NOTE-738", "NOTE-804", "NOTE-811"]]
    proc = run_cli("query", "SELECT id, title FROM records WHERE id IN ('LIT-849', 'NOTE-652') ORDER BY id",
                   "--format", "csv", cwd=record_copy, check=True)
    assert proc.stdout.splitlines()[0] == "id,title"
    assert proc.stdout.splitlines()[2].startswith('NOTE-652,Reading of Moschella et al. (2022): relative')
    proc = run_cli("query", "--list", cwd=record_copy, check=True)
    assert "by-kind  ids of a kind" in proc.stdout and "unread   SELECT id FROM records" in proc.stdout
    proc = run_cli("query", "SELECT 1.5 AS x, NULL AS y, 'a' AS z", cwd=record_copy, check=True)
    assert proc.stdout.splitlines()[2] == "1.5     a"


@pytest.mark.slow
def test_the_database_is_cached_until_the_record_changes(record_copy):
    sql = "SELECT title FROM records WHERE id = 'QUESTION-212'"
    first = run_cli("query", sql, "--format", "json", cwd=record_copy, check=True)
    dbs = list((record_copy / ".recordkit").glob("query-*.sqlite"))
    stat = dbs[0].stat()
    again = run_cli("query", sql, "--format", "json", cwd=record_copy, check=True)
    assert again.stdout == first.stdout
    assert dbs[0].stat().st_mtime_ns == stat.st_mtime_ns and dbs[0].stat().st_ino == stat.st_ino   # not rebuilt
    p = record_copy / "records" / "question" / "QUESTION-212.md"
    text = p.read_text()
    title = json.loads(first.stdout)[0]["title"]
    p.write_text(text.replace("status: dropped\n", "status: dropped\nupdated: 2026-12-03\n", 1))
    assert json.loads(run_cli("query", "SELECT updated FROM records WHERE id = 'QUESTION-212'", "--format", "json",
                              cwd=record_copy, check=True).stdout) == [{"updated": "2026-12-03"}]
    assert json.loads(run_cli("query", sql, "--format", "json", cwd=record_copy, check=True).stdout)[0]["title"] == title
    assert len(list((record_copy / ".recordkit").glob("query-*.sqlite"))) == 1   # the old one removed


def test_full_text_index_is_added_when_first_asked_for(record_copy):
    run_cli("query", "SELECT 1", cwd=record_copy, check=True)
    db = next((record_copy / ".recordkit").glob("query-*.sqlite"))
    assert not sqlite3.connect(db).execute("SELECT 1 FROM sqlite_master WHERE name = 'records_fts'").fetchone()
    proc = run_cli("query", "SELECT id FROM records_fts WHERE records_fts MATCH 'anchors' ORDER BY id",
                   "--format", "json", cwd=record_copy, check=True)
    assert {"id": "THEORY-175"} in json.loads(proc.stdout)


def readme_questions():
    text = (REPO / "README.md").read_text()
    section = text.split("## Questions you can ask", 1)[1].split("\n## ", 1)[0]
    pairs = re.findall(r"```sh\nrecordkit query \"(.*?)\"\n```\n\n```text\n(.*?)```", section, re.S)
    return pairs


@pytest.mark.slow
def test_readme_questions_give_the_output_shown():
    pairs = readme_questions()
    assert len(pairs) >= 5
    for sql, output in pairs:
        proc = run_cli("query", sql.replace("\\\n", " "), cwd=REPO)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == output, sql


QUERY_RECORD = {
    "lit/LIT-001.md": "---\nid: LIT-001\ntitle: A work\nstatus: queued\nauthors: [A]\nyear: 2020\n---\n",
    "lit/LIT-002.md": "---\nid: LIT-002\ntitle: Another work\nstatus: active\nauthors: [B]\nyear: 2021\n"
                      "references: []\n---\n\n## Key takeaways\n\nLIT-001.\n",
    "question/QUESTION-001.md": "---\nid: QUESTION-001\ntitle: What is unread?\nstatus: open\nabout: [LIT-001]\n---\n"
                                "\nThe unread works:\n\n```query\nSELECT id, title FROM records\n"
                                "WHERE kind = 'LIT' AND status = 'queued' ORDER BY id\n```\n\n"
                                "~~~~ query\nSELECT id, titel FROM records\n~~~~\n\n"
                                "```\n```query\nSELECT nothing FROM nowhere -- inside another fence: code\n```\n\n"
                                "```query\n```\n",
}


@pytest.mark.slow
def test_query_blocks_in_show_and_lint(make_record, tmp_path):
    root = make_record(QUERY_RECORD)
    proc = run_cli("--root", str(root), "show", "QUESTION-001", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert "Queries\n  line 10: SELECT id, title FROM records WHERE kind = 'LIT' AND status = 'queued' ORDER BY…\n" \
           "    id       title\n    -------  ------\n    LIT-001  A work\n    (1 row)\n" in text
    assert re.search(r"  line 15: SELECT id, titel FROM records\n    error: \S[^\n]*\n", text), text
    assert "nowhere" not in text
    assert "  line 24: \n    error: the query block is empty" in text
    info = json.loads(run_cli("--root", str(root), "show", "QUESTION-001", "--format", "json", cwd=tmp_path).stdout)
    first = info["queries"][0]
    assert first["columns"] == ["id", "title"] and first["rows"] == [["LIT-001", "A work"]]
    assert first["tables"] == ["records"] and first["error"] is None
    lint = run_cli("--root", str(root), "lint", "--no-cache", cwd=tmp_path)
    found = [line for line in lint.stdout.splitlines() if "RK701" in line]
    assert len(found) == 2 and re.fullmatch(r"records/question/QUESTION-001\.md:15:1: RK701 query block fails: \S.*",
                                            found[0]), lint.stdout
    assert found[1] == "records/question/QUESTION-001.md:24:1: RK701 query block fails: the query block is empty"
    # a record whose query blocks all work lints clean of RK701
    p = root / "question" / "QUESTION-001.md"
    p.write_text(p.read_text().replace("titel", "title").replace("```query\n```\n", ""))
    lint = run_cli("--root", str(root), "lint", "--no-cache", cwd=tmp_path)
    assert "RK701" not in lint.stdout


def test_evaluate_blocks_is_a_library_function(make_record):
    import recordkit
    from recordkit.sql.query import evaluate_blocks
    root = make_record(QUERY_RECORD)
    corpus = recordkit.load(root)
    got = evaluate_blocks(corpus, corpus.records["QUESTION-001"])
    assert [b.block.line for b in got] == [10, 15, 24]
    assert got[0].result.rows == [("LIT-001", "A work")] and got[0].result.tables == {"records"}
    assert got[1].result is None and got[1].error     # SQLite's message, in its words
    assert evaluate_blocks(corpus, corpus.records["LIT-001"]) == []


RUNAWAY = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c"


def test_a_query_that_never_ends_is_stopped(make_record, tmp_path, monkeypatch):
    """A recursive CTE with no end: a query block in a record (lint, build
    and show run it) is stopped after BLOCK_TIME_LIMIT with an error, and may
    not make a value over BLOCK_MAX_LENGTH; `recordkit query` after its
    --timeout (60 s by default)."""
    import time
    import recordkit
    from recordkit.sql import query as q
    monkeypatch.setattr(q, "BLOCK_TIME_LIMIT", 0.5)
    monkeypatch.setattr(q, "BLOCK_MAX_LENGTH", 1 << 20)
    root = make_record({"question/QUESTION-001.md": "---\nid: QUESTION-001\ntitle: q\nstatus: open\n---\n\n"
                        f"```query\n{RUNAWAY}\n```\n\n```query\nSELECT zeroblob(10000000)\n```\n"})
    corpus = recordkit.load(root)
    t = time.monotonic()
    got = q.evaluate_blocks(corpus, corpus.records["QUESTION-001"])
    assert time.monotonic() - t < 5
    assert got[0].error == "the query ran longer than its time limit (0.5 s) and was stopped"
    assert got[1].error.startswith("a value is too big: a query block may make values of up to 1 MB (")
    proc = run_cli("--root", str(root), "query", "--timeout", "0.5", RUNAWAY, cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == "recordkit: SQL error: the query ran longer than its time limit (0.5 s) and was stopped\n"


@pytest.mark.slow
def test_a_damaged_cached_database_is_built_again(record_copy):
    """A cached database overwritten or cut short outside recordkit is
    built again by the next query (and lint's query blocks), not reported
    as "file is not a database" at every query until the cache is removed."""
    from recordkit.sql.query import _usable
    q = "SELECT count(*) AS n FROM records"
    good = run_cli("query", q, cwd=record_copy, check=True).stdout
    cached = next((record_copy / ".recordkit").glob("query-*.sqlite"))
    assert _usable(cached)
    whole = cached.read_bytes()
    for damage in (b"garbage", whole[: len(whole) // 2], b""):
        cached.write_bytes(damage)
        assert not _usable(cached)
        proc = run_cli("query", q, cwd=record_copy)
        assert proc.returncode == 0 and proc.stdout == good, proc.stderr
        assert _usable(cached)


def test_export_with_a_helper_building_the_full_text_index(tmp_path):
    """On a large record a forked helper builds records_fts; its shadow tables
    are copied in: the index must be sound and answer as the serial one."""
    got = {}
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs{jobs}.db"
        run_cli("export", "--sqlite", str(out), cwd=REPO, env={"RECORDKIT_JOBS": jobs}, check=True)
        db = sqlite3.connect(out)
        db.execute("INSERT INTO records_fts(records_fts) VALUES ('integrity-check')")
        got[jobs] = [db.execute("SELECT id FROM records_fts WHERE records_fts MATCH ? ORDER BY rank, id", (q,)).fetchall()
                     for q in ("anchors", '"relative representations"', "stitch*", "anchor* AND cosine")]
        assert not list(tmp_path.glob(".*.tmp"))
    assert got["1"] == got["2"] and all(got["1"])


def test_json_is_strict(record_copy):
    proc = run_cli("query", "SELECT x'00ff' AS b, 1e400 AS big, -1e400 AS small", "--format", "json",
                   cwd=record_copy, check=True)
    assert json.loads(proc.stdout) == [{"b": "00ff", "big": "inf", "small": "-inf"}]


def _table_rows(path) -> dict:
    """Every table's rows in rowid order (the FTS5 shadow tables too) and
    sqlite_stat1's: what ``sqlite3 .dump`` prints, but for the schema's order."""
    db = sqlite3.connect(path)
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE "
                                       "'CREATE VIRTUAL%' AND name NOT LIKE 'sqlite%' ORDER BY name")]
    out = {t: db.execute(f"SELECT * FROM {t}").fetchall() for t in tables}
    out["sqlite_stat1"] = sorted(db.execute("SELECT * FROM sqlite_stat1").fetchall())
    out["schema"] = sorted(db.execute("SELECT type, name, sql FROM sqlite_master").fetchall(), key=repr)
    return out


@pytest.mark.parametrize("fts", [True, False])
def test_export_with_a_helper_is_the_same_database(tmp_path, fts):
    """With a forked helper filling some of the tables (copied in whole),
    the database holds the same rows, in the same order, as one built in
    one process; and the rows the parse helpers work out (RowAnalysis, the
    CLI) are those worked out afterwards (the library, as the site uses it)."""
    from recordkit.config import load_config
    from recordkit.corpus import load
    from recordkit.sql.database import write_database
    got = {}
    for jobs in ("1", "2"):
        out = tmp_path / f"jobs{jobs}.db"
        run_cli("export", "--sqlite", str(out), *([] if fts else ["--no-fts"]), cwd=REPO,
                env={"RECORDKIT_JOBS": jobs}, check=True)
        got[jobs] = _table_rows(out)
        assert not list(tmp_path.glob(".*.tmp"))
    config = load_config(REPO)
    corpus = load(config.root, config=config, jobs=1)
    assert corpus.analysis_key is None
    write_database(corpus, tmp_path / "library.db", fts=fts)
    got["library"] = _table_rows(tmp_path / "library.db")
    # and the mentions rows from the scanner's Mention objects instead of
    # where the loader found each mention (Record.mention_places())
    for r in corpus.records.values():
        r.mentions = r.mentions        # (drops the spots)
        assert r.mention_places() is None
    write_database(corpus, tmp_path / "scanned.db", fts=fts)
    got["scanned"] = _table_rows(tmp_path / "scanned.db")
    assert got["1"] == got["2"] == got["library"] == got["scanned"]
    assert len(got["1"]["mentions"]) > 200 and len(got["1"]["fields"]) > 500
    assert ("records_fts_data" in got["1"]) == fts
    origins = [r[3] for r in got["1"]["relations"]]
    assert origins == sorted(origins, key=["frontmatter", "body", "derived"].index)   # in that order


@pytest.mark.parametrize("dies", ["at once", "half-way through its database"])
def test_export_whose_helper_dies_is_the_same_database(tmp_path, monkeypatch, dies):
    """The helper makes its tables in a database of its own, copied in once
    it is whole.  A helper that dies before it, or half-way through it,
    leaves this process to make it: the same database, copied in once,
    every temporary file gone, the store saved whole."""
    import os

    from recordkit.config import load_config
    from recordkit.corpus import load
    from recordkit.corpus.store import RecordStore
    from recordkit.corpus.store.store import _bucket
    from recordkit.sql import database
    shutil.copytree(RECORDS, tmp_path / "records")
    (tmp_path / "recordkit.toml").write_text('root = "records"\ncache_dir = "cache"\n')
    config = load_config(tmp_path)
    ref = tmp_path / "one.db"
    database.write_database(load(config.root, config=config, jobs=1), ref)
    parent = os.getpid()
    side_file = database._side_file

    def dying_side(corpus, results, groups, fts, path):
        if os.getpid() != parent:
            if dies == "half-way through its database":
                side_file(corpus, results, groups, fts, path)
                with open(path, "r+b") as fh:          # what a helper killed while writing leaves
                    fh.truncate(fh.seek(0, 2) // 2)
            os._exit(3)
        return side_file(corpus, results, groups, fts, path)
    monkeypatch.setattr(database, "_side_file", dying_side)
    monkeypatch.setenv("RECORDKIT_JOBS", "2")
    copies = []
    copy_side = database._copy_side
    monkeypatch.setattr(database, "_copy_side", lambda conn, path, groups, fts: (copies.append(groups),
                                                                                 copy_side(conn, path, groups, fts)))
    store = RecordStore(config, config.root.resolve())
    corpus = load(config.root, config=config, store=store, jobs=1)
    assert len(store.dirty) > 1
    out = tmp_path / "two.db"
    database.write_database(corpus, out, store=store)
    assert _table_rows(out) == _table_rows(ref)
    assert copies == [database.HELPER_GROUPS[True]]
    assert not list(tmp_path.glob(".*.tmp"))
    again = RecordStore(config, config.root.resolve())
    again._read()
    assert len(again.entries) == len(corpus.files) and store.dirty == set()
    assert len(list(again.folder.glob("*.pickle"))) == len({_bucket(k) for k in store.entries})


@pytest.mark.slow
def test_a_deleted_or_new_record_is_seen_by_the_next_query(record_copy):
    sql = "SELECT id FROM records WHERE id IN ('QUESTION-212', 'QUESTION-999') ORDER BY id"
    assert run_cli("query", sql, "--format", "csv", cwd=record_copy, check=True).stdout == "id\nQUESTION-212\n"
    src = record_copy / "records" / "question" / "QUESTION-212.md"
    text = src.read_text()
    src.unlink()
    assert run_cli("query", sql, "--format", "csv", cwd=record_copy, check=True).stdout == "id\n"
    (src.parent / "QUESTION-999.md").write_text(text.replace("QUESTION-212", "QUESTION-999"))
    assert run_cli("query", sql, "--format", "csv", cwd=record_copy, check=True).stdout == "id\nQUESTION-999\n"
    # a mention of the deleted record no longer has a target
    assert run_cli("query", "SELECT count(*) AS n FROM mentions WHERE target = 'QUESTION-212' AND target_exists",
                   "--format", "csv", cwd=record_copy, check=True).stdout == "n\n0\n"


def test_a_database_from_an_older_recordkit_is_rebuilt(record_copy, monkeypatch):
    """The cache key holds a digest of recordkit's code and the database's
    layout: a database an older recordkit left in the cache folder is not read."""
    import recordkit.sql.cache as q
    from recordkit.config import load_config
    monkeypatch.chdir(record_copy)
    config = load_config(record_copy)
    monkeypatch.setattr(q, "code_fingerprint", lambda: "older code")
    old, built = q.cached_database(config)
    assert built
    db = sqlite3.connect(old)
    with db:
        db.execute("UPDATE records SET title = 'from an older recordkit'")
    db.close()
    assert q.cached_database(config) == (old, False)   # same version: the cached file is used
    monkeypatch.undo()
    monkeypatch.chdir(record_copy)
    proc = run_cli("query", "SELECT count(*) AS n FROM records WHERE title = 'from an older recordkit'",
                   "--format", "csv", cwd=record_copy, check=True)
    assert proc.stdout == "n\n0\n"
    assert not old.exists()   # the older database was removed
    assert len(list(Path(config.cache_dir).glob("query-*.sqlite"))) == 1


def test_the_query_cache_walks_the_folders_the_loader_walks(record_copy, monkeypatch):
    """The cached database's file signatures come from the loader's walk
    (``iter_files``, ``skip_dirs``): a folder the configuration keeps out
    neither rebuilds the database on every query, and one it lets in (an
    ``_inbox`` when ``skip_dirs`` leaves ``_*`` out) is watched for changes."""
    import recordkit.sql.query as q
    from recordkit.config import load_config
    from recordkit.corpus.loader import iter_files
    toml = record_copy / "recordkit.toml"
    base = toml.read_text()
    toml.write_text(base.replace('checks = "checks"\n', 'checks = "checks"\nskip_dirs = ["archive", "old/*"]\n'))
    for folder in ("archive", "old/drafts", "_inbox"):
        (record_copy / "records" / folder).mkdir(parents=True)
    (record_copy / "records" / "archive" / "NOTE-900.md").write_text("---\nid: NOTE-900\ntitle: a\n---\n")
    (record_copy / "records" / "old" / "drafts" / "NOTE-901.md").write_text("---\nid: NOTE-901\ntitle: b\n---\n")
    inbox = record_copy / "records" / "_inbox" / "NOTE-902.md"
    inbox.write_text("---\nid: NOTE-902\ntitle: first title\nstatus: draft\n---\n")
    monkeypatch.chdir(record_copy)
    config = load_config(record_copy)
    root = str(Path(config.root).resolve())
    walked = set(q._walk(root, config.exclude, config.skip_dirs))
    assert walked == {str(p) for p in iter_files(Path(root), config.exclude, config.skip_dirs)}
    assert not any("/archive/" in p or "/old/" in p for p in walked) and str(inbox) in walked
    path, built = q.cached_database(config)
    assert built
    assert q.cached_database(config) == (path, False)          # a skipped folder does not rebuild it
    # a folder skip_dirs lets in is watched: `_inbox` is walked when skip_dirs does not name `_*`
    sql = "SELECT id, title FROM records WHERE id LIKE 'NOTE-90%' ORDER BY id"
    assert run_cli("query", sql, "--format", "csv", cwd=record_copy, check=True).stdout == \
        "id,title\nNOTE-902,first title\n"
    inbox.write_text("---\nid: NOTE-902\ntitle: a new title\nstatus: draft\n---\n")
    assert run_cli("query", sql, "--format", "csv", cwd=record_copy, check=True).stdout == \
        "id,title\nNOTE-902,a new title\n"


def test_check_constraints_are_checked_once_the_tables_are_filled(tmp_path):
    """The tables are filled with SQLite's per-row CHECK off (an IN list
    costs a lookup table per row); one scan per table then refuses a row
    that breaks one, as SQLite would have."""
    from recordkit.sql import database as D
    assert D.CHECKS["relations"] == ["origin IN ('frontmatter', 'body', 'derived')"]
    assert D.CHECKS["mentions"] == ["form IN ('bare', 'wikilink', 'embed', 'markdown', 'tag')"]
    conn = D._connect(str(tmp_path / "x.db"))
    conn.executescript(D.SCHEMA)
    conn.execute("INSERT INTO relations VALUES ('A', 'B', 'cites', 'frontmatter', 1, 1, 1, NULL)")
    conn.execute("INSERT INTO mentions VALUES ('A', 'B', 1, 1, 'bare', NULL, 1)")
    D._check_constraints(conn, ("relations", "mentions"))
    conn.execute("INSERT INTO mentions VALUES ('A', 'B', 2, 1, 'shouted', NULL, 1)")
    with pytest.raises(sqlite3.IntegrityError, match="mentions: form IN"):
        D._check_constraints(conn, ("relations", "mentions"))
    # every table that has a CHECK is checked by the fill function that fills it
    checked = {t for tables in D.CHECKED_BY_FILL.values() for t in tables}
    assert {t for t, exprs in D.CHECKS.items() if exprs} <= checked
    assert set(D.CHECKED_BY_FILL) <= set(D._FILL)
    # and the file itself still declares the constraint: a later writer is held to it
    conn.close()
    other = sqlite3.connect(tmp_path / "x.db")
    with pytest.raises(sqlite3.IntegrityError):
        other.execute("INSERT INTO relations VALUES ('A', 'B', 'cites', 'guessed', 1, 1, 1, NULL)")


def test_full_text_index_built_with_a_large_hash_answers_as_the_default(tmp_path):
    """records_fts is built with FTS5's hash of pending terms at 64 MB (a few
    segments, not one per MB of terms): the index is laid out differently,
    but every query answers alike, rank and snippet included, and the
    setting is not left in the file."""
    from recordkit.sql import database as D
    bodies = [p.read_text(encoding="utf-8") for p in sorted(RECORDS.rglob("*.md"))]
    rows = [(f"NOTE-{i:04d}", f"Title {i} {bodies[i % len(bodies)][:40]}",
             f"word{i % 97} " * 20 + bodies[(i * 7) % len(bodies)]) for i in range(2000)]
    assert sum(len(b) for _, _, b in rows) > 4_000_000      # several default-sized flushes
    dbs = {}
    for how in ("default", "built"):
        conn = D._connect(str(tmp_path / f"{how}.db"))
        conn.execute("CREATE TABLE records (id TEXT PRIMARY KEY, title TEXT, body TEXT)")
        conn.executemany("INSERT INTO records VALUES (?, ?, ?)", rows)
        conn.commit()
        if how == "default":
            conn.execute(D.FTS_TABLE)
            conn.execute(D.FTS_FILL)
        else:
            D.add_fts(conn)
        conn.commit()
        conn.close()
        dbs[how] = sqlite3.connect(tmp_path / f"{how}.db")
        dbs[how].execute("INSERT INTO records_fts(records_fts) VALUES ('integrity-check')")
    assert dbs["built"].execute("SELECT * FROM records_fts_config").fetchall() == [("version", 4)]
    count = {how: db.execute("SELECT count(*) FROM records_fts_data").fetchone()[0] for how, db in dbs.items()}
    assert count["built"] < count["default"]          # fewer, larger segments
    sql = ("SELECT rowid, id, rank, snippet(records_fts, 2, '[', ']', '…', 8), highlight(records_fts, 1, '<', '>') "
           "FROM records_fts WHERE records_fts MATCH ? ORDER BY rank, rowid")
    for q in ("anchors", '"relative representations"', "stitch*", "anchor* AND cosine", "title:Title",
              "word5 NOT anchors", "NEAR(relative representation, 3)", "word1*"):
        got = [db.execute(sql, (q,)).fetchall() for db in dbs.values()]
        assert got[0] == got[1] and got[0], q


def test_bodies_from_bytes_are_the_bodies_of_the_text(tmp_path):
    """``records.body`` is filled from the file's bytes (``CAST(? AS
    TEXT)``) for a record that holds no decoded text (parsed in a helper,
    or taken from the store of parsed records after a lint): the same text,
    of type text, as from the decoded body; with non-ASCII characters in
    the front matter and the body, a BOM, CRLF, no front matter, an empty
    body."""
    from recordkit.config import load_config
    from recordkit.corpus import load
    from recordkit.corpus.source import Source
    from recordkit.corpus.store import CachedRecord, RecordStore
    from recordkit.sql.database import write_database
    root = tmp_path / "records"
    (root / "note").mkdir(parents=True)
    (root / "lit").mkdir()
    files = {
        "lit/LIT-001.md": "---\nid: LIT-001\ntitle: Café — ε ≤ 1\nstatus: queued\n---\nBody ‖x‖ ± σ, NOTE-002.\n",
        "lit/LIT-002.md": "---\nid: LIT-002\ntitle: ascii\nstatus: queued\n---\nplain body\n",
        "note/NOTE-002.md": "\ufeff---\r\nid: NOTE-002\r\ntitle: CRLF, BOM, 𝔼\r\nstatus: draft\r\n---\r\nSee LIT-001 ∞\r\n",
        "note/NOTE-003.md": "---\nid: NOTE-003\ntitle: no body\nstatus: draft\n---\n",
        "note/NOTE-004.md": "---\nid: NOTE-004\ntitle: \"𝔸 ok\"\nstatus: draft\n---\n\n\x00 nul and 中文\n",
    }
    for rel, text in files.items():
        (root / rel).write_bytes(text.encode("utf-8"))
    (tmp_path / "recordkit.toml").write_text('root = "records"\ncache_dir = "cache"\n')
    config = load_config(tmp_path)

    def bodies(corpus, name):
        out = tmp_path / f"{name}.db"
        write_database(corpus, out)
        db = sqlite3.connect(out)
        db.text_factory = bytes
        return db.execute("SELECT id, body, typeof(body) FROM records ORDER BY id").fetchall()

    text = load(config.root, config=config, jobs=1)
    assert all(isinstance(r.source.held(), str) for r in text.records.values())
    want = [(rid.encode(), r.body.encode("utf-8"), b"text") for rid, r in sorted(text.records.items())]
    assert len(want) == 5 and want[0][1] == "Body ‖x‖ ± σ, NOTE-002.\n".encode()
    assert bodies(text, "text") == want
    raw = load(config.root, config=config, jobs=1)
    for r in raw.records.values():          # as a record parsed in a helper arrives: its bytes
        r.source = Source(None, r.text.encode("utf-8"), r.digest, r.stat)
    assert bodies(raw, "raw") == want
    store = RecordStore(config)
    load(config.root, config=config, store=store)
    for k, e in list(store.entries.items()):     # (as if read well after the files changed)
        store.entries[k] = e._replace(started=e.started + 10**10)
    cached = load(config.root, config=config, store=store)
    assert store.hits == 5 and all(type(r) is CachedRecord and r.source.held() is None
                                   for r in cached.records.values())
    assert bodies(cached, "cached") == want
    assert all(r.source.held() is None for r in cached.records.values())     # (not decoded for it)
    # a file changed since the load (its stat signature no longer the
    # store's) is read as the record reads it: no bytes that are not UTF-8
    # in a text column
    again = load(config.root, config=config, store=store)
    (root / "lit/LIT-002.md").write_bytes(b"---\nid: LIT-002\ntitle: ascii\nstatus: queued\n---\n"
                                          b"not UTF-8: \xff\xfe\n")
    got = dict((i, (b, t)) for i, b, t in bodies(again, "changed"))
    assert got[b"LIT-002"] == (again.records["LIT-002"].body.encode("utf-8"), b"text")
    assert "\ufffd" in again.records["LIT-002"].body


def test_the_store_is_saved_whole_by_a_two_process_export(tmp_path):
    """A cold export on two processes saves the store of parsed records
    while the helper fills its tables: the store holds every file, as the
    one a single process saves, and the next export reads every file from it."""
    from recordkit.config import load_config
    from recordkit.corpus.store import RecordStore

    stores = {}
    for jobs in ("2", "1"):
        work = tmp_path / jobs
        shutil.copytree(RECORDS, work / "records")
        shutil.copytree(REPO / "checks", work / "checks")
        (work / "recordkit.toml").write_text('root = "records"\ncache_dir = "cache"\nchecks = "checks"\n')
        run_cli("export", "--sqlite", str(work / "r.db"), cwd=work, env={"RECORDKIT_JOBS": jobs}, check=True)
        store = RecordStore(load_config(work))
        store._read()
        assert not store.dirty       # every bucket whole
        files = sorted(str(p.relative_to(work)) for p in (work / "records").rglob("*.md"))
        assert sorted(str(Path(p).relative_to(work)) for p in store.entries) == files
        # (each entry's SQL rows)
        stores[jobs] = {str(Path(p).relative_to(work)): e[5] for p, e in store.entries.items()}
    assert stores["1"] == stores["2"]


def test_a_file_name_sqlite_cannot_hold_is_written_as_its_escape(tmp_path):
    """A record named by a file whose name is not UTF-8 has an id with a lone
    surrogate, which SQLite's UTF-8 text cannot hold: export and query
    write it as its escape (``\\xff``, as lint shows the file's name)
    instead of failing."""
    import os
    root = tmp_path / "records"
    (root / "note").mkdir(parents=True)
    try:
        name = os.fsdecode(b"\xff-odd.md")
        (root / "note" / name).write_text("---\ntitle: An odd name\n---\nSee NOTE-001.\n", encoding="utf-8")
    except (OSError, UnicodeEncodeError):
        pytest.skip("this file system cannot name the file")
    (root / "note" / "NOTE-001.md").write_text("---\nid: NOTE-001\ntitle: Plain\n---\nText.\n", encoding="utf-8")
    (tmp_path / "recordkit.toml").write_text('root = "records"\n')
    proc = run_cli("export", "--sqlite", "out.db", cwd=tmp_path)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    with sqlite3.connect(tmp_path / "out.db") as conn:
        rows = dict(conn.execute("SELECT id, path FROM records"))
        mentions = conn.execute("SELECT record, target FROM mentions").fetchall()
    assert rows == {"NOTE-001": "note/NOTE-001.md", "\\xff-odd": "note/\\xff-odd.md"}
    # the path is shown as lint shows it (a research id from `id:` holds no such byte)
    lint = json.loads(run_cli("lint", "--format", "json", "--exit-zero", cwd=tmp_path).stdout)
    assert any(d.get("path", d.get("filename", "")).endswith("note/\\xff-odd.md") for d in lint), lint
    assert mentions == [("\\xff-odd", "NOTE-001")]
    proc = run_cli("query", "SELECT id FROM records ORDER BY id", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    assert "xff-odd" in proc.stdout


def test_a_table_shows_control_characters_and_bidi_overrides_as_escapes(record_copy):
    """A title holding an ESC sequence or a right-to-left override reached
    the terminal as it was from ``query``'s table (lint's and show's output
    already escaped them); JSON and CSV keep the values exact."""
    note = record_copy / "records" / "lit" / "LIT-849.md"
    text = note.read_text(encoding="utf-8")
    title = re.search(r"^title: .*$", text, re.M).group()
    note.write_text(text.replace(title, 'title: "Red \\e[31mALERT\\e[0m \\u202e reversed"', 1), encoding="utf-8")
    sql = "SELECT id, title AS \"t\x1b[2J\" FROM records WHERE id = 'LIT-849'"
    proc = run_cli("query", sql, cwd=record_copy, check=True)
    assert "\x1b" not in proc.stdout and "\u202e" not in proc.stdout
    assert "Red \\x1b[31mALERT\\x1b[0m \\u202e reversed" in proc.stdout and "t\\x1b[2J" in proc.stdout
    proc = run_cli("query", sql, "--format", "json", cwd=record_copy, check=True)
    assert json.loads(proc.stdout)[0]["t\x1b[2J"] == "Red \x1b[31mALERT\x1b[0m \u202e reversed"


def test_a_binary_value_is_its_base64_text(tmp_path):
    """A YAML ``!!binary`` value was typed "array" with a JSON-quoted text;
    it is a string, the base64 text every JSON output gives."""
    root = tmp_path / "records" / "lit"
    root.mkdir(parents=True)
    (root / "LIT-001.md").write_text("---\nid: LIT-001\ntitle: T\nstatus: queued\nauthors: [A]\nyear: 2020\n"
                                     "blob: !!binary aGVsbG8=\nset: !!set {a, b}\n---\nBody.\n")
    (tmp_path / "recordkit.toml").write_text('root = "records"\n')
    run_cli("export", "--sqlite", "out.db", cwd=tmp_path, check=True)
    with sqlite3.connect(tmp_path / "out.db") as conn:
        got = dict((n, (t, v)) for n, t, v in conn.execute("SELECT name, type, value FROM fields"))
    assert got["blob"] == ("string", "aGVsbG8=") and got["set"] == ("array", '["a", "b"]')
    shown = json.loads(run_cli("show", "LIT-001", "--format", "json", cwd=tmp_path, check=True).stdout)
    assert shown["fields"]["blob"] == "aGVsbG8="


# -- JSON and CSV are written as the rows come ------------------------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from recordkit.sql.query import Result, format_csv, format_json, write_csv, write_json  # noqa: E402

VALUE = st.one_of(st.none(), st.integers(-2 ** 63, 2 ** 63 - 1), st.floats(), st.text(max_size=12),
                  st.binary(max_size=6))


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.integers(1, 3), st.integers(0, 2500).flatmap(lambda n: st.just(n)), st.data())
def test_streamed_json_and_csv_are_the_collected_ones(ncols, nrows, data):
    cols = [f"c{i}" for i in range(ncols)]
    if nrows > 20:      # (many rows: drawn once, repeated; the chunk edges are what matter)
        row = tuple(data.draw(VALUE) for _ in cols)
        rows = [row] * nrows
    else:
        rows = [tuple(data.draw(VALUE) for _ in cols) for _ in range(nrows)]
    out = []
    write_json(cols, iter(rows), out.append)
    assert "".join(out) == format_json(Result(cols, rows))
    out = []
    write_csv(cols, iter(rows), out.append)
    assert "".join(out) == format_csv(Result(cols, rows))


@pytest.mark.slow
def test_many_rows_are_written_as_they_come(record_copy):
    # a result was collected whole before it was written: 3,000,000 rows
    # took 673 MB as CSV and 2.9 GB as JSON; written a thousand rows at a
    # time, the process stays at its size (400,000 rows streamed: 28-30 MB
    # peak, measured 2026-12-06; collected, the CSV text alone is 6 MB of
    # str and the JSON's row dicts far more) (and a time limit hit on the way
    # ends the output with the error, exit 2)
    import subprocess
    import sys
    if not Path("/usr/bin/time").exists():
        pytest.skip("no /usr/bin/time to measure the peak memory with")
    sql = ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT 400000) "
           "SELECT x, 'some text' AS t FROM c")
    for fmt in ("csv", "json"):
        proc = subprocess.run(["/usr/bin/time", "-f", "%M", sys.executable, "-m", "recordkit", "--root",
                               str(record_copy), "query", "--format", fmt, sql],
                              capture_output=True, text=True, cwd=record_copy.parent, timeout=300)
        assert proc.returncode == 0, proc.stderr
        peak_kb = int(proc.stderr.strip().splitlines()[-1])
        assert peak_kb < 75_000, (fmt, peak_kb)
        if fmt == "csv":
            assert proc.stdout.count("\n") == 400_001 and proc.stdout.endswith("400000,some text\n")
        else:
            assert json.loads(proc.stdout)[-1] == {"x": 400000, "t": "some text"}
    forever = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT x FROM c"
    proc = run_cli("--root", str(record_copy), "query", "--format", "csv", "--timeout", "1", forever,
                   cwd=record_copy.parent)
    assert proc.returncode == 2 and "ran longer than its time limit (1 s)" in proc.stderr
    assert proc.stdout.startswith("x\n1\n2\n")


FOREVER = "with recursive c(x) as (select 1 union all select x+1 from c) select count(*) from c"


@pytest.mark.slow
@pytest.mark.parametrize("args", [["--timeout", "0"], [], ["--format", "csv", "--timeout", "0"], ["--format", "json"]])
def test_ctrl_c_stops_a_query_and_says_so(args, tmp_path):
    """Ctrl-C (a real SIGINT) while SQLite runs: the query stops at once,
    exit 130 "interrupted".  With no time limit it could not be stopped (no
    progress handler, so Python never ran); with one, sqlite3 swallowed the
    KeyboardInterrupt and the stop was reported as the time limit."""
    import os
    import signal
    import subprocess
    import sys
    import time
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, "-m", "recordkit", "--root", str(REPO / "records"), "query", FOREVER,
                             *args], cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(2.5)             # (loading, then SQLite's long loop)
    assert proc.poll() is None
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=20)
    assert proc.returncode == 130, (out, err)
    assert "interrupted" in err and "time limit" not in err and "Traceback" not in err, err


def test_csv_into_a_pipe_keeps_escape_sequences(tmp_path):
    """CSV is data: click.echo stripped ANSI CSI sequences from it when
    standard output is not a terminal (a title holding ESC[31m was
    exported without it)."""
    sql = "select char(27) || '[31mX' || char(27) || '[0m' as v, length(char(27) || '[31mX' || char(27) || '[0m') as n"
    proc = run_cli("--root", str(REPO / "records"), "query", sql, "--format", "csv", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "v,n\n\x1b[31mX\x1b[0m,10\n"


from hypothesis import given, settings, strategies as st  # noqa: E402

_values = st.one_of(st.none(), st.integers(-10**12, 10**12), st.floats(allow_nan=True),
                    st.text(max_size=80), st.binary(max_size=8),
                    st.sampled_from(["\x1b[31mred", "a\nb", "tab\there", "\u202eevil", "é" * 70, ""]))


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 4).flatmap(lambda k: st.tuples(
    st.lists(st.text(min_size=1, max_size=12), min_size=k, max_size=k),
    st.lists(st.lists(_values, min_size=k, max_size=k), max_size=30))),
    st.sampled_from([None, 60, 5, 1]))
def test_the_streamed_table_is_the_table(table, width):
    """``write_table`` (the CLI's table: rows not held) writes what
    ``format_table`` makes of the whole result."""
    from recordkit.sql.query import Result, format_table, write_table
    columns, rows = table
    out = []
    n = write_table(columns, iter([tuple(r) for r in rows]), out.append, width)
    assert n == len(rows)
    assert "".join(out) == format_table(Result(columns, [tuple(r) for r in rows], set()), width) + "\n"


def test_an_over_long_id_is_not_taken(record_copy):
    """A fuzzer's record: an `id` of 150,000 digits and 11,000 mentions made
    `export` write 3.5 GB (every mention row held the id).  Such an id is
    RK105 and the record is named by its file instead."""
    long_id = "LIT-" + "1" * 150_000
    path = record_copy / "records" / "lit" / "long-one.md"
    path.write_text(f"---\nid: {long_id}\ntitle: Long\nstatus: queued\n---\n" + "See THEORY-798. " * 11_000)
    lint = run_cli("lint", "--format", "json", cwd=record_copy)
    mine = [d for d in json.loads(lint.stdout) if d["filename"].endswith("long-one.md")]
    assert [(d["code"], d["location"]["row"]) for d in mine if d["code"] in ("RK105", "RK106")] == [("RK105", 2)]
    assert "150,004 characters long" in mine[0]["message"] and "named `long-one` instead" in mine[0]["message"]
    out = record_copy / "record.db"
    proc = run_cli("export", "--sqlite", str(out), cwd=record_copy)
    assert proc.returncode == 0, proc.stderr
    assert out.stat().st_size < 20 * 2 ** 20
    db = sqlite3.connect(out)
    assert db.execute("SELECT count(*) FROM mentions WHERE record = 'long-one'").fetchone() == (11_000,)
    assert db.execute("SELECT max(length(record)) FROM mentions").fetchone()[0] < 300
