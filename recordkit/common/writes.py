"""Atomic file writes: every file recordkit writes (``--fix``, ``promote
--apply``, caches, pages) goes through :func:`atomic_write`, so a reader
never sees half a file and a failed write leaves the old one in place.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path



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
