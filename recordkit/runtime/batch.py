"""The collector and the C heap while a large structure is built.

Building a large, acyclic structure (10,000 records' worth of small
objects) with the cyclic garbage collector running costs about a third of
the time in its repeated walks over them: :func:`batch` pauses it.
Parsing 10,000 records also frees megabytes in small holes all over the C
heap, which glibc's allocator keeps instead of returning them; every helper
forked after counts them again (a forked page is resident in both
processes): :func:`release_free_memory` hands them back.
"""
from __future__ import annotations

import gc
import sys
from contextlib import contextmanager

#: whether this process has frozen what it built (through this module).
#: ``gc.get_freeze_count()`` tells as much, but it counts the frozen objects
#: one by one, on every later pause
_frozen = False


def is_frozen() -> bool:
    """Whether something was frozen by :func:`freeze` or
    ``batch(keep_frozen=True)`` and not thawed since."""
    return _frozen


def freeze() -> None:
    """Move every tracked object out of every later collection's sight."""
    global _frozen
    gc.freeze()
    _frozen = True


def unfreeze() -> None:
    """Give the frozen objects back to the oldest generation."""
    global _frozen
    gc.unfreeze()
    _frozen = False


@contextmanager
def batch(keep_frozen: bool = False, trim: bool = False):
    """Pause the cyclic garbage collector while a large, acyclic structure is
    built (entered inside another batch, it changes nothing but what
    ``keep_frozen`` and ``trim`` ask).  On exit what was built is moved to
    the oldest generation: everything built meanwhile is still in the
    youngest, so the first allocation after re-enabling would start a
    collection that walks all of it.  Freezing and unfreezing moves every
    tracked object to the oldest generation without walking anything;
    collection then proceeds as if those objects had already survived (not
    when something is frozen already: unfreezing would thaw it).

    ``keep_frozen``: leave what was built frozen, out of every later
    collection's sight, for a structure that lives until the process exits
    (a command's corpus); this also applies when the collector was off.
    ``trim``: give the C heap's free pages back to the system on exit."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if keep_frozen:
            freeze()
        elif was and not _frozen:
            gc.freeze()
            gc.unfreeze()
        if was:
            gc.enable()
        if trim:
            release_free_memory()


@contextmanager
def shared_with_helpers():
    """Around forking helpers that read what this process loaded: what is
    loaded now is out of every later collection's sight (no collection
    here or in a helper walks, and so copies, the pages they share), and
    the C heap's free pages are given back first (each helper counts what
    this process holds, free or not)."""
    frozen = not _frozen
    if frozen:
        freeze()
    release_free_memory()
    try:
        yield
    finally:
        if frozen:
            unfreeze()


def collect_in_helper() -> None:
    """In a forked helper whose inherited objects are frozen: turn the
    collector on again (it walks only what the helper makes)."""
    gc.enable()


def pause_in_helper() -> None:
    """In a short-lived forked helper: no collection over what it inherited."""
    gc.disable()


_TRIM = None


def release_free_memory() -> bool:
    """Return the C heap's free pages to the system (glibc's
    ``malloc_trim``); a no-op where there is none.  True when it ran."""
    global _TRIM
    if _TRIM is None:
        _TRIM = False
        if sys.platform.startswith("linux"):
            try:
                import ctypes
                libc = ctypes.CDLL(None)
                _TRIM = getattr(libc, "malloc_trim", None) or False
            except (OSError, AttributeError):   # pragma: no cover - not glibc
                _TRIM = False
    if not _TRIM:
        return False
    _TRIM(0)
    return True
