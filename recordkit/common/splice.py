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


def unified_diff(path: str, before: str | None, after: str | None, new_path: str | None = None) -> str:
    """``before`` → ``after`` as a unified diff of ``a/path`` and
    ``b/path`` (``b/new_path`` for a rename; None: a new or removed file)
    that ``git apply`` and ``patch -p1`` take: lines end at ``\\n`` only
    (a U+2028, a U+0085 or a lone ``\\r`` is part of its line, as
    git and patch read it; ``str.splitlines`` cut there and the patch was
    corrupt), a last line without one is marked ``\\ No newline at end
    of file``, names with a space or a quote are quoted; git's own
    header first (``diff --git``, a rename, a new or deleted file).
    Empty when nothing changes."""
    import difflib
    new_path = path if new_path is None else new_path
    head = []
    if new_path != path:
        head = [f"rename from {diff_name(path)}\n", f"rename to {diff_name(new_path)}\n"]
    elif before is None:
        head = ["new file mode 100644\n"]
    elif after is None:
        head = ["deleted file mode 100644\n"]
    fa = diff_name("a/" + path) if before is not None else "/dev/null"
    fb = diff_name("b/" + new_path) if after is not None else "/dev/null"
    lines = list(difflib.unified_diff(diff_lines(before or ""), diff_lines(after or ""), fromfile=fa, tofile=fb))
    if not lines and not head:
        return ""
    return "".join([f"diff --git {diff_name('a/' + path)} {diff_name('b/' + new_path)}\n", *head, *lines])


def diff_lines(text: str) -> list[str]:
    """``text``'s lines as a diff has them: cut after each ``\\n`` only,
    the last one, when it has none, followed by git's marker."""
    out = [line + "\n" for line in text.split("\n")]
    last = out.pop()
    if last != "\n":
        out.append(last + "\\ No newline at end of file\n")
    return out


def diff_name(name: str) -> str:
    """A file name in a diff header as git writes it: quoted, with C
    escapes, when it holds a space, a quote, a backslash or a control
    character (which would end it or be misread)."""
    if not any(c in ' "\\' or ord(c) < 32 or ord(c) == 127 for c in name):
        return name
    esc = {"\\": "\\\\", '"': '\\"', "\t": "\\t", "\n": "\\n", "\r": "\\r"}
    return '"' + "".join(esc.get(c) or (f"\\{ord(c):03o}" if ord(c) < 32 or ord(c) == 127 else c)
                         for c in name) + '"'
