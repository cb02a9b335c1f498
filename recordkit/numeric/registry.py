"""The ``@check`` decorator.

A check is a function of one argument, a :class:`numpy.random.Generator`
seeded from the check's id, that returns a discrepancy (a float) or a dict
``name -> discrepancy``.  The check passes when every discrepancy is finite
and at most ``tolerance``.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from typing import Callable


@dataclass
class CheckSpec:
    id: str
    tolerance: float
    claim: str = ""
    func: Callable | None = None
    source: str = ""            # the code that defines it (function or block)
    path: str = ""              # file that defines it
    line: int = 1               # line of the decorator / fence
    form: str = "function"      # "function" or "block"
    record: str | None = None   # id of the record holding a block check
    extra: dict = field(default_factory=dict)


#: checks registered by importing modules of a checks folder, by id
REGISTRY: dict[str, CheckSpec] = {}


def check(id: str, tolerance: float = 1e-9, claim: str = "", **extra):
    """Register ``func`` as the numeric check ``id``."""

    def decorate(func: Callable) -> Callable:
        try:
            source = inspect.getsource(func)
            path = inspect.getsourcefile(func) or ""
            line = inspect.getsourcelines(func)[1]
        except (OSError, TypeError):
            source, path, line = "", "", 1
        spec = CheckSpec(id=id, tolerance=float(tolerance), claim=claim, func=func,
                         source=source, path=path, line=line, extra=extra)
        REGISTRY[id] = spec
        func.check_spec = spec
        return func

    return decorate
