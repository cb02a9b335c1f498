"""Cycles among records along one relation (for the relations the schema
marks acyclic).  networkx is imported only when there is a cycle to name."""
from __future__ import annotations


def cyclic_core(succ: dict[str, dict]) -> dict[str, dict]:
    """The edges left after repeatedly removing nodes with no edge out (they
    lie on no cycle): empty exactly when the graph has no cycle.  This keeps
    networkx (0.13 s to import) out of every lint of a record without cycles."""
    succ = {u: dict(vs) for u, vs in succ.items()}
    pred: dict[str, list] = {}
    for u, vs in succ.items():
        for v in vs:
            pred.setdefault(v, []).append(u)
    sinks = [v for v in pred if not succ.get(v)]
    while sinks:
        v = sinks.pop()
        for u in pred.pop(v, ()):
            out = succ[u]
            out.pop(v, None)
            if not out:
                sinks.append(u)
    return {u: vs for u, vs in succ.items() if vs}


def cycles(succ: dict[str, dict]) -> list[tuple[set[str], list[tuple[str, str]]]]:
    """``(component, cycle)`` for each strongly connected component of the
    graph ``succ`` (id -> {successor: None}, dicts as ordered sets) with
    more than one node: its ids, and one cycle through it as edges,
    starting from its smallest id (the same cycles every run)."""
    succ = cyclic_core(succ)
    if not succ:
        return []
    import networkx as nx   # only when there is a cycle to name
    g = nx.DiGraph()
    g.add_edges_from((u, v) for u, vs in succ.items() for v in vs)
    out = []
    for comp in nx.strongly_connected_components(g):
        if len(comp) < 2:
            continue
        out.append((comp, nx.find_cycle(g.subgraph(comp), source=min(comp))))
    return out
