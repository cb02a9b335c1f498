"""Later stages' per-record work done where each file is parsed: the
``analyze`` of :func:`recordkit.corpus.load`.

A stage that needs a result of every record (the lint's local rules, the
SQL ``fields`` rows) can have it worked out right after each file is
parsed, on every core, instead of in a pass of its own afterwards.  The
results are the corpus's, not the record's: ``corpus.analyses[key]`` maps
each record's path to what the analysis returned for it (a record it did
not run on, or whose result was None, is not there).

An analysis is a callable of one record; what the loader and the store of
parsed records read of it is declared by :class:`Analysis` (each attribute
optional: a plain function is an analysis with the defaults).
"""
from __future__ import annotations

from typing import Any, Hashable, NamedTuple, Protocol


class Analysis(Protocol):
    """What the loader and the store read of an ``analyze``."""
    #: names its results in ``corpus.analyses`` and in the store (default None)
    key: Hashable
    #: the result depends on nothing but the record and the schema: the store
    #: of parsed records keeps it beside the record (default False)
    cacheable: bool
    #: worked out for records taken from the store without it (default True)
    on_restore: bool

    def before_fork(self) -> None:
        """Build what every helper process would otherwise build for itself (optional)."""

    def __call__(self, rec) -> Any:
        """The result for one readable record (it must pickle)."""


class Traits(NamedTuple):
    key: Hashable
    cacheable: bool
    on_restore: bool


def traits(analyze) -> Traits:
    """What ``analyze`` declares of :class:`Analysis`, with the defaults."""
    if analyze is None:
        return Traits(None, False, False)
    return Traits(getattr(analyze, "key", None), getattr(analyze, "cacheable", False),
                  getattr(analyze, "on_restore", True))


def before_fork(analyze) -> None:
    """``analyze.before_fork()`` when it has one."""
    hook = getattr(analyze, "before_fork", None)
    if hook is not None:
        hook()
