"""The snapshot's graph, updated from the last one built when the carry
(:mod:`recordkit.lsp.features.carry`) left one pending: the first feature
that needs the graph (hover, before ``describe``) asks :func:`ensure_graph`."""
from __future__ import annotations

from .context import kept

#: the snapshot's key of (graph, changed ids) the graph is to be updated from
GRAPH_KEY = "lsp.features.graph.pending"


def ensure_graph(snap) -> None:
    """Give the snapshot's corpus the graph left pending by the carry,
    updated for the records that changed (nothing when none is pending:
    :func:`recordkit.graph.of` builds it on first ask)."""
    corpus = snap.corpus
    if corpus is None or corpus.kept_graph is not None:
        return
    pending = kept(snap, GRAPH_KEY, lambda: False)
    if not pending:
        return
    from ...graph import updated
    graph, changed = pending
    got = updated(graph, corpus, changed)
    if got is not None and corpus.kept_graph is None:
        corpus.kept_graph = got
