"""The ``@check`` decorator and the description of a check, :class:`CheckSpec`.

A check is a function of one argument, a :class:`numpy.random.Generator`
seeded from the check's id, that returns a discrepancy (a float) or a dict
``name -> discrepancy``.  The check passes when every discrepancy is finite
and at most ``tolerance``.

The decorator only registers the function (in :data:`REGISTRY`) when its
module is imported, which happens in a worker process of the runner
(:mod:`recordkit.numeric.worker`).  The linting process never imports check
modules: :mod:`recordkit.numeric.discover` reads them with :mod:`ast`.
"""
from __future__ import annotations

import hashlib
import inspect
from dataclasses import dataclass, field
from typing import Callable

from ..common.registry import Registry

DEFAULT_TOLERANCE = 1e-9


@dataclass
class CheckSpec:
    id: str
    tolerance: float
    claim: str = ""
    func: Callable | None = None
    source: str = ""            # the code that defines it (function incl. decorators, or block)
    path: str = ""              # file that defines it (check module or record file)
    line: int = 1               # line of the decorator / fence
    form: str = "function"      # "function" or "block"
    record: str | None = None   # id of the record holding a block check
    extra: dict = field(default_factory=dict)   # other decorator / info-string keys (timeout, inputs, ...)
    # filled by discovery
    end_line: int | None = None  # last line of the function / closing fence
    code_line: int = 1          # first line of the code itself (block checks: the line after the fence)
    func_name: str = ""         # the decorated function's name (function checks)
    hash: str = ""              # source hash: what the cache is keyed by
    problem: str | None = None  # why discovery will not have it run (a bad tolerance=, an unknown key)

    @property
    def seed(self) -> int:
        return seed_for(self.id)

    @property
    def timeout(self) -> float | None:
        """A per-check time limit (``timeout=`` in the decorator or info
        string), or None for the runner's default (also when the value is
        not a valid limit: see :attr:`timeout_problem`)."""
        t, problem = parse_timeout(self.extra.get("timeout"))
        return None if problem else t

    @property
    def timeout_problem(self) -> str | None:
        """Why this check's ``timeout=`` is not a valid time limit, or None.
        A check with an invalid timeout is never run (it would run without
        the limit the author meant): the runner reports it as an error."""
        return parse_timeout(self.extra.get("timeout"))[1]

    @property
    def run_problem(self) -> str | None:
        """Why this check must not be run, or None: a problem discovery found
        (:attr:`problem`: a tolerance that is not a finite number >= 0, an
        unknown keyword or info-string key) or a bad ``timeout=``.  The
        runner reports such a check as an error without running it."""
        return "; ".join(p for p in (self.problem, self.timeout_problem) if p) or None

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}"


def parse_timeout(value) -> tuple[float | None, str | None]:
    """(seconds, None) for a valid per-check time limit, (None, None) when
    there is none, (None, why) for a bad one: a time limit is a finite
    number of seconds greater than 0 (``0``, negative, NaN, infinity, a
    bool or a string would otherwise remove or garble the limit)."""
    import math
    if value is None:
        return None, None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        if isinstance(value, str):
            return None, f"timeout= is a string (`{value}`), not a number of seconds"
        from ..common.text import kind_of
        return None, f"timeout= is {kind_of(value)}, not a number of seconds"
    try:
        t = float(value)
    except (OverflowError, ValueError):
        return None, "timeout= is not a finite number of seconds"
    if not math.isfinite(t) or t <= 0:
        return None, f"timeout={t:g} is not a time limit (a finite number of seconds > 0)"
    return t, None


def parse_tolerance(value) -> tuple[float, str | None]:
    """(tolerance, None) for a valid tolerance, (a float for display, why)
    for a bad one: a tolerance is a finite number >= 0.  A bool
    (``tolerance=True`` is 1.0), a string (``"inf"``), NaN (nothing would
    pass, silently), infinity (anything finite would pass) and a negative
    number (nothing could pass) are refused."""
    import math
    if isinstance(value, bool):
        return float(value), f"tolerance={value} is a bool, not a number"
    if isinstance(value, str):
        return math.nan, f"tolerance= is a string (`{value[:40]}`), not a number (write it without quotes)"
    if not isinstance(value, (int, float)):
        from ..common.text import kind_of
        return math.nan, f"tolerance= is {kind_of(value)}, not a number"
    try:
        t = float(value)
    except (OverflowError, ValueError):
        return math.inf, "tolerance= is not a finite number"
    if not math.isfinite(t):
        return t, f"tolerance={t:g} is not a finite number (a tolerance is a finite number >= 0)"
    if t < 0:
        return t, f"tolerance={t:g} is negative: no discrepancy could pass (a tolerance is a finite number >= 0)"
    return t, None


#: the keywords ``@check`` understands (others are reported: a misspelt
#: ``tolerence=`` or ``timout=`` would otherwise be ignored)
CHECK_KEYWORDS = ("id", "tolerance", "claim", "timeout", "inputs")
#: the keys of a ``python check`` block's info string
BLOCK_KEYS = ("id", "tolerance", "claim", "timeout")


def seed_for(check_id: str) -> int:
    """The seed of a check's generator: stable across runs, machines and
    Python versions (the first 8 bytes of sha256 of the id)."""
    return int.from_bytes(hashlib.sha256(check_id.encode("utf-8")).digest()[:8], "big")


#: checks registered by importing modules of a checks folder, by id
REGISTRY: Registry = Registry("numeric check")


def check(id: str, tolerance: float = DEFAULT_TOLERANCE, claim: str = "", **extra):
    """Register the decorated function as the numeric check ``id``.

    ``tolerance``: the largest discrepancy that passes.  ``claim``: the
    statement the check verifies, in words.  Other keywords are kept in
    ``CheckSpec.extra``; the runner understands ``timeout`` (seconds, for
    this check instead of the default) and ``inputs`` (paths of data files,
    relative to the checks folder, whose content is part of the cache key).

    ``id``, ``tolerance`` and ``claim`` must be literals: the record's
    linter reads them without importing the module.
    """

    def decorate(func: Callable) -> Callable:
        try:
            source = inspect.getsource(func)
            path = inspect.getsourcefile(func) or ""
            line = inspect.getsourcelines(func)[1]
        except (OSError, TypeError):
            source, path, line = "", "", 1
        spec = CheckSpec(id=id, tolerance=float(tolerance), claim=claim, func=func,
                         source=source, path=path, line=line, extra=extra,
                         func_name=getattr(func, "__name__", ""))
        REGISTRY[id] = spec
        func.check_spec = spec
        return func

    return decorate
