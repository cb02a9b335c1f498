"""What the features worked out for one snapshot, carried to the next.

Every edit makes a new snapshot whose corpus shares every record but the
edited ones with the one before (:func:`recordkit.corpus.loader.with_texts`).
Working out the features' indexes again from nothing costs, at 10,000
records, ~170 ms (which records point at each id), ~110 ms (the completion
table) and ~0.5 s (the graph hover's :func:`~recordkit.views.describe.describe`
asks): too much for the first request after each keystroke.  A
:class:`Carry` (one per server, made by :func:`recordkit.lsp.features.register`,
never a module global) keeps the last snapshot's and, when a new one
differs from it in a few records of the same ids, seeds the new snapshot
with them updated for those records only:

- the :class:`~recordkit.lsp.features.context.FeatureIndex`: each record's
  references (kept for the records that did not change) and the in-links
  (the changed records' old ones taken out, their new ones put in);
- the completion table (the changed records' rows made again);
- the graph: the last one built (or updated) and the corpus it is of are
  kept; when the changed records put the very same things in it (their
  front matter, their relations' targets and places, what they mention:
  an edit of the body's prose) the new corpus's ``kept_graph`` is that
  graph (the graph stage keeps it there and :func:`recordkit.graph.of`
  answers it); when an edit changes an edge, the snapshot is left the
  graph and the changed ids, and the first feature that needs the graph
  (:func:`~recordkit.lsp.features.graphs.ensure_graph`, before hover's ``describe``) gets it updated for
  those records (:func:`recordkit.graph.updated`, ~0.1 s at 10,000
  records) instead of built (0.5-1.5 s).

Anything else (records added or removed, many records changed, another
schema) starts over, as the snapshot would without a carry.
"""
from __future__ import annotations

import threading

from . import completion
from .context import FeatureIndex, kept, seed
from .graphs import GRAPH_KEY

#: above this many changed records, the snapshot's indexes are made from nothing
MAX_CHANGED = 200


class Carry:
    """The last snapshot's corpus and what the features kept for it."""

    def __init__(self):
        self._lock = threading.Lock()
        self.corpus = None
        self.index: FeatureIndex | None = None
        self.entries: list | None = None
        #: (corpus, its graph): the last graph a snapshot built or updated
        self.graph_base: tuple | None = None

    def prepare(self, snap) -> None:
        """Seed ``snap`` with what the last snapshot kept, updated for what changed."""
        corpus = snap.corpus
        if corpus is None:
            return
        with self._lock:
            prev, index, entries = self.corpus, self.index, self.entries
            if prev is not None and prev is not corpus:
                changed = changed_records(prev, corpus)
                if changed is not None:
                    if index is not None:
                        seed(snap, "lsp.features.index", carried_index(index, corpus, changed))
                    if entries is not None:
                        seed(snap, "lsp.features.completion.entries", carried_entries(entries, corpus, changed))
            self.graph_base = carry_graph(self.graph_base, prev, snap)
            self.corpus = corpus
            self.index = kept(snap, "lsp.features.index", lambda: FeatureIndex(corpus))
            self.entries = completion.entries(snap)


def changed_records(prev, corpus) -> list[tuple] | None:
    """``(old, new)`` of each record that is not the same object in both
    corpora, or None when they differ in more than that (other ids, other
    files, another schema, too many changes)."""
    if prev.schema is not corpus.schema or len(prev.records) != len(corpus.records) \
            or len(prev.files) != len(corpus.files):
        return None
    out = []
    old_records = prev.records
    for rid, rec in corpus.records.items():
        old = old_records.get(rid)
        if old is None:
            return None
        if old is not rec:
            out.append((old, rec))
            if len(out) > MAX_CHANGED:
                return None
    return out


def carried_index(index: FeatureIndex, corpus, changed: list[tuple]) -> FeatureIndex:
    new = FeatureIndex(corpus)
    new.refs_from(index)
    sources = index.sources_map()
    if sources is not None:
        sources = dict(sources)
        for old, rec in changed:
            for target in FeatureIndex.targets_of(old):
                lst = sources.get(target)
                if lst is not None:
                    sources[target] = [r for r in lst if r is not old]
            for target in FeatureIndex.targets_of(rec):
                sources[target] = sources.get(target, []) + [rec]
        new.set_sources(sources)
    return new


def carried_entries(entries: list, corpus, changed: list[tuple]) -> list:
    at = {e.id: i for i, e in enumerate(entries)}
    out = list(entries)
    for _, rec in changed:
        i = at.get(rec.id)
        if i is not None:
            out[i] = completion.entry_of(rec.id, rec)
    return out


def edges_of(rec) -> tuple:
    """What a record puts in the graph: its node's attributes, its relations'
    targets with their places, what its body mentions, and its front matter
    as a whole (the fields derived edges are read from).  An edit of the
    body's prose changes none of it."""
    rels = tuple((name, tuple((t.id, t.pos) for t in ts)) for name, ts in (rec.relations or {}).items())
    return (rec.id, rec.kind, rec.status, rec.title, tuple(rec.tags), rec.relpath, rels,
            tuple(rec.mention_targets), repr(rec.meta))


def carry_graph(base: tuple | None, prev, snap) -> tuple | None:
    """The graph kept on the new corpus when no edge changed, else left
    pending on the snapshot (:func:`~recordkit.lsp.features.graphs.ensure_graph`); answers the new base
    (the last corpus with a graph, and that graph)."""
    if prev is not None and prev.kept_graph is not None:
        base = (prev, prev.kept_graph)
    corpus = snap.corpus
    if prev is corpus or base is None or base[0] is corpus or corpus.kept_graph is not None:
        return base
    changed = changed_records(base[0], corpus)
    if changed is None:
        return base
    if all(edges_of(old) == edges_of(rec) for old, rec in changed):
        corpus.kept_graph = base[1]
    else:
        seed(snap, GRAPH_KEY, (base[1], [rec.id for _, rec in changed]))
    return base
