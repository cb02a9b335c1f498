"""RK5xx: numeric checks — cited checks exist, ran, and pass.

These rules never run a check: they read discovery (``ast``, no user code)
and the cached results (``.recordkit/checks.json``).  ``recordkit check`` or
``recordkit lint --run-checks`` refreshes the results.
"""
from __future__ import annotations

from ...common.didyoumean import near_words
from ...numeric.discover import cited_checks
from ..involve import check_key
from ..registry import rule


def _discovery(ctx):
    return ctx.check_discovery


def _results(ctx):
    return ctx.results


def _held(ctx, rec):
    """The block checks ``rec`` holds (every definition, duplicates included)."""
    return ctx.check_blocks_by_path.get(str(rec.path), [])


def _fence_pos(rec, line: int):
    text = rec.line_text(line)
    col = len(text) - len(text.lstrip()) + 1
    return (line, col, line, len(text) + 1)


def _items(ctx, rec):
    """(check id, position, how) for every check ``rec`` is answerable for:
    the items of its ``checks:`` list, then the block checks it holds (at
    their fence lines)."""
    memo = ctx.check_items   # three rules ask, per record
    out = memo.get(id(rec))
    if out is None:
        out = [(cid, pos, "cited") for cid, pos in cited_checks(rec)]
        for spec in _held(ctx, rec):
            out.append((spec.id, _fence_pos(rec, spec.line), "block"))
        memo[id(rec)] = out
    return out


@rule("RK501", "unknown-check", "error")
def unknown_check(ctx, rec):
    """A record's `checks:` names a check that no check module or check block defines.

    ## What it does
    Checks each id in a record's `checks:` list against the numeric checks
    found in the checks folder (functions decorated with `@check("id", ...)`
    in `checks/*.py`) and in record bodies (fenced blocks opened with
    ```` ```python check id=... ````), and suggests the closest id.  It also
    reports an id defined more than once (which definition would the result
    belong to?) and a check block whose info string cannot be read
    (no `id=`, a `tolerance` that is not a number).

    ## Why is this bad
    `checks:` says which computation carries the record's claim.  A name
    that matches no check means the claim is carried by nothing: a typo, or
    a check renamed or deleted since the record was written.  Nothing will
    ever run it, and a `recordkit check` that passes says nothing about it.

    ## Example
    ```yaml
    id: CLAIM-193
    checks: [msvd-equal-nbs]
    ```

    ## Use instead
    ```yaml
    id: CLAIM-193
    checks: [msvd-equals-nbs]
    ```
    """
    disc = _discovery(ctx)
    out = []
    for cid, pos in cited_checks(rec):
        if cid in disc.duplicates:
            out.append(ctx.diag("RK501", disc.duplicate_message(cid), rec, pos, about=(check_key(cid),)))
        elif cid not in disc.checks:
            near = near_words(cid, disc.checks)
            hint = f" (did you mean {near[0]}?)" if near else ""
            unreadable = [p for p in disc.problems if p.record is None]
            note = ""
            if unreadable:
                import os
                p = unreadable[0]
                note = f"; note: {os.path.relpath(p.path, ctx.config.base)}:{p.line}: {p.message}"
            out.append(ctx.diag("RK501", f"unknown check id `{cid}`{hint}{note}", rec, pos, about=(check_key(cid),)))
    for spec in _held(ctx, rec):
        if spec.id in disc.duplicates:
            out.append(ctx.diag("RK501", disc.duplicate_message(spec.id), rec, _fence_pos(rec, spec.line),
                                about=(check_key(spec.id),)))
    for p in disc.problems:
        if p.record == rec.id and p.path == str(rec.path):
            out.append(ctx.diag("RK501", p.message, rec, _fence_pos(rec, p.line)))
    return out


def _current(ctx, cid):
    disc = _discovery(ctx)
    if cid not in disc.checks or cid in disc.duplicates:
        return None, False          # RK501's business
    r = _results(ctx).get(cid)
    return r, True


