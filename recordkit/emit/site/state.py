"""What a site build keeps for the next build in the same process.

A plain :func:`.build.build_site` call makes a fresh :class:`BuildState`
(the next build, in a fresh process, reads back what it needs from the
cache folder).  ``serve`` keeps one for its whole life and hands it to each
rebuild, so that a rebuild after an edit starts from what the last one
worked out.  Every entry is checked against what it was made of before it
is used: a state only saves work, it never changes what a build makes.

The memos keyed by a graph last as long as the graph: serve keeps its
graph while no edit changes what it is made of (:class:`.load.RecordCache`).
"""
from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import ClassVar


def _by_object() -> weakref.WeakKeyDictionary:
    return weakref.WeakKeyDictionary()


@dataclass
class BuildState:
    #: (user templates, templates, their listing) -> the template environment:
    #: a rebuild reuses its compiled templates (the loader checks each
    #: template file's mtime); an override added makes a new environment
    environments: dict = field(default_factory=dict)
    #: record id -> fnv1a32 of it (a rebuild hashes each id once)
    fnv: dict = field(default_factory=dict)
    #: graph -> (salt, {record id: (front matter digest, relpath, digest of its out-edges, its graph
    #: signature, its published targets, its links to them)}): see :func:`.changes.find_candidates`
    edges: weakref.WeakKeyDictionary = field(default_factory=_by_object)
    #: graph -> (salt, standings, dates, {record id: (its digest, its path, the digests of the records
    #: its standing names, own signature, graph signature, face)}): see :func:`.changes.find_candidates`
    own: weakref.WeakKeyDictionary = field(default_factory=_by_object)
    #: graph -> (check results, check ids, standings): see :func:`.load.gather`
    standings: weakref.WeakKeyDictionary = field(default_factory=_by_object)
    #: graph -> (standings, dates, the rest of the list pages' data but the rows, ids, their
    #: signature, tags): see :func:`.emitters.lists.emit`
    lists: weakref.WeakKeyDictionary = field(default_factory=_by_object)
    #: corpus -> {path: digest of its front matter text}: see :func:`.load.front_matter_digests`
    front_matter: weakref.WeakKeyDictionary = field(default_factory=_by_object)
    #: serve: shard folder -> the search index's joined postings as the last
    #: build left them, and whether they are written to the cache folder yet
    #: (see :func:`.emitters.search.partial`)
    search: dict = field(default_factory=dict)
    #: record id -> (its digest, its path, its attachment links): see
    #: :func:`.attachments.plan` (``None`` -> the wikilink order they were read in)
    attachment_links: dict = field(default_factory=dict)

    #: what builds work out of a graph, by name (see :meth:`graph_memos`)
    GRAPH_MEMOS: ClassVar[tuple] = ("edges", "own", "standings", "lists")

    def graph_memos(self, graph) -> dict:
        """What builds worked out of ``graph`` and can use again while a
        build has that graph (a fresh build reads it back with the graph:
        see :meth:`.load.RecordCache.save_graph`)."""
        return {name: getattr(self, name).get(graph) for name in self.GRAPH_MEMOS}

    def restore_graph_memos(self, graph, memos: dict) -> None:
        for name in self.GRAPH_MEMOS:
            if isinstance(memos.get(name), tuple):
                getattr(self, name)[graph] = memos[name]
