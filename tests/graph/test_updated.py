"""`recordkit.graph.updated`: the graph after an edit of a few records,
made from the graph before, equals the graph built from nothing — nodes,
their attributes, every edge with its key and data — for seeded random
edits (relations, mentions, statuses, titles, a LIT's arxiv and
references, which move other records' derived ``cites`` edges), one after
another; the graph it was made from is left as it was."""
from __future__ import annotations

import random
import re
import sys
from pathlib import Path

import pytest

from recordkit.config import load_config
from recordkit.corpus.loader import load, with_texts
from recordkit.graph import updated
from recordkit.graph.build import build_graph

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from generate import generate  # noqa: E402

ID_RE = re.compile(r"\b(?:LIT|NOTE|CLAIM|THEORY|QUESTION)-\d+\b")


def shape(g):
    nodes = {n: repr(sorted(d.items())) for n, d in g.nodes(data=True)}
    edges = sorted(repr((u, v, k, sorted(d.items()))) for u, v, k, d in g.edges(keys=True, data=True))
    return nodes, edges


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    root = tmp_path_factory.mktemp("gu")
    generate(root / "r", 150, seed=3)
    (root / "recordkit.toml").write_text('root = "r"\n', encoding="utf-8")
    return load(config=load_config(root), jobs=1)


def edit(rng: random.Random, corpus, rec) -> str:
    """One random edit of ``rec``'s text."""
    text = rec.text
    cut = rec.body_offset
    head, body = text[:cut], text[cut:]
    ids = list(corpus.records)
    lits = [r for r in corpus.records.values() if r.kind == "LIT"]
    op = rng.randrange(7)
    if op == 0:
        return text + f"\nSee {rng.choice(ids)} and {rng.choice(ids)}.\n"
    if op == 1:
        found = [m for m in ID_RE.finditer(head) if not head[:m.start()].endswith("id: ")]
        if found:
            m = rng.choice(found)
            return head[:m.start()] + rng.choice(ids) + head[m.end():] + body
    if op == 2:
        return re.sub(r"(?m)^status: .*$", "status: " + rng.choice(["open", "active", "final", "proposed"]), text, 1)
    if op == 3:
        return re.sub(r"(?m)^title: .*$", f"title: Retitled {rng.randrange(1000)}", text, 1)
    if op == 4 and rec.kind == "LIT":
        other = rng.choice(lits)
        refs = other.get("references") or []
        value = rng.choice([other.get("arxiv"), other.get("doi")] + list(refs))
        if value and "arxiv:" in head:
            return re.sub(r'(?m)^arxiv: .*$', f'arxiv: "{value}"', text, 1)
        if value:
            return head.replace("\n---", f'\narxiv: "{value}"\n---', 1) + body if head.endswith("---\n") else text
    if op == 5:
        return text.replace("\nreferences:", "\nreferences_gone:", 1)
    found = list(ID_RE.finditer(body))
    if found:
        m = rng.choice(found)
        return head + body[:m.start()] + "nothing" + body[m.end():]
    return text + "\nProse only.\n"


@pytest.mark.parametrize("seed", range(6))
def test_updated_equals_a_fresh_build(corpus, seed):
    rng = random.Random(seed)
    cur = corpus
    g = build_graph(cur)
    for step in range(6):
        picks = rng.sample([r for r in cur.records.values()], rng.choice([1, 1, 2, 4]))
        texts = {r.path: edit(rng, cur, r) for r in picks}
        nxt = with_texts(cur, texts)
        changed = [r.id for r in nxt.records.values() if cur.records.get(r.id) is not r]
        before = shape(g)
        got = updated(g, nxt, changed)
        assert shape(g) == before                       # the old graph is left as it was
        if set(nxt.records) != set(cur.records):
            assert got is None                          # other ids: built again
            g = build_graph(nxt)
        else:
            assert got is not None
            assert shape(got) == shape(build_graph(nxt)), (seed, step)
            g = got
        cur = nxt


def test_the_derived_edges_of_other_records_follow_an_arxiv_change(corpus):
    g = build_graph(corpus)
    cited = next((u, v) for u, v, d in g.edges(data=True) if d["origin"] == "derived")
    target = corpus.records[cited[1]]
    text = re.sub(r'(?m)^(arxiv|doi): .*\n', "", target.text)
    nxt = with_texts(corpus, {target.path: text})
    got = updated(g, nxt, [target.id])
    fresh = build_graph(nxt)
    assert shape(got) == shape(fresh)
    assert not any(d["origin"] == "derived" for d in got.get_edge_data(*cited, default={}).values())
