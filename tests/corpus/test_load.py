"""The loader: positions, mentions, broken files, user schema, derived edges."""
import textwrap

import pytest

import recordkit
from recordkit.corpus.mentions import scan_mentions
from recordkit.schema import load_schema

from conftest import run_cli, write
from recordkit.graph import of as graph_of
from recordkit.graph.queries import backlinks

LIT = """
---
id: LIT-001
title: A paper
status: active
authors:
  - Ada Lovelace
  - Alan Turing
year: 2020
arxiv: "2209.15430"
references: [1411.5908, "arXiv:2506.03784v2", 9999.00001]
---
## Key takeaways
Nothing.
"""


def test_positions_of_keys_and_list_items(make_record):
    root = make_record({"lit/LIT-001.md": LIT})
    c = recordkit.load(root)
    r = c.records["LIT-001"]
    assert r.key_pos("status")[:2] == (4, 1)
    assert r.value_pos("status")[:2] == (4, 9)
    assert r.key_pos("authors")[:2] == (5, 1)
    assert r.value_pos("authors", 0)[:2] == (6, 5)
    assert r.value_pos("authors", 1)[:2] == (7, 5)
    # flow-list items
    assert r.value_pos("references", 0)[:2] == (10, 14)
    assert r.value_pos("references", 1)[:2] == (10, 25)
    assert r.body_line == 12


def test_body_mentions_positions_and_code_ignored(make_record):
    root = make_record({
        "note/NOTE-001.md": """
        ---
        id: NOTE-001
        title: n
        status: draft
        ---
        First THEORY-001 and [[LIT-001|the paper]].
        Inline `CLAIM-009` is code, so is ``a ` CLAIM-008``.

        ```python
        x = "QUESTION-001"
        ```

        ~~~~
        QUESTION-002
        ~~~~
            not code here: continuation of nothing? THEORY-002
        <!-- THEORY-003 in a comment -->
        Last line [[NOTE-002]] and NOTE-003.
        """,
    })
    c = recordkit.load(root)
    ms = [(m.target, m.line, m.col, m.form) for m in c.records["NOTE-001"].mentions]
    assert ("THEORY-001", 6, 7, "bare") in ms
    assert ("LIT-001", 6, 22, "wikilink") in ms
    assert ("NOTE-002", 18, 11, "wikilink") in ms
    assert ("NOTE-003", 18, 28, "bare") in ms
    targets = {m[0] for m in ms}
    assert not targets & {"CLAIM-009", "CLAIM-008", "QUESTION-001", "QUESTION-002", "THEORY-003"}


def test_indented_code_block_after_paragraph_vs_list():
    s = load_schema()
    body = "Para.\n\n    CLAIM-001 in code\n\n- item\n\n    LIT-001 continues the item\n"
    got = [m.target for m in scan_mentions(body, s.mention_re)]
    assert got == ["LIT-001"]


def test_broken_files_do_not_stop_the_load(make_record, tmp_path):
    root = make_record({
        "a/THEORY-001.md": "---\nid: THEORY-001\ntitle: [unclosed\n---\nbody\n",
        "a/THEORY-002.md": "no front matter at all\n",
        "a/THEORY-003.md": "---\n- a list\n---\n",
        "a/THEORY-005.md": "---\nid: THEORY-005\ntitle: fine\nstatus: proposed\ncreated: 2026-13-45\n---\n",
    })
    (root / "a" / "THEORY-004.md").write_bytes(b"---\nid: THEORY-004\ntitle: caf\xe9\n---\n")
    c = recordkit.load(root)
    codes = sorted((d.code, d.path.name, d.line) for d in c.diagnostics)
    assert ("RK101", "THEORY-002.md", 1) in codes
    assert ("RK103", "THEORY-004.md", 3) in codes
    assert ("RK104", "THEORY-003.md", 2) in codes
    rk102 = [d for d in c.diagnostics if d.code == "RK102"]
    assert rk102 and rk102[0].path.name == "THEORY-001.md" and rk102[0].line == 4
    assert "THEORY-005" in c.records           # an impossible date stays a string
    assert c.records["THEORY-005"].meta["created"] == "2026-13-45"
    assert len(c.files) == 5


