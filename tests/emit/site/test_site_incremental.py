"""Incremental builds against cold builds, edit after edit.

``serve`` keeps, between rebuilds, what an edit of one file cannot change
(the graph while no edit changes what it is made of, each record's edge
signature, the joined search postings); a fresh ``recordkit build`` reads
back from the cache folder what the last build worked out (the joined
search postings and each run's documents, the list pages' signature, the
manifest's page keys).  Whatever sequence of edits comes, both must give
byte for byte the site a cold build makes of the record as it is then.
"""
from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from site_fixtures import copy_example
from recordkit.graph import of as graph_of


def _files(site: Path) -> dict:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in site.rglob("*")
            if p.is_file() and p.name != ".recordkit-site.json"}


def _cold(base: Path, out: Path) -> dict:
    """The site a cold build makes of ``base`` now: records loaded without
    the store, an empty folder, no cache folder of an earlier build."""
    from recordkit.config import load_config
    from recordkit.corpus import load
    from recordkit.emit.site import build_site
    cfg = load_config(base)
    cfg.cache_dir = out.parent / (out.name + "-cache")
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(cfg.cache_dir, ignore_errors=True)
    build_site(cfg, out, corpus=load(cfg.root, config=cfg), jobs=1)
    got = _files(out)
    shutil.rmtree(out, ignore_errors=True)
    shutil.rmtree(cfg.cache_dir, ignore_errors=True)
    return got


def _set_field(text: str, key: str, value: str) -> str:
    if re.search(rf"^{key}:.*$", text, flags=re.M):     # (a folded value's lines go too)
        return re.sub(rf"^{key}:.*(?:\n[ \t]+.*)*$", f"{key}: {value}", text, count=1, flags=re.M)
    return text.replace("---\n", f"---\n{key}: {value}\n", 1)


def _ids(recs: Path) -> list[str]:
    return sorted(p.stem for p in recs.rglob("*.md"))


EDITS = st.lists(st.tuples(
    st.sampled_from(["body", "body-mention", "sentence", "title", "status", "relation-add", "relation-remove",
                     "new", "delete", "break-fix", "template", "config", "embed"]),
    st.integers(min_value=0, max_value=10_000)), min_size=1, max_size=4)


