"""Lossless edits: splice new text into a file's text at known offsets.
Used by ``lint --fix`` and ``promote --apply``: comments, key order, quoting
and every byte outside an edit stay as they were.
"""
from __future__ import annotations

from typing import Protocol, Sequence


class Splice(Protocol):
    """Replace ``text[start:end]`` with ``content`` (a lint fix is one)."""
    start: int
    end: int
    content: str


class EditConflict(Exception):
    """Two edits overlap."""


def apply_fixes(text: str, fixes: Sequence[Splice]) -> tuple[str, list]:
    """Apply non-overlapping fixes; a fix that overlaps an earlier one is
    skipped (returned in the second value) to be tried on a later pass."""
    applied, skipped = [], []
    last_end = -1
    for f in sorted(fixes, key=lambda f: (f.start, f.end)):
        if f.start < last_end or (f.start == last_end and f.start == f.end and applied and applied[-1].start == f.start):
            skipped.append(f)
            continue
        applied.append(f)
        last_end = f.end
    out = []
    pos = 0
    for f in applied:
        out.append(text[pos:f.start])
        out.append(f.content)
        pos = f.end
    out.append(text[pos:])
    return "".join(out), skipped


def unified_diff(path: str, before: str, after: str) -> str:
    """``before`` → ``after`` as a unified diff of ``a/path`` and ``b/path``."""
    import difflib
    return "".join(difflib.unified_diff(before.splitlines(True), after.splitlines(True),
                                        fromfile=f"a/{path}", tofile=f"b/{path}"))
