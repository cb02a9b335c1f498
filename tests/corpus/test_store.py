"""The store of parsed records (recordkit/corpus/store/store.py): a record loaded
through it is, field by field, the record a fresh parse gives (records,
load diagnostics, mentions, positions, resolved links, analyses), after
edits, deletions, new files, schema and configuration changes, symbolic
links changed, and an edit in the same clock tick as the store's read; a
corrupt store is ignored; the store never holds more than the record."""
from __future__ import annotations

import json
import sqlite3
import os
import pickle
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import recordkit
from recordkit.config import load_config
from recordkit.corpus.loader import load
from recordkit.corpus.parse import fix_refusal
from recordkit.corpus.store import BUCKETS, RecordStore, store_folder
from recordkit.corpus.store.wire import ParsedRecord
from recordkit.runtime.tuning import RACY_NS

from conftest import REPO, run_cli
from recordkit.graph import of as graph_of

VAULTS = REPO / "tests" / "fixtures" / "vaults"


def _age(root: Path, seconds: float = 30) -> None:
    """Set every file's times back (as files not edited in the last
    seconds are): their change time stays now, so the store is written
    after that (see :func:`_settle`)."""
    past = time.time() - seconds
    for p in root.rglob("*"):
        if p.is_file() and not p.is_symlink():
            os.utime(p, (past, past))


def _settle(store: RecordStore) -> None:
    """Pretend the store read its files well after they last changed: the
    racy-clock guard would otherwise parse every file just written again
    (their change times are seconds old at most)."""
    for k, e in list(store.entries.items()):
        store.entries[k] = e._replace(started=e.started + 2 * RACY_NS)


def record_state(corpus, *, positions: bool = True) -> dict:
    """Everything a load gives, as plain values."""
    files = []
    for r in corpus.files:
        state = {
            "path": str(r.path), "relpath": r.relpath, "text": r.text, "meta": r.meta, "ok": r.ok,
            "fm": (r.fm_line, r.fm_end_line, r.body_line, r.body_offset), "body": r.body,
            "mention_targets": list(r.mention_targets), "mention_places": r.mention_places(),
            "mentions": [(m.target, m.line, m.col, m.end_col, m.form, m.label, m.text)
                         for m in r.mentions],
            "suppressions": r.suppressions, "kind": r.kind, "id": r.id, "title": r.title,
            "title_source": r.title_source,
            "relations": {k: [(t.id, t.pos, t.text) for t in v] for k, v in r.relations.items()},
            "digest": r.digest, "stat": r.stat, "code": r.code, "fence_infos": r.fence_infos,
            "no_fix": fix_refusal(r), "analysis": corpus.analyses.get(corpus.analysis_key, {}).get(r.path),
            "aliases": r.aliases, "tags": r.tags,
        }
        if positions:
            state["keys"], state["values"] = r.keys, r.values
        files.append(state)
    diags = sorted((str(d.path), d.line, d.col, d.end_line, d.end_col, d.code, d.message, d.severity)
                   for d in corpus.diagnostics)
    return {"files": files, "records": list(corpus.records), "diagnostics": diags,
            "analysis_key": corpus.analysis_key}


def assert_same(cached, fresh) -> None:
    # first the positions a cached record keeps, asked before anything
    # works them all out (a derived edge's field), then every position
    for a, b in zip(fresh.files, cached.files):
        if a.ok:
            for path in list(a.values):
                assert b.value_pos(*path) == a.value_pos(*path), (a.path, path)
            for path in list(a.keys):
                assert b.key_pos(*path) == a.key_pos(*path), (a.path, path)
    sa, sb = record_state(fresh), record_state(cached)
    assert len(sa["files"]) == len(sb["files"])
    for fa, fb in zip(sa["files"], sb["files"]):
        assert fa == fb, fa["path"]
    assert sa == sb
    assert sorted(graph_of(fresh).edges(data="relation")) == sorted(graph_of(cached).edges(data="relation"))