@rule("RK502", "check-failed", "error")
def check_failed(ctx, rec):
    """A numeric check the record cites or holds measured a discrepancy above its tolerance.

    ## What it does
    Reads the cached result of each check in the record's `checks:` list and
    of each check block in its body, and reports those whose last run (on
    the current source) measured a discrepancy larger than the tolerance, or
    not finite.  Both numbers are printed; for a check that returns several
    named discrepancies, the worst entry is named.  The diagnostic is placed
    on the `checks:` item, and on the block's opening fence.

    ## Why is this bad
    The record asserts something the computation does not reproduce: either
    the claim is wrong, the code is wrong, or the tolerance was set tighter
    than the numerics allow.  Any of the three has to be resolved before the
    claim can be relied on.

    ## Example
    ```yaml
    id: CLAIM-193
    checks: [msvd-equals-nbs]   # measured 3.2e-04 > tolerance 1e-07
    ```

    ## Use instead
    Fix the claim or the code until `recordkit check msvd-equals-nbs`
    passes; loosen the tolerance only with a reason written in the check's
    `claim=`.  Or drop the check from `checks:` and weaken the claim.
    """
    out = []
    for cid, pos, how in _items(ctx, rec):
        r, known = _current(ctx, cid)
        if not known or r is None or r.stale or r.verdict != "fail":
            continue
        d, tol = r.discrepancy, r.tolerance
        if d is not None and d == d and abs(d) != float("inf"):
            msg = f"check {cid} failed: discrepancy {d:.3g} > tolerance {tol:.3g}"
            if r.worst is not None:
                msg += f" (entry `{r.worst}`)"
        else:
            msg = f"check {cid} failed: {r.message or 'discrepancy is not finite'}"
        out.append(ctx.diag("RK502", msg, rec, pos, about=(check_key(cid),)))
    return out


@rule("RK503", "check-broken", "error")
def check_broken(ctx, rec):
    """A numeric check the record cites or holds raised, timed out or died.

    ## What it does
    Reads the cached result of each check in the record's `checks:` list and
    of each check block in its body, and reports those whose last run (on
    the current source) produced no discrepancy: the code raised an
    exception (the exception is quoted), ran past the time limit, or its
    process died (a signal such as SIGSEGV, `os._exit`, the memory limit).

    ## Why is this bad
    A check that does not finish verifies nothing: the claim it carries is
    unsupported until it runs to a number.

    ## Example
    ```python
    @check("llv-bound-thm47", tolerance=1e-9)
    def _(rng):
        X = rng.normal(size=(10**6, 10**4))    # 80 GB: killed at the memory limit
        ...
    ```

    ## Use instead
    Run `recordkit check ID` to see the traceback, fix the code, make it
    smaller, or give it more time with `@check(..., timeout=300)`.
    """
    out = []
    words = {"error": "raised", "timeout": "timed out", "crashed": "crashed"}
    for cid, pos, how in _items(ctx, rec):
        r, known = _current(ctx, cid)
        if not known or r is None or r.stale or r.verdict not in words:
            continue
        out.append(ctx.diag("RK503", f"check {cid} {words[r.verdict]}: {r.message}", rec, pos,
                            about=(check_key(cid),)))
    return out


@rule("RK504", "check-result-missing", "warning")
def check_result_missing(ctx, rec):
    """A numeric check the record cites or holds has no result, or its result is stale.

    ## What it does
    Reports each check of the record's `checks:` list (and each check block
    in its body) that has never been run, or whose cached result was
    computed from a different source: the check's function, its module, the
    local modules it imports, its inputs, or the numpy or recordkit version
    changed since.  The cache is `.recordkit/checks.json`.

    ## Why is this bad
    Until the check runs on the current code, nobody knows whether the claim
    still holds; a stale pass is not a pass.  The lifecycle treats such a
    check as unknown, never as met.

    ## Example
    ```console
    $ git pull          # someone edited checks/bures.py
    $ recordkit lint
    records/claim/CLAIM-193.md:7:12: RK504 result of check msvd-equals-nbs is stale ...
    ```

    ## Use instead
    ```console
    $ recordkit check msvd-equals-nbs     # or: recordkit lint --run-checks
    ```
    """
    out = []
    for cid, pos, how in _items(ctx, rec):
        r, known = _current(ctx, cid)
        if not known:
            continue
        if r is None:
            out.append(ctx.diag("RK504", f"check {cid} has no result: run `recordkit check {cid}`", rec, pos,
                                about=(check_key(cid),)))
        elif r.stale:
            out.append(ctx.diag("RK504", f"result of check {cid} is stale (its source changed since it ran; "
                                         f"last verdict {r.verdict}): run `recordkit check {cid}`", rec, pos,
                                about=(check_key(cid),)))
    return out
