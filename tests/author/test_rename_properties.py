"""Property test: renaming any id of a generated record gives the graph before
with that id replaced (nodes, their attributes, every edge and its line)."""
import pytest
import shutil
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

import recordkit
from recordkit.author.rename import plan_rename
from recordkit.author.retarget import token_re
from recordkit.graph.build import iter_edges

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from generate import generate  # noqa: E402
from recordkit.graph import of as corpus_graph

_MADE: dict = {}


def generated(base: Path, seed: int, defects: float) -> Path:
    key = (seed, defects)
    if key not in _MADE:
        out = base / f"gen-{seed}-{defects}"
        generate(out, 40, seed=seed, defects=defects)
        _MADE[key] = out
    return _MADE[key]


def graph_of(root: Path, old=None, new=None):
    corpus = recordkit.load(root, jobs=1)
    g = corpus_graph(corpus)
    pat = token_re(old) if old else None

    def m(x):
        return pat.sub(new, x) if pat and isinstance(x, str) else x
    nodes = {m(n): (d["kind"], d["status"], m(d["title"]), tuple(d["tags"]), m(d["path"]))
             for n, d in g.nodes(data=True)}
    edges = sorted((m(u), m(v), d["relation"], d["origin"], d.get("line"), d.get("count"), d.get("via"))
                   for u, v, d in iter_edges(g))
    return nodes, edges, sorted((d.code, m(d.message), m(str(d.path))) for d in corpus.diagnostics)


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 3), defects=st.sampled_from([0.0, 0.3]), pick=st.integers(0, 10 ** 6),
       number=st.integers(1, 99999), width=st.integers(3, 6))
def test_rename_gives_the_same_graph_with_the_id_replaced(tmp_path_factory, seed, defects, pick, number, width):
    base = generated(tmp_path_factory.getbasetemp(), seed, defects)
    root = tmp_path_factory.mktemp("rename") / "records"
    shutil.copytree(base, root)
    (root.parent / "recordkit.toml").write_text('root = "records"\n')
    corpus = recordkit.load(root, jobs=1)
    ids = sorted(i for i in corpus.records
                 if sum(r.ok and r.id == i for r in corpus.files) == 1 and (root / corpus.records[i].relpath).stem == i)
    old = ids[pick % len(ids)]
    kind = old.rpartition("-")[0]
    new = f"{kind}-{number:0{width}d}"
    if new in {r.path.stem for r in corpus.files} or new in corpus.records or new == old:
        return
    expected = graph_of(root, old, new)
    config = corpus.config
    plan = plan_rename(config, corpus.schema, old, new)
    plan.apply(config.cache_dir)
    assert graph_of(root) == expected
    after = recordkit.load(root, jobs=1)
    pat = token_re(old)
    for rec in after.files:   # no reference left: in no front matter, among no body's mentions
        assert not pat.search(rec.text[:rec.body_offset]), rec.relpath
        assert old not in rec.mention_targets, rec.relpath