def tricky_record(root: Path) -> Path:
    """The example record and files that are hard to parse."""
    shutil.copytree(REPO / "records", root)
    odd = root / "odd"
    odd.mkdir()
    (odd / "NOTE-990.md").write_bytes(b"---\nid: NOTE-990\ntitle: caf\xe9\nstatus: draft\n---\n")     # not UTF-8
    (odd / "NOTE-991.md").write_bytes(b"")
    (odd / "NOTE-992.md").write_text("no front matter, mentions LIT-849\n", encoding="utf-8")
    (odd / "NOTE-993.md").write_text("---\nid: NOTE-993\ntitle: [unclosed\n---\n", encoding="utf-8")
    (odd / "NOTE-994.md").write_bytes(
        b"\xef\xbb\xbf---\r\nid: NOTE-994\r\ntitle: CRLF and BOM\r\nstatus: draft\r\npaper: LIT-849\r\n---\r\n"
        b"See THEORY-798 and [[LIT-849|the paper]] <!-- recordkit: ignore RK301 -->\r\n")
    (odd / "NOTE-995.md").write_text("---\nid: NOTE-995\ntitle: Folded\nstatus: draft\n---\n"
                                     "```\nLIT-849 in code\n```\nand NOTE-811 outside.\n", encoding="utf-8")
    (odd / "NOTE-996.md").symlink_to(root / "note" / "NOTE-811.md")     # a link is a record file of its own
    (odd / "folder.md").mkdir()                                          # a folder, not a record file
    return root


def _stores(root: Path):
    config = load_config(root.parent)
    config.root = root
    return config


@pytest.fixture
def record(tmp_path):
    root = tricky_record(tmp_path / "rec")
    (tmp_path / "recordkit.toml").write_text('root = "rec"\ncache_dir = "cache"\n', encoding="utf-8")
    _age(root)
    return root


def _load(config, **kw):
    return load(config.root, config=config, **kw)


def test_a_load_from_the_store_is_a_fresh_load(record):
    config = _stores(record)
    store = RecordStore(config)
    first = _load(config, store=store)
    assert store.hits == 0 and len(store.parsed_again) == len(first.files)
    assert_same(first, _load(config))
    store.save()
    _settle(store)
    store.dirty = set(range(BUCKETS))
    store.save()
    store2 = RecordStore(config)                       # from disk
    store2._read()
    assert set(store2.entries) == set(store.entries)
    again = _load(config, store=store2)
    assert store2.hits == len(again.files) and not store2.parsed_again
    fresh = _load(config)
    assert_same(again, fresh)
    assert any(r.path.name == "NOTE-990.md" and r.text == "" for r in again.files)   # not UTF-8: no text


def test_changes_are_seen(record):
    config = _stores(record)
    store = RecordStore(config)
    _load(config, store=store)
    _settle(store)
    # an edit that keeps the size and sets the modification time back
    p = record / "theory" / "THEORY-798.md"
    st = p.stat()
    text = p.read_text(encoding="utf-8")
    p.write_text(text.replace("status: proposed", "status: proposal"), encoding="utf-8")
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert p.stat().st_size == st.st_size
    (record / "lit" / "LIT-849.md").unlink()                               # a deleted record
    (record / "odd" / "NOTE-997.md").write_text("---\nid: NOTE-997\ntitle: New\nstatus: draft\n---\n"
                                                "Mentions THEORY-798.\n", encoding="utf-8")
    link = record / "odd" / "NOTE-996.md"                                    # a link pointed elsewhere
    link.unlink()
    link.symlink_to(record / "note" / "NOTE-652.md")
    got = _load(config, store=store)
    assert store.parsed_again == {str(p), str(record / "odd" / "NOTE-997.md"), str(link)}
    assert_same(got, _load(config))
    assert got.records["THEORY-798"].status == "proposal"
    assert "LIT-849" not in got.records
    assert str(record / "lit" / "LIT-849.md") not in store.entries           # dropped
    assert len(store.entries) == len(got.files)


def test_an_edit_in_the_same_clock_tick_is_parsed_again(record):
    """A file system whose clock did not tick between the store's read and
    an edit leaves the stat signature as it was: the racy-clock guard
    parses every file changed around the read again."""
    config = _stores(record)
    store = RecordStore(config)
    _load(config, store=store)            # entries read now: every file changed "just before"
    p = record / "claim" / "CLAIM-082.md"
    text = p.read_text(encoding="utf-8")
    p.write_text(text.replace("status: supported", "status: supportex"), encoding="utf-8")
    # the coarse clock: the new stat is the one the store saw
    key = str(p)
    st = p.stat()
    e = store.entries[key]
    store.entries[key] = e._replace(key=(st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns))
    got = _load(config, store=store)
    assert key in store.parsed_again
    assert got.records["CLAIM-082"].status == "supportex"
    assert_same(got, _load(config))
    # the same edit seen long after the read (the guard is what caught it)
    p.write_text(text.replace("status: supported", "status: supportey"), encoding="utf-8")
    st = p.stat()
    e = store.entries[key]
    store.entries[key] = e._replace(key=(st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns),
                                    started=max(st.st_mtime_ns, st.st_ctime_ns) + 2 * RACY_NS)
    stale = _load(config, store=store)
    assert key not in store.parsed_again and stale.records["CLAIM-082"].status == "supportex"


