"""Questions asked of the record's graph: typed backlinks (one
implementation, for one record or all at once), outgoing relations,
neighbourhoods, builds-on paths."""
from __future__ import annotations

from typing import TYPE_CHECKING

import networkx as nx

from ..common.order import id_sort_key
from .build import iter_edges
from .build import graph_of

if TYPE_CHECKING:
    from ..corpus.model import Corpus


def backlinks(corpus: "Corpus", record_id: str, *, include_mentions: bool = False) -> dict[str, list[str]]:
    """Typed backlinks of a record: label -> ids of the records pointing at
    it by that relation, in id order (labels in schema order).  Body
    mentions count only with ``include_mentions``."""
    g = graph_of(corpus)
    if record_id not in g:
        return {}
    by_rel: dict[str, set] = {}
    for src, keydict in g._pred[record_id].items():
        for data in keydict.values():
            if data["origin"] == "body" and not include_mentions:
                continue
            by_rel.setdefault(data["relation"], set()).add(src)
    return by_label(corpus.schema, by_rel)


def all_backlinks(corpus: "Corpus", *, include_mentions: bool = False) -> dict[str, dict[str, list[str]]]:
    """:func:`backlinks` of every record at once, in one pass over the edges
    (records nothing points at are left out)."""
    acc: dict[str, dict[str, set]] = {}
    for src, dst, data in iter_edges(graph_of(corpus)):
        if data["origin"] == "body" and not include_mentions:
            continue
        acc.setdefault(dst, {}).setdefault(data["relation"], set()).add(src)
    schema = corpus.schema
    return {dst: by_label(schema, by_rel) for dst, by_rel in acc.items()}


def by_label(schema, by_rel: dict[str, set]) -> dict[str, list[str]]:
    """relation -> sources, as label -> sources in id order, labels in the
    schema's order of relations (then mentions, then relations it lacks;
    relations of one label share it)."""
    order = {r: i for i, r in enumerate(schema.relations)}
    order.setdefault(schema.mention_relation, len(order))
    out: dict[str, list[str]] = {}
    for rel in sorted(by_rel, key=lambda r: order.get(r, len(order))):
        if rel in schema.relations:
            label = schema.relations[rel].label
        elif rel == schema.mention_relation:
            label = schema.mention_label
        else:
            label = f"{rel} by"
        lst = out.setdefault(label, [])
        lst.extend(sorted(by_rel[rel] - set(lst), key=id_sort_key))
    return out


def outgoing(corpus: "Corpus", record_id: str, origin: str | None = None) -> dict[str, list[str]]:
    """Relation -> target ids of a record's outgoing edges."""
    g = graph_of(corpus)
    out: dict[str, list[str]] = {}
    if record_id not in g:
        return out
    for _, dst, data in g.out_edges(record_id, data=True):
        if origin and data["origin"] != origin:
            continue
        lst = out.setdefault(data["relation"], [])
        if dst not in lst:
            lst.append(dst)
    return out


def neighbourhood(g: nx.MultiDiGraph, record_id: str, depth: int = 1) -> set[str]:
    """Ids within ``depth`` hops of ``record_id``, either direction."""
    if record_id not in g:
        return set()
    return set(nx.single_source_shortest_path_length(g.to_undirected(as_view=True), record_id, cutoff=depth))


def builds_on_paths(corpus: "Corpus", relations: set[str] | None = None) -> nx.DiGraph:
    """The DiGraph of 'builds on' edges (by default those whose relation the
    schema marks ``builds_on``: extends, grounds, promoted_by)."""
    if relations is None:
        relations = {n for n, r in corpus.schema.relations.items() if r.builds_on}
    d = nx.DiGraph()
    d.add_nodes_from(graph_of(corpus).nodes)
    for u, v, data in graph_of(corpus).edges(data=True):
        if data["relation"] in relations and data["origin"] == "frontmatter":
            d.add_edge(u, v)
    return d
