"""Whether a file changed since it was read, from its stat alone.

One key (:class:`FileKey`) and one racy window (``tuning.RACY_NS``) for
every cache that trusts a stat: the store of parsed records, the lint
cache, the query cache.  A file is taken as unchanged when its key is the
stored one.  The change time cannot be set back (``os.utime`` sets it to
now), so an edit that keeps the size and restores the mtime is still seen.
An edit in the same clock tick as the stored read would keep even the
change time: a file whose change time is within the racy window of the
read proves nothing by its stat, and is read again (as git does).
"""
from __future__ import annotations

import os
import time
from typing import Callable, Iterable, NamedTuple

from . import tuning


class FileKey(NamedTuple):
    """What a file's stat says of its content (a plain 4-tuple: it is kept
    as such in stores and JSON files, and compares equal to one)."""
    mtime_ns: int
    size: int
    ino: int
    ctime_ns: int

    @classmethod
    def of(cls, st: os.stat_result) -> "FileKey":
        return cls(st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)

    @classmethod
    def at(cls, path) -> "FileKey | None":
        """The key of the file at ``path``; None when it cannot be stat'ed."""
        try:
            st = os.stat(path)
        except OSError:
            return None
        return cls(st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)


def is_racy(key, read_ns: int) -> bool:
    """Whether a file with ``key`` (a :class:`FileKey` or the same 4 values)
    may have changed again in the clock tick of a read at ``read_ns``
    (``time.time_ns()`` taken before the read)."""
    return max(key[0], key[3]) >= read_ns - tuning.RACY_NS


def is_fresh(key, stored, read_ns: int) -> bool:
    """Whether a file whose key is now ``key`` (None: gone) still holds what
    was read at ``read_ns`` when its key was ``stored``."""
    return key is not None and key == stored and not is_racy(key, read_ns)


class Unchanged(NamedTuple):
    """What :func:`unchanged_hashes` found: every file's stored hash
    (None: something changed), and ``settled``: the moment (ns) from which
    the stored keys may be written anew, as every racy file was read again
    and some of them are no longer racy (0: nothing to write)."""
    hashes: dict | None
    settled: int = 0


def unchanged_hashes(entries: dict, read_ns: int, keys: Iterable[tuple[str, "FileKey | None"]], count: int,
                     digest_of: Callable[[str], "str | None"]) -> Unchanged:
    """The stored content hash of every file when none is new, gone or
    changed.  ``entries``: path -> ``[mtime_ns, size, ino, ctime_ns, hash]``
    as stored after a read at ``read_ns``; ``keys``: ``count`` pairs (path,
    its :class:`FileKey` now, None when it is gone).  A racy file is read
    again (``digest_of(path)``, None when it cannot be read) and must hash
    as stored."""
    if len(entries) != count:
        return Unchanged(None)
    out: dict[str, str] = {}
    racy = []
    for path, key in keys:
        prev = entries.get(path)
        if prev is None or key is None:
            return Unchanged(None)
        if prev[0] != key[0] or prev[1] != key[1] or prev[2] != key[2] or prev[3] != key[3]:
            return Unchanged(None)
        if is_racy(prev, read_ns):
            racy.append(path)
        out[path] = prev[4]
    if not racy:
        return Unchanged(out)
    now = time.time_ns()   # before reading: what is read now was there at ``now`` or later
    for path in racy:
        got = digest_of(path)
        if got is None or got != out[path]:
            return Unchanged(None)
    settled = now if any(not is_racy(entries[p], now) for p in racy) else 0
    return Unchanged(out, settled)