def test_schema_and_configuration_changes(record, tmp_path):
    config = _stores(record)
    store = RecordStore(config)
    _load(config, store=store)
    _settle(store)
    store.save()
    # a schema of the user's: every record parsed again (other kinds, other relations)
    # (a relation `reads` from NOTE to LIT: a NOTE's `reads: LIT-849` becomes an edge)
    (tmp_path / "schema.yaml").write_text("relations:\n  reads:\n    from: [NOTE]\n    to: [LIT]\n    label: Read by\n",
                                          encoding="utf-8")
    p = record / "note" / "NOTE-811.md"
    p.write_text(p.read_text(encoding="utf-8").replace("---\n", "---\nreads: LIT-849\n", 1), encoding="utf-8")
    (tmp_path / "recordkit.toml").write_text('root = "rec"\ncache_dir = "cache"\nschema = "schema.yaml"\n',
                                             encoding="utf-8")
    config2 = _stores(record)
    try:
        s2 = RecordStore(config2)
        got = _load(config2, store=s2)
    except Exception as exc:   # the schema text above must be one recordkit reads
        pytest.fail(f"schema not read: {exc}")
    assert s2.hits == 0
    assert ("NOTE-811", "LIT-849", "reads") in set(graph_of(got).edges(data="relation"))
    assert_same(got, _load(config2))
    # a smaller max_file_size: parsed again, the large files refused
    config3 = _stores(record)
    config3.max_file_size = 2000
    s3 = RecordStore(config3)
    got3 = _load(config3, store=s3)
    assert s3.hits == 0 and any(d.code == "RK109" for d in got3.diagnostics)
    assert_same(got3, _load(config3))
    # a setting that does not change a parse keeps the store
    (tmp_path / "recordkit.toml").write_text('root = "rec"\ncache_dir = "cache"\nsite_title = "Other"\n',
                                             encoding="utf-8")
    config4 = _stores(record)
    s4 = RecordStore(config4)
    got4 = _load(config4, store=s4)
    assert s4.parsed_again == {str(p), str(record / "odd" / "NOTE-996.md")}    # (edited, and a link to it)
    assert_same(got4, _load(config4))


def test_skip_dirs_and_exclude_keep_files_out_of_the_store(record, tmp_path):
    config = _stores(record)
    config.skip_dirs = [*config.skip_dirs, "odd"]
    store = RecordStore(config)
    got = _load(config, store=store)
    assert not any("/odd/" in k for k in store.entries)
    assert_same(got, _load(config))


def test_a_corrupt_store_is_ignored(record, tmp_path):
    config = _stores(record)
    store = RecordStore(config)
    _load(config, store=store)
    store.save()
    folder = store_folder(config, record.resolve())
    files = sorted(folder.glob("*.pickle"))
    assert files
    bad = [b"", b"not a pickle", pickle.dumps([1, 2, 3]), pickle.dumps({"key": store.key, "entries": []}),
           pickle.dumps({"key": store.key, "entries": {"x": (1, 2)}}),
           pickle.dumps({"key": store.key, "entries": {str(record / "nowhere.md"): ("a",) * 6}}),
           files[0].read_bytes()[:40]]
    for i, data in enumerate(bad):
        files[i % len(files)].write_bytes(data)
    s2 = RecordStore(config)
    got = _load(config, store=s2)          # no traceback
    assert_same(got, _load(config))
    s2.save()                              # the bad buckets are rewritten
    s3 = RecordStore(config)
    s3._read()
    assert not s3.dirty and set(s3.entries) == set(s2.entries)
    # entries whose signature matches but whose contents are not what this version writes
    s5 = RecordStore(config)
    s5._read()
    _settle(s5)
    some = sorted(s5.entries)[:4]
    for i, k in enumerate(some):
        e = s5.entries[k]
        s5.entries[k] = [e._replace(record=("x",) * 3),                          # a short record
                         e._replace(analyses="not a dict"),
                         e._replace(record=tuple(ParsedRecord._make(e.record)._replace(relations="not relations"))),
                         e._replace(started="not a time")][i]
    s5.dirty = set(range(BUCKETS))
    s5.save()
    from recordkit.schema import load_schema
    from recordkit.sql.database import RowAnalysis
    schema = load_schema(config.schema)
    s6 = RecordStore(config)
    got6 = _load(config, store=s6, schema=schema, analyze=_Rows(schema))
    assert set(some) <= s6.parsed_again
    assert_same(got6, _load(config, schema=schema, analyze=RowAnalysis(schema)))
    # a bucket that unpickles to an object whose class is gone: ignored too
    files[0].write_bytes(b"\x80\x04\x95\x1d\x00\x00\x00\x00\x00\x00\x00\x8c\x0cnot_a_module\x94\x8c\x01X\x94\x93\x94.")
    s4 = RecordStore(config)
    assert_same(_load(config, store=s4), _load(config))


