"""A set of file changes, shown as a diff or made all at once."""
from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field
from pathlib import Path

from ..common.text import path_text
from ..common.transaction import Transaction, digest, recover

#: how many places (file:line) a note of a plan names before "and 1,234 more"
PLACES_SHOWN = 10


class AuthorError(Exception):
    """The command cannot do what was asked (nothing was written).
    ``usage``: the arguments are wrong (exit 2), not the record (exit 1)."""

    def __init__(self, message: str, usage: bool = False):
        super().__init__(message)
        self.usage = usage


@dataclass
class Change:
    path: Path                      # absolute
    before: str | None              # text now; None for a new file
    after: str | None               # text after; None when the file is removed
    renamed_from: Path | None = None   # for display: the file this one replaces by a rename


@dataclass
class Plan:
    """What a command will change.  ``summary``: one line for the user;
    ``notes``: what it left alone and why."""
    root: Path
    changes: list[Change] = field(default_factory=list)
    summary: str = ""
    notes: list[str] = field(default_factory=list)
    references: int = 0
    new_path: Path | None = None     # the file a command creates (new, rename)

    def rel(self, path: Path) -> str:
        """``path`` relative to the root, for display (a file name that is
        not UTF-8 shown with ``\\xff`` escapes, as lint shows it)."""
        try:
            return path_text(Path(os.path.relpath(path, self.root)).as_posix())
        except ValueError:  # pragma: no cover - another drive
            return path_text(str(path))

    def diff(self) -> str:
        """A unified diff of every change, with git's headers: a rename as
        one diff from the old name to the new (``rename from``/``rename
        to``), a new file and a removed one marked so, names with spaces
        or quotes quoted.  ``git apply`` (or GNU ``patch -p1``) in the
        root makes the changes, renames included."""
        out = []
        renamed = {c.renamed_from for c in self.changes if c.renamed_from is not None}
        for c in self.changes:
            if c.after is None and c.path in renamed:
                continue   # shown with its new name
            head = []
            if c.renamed_from is not None:
                old = next(x for x in self.changes if x.path == c.renamed_from)
                a, b = old.before or "", c.after or ""
                ra, rb = self.rel(old.path), self.rel(c.path)
                head = [f"rename from {_quoted(ra)}\n", f"rename to {_quoted(rb)}\n"]
                fa, fb = _quoted("a/" + ra), _quoted("b/" + rb)
            else:
                ra = rb = self.rel(c.path)
                a, b = c.before or "", c.after or ""
                fa = _quoted("a/" + ra) if c.before is not None else "/dev/null"
                fb = _quoted("b/" + rb) if c.after is not None else "/dev/null"
                if c.before is None:
                    head = ["new file mode 100644\n"]
                elif c.after is None:
                    head = ["deleted file mode 100644\n"]
            lines = list(difflib.unified_diff(_lines(a), _lines(b), fromfile=fa, tofile=fb))
            if not lines and not head:
                continue
            out.append(f"diff --git {_quoted('a/' + ra)} {_quoted('b/' + rb)}\n")
            out.extend(head)
            out.extend(lines)
        return "".join(out)

    def apply(self, journal_dir: str | Path) -> None:
        """Make every change or none (see :mod:`recordkit.common.transaction`)."""
        tx = Transaction(journal_dir)
        for c in self.changes:
            expect = digest(c.before.encode("utf-8")) if c.before is not None else None
            if c.after is None:
                tx.delete(c.path, expect=expect)
            else:
                tx.write(c.path, c.after, expect=expect)
        tx.commit()


def _quoted(name: str) -> str:
    """A file name in a diff header as git writes it: quoted, with C
    escapes, when it holds a space, a quote, a backslash or a control
    character (which would end it or be misread)."""
    if not any(c in ' "\\' or ord(c) < 32 or ord(c) == 127 for c in name):
        return name
    esc = {"\\": "\\\\", '"': '\\"', "\t": "\\t", "\n": "\\n", "\r": "\\r"}
    return '"' + "".join(esc.get(c) or (f"\\{ord(c):03o}" if ord(c) < 32 or ord(c) == 127 else c)
                         for c in name) + '"'


def _lines(text: str) -> list[str]:
    out = text.splitlines(True)
    if out and not out[-1].endswith(("\n", "\r")):
        out[-1] += "\n\\ No newline at end of file\n"
    return out


def recover_journal(config) -> str | None:
    """Roll back or complete a write that a killed recordkit left half done."""
    return recover(config.cache_dir)
