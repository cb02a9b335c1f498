"""Results of numeric checks, as the rest of recordkit sees them: the
:class:`CheckResult` record, and the one place a result is put into words
(:func:`judge`).  Pure: reading and writing results is :mod:`.store`'s job
(:func:`recordkit.numeric.store.load_results`).

Whether a check holds is ``True`` (the check passed, result current),
``False`` (it ran and did not pass, result current) or ``None`` (unknown:
never run, or stale) — never a silent True.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

VERDICTS = ("pass", "fail", "error", "timeout", "crashed")
#: verdicts that mean "the check did not produce a number" (RK503)
BROKEN = ("error", "timeout", "crashed")


@dataclass
class CheckResult:
    id: str
    verdict: str                      # pass | fail | error | timeout | crashed
    discrepancy: float | None = None  # the measured discrepancy (the max of a dict's entries)
    tolerance: float | None = None
    seconds: float = 0.0
    message: str = ""                 # why it failed / what it raised / how it died
    stale: bool = False               # the check's source changed since this result
    discrepancies: dict[str, float] | None = None   # a dict-valued check's entries
    worst: str | None = None          # the dict entry with the largest discrepancy
    hash: str = ""                    # source hash of the check when it ran
    cached: bool = False              # reused from the cache by this run
    report: str | None = None         # the check's own report (its ``report`` attribute), if any
    traceback: str | None = None      # last frames, for error / crashed
    limit: str | None = None          # "timeout" or "memory" when a resource limit ended it
    form: str = "function"
    path: str = ""
    line: int = 1
    claim: str = ""
    ran_at: str = ""                  # ISO time the check ran
    timeout: float | None = None      # limits it ran under
    memory: int | None = None
    extra: dict = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        """True only for a current, passing result."""
        return self.verdict == "pass" and not self.stale

    @property
    def broken(self) -> bool:
        return self.verdict in BROKEN

    def to_json(self) -> dict:
        d = asdict(self)
        d["discrepancy"] = num_out(self.discrepancy)
        d["tolerance"] = num_out(self.tolerance)
        if self.discrepancies is not None:
            d["discrepancies"] = {k: num_out(v) for k, v in self.discrepancies.items()}
        return d

    @classmethod
    def from_json(cls, d: dict) -> "CheckResult":
        known = set(cls.__dataclass_fields__)
        kw = {k: v for k, v in d.items() if k in known}
        kw["discrepancy"] = num_in(kw.get("discrepancy"))
        kw["tolerance"] = num_in(kw.get("tolerance"))
        if isinstance(kw.get("discrepancies"), dict):
            kw["discrepancies"] = {k: num_in(v) for k, v in kw["discrepancies"].items()}
        return cls(**kw)


def num_out(x):
    """A float for strict JSON: non-finite values become "nan", "inf", "-inf"."""
    if x is None:
        return None
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def num_in(x):
    if x is None:
        return None
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def verdict_of(value, tolerance: float) -> tuple[str, float, dict | None, str | None, str]:
    """(verdict, max discrepancy, entries, worst entry, message) for a
    check's value (float or dict name -> float)."""
    if isinstance(value, dict):
        entries = {k: float(v) for k, v in value.items()}
        # a non-finite entry is the worst; otherwise the largest
        worst = max(entries, key=lambda k: (not math.isfinite(entries[k]), entries[k]
                                            if math.isfinite(entries[k]) else 0.0))
        d = entries[worst]
    else:
        entries, worst, d = None, None, float(value)
    bad = [k for k, v in (entries or {"": d}).items() if not (math.isfinite(v) and v <= tolerance)]
    if not bad:
        return "pass", d, entries, worst, ""
    if not math.isfinite(d):
        msg = f"discrepancy is {d}" + (f" (entry {worst!r})" if worst else "") + ", not a finite number"
    else:
        msg = f"discrepancy {d:.6g} > tolerance {tolerance:.6g}"
        if entries:
            msg += f" (entry {worst!r}; {len(bad)} of {len(entries)} entries above tolerance)"
    return "fail", d, entries, worst, msg


def check_holds(results: dict[str, CheckResult] | None, check_id: str) -> bool | None:
    """Whether the check ``check_id`` holds (see :func:`judge`); None also
    when ``results`` is None."""
    if results is None:
        return None
    return judge(check_id, results.get(check_id))[0]


def _fmt_num(x) -> str:
    if isinstance(x, dict):
        vals = [v for v in x.values() if isinstance(v, (int, float))]
        if not vals:
            return "?"
        worst = max(vals, key=lambda v: (not math.isfinite(v), v))
        return _fmt_num(worst)
    if isinstance(x, (int, float)):
        return f"{x:.3g}"
    return "?" if x is None else str(x)


def judge(check_id: str, result) -> tuple[bool | None, str]:
    """Whether the check ``check_id`` holds given its ``result`` (or None),
    and why, in words: the one vocabulary of verdicts (``promote_when``'s
    ``check:`` items, ``recordkit promote`` and the RK4xx messages use it).
    ``result`` needs ``verdict``, ``stale``, ``discrepancy``, ``tolerance``
    and ``message``."""
    if result is None:
        return None, f"check {check_id} has not been run (recordkit check)"
    if getattr(result, "stale", False):
        return None, (f"the result of check {check_id} is stale: its code or inputs changed since it ran "
                      f"(recordkit check)")
    verdict = getattr(result, "verdict", None)
    d, tol = getattr(result, "discrepancy", None), getattr(result, "tolerance", None)
    if verdict == "pass":
        return True, f"check {check_id} passes (discrepancy {_fmt_num(d)} ≤ {_fmt_num(tol)})"
    msg = getattr(result, "message", "") or ""
    if verdict == "fail":
        return False, f"check {check_id} fails: discrepancy {_fmt_num(d)} > tolerance {_fmt_num(tol)}"
    if verdict in BROKEN:
        what = {"error": "raised an error", "timeout": "timed out", "crashed": "crashed"}[verdict]
        return False, f"check {check_id} {what}" + (f": {msg}" if msg else "")
    return None, f"check {check_id} has no usable result (verdict {verdict}; recordkit check)"


def short_verdict(result) -> str:
    """A result in one or two words, as ``recordkit show`` lists checks:
    ``not run``, ``stale (last pass)``, or the verdict."""
    if result is None:
        return "not run"
    if result.stale:
        return f"stale (last {result.verdict})"
    return result.verdict