def test_the_store_holds_the_record_and_no_more(record):
    config = _stores(record)
    for round_ in range(3):
        # rename every NOTE file: the old paths must go
        for p in sorted((record / "note").glob("*.md")):
            p.rename(p.with_name(p.stem.rsplit("-r", 1)[0] + f"-r{round_}.md"))
        s = RecordStore(config)
        got = _load(config, store=s)
        s.save()
        s2 = RecordStore(config)
        s2._read()
        readable = {str(r.path) for r in got.files if r.stat is not None}
        assert set(s2.entries) == readable
    folder = store_folder(config, record.resolve())
    assert {p.name for p in folder.iterdir()} <= {f"{k}.pickle" for k in range(BUCKETS)}
    # the site's record cache of before this store is removed
    old = Path(config.cache_dir) / "site-records" / "0123456789abcdef"
    old.mkdir(parents=True)
    (old / "0.pickle").write_bytes(b"old")
    (record / "note" / "NOTE-new.md").write_text("---\nid: NOTE-777\ntitle: n\n---\n", encoding="utf-8")
    s = RecordStore(config)
    _load(config, store=s)
    s.save()
    assert not old.parent.exists()


class _Rows:
    """RowAnalysis, but worked out for records from the store too (as an
    analysis with ``on_restore`` left at its default is)."""
    def __init__(self, schema):
        from recordkit.sql.database import RowAnalysis
        self.rows = RowAnalysis(schema)
        self.key = self.rows.key
        self.cacheable = True

    def __call__(self, rec):
        return self.rows(rec)


def test_analyses_are_those_of_a_fresh_load(record, monkeypatch):
    """A cacheable analysis (the SQL rows) is kept; the lint's local rules
    are run again on the records from the store, on every core too."""
    from recordkit.lint.engine import LocalRules, chosen_codes
    from recordkit.schema import load_schema
    from recordkit.sql.database import RowAnalysis
    config = _stores(record)
    schema = load_schema(config.schema)
    store = RecordStore(config)
    lint_rules = LocalRules(schema, config, chosen_codes(config))
    _load(config, store=store, schema=schema, analyze=lint_rules)
    _settle(store)
    for jobs in (1, 2):
        monkeypatch.setenv("RECORDKIT_JOBS", str(jobs))
        rows = _load(config, store=store, schema=schema, analyze=_Rows(schema), jobs=jobs)
        assert store.hits == len(rows.files)
        assert_same(rows, _load(config, schema=schema, analyze=RowAnalysis(schema), jobs=jobs))
        # now kept: the next load does not work them out again
        assert all(RowAnalysis.key in (e.analyses or {}) for k, e in store.entries.items()
                   if ParsedRecord._make(e.record).meta is not None)
        again = _load(config, store=store, schema=schema, analyze=RowAnalysis(schema), jobs=jobs)
        assert_same(again, rows)
        lint_again = _load(config, store=store, schema=schema, analyze=lint_rules, jobs=jobs)
        assert_same(lint_again, _load(config, schema=schema, analyze=lint_rules, jobs=jobs))


def test_sql_rows_are_not_worked_out_for_records_from_the_store(record, monkeypatch, tmp_path):
    """After a lint (the store holds the parse, not the SQL rows) the rows
    are left to the processes that fill the tables (RowAnalysis.on_restore
    is False): the records come without them, nothing is written back, and
    the database is the one a fresh load gives."""
    from recordkit.lint.engine import LocalRules, chosen_codes
    from recordkit.schema import load_schema
    from recordkit.sql.database import RowAnalysis, write_database
    config = _stores(record)
    schema = load_schema(config.schema)
    store = RecordStore(config)
    _load(config, store=store, schema=schema, analyze=LocalRules(schema, config, chosen_codes(config)))
    _settle(store)
    store.dirty.clear()
    for jobs in ("1", "2"):
        monkeypatch.setenv("RECORDKIT_JOBS", jobs)
        rows = _load(config, store=store, schema=schema, analyze=RowAnalysis(schema))
        assert store.hits == len(rows.files) and not store.dirty
        assert not rows.analyses[RowAnalysis.key]
        # but where each mention is came with the parse the lint stored
        assert all(r.mention_places() is not None for r in rows.files if r.mention_targets)
        fresh = _load(config, schema=schema, analyze=RowAnalysis(schema))
        assert any(fresh.analyses[RowAnalysis.key].values())
        dumps = []
        for name, corpus in (("store", rows), ("fresh", fresh)):
            out = tmp_path / f"{name}-{jobs}.db"
            write_database(corpus, out)
            dumps.append(list(sqlite3.connect(out).iterdump()))
        assert dumps[0] == dumps[1]


