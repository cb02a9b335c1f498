"""A table of declarations: what a decorator registers, by key, as the
modules that use it are imported (the lint's rules, :mod:`recordkit.lint.registry`;
a checks folder's numeric checks, :mod:`recordkit.numeric.registry`).

A registry is module-level state, but not a cache: it is filled by
importing code, never from what a command reads, so it never goes stale
and a long-running process (``serve``, a language server) keeps it for its
life.  tests/architecture/test_module_state.py tells one from a cache by
this type.
"""
from __future__ import annotations

from typing import Callable


class Registry(dict):
    """``key -> declaration``, filled by a decorator.  ``discover``: imports
    every module that declares entries (run once, by :meth:`complete`)."""

    def __init__(self, what: str, discover: Callable[[], None] | None = None):
        super().__init__()
        self.what = what
        self._discover = discover
        self.discovered = discover is None

    def complete(self) -> "Registry":
        """This table, with every module that declares entries imported (once)."""
        if not self.discovered:
            self._discover()
            self.discovered = True
        return self

    def __repr__(self) -> str:
        return f"<Registry of {len(self)} {self.what}s>"
