"""Lossless edits of record files: splice text at known positions and write
atomically.  Used by ``lint --fix`` and ``promote --apply``: comments, key
order, quoting and every byte outside an edit stay as they were.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ..corpus.model import Fix


class EditConflict(Exception):
    """Two edits overlap."""


def offset_of(text: str, line: int, col: int) -> int:
    """Character offset of 1-based (line, col) in ``text``."""
    pos = 0
    for _ in range(line - 1):
        nl = text.find("\n", pos)
        if nl < 0:
            return len(text)
        pos = nl + 1
    return min(pos + col - 1, len(text))


def apply_fixes(text: str, fixes: list[Fix]) -> tuple[str, list[Fix]]:
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


def atomic_write(path: str | Path, text: str | bytes) -> None:
    """Write ``text`` to ``path`` atomically: a temporary file in the same
    folder, flushed and fsynced, then ``os.replace``.  An existing file's
    mode is kept; a new file gets the usual 0666 less the umask (not the
    temporary file's 0600)."""
    path = Path(path)
    data = text.encode("utf-8") if isinstance(text, str) else text
    folder = path.parent if str(path.parent) else Path(".")
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:  # name the file asked for, not the temporary one
        raise OSError(exc.errno, exc.strerror, str(path)) from exc
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    try:  # make the rename itself durable; not possible everywhere
        dfd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def unified_diff(path: str, before: str, after: str) -> str:
    import difflib
    return "".join(difflib.unified_diff(before.splitlines(True), after.splitlines(True),
                                        fromfile=f"a/{path}", tofile=f"b/{path}"))
