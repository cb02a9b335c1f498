"""The C library's calls this package makes (through ctypes), and the one
fork of a process that runs apart from this one.

These are not tricks for speed, but they reach below Python as the speed
wing does, and a test keeps ``ctypes`` and ``os.fork`` in this package
alone (tests/architecture/test_runtime_room.py): ``prctl`` for the check
sandbox (die with the parent, a subreaper), ``syncfs`` for durable
multi-file writes, and :func:`fork_process` for the sandbox's check
process.  (``malloc_trim`` is :func:`recordkit.runtime.batch.release_free_memory`.)
"""
from __future__ import annotations

import os
import sys

#: prctl options
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


def prctl(option: int, arg: int) -> bool:
    """Linux ``prctl(option, arg)``; False where there is none, or it failed."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes
        return ctypes.CDLL(None, use_errno=True).prctl(option, arg, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def syncfs_function():
    """The C library's ``syncfs(fd) -> int`` (Linux), or None.  Looked up
    at each call (a multi-file write of many files asks once; the lookup
    is a ``dlsym``, nothing worth keeping in this module)."""
    if os.name != "posix" or os.uname().sysname != "Linux":
        return None
    try:
        import ctypes
        fn = ctypes.CDLL(None, use_errno=True).syncfs
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_int]
    fn.restype = ctypes.c_int
    return fn


def fork_process() -> int:
    """``os.fork()`` for a process that runs apart from this one and ends
    with ``os._exit`` (the check sandbox's check process, forked by its
    supervisor, a process with no other thread): 0 in the child, its pid
    here.  Helpers that share work are forked by :mod:`.pool` instead."""
    return os.fork()