def test_derived_cites_edges(make_record):
    root = make_record({
        "lit/LIT-001.md": LIT,
        "lit/LIT-002.md": "---\nid: LIT-002\ntitle: Stitching\nstatus: queued\nauthors: [K. Lenc]\nyear: 2014\narxiv: '1411.5908'\n---\n",
        "lit/LIT-003.md": "---\nid: LIT-003\ntitle: Nielsen\nstatus: queued\nauthors: [B. Nielsen]\nyear: 2025\narxiv: 'https://arxiv.org/abs/2506.03784'\n---\n",
    })
    c = recordkit.load(root)
    edges = {(u, v, d["relation"], d["origin"]) for u, v, d in graph_of(c).edges(data=True)}
    assert ("LIT-001", "LIT-002", "cites", "derived") in edges
    assert ("LIT-001", "LIT-003", "cites", "derived") in edges
    assert backlinks(c, "LIT-002") == {"Cited by": ["LIT-001"]}


def test_user_schema_adds_a_kind_and_relation(tmp_path):
    (tmp_path / "schema.yaml").write_text(textwrap.dedent("""
        kinds:
          DATASET:
            statuses: [planned, collected]
            fields:
              rows: {type: integer, required: true}
        relations:
          uses_data:
            from: [CLAIM, NOTE]
            to: [DATASET]
            label: Used by
    """))
    (tmp_path / "recordkit.toml").write_text('root = "rec"\nschema = "schema.yaml"\n')
    write(tmp_path, "rec/DATASET-001.md", "---\nid: DATASET-001\ntitle: Cifar\nstatus: collected\nrows: 60000\n---\nText.\n")
    write(tmp_path, "rec/NOTE-001.md", "---\nid: NOTE-001\ntitle: n\nstatus: draft\nuses_data: DATASET-001\n---\nSee DATASET-001.\n")
    c = recordkit.load(tmp_path / "rec")
    assert "DATASET" in c.schema.kinds
    assert c.records["DATASET-001"].kind == "DATASET"
    edges = {(u, v, d["relation"]) for u, v, d in graph_of(c).edges(data=True)}
    assert ("NOTE-001", "DATASET-001", "uses_data") in edges
    assert ("NOTE-001", "DATASET-001", "mentions") in edges
    assert backlinks(c, "DATASET-001") == {"Used by": ["NOTE-001"]}
    proc = run_cli("show", "DATASET-001", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "Used by" in proc.stdout and "NOTE-001" in proc.stdout


def test_show_unknown_id_exits_2(make_record):
    root = make_record({"lit/LIT-001.md": LIT})
    proc = run_cli("--root", str(root), "show", "LIT-002")
    assert proc.returncode == 2
    assert "no record LIT-002" in proc.stderr


def test_fast_edge_insertion_matches_networkx():
    import networkx as nx
    from recordkit.graph.build import _add_edges_fast
    nodes = ["A", "B", "C"]
    edges = [("A", "B", {"r": 1}), ("A", "B", {"r": 2}), ("B", "A", {"r": 3}), ("C", "C", {"r": 4}),
             ("A", "C", {"r": 5}), ("A", "B", {"r": 6})]
    g1 = nx.MultiDiGraph()
    g1.add_nodes_from(nodes)
    g1.add_edges_from(edges)
    g2 = nx.MultiDiGraph()
    g2.add_nodes_from(nodes)
    _add_edges_fast(g2, edges)
    assert sorted(g1.edges(keys=True, data="r")) == sorted(g2.edges(keys=True, data="r"))
    assert sorted(g1.in_edges("A", keys=True, data="r")) == sorted(g2.in_edges("A", keys=True, data="r"))
    assert nx.utils.graphs_equal(g1, g2)


def test_all_backlinks_equals_backlinks_of_each():
    from conftest import REPO
    from recordkit.graph.queries import all_backlinks, backlinks
    c = recordkit.load(REPO / "records")
    every = all_backlinks(c)
    for rid in c.records:
        assert every.get(rid, {}) == backlinks(c, rid)
    assert every["LIT-849"]['Cited as "source" by'] == ["THEORY-175", "THEORY-798"]


def test_parallel_load_equals_serial_load(tmp_path):
    import sys
    sys.path.insert(0, str(__import__("conftest").REPO / "bench"))
    from generate import generate
    from recordkit.runtime import pool as parallel
    generate(tmp_path / "rec", 300, seed=3, defects=0.1)
    # the helper takes the last files: give it a non-UTF-8 one and an empty one
    (tmp_path / "rec" / "zz").mkdir()
    (tmp_path / "rec" / "zz" / "LIT-99998.md").write_bytes(b"---\nid: LIT-99998\ntitle: caf\xe9\n---\n")
    (tmp_path / "rec" / "zz" / "LIT-99999.md").write_bytes(b"")
    serial = recordkit.load(tmp_path / "rec", jobs=1)
    before = dict(parallel.STATS)
    par = recordkit.load(tmp_path / "rec", jobs=2)
    assert parallel.STATS["shares"] == before["shares"] + 1      # the helper's share came back
    assert parallel.STATS["fallbacks"] == before["fallbacks"]
    assert len(par.files) == len(serial.files) == 302
    assert par.files[-2].path.name == "LIT-99998.md" and par.files[-2].text == ""
    for a, b in zip(serial.files, par.files):
        assert (a.path, a.id, a.kind, a.meta, a.body, a.text, a.digest) == \
               (b.path, b.id, b.kind, b.meta, b.body, b.text, b.digest)
        assert a.keys == b.keys and a.values == b.values          # positions worked out again on demand
        assert [(m.target, m.line, m.col, m.form) for m in a.mentions] == \
               [(m.target, m.line, m.col, m.form) for m in b.mentions]
        assert a.mention_targets == b.mention_targets == [m.target for m in b.mentions]
        assert {k: [(t.id, t.pos) for t in v] for k, v in a.relations.items()} == \
               {k: [(t.id, t.pos) for t in v] for k, v in b.relations.items()}
        assert a.fence_infos == b.fence_infos and a.code == b.code
    key = lambda d: (str(d.path), d.line, d.col, d.code, d.message)
    assert sorted(map(key, serial.diagnostics)) == sorted(map(key, par.diagnostics))
    assert sorted(graph_of(serial).edges(data="relation")) == sorted(graph_of(par).edges(data="relation"))


def test_iter_edges_is_networkx_edges():
    from conftest import REPO
    from recordkit.graph.build import iter_edges
    g = graph_of(recordkit.load(REPO / "records"))
    assert list(iter_edges(g)) == list(g.edges(data=True))


def test_linked_ids_are_the_graphs_non_isolated_nodes(tmp_path):
    """RK307 reads linked_ids instead of building the graph: the two agree."""
    import sys
    from conftest import REPO
    from recordkit.graph.edges import linked_ids
    sys.path.insert(0, str(REPO / "bench"))
    from generate import generate
    generate(tmp_path / "rec", 400, seed=5, defects=0.2)
    (tmp_path / "rec" / "LIT-99999.md").write_text(
        "---\nid: LIT-99999\ntitle: Alone\nstatus: queued\nauthors: [A]\nyear: 2020\n---\nSee LIT-99999.\n")
    for root in (REPO / "records", tmp_path / "rec"):
        c = recordkit.load(root)
        g = graph_of(c)
        expected = {n for n in g if g.succ[n] or g.pred[n]}
        assert linked_ids(c) == expected
    assert "LIT-99999" in c.records and "LIT-99999" not in expected   # a self-mention links nothing


def test_cyclic_core_keeps_exactly_the_cycles():
    """RK304 hands networkx only what survives the sink-pruning: the graph
    has a cycle iff something survives, and the cycles are all kept."""
    import random
    import networkx as nx
    from recordkit.graph.cycles import cyclic_core as _cyclic_core
    rng = random.Random(7)
    for _ in range(300):
        n = rng.randint(1, 12)
        succ: dict = {}
        for _ in range(rng.randint(0, 2 * n)):
            u, v = f"T-{rng.randrange(n)}", f"T-{rng.randrange(n)}"
            if u != v:
                succ.setdefault(u, {})[v] = None
        g = nx.DiGraph([(u, v) for u, vs in succ.items() for v in vs])
        core = _cyclic_core(succ)
        assert bool(core) == (not nx.is_directed_acyclic_graph(g))
        h = nx.DiGraph([(u, v) for u, vs in core.items() for v in vs])
        big = lambda x: sorted(sorted(c) for c in nx.strongly_connected_components(x) if len(c) > 1)
        assert big(g) == big(h)


def test_check_discovery_prefilter_finds_what_a_body_search_finds(tmp_path):
    """Discovery skips bodies whose fences hold no ``python check``, from the
    fence texts the loader kept; it finds the same checks as searching every
    body."""
    import sys
    from conftest import REPO
    from recordkit.numeric import discover
    sys.path.insert(0, str(REPO / "bench"))
    from generate import generate
    generate(tmp_path / "rec", 600, seed=11)
    c = recordkit.load(tmp_path / "rec")
    fast = discover.discover_all(c)
    for rec in c.files:
        rec.fence_infos = None
    c._check_blocks = None          # found again, without the loader's fence infos
    slow = discover.discover_all(c)
    assert sorted(fast.checks) == sorted(slow.checks) and len(fast.checks) > 3


@pytest.mark.parametrize("helper", ["dies half-way", "cannot fork", "sends garbage"])
def test_parallel_parse_does_what_a_helper_did_not_send(tmp_path, monkeypatch, helper):
    """A parse helper sends its records a piece at a time; whatever it does
    not send (it dies after two pieces, it is never forked, a piece is not
    a pickle) is parsed here: the same records, each kept once through
    ``keep`` with its index, no descriptor left open."""
    import os
    import sys
    sys.path.insert(0, str(__import__("conftest").REPO / "bench"))
    from generate import generate
    from recordkit.runtime import pool as fork
    from recordkit.corpus.store import parallel
    from recordkit.runtime import tuning
    generate(tmp_path / "rec", 120, seed=5, defects=0.1)
    items = sorted((p, str(p.relative_to(tmp_path / "rec"))) for p in (tmp_path / "rec").rglob("*.md"))
    schema = load_schema(None)
    serial = parallel.parse_serial(items, schema)
    monkeypatch.setattr(tuning, "PARSE_HELPER_PIECE", 10)
    parent = os.getpid()
    if helper == "cannot fork":
        def no_fork():
            raise BlockingIOError(11, "Resource temporarily unavailable")
        monkeypatch.setattr(os, "fork", no_fork)
    else:
        real = parallel.parse_serial
        calls = []

        def failing(part, *a, **k):
            if os.getpid() != parent:
                calls.append(1)
                if len(calls) == 3 and helper == "dies half-way":
                    os._exit(3)
            return real(part, *a, **k)
        monkeypatch.setattr(parallel, "parse_serial", failing)
        if helper == "sends garbage":       # the third piece does not unpickle here
            import pickle
            real_loads, seen = pickle.loads, []

            def loads(data, *a, **k):
                seen.append(1)
                if len(seen) == 3:
                    raise pickle.UnpicklingError("not a pickle")
                return real_loads(data, *a, **k)
            monkeypatch.setattr(pickle, "loads", loads)
    before_fds = len(os.listdir("/proc/self/fd"))
    kept = {}

    def keep(i, rec, diags, packed):
        assert i not in kept
        kept[i] = rec
    before = dict(fork.STATS)
    got = parallel.parse_parallel(items, schema, 2, keep=keep)
    assert fork.STATS["fallbacks"] == before["fallbacks"] + 1
    assert [(r.path, r.id, r.meta, r.text, r.digest) for r, _ in got] == \
           [(r.path, r.id, r.meta, r.text, r.digest) for r, _ in serial]
    assert [[d.code for d in ds] for _, ds in got] == [[d.code for d in ds] for _, ds in serial]
    assert sorted(kept) == list(range(len(items))) and all(kept[i] is got[i][0] for i in kept)
    fork.reap_helpers()
    assert len(os.listdir("/proc/self/fd")) == before_fds


def test_fork_map_redoes_the_part_of_a_helper_that_fails():
    import os
    from recordkit.runtime import pool as parallel
    parent = os.getpid()

    def square_all(part):
        if os.getpid() != parent and part[0] == 4:
            os._exit(3)                      # this helper dies
        return [x * x for x in part]

    before = dict(parallel.STATS)
    got = parallel.fork_map(square_all, [[1, 2], [3], [4, 5]])
    assert got == [[1, 4], [9], [16, 25]]
    assert parallel.STATS["shares"] == before["shares"] + 1
    assert parallel.STATS["fallbacks"] == before["fallbacks"] + 1


def test_fork_map_reads_a_result_before_the_helper_exits_and_reaps_it_later():
    """A helper says it is done through a pipe: its result is read while the
    system still takes its memory down, and the next call reaps it (no
    helper is left a zombie for long, in a long-lived ``serve`` either)."""
    import os
    import time
    from recordkit.runtime import pool as parallel

    def double(part):
        return [2 * x for x in part]

    before = dict(parallel.STATS)
    assert parallel.fork_map(double, [[1], [2, 3]]) == [[2], [4, 6]]
    assert parallel.STATS["shares"] == before["shares"] + 1
    helpers = list(parallel._UNREAPED)
    assert helpers
    deadline = time.monotonic() + 10
    for pid in helpers:         # wait until each has exited (a zombie, state Z)
        while time.monotonic() < deadline:
            with open(f"/proc/{pid}/stat") as fh:
                if fh.read().rsplit(")", 1)[1].split()[0] == "Z":
                    break
            time.sleep(0.01)
    assert parallel.fork_map(double, [[4], [5]]) == [[8], [10]]
    for pid in helpers:
        assert pid not in parallel._UNREAPED
        assert not os.path.exists(f"/proc/{pid}") or open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"


def test_fork_map_does_the_part_itself_when_it_cannot_fork(monkeypatch):
    """A fork that fails (no process to spare) has its part done here; the
    pipe it made for the helper is closed (no descriptor left behind)."""
    import os
    from recordkit.runtime import pool as parallel

    def no_fork():
        raise BlockingIOError(11, "Resource temporarily unavailable")

    before = len(os.listdir("/proc/self/fd"))
    monkeypatch.setattr(os, "fork", no_fork)
    assert parallel.fork_map(lambda part: [x + 1 for x in part], [[1], [2], [3]]) == [[2], [3], [4]]
    assert len(os.listdir("/proc/self/fd")) == before


def test_fork_map_whose_own_part_fails_leaves_no_descriptor(tmp_path):
    """... and stops its helpers rather than wait for work that would be
    thrown away (here a helper that would take a minute)."""
    import os
    import time
    from recordkit.runtime import pool as parallel
    parent = os.getpid()

    def part_fn(part):
        if os.getpid() == parent:
            raise ValueError("this process's part")
        time.sleep(60)
        return part

    before = len(os.listdir("/proc/self/fd"))
    try:
        parallel.fork_map(part_fn, [[1], [2]])
    except ValueError:
        pass
    else:
        raise AssertionError("the error of this process's part is raised")
    assert len(os.listdir("/proc/self/fd")) == before
    t = time.monotonic()
    parallel.reap_helpers()
    assert not parallel._UNREAPED and time.monotonic() - t < 10