@pytest.mark.parametrize("name", ["obsidian", "foam", "dendron", "madr"])
def test_vaults_load_from_the_store_as_fresh(name, tmp_path):
    """Links resolved by path, title and alias; titles from headings."""
    dest = tmp_path / name
    shutil.copytree(VAULTS / name, dest, symlinks=True)
    exp = json.loads((dest / "expected.json").read_text(encoding="utf-8"))
    (dest / "expected.json").unlink()
    (dest / "recordkit.toml").write_text(f'root = "{exp.get("root", ".")}"\nschema = "preset:{exp["preset"]}"\n'
                                         'cache_dir = "../cache"\n', encoding="utf-8")
    config = load_config(dest)
    store = RecordStore(config)
    _load(config, store=store)
    _settle(store)
    got = _load(config, store=store)
    assert store.hits == len(got.files)
    assert_same(got, _load(config))


@pytest.mark.slow
def test_commands_through_the_store_say_what_they_said_without(tmp_path):
    """The CLI: a lint, then an export and a lint that read the store, and
    a corrupt store: the same answers as with no store."""
    root = tmp_path / "w"
    shutil.copytree(REPO / "records", root / "records")
    shutil.copytree(REPO / "checks", root / "checks")
    (root / "recordkit.toml").write_text('root = "records"\ncache_dir = "cache"\nchecks = "checks"\n',
                                         encoding="utf-8")
    _age(root / "records")
    plain = run_cli("lint", "--no-cache", "--format", "json", "--exit-zero", cwd=root)
    assert not (root / "cache" / "records").exists()          # --no-cache: no store either
    first = run_cli("lint", "--format", "json", "--exit-zero", cwd=root)
    assert (root / "cache" / "records").is_dir()
    assert first.stdout == plain.stdout and first.stdout.startswith("[")
    # the store read back is trusted only for files older than its read: make it so
    for p in (root / "cache" / "records").rglob("*.pickle"):
        data = pickle.loads(p.read_bytes())
        data["entries"] = {k: e[:3] + (e[3] + 2 * RACY_NS,) + e[4:] for k, e in data["entries"].items()}
        p.write_bytes(pickle.dumps(data))
    (root / "cache" / "lint-cache.json").unlink()
    again = run_cli("lint", "--format", "json", "--exit-zero", cwd=root)
    assert again.stdout == plain.stdout
    exp = run_cli("export", "--sqlite", "a.db", cwd=root)
    assert exp.returncode == 0, exp.stderr
    for p in (root / "cache" / "records").rglob("*.pickle"):
        p.write_bytes(b"\x80\x05garbage")
    exp2 = run_cli("export", "--sqlite", "b.db", cwd=root)
    assert exp2.returncode == 0 and "Traceback" not in exp2.stderr, exp2.stderr
    dump = [subprocess.run(["sqlite3", str(root / f), ".dump"], capture_output=True, text=True).stdout
            for f in ("a.db", "b.db")]
    assert dump[0] == dump[1] and "INSERT INTO records" in dump[0]


def test_the_sites_front_matter_digests_are_those_of_the_files(record, monkeypatch):
    """The site's graph page keys on each record's front matter digest: the
    store keeps it, works out those of records parsed in a helper process
    (which arrive undecoded) when the site asks, and keeps them then."""
    from recordkit.corpus.store import fm_digest
    from recordkit.emit.site.load import RecordCache, front_matter_digests
    monkeypatch.setenv("RECORDKIT_JOBS", "2")
    config = _stores(record)
    fresh = {str(r.path): fm_digest(r) for r in _load(config, jobs=1).records.values()}
    cache = RecordCache(config, record)
    corpus, parsed = cache.load()
    assert len(parsed) == len(corpus.files)
    assert {k: v for k, v in front_matter_digests(corpus, cache.state).items() if k in fresh} == fresh
    _settle(cache.store)
    cache.save()
    again = RecordCache(config, record)
    corpus2, parsed2 = again.load()
    assert not parsed2
    assert all(e.fm_digest is not None for e in again.store.entries.values())
    assert {k: v for k, v in front_matter_digests(corpus2, again.state).items() if k in fresh} == fresh
