"""Results of numeric checks, as the rest of recordkit sees them.

:func:`load_results` reads the cache (``<cache_dir>/checks.json``) and
returns ``id -> CheckResult`` for every check of the record that has ever
run; a check never run is absent.  A result whose source hash differs from
the check's current one is returned with ``stale=True``.

Lifecycle code (``promote_when`` ``check:`` requirements) should ask
:func:`check_holds`, which returns ``True`` (the check passed, result
current), ``False`` (it ran and did not pass, result current) or ``None``
(unknown: never run, stale, or not a check at all) — never a silent True.
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
        msg = f"discrepancy is {d}" + (f" (entry `{worst}`)" if worst else "") + ", not a finite number"
    else:
        msg = f"discrepancy {d:.6g} > tolerance {tolerance:.6g}"
        if entries:
            msg += f" (entry `{worst}`; {len(bad)} of {len(entries)} entries above tolerance)"
    return "fail", d, entries, worst, msg


def load_results(corpus, specs=None) -> dict[str, CheckResult]:
    """id -> :class:`CheckResult` for every current check of ``corpus`` that
    has a cached result; ``stale`` is set when the check's source changed
    since.  Checks never run are absent.  ``specs`` (from
    :func:`recordkit.numeric.discover.discover`) saves a second discovery."""
    from .cache import read_cache
    if specs is None:
        from .discover import discover
        specs = discover(corpus)
    cached = read_cache(corpus.config.cache_dir)
    out = {}
    for cid, spec in specs.items():
        r = cached.get(cid)
        if r is None:
            continue
        r.stale = r.hash != spec.hash
        out[cid] = r
    return out


def check_holds(results: dict[str, CheckResult] | None, check_id: str) -> bool | None:
    """Whether the check ``check_id`` holds: True when its current result
    passes, False when its current result does not pass, None when unknown
    (no result, a stale one, or ``results`` is None)."""
    if results is None:
        return None
    r = results.get(check_id)
    if r is None or r.stale:
        return None
    return r.verdict == "pass"


def check_state(results: dict[str, CheckResult] | None, check_id: str) -> tuple[bool | None, str]:
    """:func:`check_holds` with a reason in words, for messages."""
    if results is None:
        return None, "check results not loaded"
    r = results.get(check_id)
    if r is None:
        return None, f"check {check_id} has not been run (run `recordkit check {check_id}`)"
    if r.stale:
        return None, f"the result of check {check_id} is stale: its source changed since it ran"
    if r.verdict == "pass":
        return True, f"check {check_id} passes"
    return False, f"check {check_id}: {r.verdict}" + (f" ({r.message})" if r.message else "")
