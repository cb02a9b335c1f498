"""One record as every view of it reads it: what it links to (front matter
and derived edges), what links to it (typed backlinks, mentions), its
neighbours in the graph and its fields.

``recordkit show`` (:mod:`recordkit.views.describe`) and the site's record
page (:mod:`recordkit.emit.site.views`) both start from :func:`record_facts`
and differ only in the shape they give it.  ``visible`` is the view's
privacy: the site passes its published records, and a record that exists
but is not visible is never a neighbour, a backlink, a derived target or a
mention source (a front-matter target keeps ``visible=False``, so that the
view can name it as text).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, NamedTuple

from ..common.order import id_sort_key
from ..graph import of as graph_of


class Link(NamedTuple):
    """A front-matter target as written."""
    id: str
    exists: bool
    #: exists, and the view may show it
    visible: bool
    #: the :class:`recordkit.corpus.model.Target`
    target: Any


@dataclass
class RecordFacts:
    """What :func:`record_facts` finds (see the module's documentation)."""
    rec: Any
    #: relation -> its targets as written, in the front matter's order
    relations: dict[str, list[Link]]
    #: relation -> (target, the reference it was derived from), visible
    #: targets, in the graph's order
    derived: dict[str, list[tuple[str, Any]]]
    #: relation -> the visible records that link here by it (no body
    #: mention), in id order; relations in the graph's order
    backlinks: dict[str, list[str]]
    #: the visible records whose body mentions this one, in id order
    mentioned_by: list[str]
    #: visible neighbour -> (source, target, relation, origin) of each edge
    #: between it and this record, out-edges first
    neighbours: dict[str, list[tuple[str, str, str, str]]]
    #: the fields that are no relation, as loaded
    fields: dict[str, Any]
    #: field -> its date as text, for a field of epoch numbers (Dendron's
    #: milliseconds; None where the number is no date)
    dates: dict[str, str | None]


def _everyone(_rid: str) -> bool:
    return True


def record_facts(corpus, rid: str, visible: Callable[[str], bool] = _everyone) -> RecordFacts:
    """The facts about the record ``rid`` of ``corpus`` that a view may show
    (``visible``: which records it may name).  Its standing and its checks
    each view reads from the lifecycle analysis it has."""
    rec = corpus.records[rid]
    records = corpus.records
    schema = corpus.schema
    g = graph_of(corpus)
    relations = {rel: [Link(t.id, t.id in records, t.id in records and visible(t.id), t) for t in targets]
                 for rel, targets in rec.relations.items()}
    derived: dict = {}
    in_by: dict = {}
    mentioned_by = set()
    neighbours: dict = {}
    for _, dst, d in g.out_edges(rid, data=True):
        if not visible(dst):
            continue
        neighbours.setdefault(dst, []).append((rid, dst, d["relation"], d["origin"]))
        if d["origin"] == "derived":
            derived.setdefault(d["relation"], []).append((dst, d.get("via")))
    for src, _, d in g.in_edges(rid, data=True):
        if not visible(src):
            continue
        neighbours.setdefault(src, []).append((src, rid, d["relation"], d["origin"]))
        if d["origin"] == "body":
            mentioned_by.add(src)
        else:
            in_by.setdefault(d["relation"], set()).add(src)
    meta = rec.meta
    return RecordFacts(
        rec=rec, relations=relations, derived=derived,
        backlinks={rel: sorted(srcs, key=id_sort_key) for rel, srcs in in_by.items()},
        mentioned_by=sorted(mentioned_by, key=id_sort_key), neighbours=neighbours,
        fields={k: v for k, v in meta.items() if k not in schema.relations},
        dates={k: schema.date_text(rec.kind, k, v) for k, v in meta.items()
               if isinstance(v, int) and not isinstance(v, bool) and schema.epoch_unit(rec.kind, k)})
