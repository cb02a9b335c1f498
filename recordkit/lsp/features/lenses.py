"""What only recordkit shows in the editor: a code lens on each ``checks:``
entry, each ``promote_when`` ``check:`` item and each ```python check
block with the stored verdict (discrepancy against tolerance, seconds,
stale or not: :func:`recordkit.views.describe.check_entries` over
:mod:`recordkit.numeric.store`) and a "Run check" command (the check run
in its sandboxed process by :func:`recordkit.numeric.runner.run_checks`);
a lens of typed backlink counts at the top of a record; and a theory's
standing (:mod:`recordkit.lifecycle`) as an inlay hint after ``status:``."""
from __future__ import annotations

from lsprotocol import types as lsp

from ...views.describe import check_entries
from .context import Lines, encoding_name, lsp_range, position
from .definition import grouped_references

#: the command a "Run check" lens runs (its argument: the check id)
RUN_CHECK = "recordkit.runCheck"


def verdict_text(entry: dict) -> str:
    """A check's stored verdict in a few words: ``pass · 3.1e-16 ≤ 1e-12 · 0.41 s``."""
    out = [f"check {entry['id']}: {entry['verdict']}"]
    d, tol = entry.get("discrepancy"), entry.get("tolerance")
    if d is not None and tol is not None:
        out.append(f"{d:.3g} {'≤' if d <= tol else '>'} {tol:.3g}")
    if entry.get("seconds") is not None:
        out.append(f"{entry['seconds']:.2f} s")
    return " · ".join(out)


def check_places(snap, rec) -> list[tuple[str, tuple]]:
    """``(check id, position)`` of each check the file names or holds."""
    out = []
    for i, cid in enumerate(rec.get("checks") or [] if isinstance(rec.get("checks"), list) else []):
        pos = rec.values.get(("checks", i))
        if isinstance(cid, str) and pos:
            out.append((cid, pos))
    pw = rec.get("promote_when")
    reqs = pw.get("requires") if isinstance(pw, dict) else None
    for i, req in enumerate(reqs if isinstance(reqs, list) else []):
        if isinstance(req, dict) and isinstance(req.get("check"), str):
            pos = rec.values.get(("promote_when", "requires", i, "check"))
            if pos:
                out.append((req["check"], pos))
    from ...numeric.discover import discover_all
    for spec in discover_all(snap.corpus).checks.values():
        if spec.form == "block" and spec.record == rec.id:
            out.append((spec.id, (spec.line, 1, spec.line, 1)))
    return out


def code_lenses(snap, uri: str) -> list[lsp.CodeLens]:
    rec = snap.record(uri)
    if rec is None or not rec.ok:
        return []
    lines = Lines(rec.text)
    enc = encoding_name(snap)
    out = []
    counts = backlink_counts(snap, rec.id)
    if counts:
        top = lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=0, character=0))
        out.append(lsp.CodeLens(range=top, command=lsp.Command(title=counts, command="")))
    entries = {e["id"]: e for e in check_entries(snap.corpus, rec)}
    for cid, pos in check_places(snap, rec):
        e = entries.get(cid) or {"id": cid, "verdict": "unknown check id"}
        rng = lsp_range(lines, pos, enc)
        out.append(lsp.CodeLens(range=rng, command=lsp.Command(title=verdict_text(e), command="")))
        if e.get("defined", False):
            out.append(lsp.CodeLens(range=rng, command=lsp.Command(title="Run check", command=RUN_CHECK,
                                                                   arguments=[cid])))
    return out


def backlink_counts(snap, rid: str) -> str:
    """``Cited as "source" by 4 · Extended by 2 · Mentioned by 9`` (references, by label)."""
    groups = grouped_references(snap, rid)
    return " · ".join(f"{label} {len(locs)}" for label, locs in groups.items())


def inlay_hints(snap, uri: str, rng: lsp.Range | None = None) -> list[lsp.InlayHint]:
    """The record's standing after its ``status:`` value (a record in the
    lifecycle, or one a broken record undermines)."""
    rec = snap.record(uri)
    if rec is None or not rec.ok or rec.id not in snap.corpus.records:
        return []
    st = snap.lifecycle().standing(rec.id)
    if not st.state:
        return []
    pos = rec.values.get(("status",))
    if pos is None:
        return []
    at = position(Lines(rec.text), pos[2] or pos[0], pos[3], encoding_name(snap))
    if rng is not None and not (rng.start.line <= at.line <= rng.end.line):
        return []
    tip = st.detail or st.state
    if st.path:
        tip += "\n\n" + " → ".join(st.path)
    return [lsp.InlayHint(position=at, label=f"· {st.state}", kind=lsp.InlayHintKind.Type, padding_left=True,
                          tooltip=lsp.MarkupContent(kind=lsp.MarkupKind.PlainText, value=tip))]


class Cancelled(Exception):
    """The client cancelled the run."""


def run_check(snap, cid: str, *, report=None, cancelled=None, timeout: float | None = None) -> dict:
    """Run check ``cid`` (its sandboxed process, the result stored as
    ``recordkit check`` stores it); ``report(message)`` is told as it goes,
    ``cancelled()`` is asked before it starts and when it ends (a check
    running stops at its time limit).  Returns its entry as the lens shows it."""
    from ...numeric.runner import DEFAULT_TIMEOUT, run_checks
    if cancelled is not None and cancelled():
        raise Cancelled(cid)
    if report:
        report(f"running {cid}")

    def progress(result):
        if report:
            report(f"{result.id}: {result.verdict}")
        if cancelled is not None and cancelled():
            raise Cancelled(cid)
    results = run_checks(snap.corpus, [cid], jobs=1, timeout=timeout or DEFAULT_TIMEOUT, progress=progress)
    r = results.get(cid)
    if r is None:
        return {"id": cid, "verdict": "not run"}
    return {"id": cid, "verdict": r.verdict, "discrepancy": r.discrepancy, "tolerance": getattr(r, "tolerance", None),
            "seconds": r.seconds, "message": r.message or None}
