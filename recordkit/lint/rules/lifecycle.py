"""RK4xx: the theory lifecycle (promote_when, required-by-status fields,
building on broken records).  The logic lives in :mod:`recordkit.lifecycle`;
these rules only place its findings."""
from __future__ import annotations

from ... import lifecycle as lc
from ..involve import check_key, links_key
from ..registry import rule


def _lifecycle(ctx) -> lc.Lifecycle:
    """One analysis per lint run, shared by the rules (``ctx.lifecycle``)."""
    return ctx.lifecycle


def _about(rec) -> list[str]:
    """What a lifecycle finding on ``rec`` depends on besides ``rec``: the
    records it points at (``promoted_by`` among them), the records that
    point at it (a ``record:`` requirement), and the checks and claims its
    ``promote_when`` names."""
    out = [links_key(rec.id)]
    for targets in rec.relations.values():
        out.extend(t.id for t in targets)
    for req in lc.parse_promote_when(rec.get(lc.PROMOTE_FIELD)).requires:
        if isinstance(req.check, str):
            out.append(check_key(req.check))
        if isinstance(req.claim, str):
            out.append(req.claim)
    return sorted(set(out))


def _status_pos(rec):
    return lc.span(rec, ("status",))


@rule("RK401", "unmet-promote-requirement", "error")
def unmet_promote_requirement(ctx, rec):
    """An active theory has a `promote_when` requirement that does not hold.

    ## What it does
    For every `active` record whose kind has a lifecycle (THEORY), evaluates
    each `promote_when.requires` item against the record's front-matter
    relations and the cached numeric check results, and reports each item
    that does not hold, at that item, with the reason.  An item is *unmet*
    (a check fails, errors or times out; no record of that kind and status
    points here by that relation; the claim is not `supported`) or
    *unknown*: the check's result is missing or stale, so nothing shows the
    condition holds, and nothing shows it fails.  An unmet item is an
    error.  An unknown one is reported too, never taken as met, but as a
    *warning* whose message says "unknown": check results live in a local
    cache, so a fresh clone or an edited check would otherwise fail every
    commit until the checks are run.  `recordkit lint --run-checks` (or
    `recordkit check` first) settles it either way.  Malformed items are
    RK403's.

    ## Why is this bad
    `active` says the record holds what the theory's own condition asked.
    When the evidence is gone (the note went back to draft, the claim was
    refuted, the check fails), the theory is held without its evidence.

    ## Example
    ```yaml
    status: active
    promoted_by: NOTE-740
    promote_when:
      summary: A reading note confirms it.
      requires:
        - record: {kind: NOTE, relation: bears_on, status: final}   # NOTE-740 is draft
    ```

    ## Use instead
    Restore the evidence (finish the note, rerun or fix the check), or set the
    theory back to `proposed` until it holds again.
    """
    a = _lifecycle(ctx)
    if not a.in_lifecycle(rec) or rec.status != lc.ACTIVE:
        return []
    ev = a.evaluate_record(rec)
    out = []
    for item in ev.items:
        if item.state not in (lc.UNMET, lc.UNKNOWN):
            continue
        pos = lc.span(rec, item.requirement.where)   # (may parse the YAML again: only when reporting)
        if item.state == lc.UNMET:
            out.append(ctx.diag("RK401", f"{rec.id} is active but its requirement '{item.text}' is unmet: "
                                         f"{item.reason}", rec, pos, about=_about(rec)))
        else:
            d = ctx.diag("RK401", f"{rec.id} is active but its requirement '{item.text}' is unknown: "
                                  f"{item.reason}", rec, pos, about=_about(rec))
            d.severity = "warning"   # nothing is known to be wrong: see the rule's doc
            out.append(d)
    return out


@rule("RK402", "missing-promote-when", "error")
def missing_promote_when(ctx, rec):
    """A proposed or active theory has no `promote_when`.

    ## What it does
    Reports a `proposed` or `active` record whose kind has a lifecycle
    (THEORY) and whose `promote_when` is missing or empty, at its `status`.

    ## Why is this bad
    Without a stated condition nobody can tell when the theory should be
    promoted, nor whether an active one still stands.

    ## Example
    ```yaml
    id: THEORY-012
    status: proposed
    ```

    ## Use instead
    ```yaml
    status: proposed
    promote_when:
      summary: A fitted conformal map matches a fitted linear one on held-out data.
      requires:
        - check: conformal-vs-linear-residuals
    ```
    """
    a = _lifecycle(ctx)
    if not a.in_lifecycle(rec) or rec.status not in (lc.PROPOSED, lc.ACTIVE):
        return []
    if lc.parse_promote_when(rec.get(lc.PROMOTE_FIELD)).present:
        return []
    return [ctx.diag("RK402", f"{rec.id} is {rec.status} but has no promote_when: state the condition "
                              f"that promotes it (summary, and requires when it can be checked)",
                     rec, _status_pos(rec))]