class _Sites:
    """One record copy, a server kept across edits (its builds in this
    process), and a folder built by a fresh build each time."""

    def __init__(self, base: Path):
        from recordkit.config import load_config
        from recordkit.emit.site.serve import SiteServer
        self.base = base
        self.recs = base / "records"
        self.server = SiteServer(load_config(base), base / "served", log=lambda m: None)
        assert self.server.build_once()["ok"]
        self.fresh()
        self.n = 0

    def fresh(self):
        from recordkit.config import load_config
        from recordkit.emit.site import build_site
        return build_site(load_config(self.base), self.base / "built")

    def path(self, rid: str) -> Path:
        return next(self.recs.rglob(f"{rid}.md"))

    def edit(self, what: str, k: int) -> set:
        """Make one edit; the paths the watcher would report."""
        ids = _ids(self.recs)
        rid = ids[k % len(ids)]
        other = ids[(k // 7) % len(ids)]
        p = self.path(rid)
        text = p.read_text(encoding="utf-8")
        self.n += 1
        n = self.n
        if what == "body":
            p.write_text(text.rstrip("\n") + f"\n\nA plain remark, number {n}.\n", encoding="utf-8")
        elif what == "body-mention":
            p.write_text(text.rstrip("\n") + f"\n\nThis bears on {other}, and on CLAIM-9{n:02d} not yet written.\n",
                         encoding="utf-8")
        elif what == "sentence":       # a sentence that mentions another record, changed in place
            m = re.search(r"[A-Z]+-\d{3}", text[text.find("\n---", 3) + 4:])
            if m is None:
                return self.edit("body-mention", k)
            body_at = text.find("\n---", 3) + 4
            at = body_at + m.start()
            p.write_text(text[:at] + f"(reworded {n}) " + text[at:], encoding="utf-8")
        elif what == "embed":          # another record shown in this one's page
            p.write_text(text.rstrip("\n") + f"\n\n![[{other}]]\n", encoding="utf-8")
        elif what == "title":
            p.write_text(_set_field(text, "title", f"Retitled record {n}"), encoding="utf-8")
        elif what == "status":
            statuses = ["open", "draft", "final", "proposed", "supported", "refuted", "active", "queued", "read"]
            p.write_text(_set_field(text, "status", statuses[k % len(statuses)]), encoding="utf-8")
        elif what == "relation-add":
            p.write_text(text.replace("---\n", f"---\nextends: [{other}]\n", 1) if "\nextends:" not in text
                         else text, encoding="utf-8")
        elif what == "relation-remove":
            lines = text.split("\n")
            for i, line in enumerate(lines[1:], 1):
                if line == "---":
                    break
                if re.match(r"^(grounds|extends|about|source|bears_on|cites|answers): *\[", line):
                    del lines[i]
                    break
            p.write_text("\n".join(lines), encoding="utf-8")
        elif what == "new":
            q = self.recs / "claim" / f"CLAIM-7{n:02d}.md"
            q.write_text(f"---\nid: CLAIM-7{n:02d}\ntitle: A claim made later, {n}\nstatus: open\n"
                         f"grounds: [{other}]\n---\n\nIt rests on {other} and {rid}.\n", encoding="utf-8")
            return {str(q)}
        elif what == "delete":
            if len(ids) < 30:
                return self.edit("body", k)
            p.unlink()
        elif what == "break-fix":
            p.write_text(text.replace("---\n", "---\ntitle: [unclosed\n", 1), encoding="utf-8")
            got = self.server.build_once({str(p)})
            assert not got["ok"] and any("RK1" in d for d in got["diagnostics"]), got
            p.write_text(text.rstrip("\n") + f"\n\nFixed, {n}.\n", encoding="utf-8")
        elif what == "template":
            t = self.base / "mytemplates"
            t.mkdir(exist_ok=True)
            (t / "404.html.j2").write_text(
                '{% extends "recordkit/site/404.html.j2" %}{% block main %}<p>Lost, ' + str(n)
                + '.</p>{% endblock %}', encoding="utf-8")
            conf = self.base / "recordkit.toml"
            if "[site]" not in conf.read_text():
                conf.write_text(conf.read_text() + '\n[site]\ntemplates = "mytemplates"\n')
            return {str(conf), str(t / "404.html.j2")}
        elif what == "config":
            conf = self.base / "recordkit.toml"
            conf.write_text(re.sub(r'site_title = ".*"', f'site_title = "nucleation {n}"', conf.read_text()))
            return {str(conf)}
        return {str(p)}


@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck))   # 8: 17 s of a CI core
@given(edits=EDITS)
# found by this test: a wikilink broken by an edit reorders the body's
# mentions, and so the graph page's edges, whose key held them sorted
@example(edits=[("sentence", 9756)])
# found by this test: a relation removed from a record kept out of the site
# changes a published theory's standing detail on the graph page
@example(edits=[("relation-remove", 1234)])
# an embedded record edited after the embed: the page that shows it follows
@pytest.mark.slow
@example(edits=[("embed", 7 * 3), ("body", 3), ("title", 3)])
def test_serve_and_fresh_builds_equal_a_cold_build_after_any_edits(tmp_path_factory, edits):
    base = copy_example(tmp_path_factory.mktemp("inc"), with_results=False)
    sites = _Sites(base)
    for n, (what, k) in enumerate(edits):
        changed = sites.edit(what, k)
        served = sites.server.build_once(changed)
        assert served["ok"], (what, served)
        sites.fresh()
        cold = _cold(base, base / f"cold-{n}")
        got = _files(base / "served")
        assert sorted(got) == sorted(cold), (what, sorted(set(got) ^ set(cold)))
        assert [k for k in cold if got[k] != cold[k]] == [], (what, edits[:n + 1])
        got = _files(base / "built")
        assert [k for k in cold if got.get(k) != cold[k]] == [], (what, edits[:n + 1])
        assert sorted(got) == sorted(cold)


@pytest.mark.slow
def test_serve_keeps_the_graph_across_a_body_edit_only(tmp_path):
    """A body edit that names the same records keeps the graph (and so the
    records' edge signatures); a new mention does not."""
    base = copy_example(tmp_path, with_results=False)
    sites = _Sites(base)
    cache = sites.server.cache
    g = graph_of(cache.last)
    p = sites.path("NOTE-652")
    p.write_text(p.read_text(encoding="utf-8") + "\nA remark that names nothing.\n", encoding="utf-8")
    assert sites.server.build_once({str(p)})["ok"]
    assert graph_of(cache.last) is g
    p.write_text(p.read_text(encoding="utf-8") + "\nA remark on LIT-874.\n", encoding="utf-8")
    assert sites.server.build_once({str(p)})["ok"]
    assert graph_of(cache.last) is not g
    assert _files(base / "served") == _cold(base, tmp_path / "cold")


