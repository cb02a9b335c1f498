"""The content index: one JSON-ready description of the whole record that
feeds the graph page (and, later, the site's search and graph views).

``build_index(corpus)`` → ``{"meta", "nodes", "links"}``; see
docs/index-format.md for the shape.
"""
from __future__ import annotations

import datetime as _dt

from ..common.text import path_text
from ..corpus.model import to_plain
from ..graph.build import iter_edges
from ..graph.queries import all_backlinks
from ..lifecycle import standings
from ..numeric.store import load_results
from ..runtime import batch
from ..schema import valid_color
from ..graph import of as graph_of

PALETTE = ["#4e79a7", "#59a14f", "#e15759", "#f28e2b", "#b07aa1", "#76b7b2", "#edc948", "#ff9da7",
           "#9c755f", "#bab0ac"]




def kind_color(schema, kind: str | None) -> str:
    """The colour of ``kind``: the schema's (``kinds.K.color``), else one of
    :data:`PALETTE` chosen by the name (the same every run and on every
    machine)."""
    k = schema.kinds.get(kind)
    if k is not None and k.color:
        return k.color
    import hashlib
    h = int(hashlib.sha1((kind or "").encode()).hexdigest()[:8], 16)
    return PALETTE[h % len(PALETTE)]


def status_looks(schema) -> dict[str, list[str]]:
    """How the graph page draws a record by its status, from the schema:
    ``faded`` (faint) are the ``broken_statuses`` and the graph's
    ``faded_statuses``, ``tentative`` (lighter) the graph's
    ``tentative_statuses`` (``graph:`` in the schema; the research schema
    fades set-aside and dropped, lightens queued and draft).  Each list is
    in the order the statuses appear in the schema's kinds, and holds only
    statuses some kind has."""
    graph = (schema.raw or {}).get("graph")
    graph = graph if isinstance(graph, dict) else {}

    def names(value) -> set[str]:
        return {x for x in value if isinstance(x, str)} if isinstance(value, (list, tuple)) else set()

    faded = set(schema.broken_statuses) | names(graph.get("faded_statuses"))
    tentative = names(graph.get("tentative_statuses")) - faded
    order: list[str] = []
    for k in schema.kinds.values():
        for st in k.statuses:
            if st not in order:
                order.append(st)
    return {"faded": [s for s in order if s in faded], "tentative": [s for s in order if s in tentative]}


def build_index(corpus, *, site_urls: dict[str, str] | None = None, title: str | None = None,
                results=None, with_standing: bool = True) -> dict:
    """The content index of ``corpus``.  ``site_urls`` maps ids to the
    relative URL of their page when a site exists."""
    with batch():
        return _build_index(corpus, site_urls, title, results, with_standing)


def _build_index(corpus, site_urls, title, results, with_standing) -> dict:
    schema = corpus.schema
    g = graph_of(corpus)
    if results is None:
        results = load_results(corpus)
    standing = standings(corpus, results) if with_standing else {}
    back = all_backlinks(corpus)
    relation_fields = set(schema.relations)
    skip = {"id", "title", "status", "tags"} | relation_fields
    nodes = []
    for rid, rec in corpus.records.items():
        st = standing.get(rid)
        pw = rec.get("promote_when")
        promote = None
        ev = getattr(st, "evaluation", None) if st is not None else None
        if ev is not None and isinstance(pw, dict):
            promote = ev.to_dict()
        elif isinstance(pw, dict):
            promote = {"summary": pw.get("summary"), "requires": []}
        checks = []
        ids = rec.get("checks")
        if isinstance(ids, list):
            for cid in ids:
                if not isinstance(cid, str):
                    continue
                r = results.get(cid) if results else None
                verdict = "unknown"
                if r is not None:
                    verdict = "stale" if getattr(r, "stale", False) else getattr(r, "verdict", "unknown")
                checks.append({"id": cid, "verdict": verdict})
        nodes.append({
            "id": rid, "kind": rec.kind, "status": rec.status, "title": rec.title, "tags": rec.tags,
            "path": path_text(rec.relpath), "url": (site_urls or {}).get(rid),
            "standing": getattr(st, "state", None) if st is not None else None,
            "standing_detail": getattr(st, "detail", None) if st is not None else None,
            "standing_path": list(getattr(st, "path", None) or []) if st is not None else [],
            "standings": list(getattr(st, "states", None) or []) if st is not None else [],
            "fields": to_plain({k: v for k, v in rec.meta.items() if k not in skip and k != "promote_when"}),
            "relations": {rel: [t.id for t in ts] for rel, ts in rec.relations.items()},
            "backlinks": back.get(rid, {}),
            "promote": to_plain(promote),
            "checks": checks,
        })
    links = [{"source": u, "target": v, "relation": d["relation"], "origin": d["origin"]}
             for u, v, d in iter_edges(g)]
    # the schema's kinds only: a record whose kind the schema lacks (or that
    # has none) is drawn as "no kind", never as a kind made up from its id
    kinds = {name: {"color": kind_color(schema, name), "statuses": list(k.statuses),
                    "description": k.description} for name, k in schema.kinds.items()}
    raw_relations = (schema.raw or {}).get("relations") or {}
    relations = {}
    for name, r in schema.relations.items():
        relations[name] = {"label": r.label, "from": list(r.sources), "to": list(r.targets)}
        color = (raw_relations.get(name) or {}).get("color") if isinstance(raw_relations.get(name), dict) else None
        if valid_color(color):
            relations[name]["color"] = color
    relations[schema.mention_relation] = {"label": schema.mention_label, "from": ["*"], "to": ["*"]}
    looks = status_looks(schema)
    meta = {
        "title": title or corpus.config.site_title,
        "root": str(corpus.root.name),
        "generated": _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat(),
        "kinds": kinds, "relations": relations, "site": bool(site_urls),
        "faded_statuses": looks["faded"], "tentative_statuses": looks["tentative"],
        "counts": {"nodes": len(nodes), "links": len(links)},
    }
    return {"meta": meta, "nodes": nodes, "links": links}
