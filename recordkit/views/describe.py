"""One record, described as JSON-ready data: fields, relations with their
targets' titles, typed backlinks, mentions in and out, standing and checks
(``recordkit show``; the command renders it, :mod:`recordkit.cli.show`)."""
from __future__ import annotations

from .. import lifecycle as lc
from ..common.paths import display_path
from ..common.text import path_text
from ..corpus.model import to_plain
from ..graph.queries import by_label
from ..numeric.discover import citations, discover_all
from ..numeric.results import short_verdict
from ..numeric.store import load_results
from .record import record_facts


def describe(corpus, record_id: str, *, lifecycle: lc.Lifecycle | None = None) -> dict | None:
    """A JSON-ready description of the record ``record_id``, or None when
    there is no such record.  ``lifecycle``: an analysis of ``corpus``
    already made (describing many records shares one)."""
    rec = corpus.get(record_id)
    if rec is None:
        return None
    schema = corpus.schema
    records = corpus.records
    from ..corpus.resolve import mention_resolution, target_resolution
    facts = record_facts(corpus, record_id)

    def unsure(res) -> dict:
        """A link that names several records: which (lint's RK308), not "missing"."""
        return {"ambiguous": list(res.candidates)} if res.ambiguous else {}
    relations = {rel: [{"id": x.id, "title": records[x.id].title if x.exists else None,
                        "exists": x.exists, "line": x.target.pos[0],
                        **(unsure(target_resolution(corpus, rec, x.target)) if not x.exists and x.target.text
                           else {})}
                       for x in links]
                 for rel, links in facts.relations.items()}
    derived = {rel: [{"id": dst, "title": records[dst].title, "via": via} for dst, via in dsts]
               for rel, dsts in facts.derived.items()}
    mentions_out = []
    seen = set()
    for m in rec.mentions:
        if m.target in seen:
            continue
        seen.add(m.target)
        mentions_out.append({"id": m.target, "exists": m.target in records,
                             "title": records[m.target].title if m.target in records else None,
                             "line": m.line,
                             **(unsure(mention_resolution(corpus, rec, m)) if m.target not in records and m.text
                                else {})})
    info = {
        "id": rec.id, "kind": rec.kind, "title": rec.title, "status": rec.status,
        "path": path_text(display_path(rec.path)), "fields": to_plain(facts.fields),
        "dates": {k: d for k, d in facts.dates.items() if d is not None}, "relations": relations,
        "derived": derived,
        "backlinks": {label: [{"id": s, "title": records[s].title} for s in ids]
                      for label, ids in by_label(schema, {r: set(x) for r, x in facts.backlinks.items()}).items()},
        "mentions": mentions_out,
        "mentioned_by": [{"id": s, "title": records[s].title} for s in facts.mentioned_by],
    }
    info.update(_standing_part(lifecycle or lc.analyze(corpus), rec))
    entries = check_entries(corpus, rec)
    if entries:
        info["checks"] = entries
    return to_plain(info)


def _standing_part(a: lc.Lifecycle, rec) -> dict:
    """``standing``, ``standing_detail``, ``standings`` (every standing that
    applies, the displayed one first), ``undermined_path``, and for a record
    with a ``promote_when``, ``promote`` = ``{"summary", "requires": [{"text",
    "ok", "state", "reason", "by", "index"}]}``."""
    st = a.standing(rec.id)
    out = {}
    if st.state:
        out["standing"] = st.state
        out["standing_detail"] = st.detail
        out["standings"] = list(st.states)
        if st.path:
            out["undermined_path"] = list(st.path)
            if st.path_skipped:     # (a long path: its first and last ids)
                out["undermined_path_skipped"] = st.path_skipped
    ev = st.evaluation
    if ev is not None and ev.promote_when.present:
        out["promote"] = ev.to_dict()
    return out


def check_entries(corpus, rec) -> list[dict]:
    """One entry per check the record cites (``checks:``), requires
    (``promote_when`` ``check:``) or holds (a check block)."""
    disc = discover_all(corpus)
    cited = citations(corpus, disc.checks)
    ids = [cid for cid, recs in cited.items() if rec.id in recs]
    if not ids:
        return []
    results = load_results(corpus, disc.checks)
    out = []
    for cid in ids:
        spec = disc.checks.get(cid)
        r = results.get(cid)
        entry = {"id": cid, "defined": spec is not None, "form": spec.form if spec else None,
                 "claim": spec.claim if spec else "", "tolerance": spec.tolerance if spec else None,
                 "discrepancy": None, "stale": False, "seconds": None, "message": None}
        if spec is None:
            entry["verdict"] = "unknown check id"
        elif cid in disc.duplicates:
            entry["verdict"] = "defined more than once"
        elif r is None or r.stale:
            entry.update(verdict=short_verdict(r), stale=r is not None)
        else:
            entry.update(verdict=short_verdict(r), discrepancy=r.discrepancy, seconds=r.seconds,
                         message=r.message or None)
            if r.discrepancies:
                entry["discrepancies"] = r.discrepancies
        out.append(entry)
    return out
