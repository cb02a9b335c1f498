"""Giving freed memory back to the system.

Parsing 10,000 records decodes every file, builds and drops YAML trees and
token lists: megabytes freed in small holes all over the C heap, which
glibc's allocator keeps for later instead of returning.  A site build then
carries some 150 MB of such free space through its peak, and every helper it
forks counts it again (a forked page is resident in both processes).
``malloc_trim`` hands the free pages back (40 ms at 10,000 records).
"""
from __future__ import annotations

import sys

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