@pytest.mark.slow
def test_the_joined_search_postings_follow_each_edit(tmp_path):
    """The fresh build's search index, made from the joined postings kept
    in the cache folder and the runs that changed, is the cold build's after
    an edit, a new record and a deletion; a joined postings file that does
    not match the runs it claims is not used."""
    import pickle
    base = copy_example(tmp_path, with_results=False)
    sites = _Sites(base)
    recs = sites.recs
    p = sites.path("LIT-849")
    p.write_text(p.read_text(encoding="utf-8") + "\nZygomorphic quokkas everywhere.\n", encoding="utf-8")
    sites.fresh()
    idx = (base / "built" / "assets" / "search-index.js").read_text(encoding="utf-8")
    assert "zygomorphic" in idx and "quokkas" in idx
    (recs / "lit" / "LIT-999.md").write_text("---\nid: LIT-999\ntitle: Quokka studies\nstatus: queued\n---\n\n"
                                             "Quokkas again.\n", encoding="utf-8")
    sites.fresh()
    (recs / "question" / "QUESTION-215.md").unlink()
    sites.fresh()
    # a tampered joined file: its runs' keys no longer match the run files
    merged = next((base / ".recordkit" / "site-search").rglob("merged.pickle"))
    state = pickle.loads(merged.read_bytes())
    state["merged"]["zygomorphic"] = "0"
    for k in state["keys"]:
        state["keys"][k] = "stale"
    merged.write_bytes(pickle.dumps(state))
    p.write_text(p.read_text(encoding="utf-8") + "\nMore words.\n", encoding="utf-8")
    sites.fresh()
    assert _files(base / "built") == _cold(base, tmp_path / "cold")


@pytest.mark.slow
def test_a_fresh_build_reads_the_graph_back_only_when_it_is_the_same(tmp_path):
    """The graph a build keeps in the cache folder is read back by the next
    fresh load when no file changed what the graph is made of (a body edit
    naming the same records), and is built again after a new relation, a
    new mention, a retitled record or a new file; whatever was read back,
    the graph is the one built from the files."""
    from recordkit.config import load_config
    from recordkit.emit.site.load import RecordCache
    from recordkit.graph.build import build_graph, iter_edges

    base = copy_example(tmp_path, with_results=False)
    sites = _Sites(base)
    sites.fresh()                    # an incremental build: it keeps its graph

    def fresh_load():
        cfg = load_config(base)
        cache = RecordCache(cfg, cfg.root.resolve())
        corpus, _ = cache.load()
        cache.save()
        restored = cache.graph_restored
        g = graph_of(corpus)
        built = build_graph(corpus)
        assert list(g.nodes(data=True)) == list(built.nodes(data=True))
        assert list(iter_edges(g)) == list(iter_edges(built))
        cache.save_graph(corpus)
        return restored

    assert fresh_load()
    p = sites.path("NOTE-652")
    p.write_text(p.read_text(encoding="utf-8") + "\nA remark that names nothing.\n", encoding="utf-8")
    assert fresh_load()
    for edit in (lambda t: t + "\nA remark on LIT-874.\n",
                 lambda t: t.replace("---\n", "---\nextends: [THEORY-798]\n", 1),
                 lambda t: _set_field(t, "title", "Retitled")):
        p.write_text(edit(p.read_text(encoding="utf-8")), encoding="utf-8")
        assert not fresh_load()
        assert fresh_load()
    (sites.recs / "claim" / "CLAIM-700.md").write_text("---\nid: CLAIM-700\ntitle: New\nstatus: open\n---\n\nText.\n",
                                                       encoding="utf-8")
    assert not fresh_load()


@pytest.mark.slow
def test_serve_keeps_the_joined_postings_in_memory_and_a_fresh_build_goes_on_from_them(tmp_path, monkeypatch):
    """serve's builds keep the search index's joined postings in memory: a
    rebuild after an edit neither reads nor joins them again (its helper
    sends back only the terms that changed), and they are what a fresh
    build joins from the runs.  Once written (as serve does after a build
    it announced), a fresh build into the served folder goes on from them
    (no run joined again) and gives the cold build's site."""
    import pickle

    from recordkit.config import load_config
    from recordkit.emit.site import build_site
    from recordkit.emit.site.build import save_resident_state
    from recordkit.emit.site.emitters import search as search_emitter

    base = copy_example(tmp_path, with_results=False)
    sites = _Sites(base)
    kept = sites.server.state.search      # serve's own state: what its builds keep in memory
    kept.clear()                          # (its first build's dropped: the next joins every run)
    log = tmp_path / "joins.log"       # the helper that makes the search index is another process
    joined = search_emitter.joined_runs

    def counted(ctx, keys):
        with open(log, "a") as fh:
            fh.write(f"{os.getpid()}\n")
        return joined(ctx, keys)

    def joins():
        return log.read_text().split() if log.exists() else []
    monkeypatch.setattr(search_emitter, "joined_runs", counted)
    p = sites.path("LIT-849")
    for n, words in enumerate(("Zygomorphic quokkas everywhere.", "Quokkas no more; wombats instead.")):
        p.write_text(p.read_text(encoding="utf-8") + f"\n{words}\n", encoding="utf-8")
        assert sites.server.build_once({str(p)})["ok"]
        if n == 0:       # the first build kept nothing in the cache folder: every run is joined
            assert len(kept) == 1 and joins()
            log.unlink()
    assert joins() == []
    (state,) = kept.values()
    assert state["saved"] is False
    sites.fresh()        # a fresh build of its own folder, from the runs
    built = pickle.loads(next(p for p in (base / ".recordkit" / "site-search").rglob("merged.pickle")
                              if p.parent.name != Path(next(iter(kept))).name).read_bytes())
    assert state["merged"] == built["merged"] and state["docs"] == built["docs"] and state["keys"] == built["keys"]
    save_resident_state(sites.server.state)
    assert state["saved"] is True
    assert _files(base / "served") == _cold(base, tmp_path / "cold")
    p.write_text(p.read_text(encoding="utf-8") + "\nNumbats last.\n", encoding="utf-8")
    build_site(load_config(base), base / "served")
    assert joins() == []
    assert _files(base / "served") == _cold(base, tmp_path / "cold2")


