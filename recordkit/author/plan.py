"""A set of file changes, shown as a diff or made all at once."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ..common.splice import unified_diff
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
        """A unified diff of every change (:func:`~recordkit.common.splice.unified_diff`:
        git's headers, so ``git apply`` or GNU ``patch -p1`` in the root
        makes the changes, a rename as one diff from the old name to the
        new)."""
        out = []
        renamed = {c.renamed_from for c in self.changes if c.renamed_from is not None}
        for c in self.changes:
            if c.after is None and c.path in renamed:
                continue   # shown with its new name
            if c.renamed_from is not None:
                old = next(x for x in self.changes if x.path == c.renamed_from)
                out.append(unified_diff(self.rel(old.path), old.before, c.after, self.rel(c.path)))
            else:
                out.append(unified_diff(self.rel(c.path), c.before, c.after))
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


def recover_journal(config) -> str | None:
    """Roll back or complete a write that a killed recordkit left half done."""
    return recover(config.cache_dir)
