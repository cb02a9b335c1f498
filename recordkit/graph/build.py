"""The record as a NetworkX graph, and plain functions over it.

Nodes are record ids with attributes ``kind``, ``status``, ``title``,
``tags``, ``path``.  Edges (a MultiDiGraph: one per relation target) carry
``relation`` and ``origin`` (``frontmatter``, ``body`` or ``derived``);
front-matter and derived edges also ``line`` and ``col``, body edges a
``count``.  Edges to ids that do not exist are left out of the graph (lint
reports them).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import networkx as nx

# derived edges are worked out without networkx (the lint needs them so)
from ..runtime import batch
from .edges import derive_index, derive_refs, derived_edges, derived_of, normalize_ref

if TYPE_CHECKING:
    from ..corpus.model import Corpus


def _node_data(r) -> dict:
    return {"kind": r.kind, "status": r.status, "title": r.title, "tags": r.tags, "path": r.relpath}


def _own_edges(rid: str, r, records: dict, mention_rel: str, append) -> None:
    """The edges a record's front matter and body give (not the derived ones)."""
    for rel, targets in r.relations.items():
        for t in targets:
            if t.id in records and t.id != rid:
                append((rid, t.id, {"relation": rel, "origin": "frontmatter",
                                    "line": t.pos[0], "col": t.pos[1]}))
    seen: dict = {}
    for tgt in r.mention_targets:
        d = seen.get(tgt)
        if d is not None:
            d["count"] += 1
        elif tgt in records and tgt != rid:
            d = {"relation": mention_rel, "origin": "body", "count": 1}
            seen[tgt] = d
            append((rid, tgt, d))


def build_graph(corpus: "Corpus") -> nx.MultiDiGraph:
    """The record's graph.  Front-matter relations give one edge per target;
    body mentions one edge per (record, mentioned id) pair, with ``count``
    occurrences (their positions are the record's ``mentions``); derived
    edges come from :func:`derived_edges`."""
    g = nx.MultiDiGraph()
    records = corpus.records
    schema = corpus.schema
    g.add_nodes_from((rid, _node_data(r)) for rid, r in records.items())
    edges = []
    append = edges.append
    mention_rel = schema.mention_relation
    for rid, r in records.items():
        _own_edges(rid, r, records, mention_rel, append)
    edges.extend(derived_edges(corpus))
    _add_edges_fast(g, edges)
    return g


def _add_edges_fast(g: nx.MultiDiGraph, edges: list) -> None:
    """``g.add_edges_from(edges)`` for edges between existing nodes, with
    integer keys as networkx assigns them, written straight into the
    adjacency dicts: 3x faster than add_edges_from on 200,000 edges, which
    matters on every load.  tests/test_load.py checks it builds the same
    graph as networkx's own method."""
    succ, pred = g._succ, g._pred
    factory = g.edge_key_dict_factory
    for u, v, d in edges:
        keydict = succ[u].get(v)
        if keydict is None:
            keydict = factory()
            succ[u][v] = keydict
            pred[v][u] = keydict
            keydict[0] = d
        else:
            key = len(keydict)
            while key in keydict:
                key += 1
            keydict[key] = d


def updated(g: nx.MultiDiGraph, corpus: "Corpus", changed) -> nx.MultiDiGraph | None:
    """The graph of ``corpus``, made from ``g`` (the graph of a corpus that
    had the same ids and differs from ``corpus`` in the records of
    ``changed`` only: an edit) without building it again: ``g`` is left as
    it is (another request may be reading it); the new graph shares every
    node's and edge's data with it but those of the records whose edges
    changed.  Those are the changed records and the records whose derived
    edges (a LIT's ``references`` matched to another's ``arxiv``) the change
    moved.  None when it cannot be made so (other ids, or ``derive``
    patterns, which resolve links as the whole record reads them): build it.
    Equal to :func:`build_graph` of ``corpus`` (tests/graph/test_updated.py)."""
    records = corpus.records
    schema = corpus.schema
    changed = set(changed)
    if schema.derive_patterns or len(g._node) != len(records) or not changed <= records.keys() \
            or any(rid not in g._node for rid in records):
        return None
    redo = set(changed)
    rules = [(rule, derive_index(corpus, rule)) for rule in schema.derive]
    if rules:
        # an unchanged record's derived edges move only to or from a changed
        # record (the one that held, or now holds, the value its reference
        # matches): those into a changed record before, and those into one now
        pred = g._pred
        for rid in changed:
            for u, kd in pred[rid].items():
                if any(d["origin"] == "derived" for d in kd.values()):
                    redo.add(u)
        for rule, index in rules:
            for rid, r in records.items():
                if rid in redo:
                    continue
                refs = derive_refs(r, rule)
                if refs and any(isinstance(x, (str, int, float)) and index.get(normalize_ref(str(x))) in changed
                                for x in refs):
                    redo.add(rid)
    derived: dict = {}
    for rid in redo:
        for rule, index in rules:
            for _, target, ru, field_name, i, ref in derived_of(rid, records[rid], rule, index):
                derived.setdefault(rid, []).append((target, ru, field_name, i, ref))
    return _with_edges_of(g, corpus, redo, changed, derived)


def _with_edges_of(g, corpus, redo: set, changed: set, derived: dict) -> nx.MultiDiGraph:
    """A new graph sharing ``g``'s data but the out-edges of ``redo`` (made
    again) and the nodes of ``changed`` (their attributes read again)."""
    records = corpus.records
    h = nx.MultiDiGraph()
    h.graph.update(g.graph)
    node = dict(g._node)
    for rid in changed:
        node[rid] = _node_data(records[rid])
    succ, pred = dict(g._succ), dict(g._pred)
    copied: set = set()

    def own_pred(v):
        if v not in copied:
            pred[v] = dict(pred[v])
            copied.add(v)
        return pred[v]
    for u in redo:
        for v in succ[u]:
            del own_pred(v)[u]
        succ[u] = {}
    edges: list = []
    mention_rel = corpus.schema.mention_relation
    for u in redo:
        _own_edges(u, records[u], records, mention_rel, edges.append)
        for target, rule, field_name, i, ref in derived.get(u, ()):
            pos = records[u].value_pos(field_name, i)
            edges.append((u, target, {"relation": rule["relation"], "origin": "derived",
                                      "line": pos[0], "col": pos[1], "via": str(ref)}))
    factory = h.edge_key_dict_factory
    for u, v, d in edges:
        keydict = succ[u].get(v)
        if keydict is None:
            keydict = succ[u][v] = factory()
            own_pred(v)[u] = keydict
        keydict[len(keydict)] = d
    h._node = node
    h._succ = h._adj = succ
    h._pred = pred
    return h


def iter_edges(g: nx.MultiDiGraph):
    """``g.edges(data=True)`` without networkx's view machinery: the same
    (u, v, data) triples, in the same order, about 3x faster."""
    for u, nbrs in g._succ.items():
        for v, keydict in nbrs.items():
            for d in keydict.values():
                yield u, v, d


def graph_of(corpus) -> nx.MultiDiGraph:
    """The corpus's graph (:func:`build_graph`), built by this stage on the
    first ask and kept on the corpus (``corpus.kept_graph``): every later
    stage asks here, and a lint, which never asks, never imports networkx."""
    g = corpus.kept_graph
    if g is None:
        with batch():
            g = corpus.kept_graph = build_graph(corpus)
    return g