@pytest.mark.slow
def test_serve_reuses_standings_and_list_rows_until_what_they_read_changes(tmp_path):
    """While serve keeps the graph (a body edit naming the same records),
    the standings and the list pages' rows are the last build's: the
    standings object is reused and the list pages are not written again.
    New check results change both: the site is then the cold build's."""
    import subprocess
    import sys

    base = copy_example(tmp_path, with_results=False)
    sites = _Sites(base)
    g = graph_of(sites.server.cache.last)
    memos = sites.server.state.standings      # serve's own state: the standings of its graph
    standings = memos[g][2]
    index = base / "served" / "index.html"
    stamp = index.stat().st_mtime_ns
    p = sites.path("NOTE-652")
    p.write_text(p.read_text(encoding="utf-8") + "\nA remark that names nothing.\n", encoding="utf-8")
    assert sites.server.build_once({str(p)})["ok"]
    assert graph_of(sites.server.cache.last) is g and memos[g][2] is standings
    assert index.stat().st_mtime_ns == stamp
    assert _files(base / "served") == _cold(base, tmp_path / "cold")
    proc = subprocess.run([sys.executable, "-m", "recordkit", "check"], cwd=base, capture_output=True, text=True,
                          timeout=600)
    assert "pass" in proc.stdout + proc.stderr
    assert sites.server.build_once(set())["ok"]
    assert graph_of(sites.server.cache.last) is g and memos[g][2] is not standings
    # a cold build that reads the check results just made (in the cache folder)
    from recordkit.config import load_config
    from recordkit.corpus import load
    from recordkit.emit.site import build_site
    cfg = load_config(base)
    build_site(cfg, tmp_path / "cold2", corpus=load(cfg.root, config=cfg), jobs=1)
    cold = _files(tmp_path / "cold2")
    assert 'class="rk-standing st-ready"' in cold["ready.html"].decode()      # the results changed a standing
    assert _files(base / "served") == cold


@pytest.mark.slow
def test_a_fresh_build_reads_back_what_the_last_worked_out_of_its_graph(tmp_path):
    """Beside the graph, a build keeps what it worked out of it (edge and
    record signatures, standings, the list pages' signature) in a file of
    its own, named by the graph: a fresh build after a body edit reads both
    back (and gives the cold build's site); a file of another graph is not
    used."""
    import pickle

    from recordkit.config import load_config
    from recordkit.emit.site.load import RecordCache

    base = copy_example(tmp_path, with_results=False)
    sites = _Sites(base)
    sites.fresh()                    # incremental: keeps its graph and what it worked out
    p = sites.path("NOTE-652")
    p.write_text(p.read_text(encoding="utf-8") + "\nA remark that names nothing.\n", encoding="utf-8")
    cfg = load_config(base)
    cache = RecordCache(cfg, cfg.root.resolve())
    corpus, _ = cache.load()
    assert cache.graph_restored and set(cache.graph_extra) == {"edges", "own", "standings", "lists"}
    assert all(isinstance(v, tuple) for v in cache.graph_extra.values())
    sites.fresh()
    assert _files(base / "built") == _cold(base, tmp_path / "cold")
    memo = next((base / ".recordkit" / "site-graph").glob("*.memo.pickle"))
    kept = pickle.loads(memo.read_bytes())
    kept["token"] = "another graph"
    memo.write_bytes(pickle.dumps(kept))
    cache = RecordCache(cfg, cfg.root.resolve())
    cache.load()
    assert cache.graph_restored and cache.graph_extra is None
