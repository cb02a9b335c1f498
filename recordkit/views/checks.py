"""Check results in ``recordkit show ID``: importing this module registers
a :func:`recordkit.show.register_extra` function that adds ``checks``, a
list with one entry per check the record cites (``checks:``), requires
(``promote_when`` ``check:``) or holds (a check block)."""
from __future__ import annotations

from .describe import register_extra


def check_entries(corpus, rec) -> list[dict]:
    from ..numeric.discover import citations, discover_all
    from ..numeric.results import load_results
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
        elif r is None:
            entry["verdict"] = "not run"
        elif r.stale:
            entry.update(verdict=f"stale (last {r.verdict})", stale=True)
        else:
            entry.update(verdict=r.verdict, discrepancy=r.discrepancy, seconds=r.seconds,
                         message=r.message or None)
            if r.discrepancies:
                entry["discrepancies"] = r.discrepancies
        out.append(entry)
    return out


@register_extra
def _checks_extra(corpus, rec) -> dict:
    entries = check_entries(corpus, rec)
    return {"checks": entries} if entries else {}