@rule("RK403", "malformed-promote-when", "error")
def malformed_promote_when(ctx, rec):
    """A `promote_when` is malformed: an item names something that does not exist, or has the wrong shape.

    ## What it does
    Checks every `promote_when.requires` item of a lifecycle record: that
    `requires` is a list; that each item has exactly one of `check:`,
    `record:`, `claim:` and no other key (but `status` beside `record:`);
    that a `check:` names a check the record defines; that a `record:`
    names a kind and a relation of the schema, a relation that can go from
    that kind to this record, and (if given) a status of that kind; that a
    `claim:` names an existing record that can be `supported`.  Each problem
    is reported at the offending value (the item, or the key inside it).

    ## Why is this bad
    A requirement that names nothing can never hold, or holds by accident
    after a rename; the theory stays blocked for a reason nobody sees.

    ## Example
    ```yaml
    promote_when:
      summary: ...
      requires:
        - check: conformal-vs-linaer-residuals      # typo
        - record: {kind: NOTES, relation: bears_on} # no kind NOTES
        - claim: CLAIM-999                          # does not exist
        - note: NOTE-740                            # not check, record or claim
    ```

    ## Use instead
    ```yaml
      requires:
        - check: conformal-vs-linear-residuals
        - record: {kind: NOTE, relation: bears_on}
          status: final
        - claim: CLAIM-201
    ```
    """
    a = _lifecycle(ctx)
    if not a.in_lifecycle(rec):
        return []
    ev = a.evaluate_record(rec)
    about = _about(rec) if ev.problems else ()
    return [ctx.diag("RK403", f"malformed promote_when: {p.message}", rec, lc.span(rec, p.where, p.at_key),
                     about=about)
            for p in ev.problems]


@rule("RK404", "ready-to-promote", "info")
def ready_to_promote(ctx, rec):
    """A proposed theory's requirements all hold: it is ready to promote.

    ## What it does
    Reports, at its `status`, a `proposed` lifecycle record with at least one
    `promote_when.requires` item, every one of them met (a check with an
    unknown result is not met).  A condition written in prose alone is never
    "ready": a person judges it.

    ## Why is this bad
    It is not: this is news.  The record holds what the theory asked for, and
    its status does not say so yet.

    ## Example
    ```yaml
    status: proposed
    promote_when:
      summary: A final reading note bears on it.
      requires:
        - record: {kind: NOTE, relation: bears_on, status: final}   # NOTE-740 is final
    ```

    ## Use instead
    `recordkit promote THEORY-ID --apply` sets `status: active` and
    `promoted_by: NOTE-740` in place.
    """
    a = _lifecycle(ctx)
    if not a.in_lifecycle(rec) or rec.status != lc.PROPOSED:
        return []
    ev = a.evaluate_record(rec)
    if not ev.ready:
        return []
    return [ctx.diag("RK404", f"{rec.id} is ready to promote: {lc.all_hold(len(ev.items))} "
                              f"(recordkit promote {rec.id} --apply)", rec, _status_pos(rec), about=_about(rec))]


def _required_by_status(schema, kind: str, status: str) -> list[str]:
    """Fields and relations the schema requires of ``kind`` in ``status``
    (``required_when`` on a relation or a field)."""
    out = []
    for name, rel in schema.relations_from(kind).items():
        if status in rel.required_when:
            out.append(name)
    for name, spec in schema.fields_for(kind).items():
        if isinstance(spec, dict) and status in (spec.get("required_when") or ()) and name not in out:
            out.append(name)
    return out


_HINTS = {
    "promoted_by": "name the record that showed the promote_when condition met",
    "answered_by": "name the record that answers it",
}


@rule("RK405", "status-needs-field", "error", local=True)
def status_needs_field(ctx, rec):
    """A status that needs a field lacks it (active needs promoted_by, answered needs answered_by).

    ## What it does
    For every record, looks up the relations and fields the schema marks
    `required_when` the record's status, and reports each one that is
    missing or empty, at the `status` value.  The default schema requires
    `promoted_by` of an `active` THEORY and `answered_by` of an `answered`
    QUESTION; a user schema's `required_when` works the same way.

    ## Why is this bad
    The status claims something the record does not back: an active theory
    that does not say what promoted it, a question marked answered with no
    answer.

    ## Example
    ```yaml
    id: QUESTION-027
    status: answered
    ```

    ## Use instead
    ```yaml
    id: QUESTION-027
    status: answered
    answered_by: CLAIM-193
    ```
    """
    status = rec.status
    if not status or not rec.kind:
        return []
    out = []
    for name in _required_by_status(ctx.schema, rec.kind, status):
        v = rec.get(name)
        if v is None or v == "" or v == []:
            hint = _HINTS.get(name)
            out.append(ctx.diag("RK405", f"status {status} needs {name}" + (f": {hint}" if hint else ""),
                                rec, _status_pos(rec)))
    return out


@rule("RK406", "builds-on-broken", "warning")
def builds_on_broken(ctx, rec):
    """A record builds on a retired, rejected or refuted record.

    ## What it does
    Reports each front-matter target of a "builds on" relation (those the
    schema marks `builds_on`: extends, grounds, promoted_by) whose status is
    one of the schema's `broken_statuses` (retired, rejected, refuted), at
    that target.  Only direct edges are reported; `recordkit show` and the
    site show the record as *undermined* when the break is further down
    the chain.  A record that is itself retired, rejected or refuted is not
    reported.

    ## Why is this bad
    What it builds on no longer stands, so neither may it, as a blueprint
    marks the lemmas whose dependencies broke.

    ## Example
    ```yaml
    id: CLAIM-301
    grounds: [THEORY-004]     # THEORY-004 is rejected
    ```

    ## Use instead
    Re-ground the record on what still stands, or retire it too.
    """
    broken = set(ctx.schema.broken_statuses)
    if not broken or rec.status in broken or not rec.kind:
        return []
    out = []
    records = ctx.records
    for name, targets in rec.relations.items():
        rel = ctx.schema.relations.get(name)
        if rel is None or not rel.builds_on:
            continue
        for t in targets:
            target = records.get(t.id)
            if target is not None and target.status in broken and t.id != rec.id:
                out.append(ctx.diag("RK406", f"builds on {t.id} ({name}), which is {target.status}", rec, t.pos,
                                    about=(t.id,)))
    return out
