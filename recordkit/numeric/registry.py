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
        shown = repr(value) if isinstance(value, str) else type(value).__name__
        return None, f"timeout={shown} is not a number of seconds"
    try:
        t = float(value)
    except (OverflowError, ValueError):
        return None, "timeout= is not a finite number of seconds"
    if not math.isfinite(t) or t <= 0:
        return None, f"timeout={t:g} is not a time limit (a finite number of seconds > 0)"
    return t, None


def seed_for(check_id: str) -> int:
    """The seed of a check's generator: stable across runs, machines and
    Python versions (the first 8 bytes of sha256 of the id)."""
    return int.from_bytes(hashlib.sha256(check_id.encode("utf-8")).digest()[:8], "big")


#: checks registered by importing modules of a checks folder, by id
REGISTRY: dict[str, CheckSpec] = {}


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
