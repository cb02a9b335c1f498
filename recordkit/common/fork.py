"""Work on two (or more) cores by forking: :func:`fork_map` runs a function
over parts of a list, the first part here and each other in a forked helper
that inherits everything already loaded.  A helper's result comes back
pickled through a temporary file; anything that goes wrong in a helper (an
exception, a crash, a short read) makes this process do that part itself,
so the result never depends on whether forking worked.
"""
from __future__ import annotations

import os
import sys
import threading

#: below this many items the fork costs more than it saves
MIN_FILES = 2000

#: how many parts came back from helpers, and how many had to be done again here
STATS = {"shares": 0, "fallbacks": 0}


def default_jobs(n_files: int) -> int:
    env = os.environ.get("RECORDKIT_JOBS")
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            return 1
    if n_files < MIN_FILES or not hasattr(os, "fork") or sys.platform == "win32":
        return 1
    if threading.active_count() > 1:
        return 1  # forking a threaded process is unsafe
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, 4))


def fork_map(func, parts: list, first=None) -> list:
    """``[func(part) for part in parts]``, the first part in this process
    and each other in a forked helper, which inherits everything already
    loaded (so ``func`` may read a whole corpus).  ``first``, when given, is
    called instead of ``func`` for the first part (this process can do more
    meanwhile).

    A helper writes its result, pickled, to an unlinked temporary file that
    is read once it has exited: through a pipe, a reader thread would have
    to win the GIL from this process's work for every chunk, and the helper
    would wait on it.  ``func``'s results must pickle, and hold nothing
    shared or recursive (the pickler keeps no memo: 30% faster).  A helper
    that fails has its part done here instead, so the result never depends
    on whether forking worked."""
    do_first = first or func
    if len(parts) < 2 or not hasattr(os, "fork"):
        return [do_first(parts[0])] + [func(part) for part in parts[1:]]
    import pickle
    import tempfile
    try:
        boxes = [tempfile.TemporaryFile() for _ in parts[1:]]
    except OSError:   # no writable temporary folder: this process does it all
        return [do_first(parts[0])] + [func(part) for part in parts[1:]]
    children = []
    for part, box in zip(parts[1:], boxes):
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the helper: work, write, and leave without cleanup
            code = 0
            try:
                import gc
                gc.disable()   # short-lived: no collection over what it inherited
                pickler = pickle.Pickler(box, protocol=pickle.HIGHEST_PROTOCOL)
                pickler.fast = True
                pickler.dump(func(part))
                box.flush()
            except BaseException:
                code = 1
            finally:
                os._exit(code)
        children.append((pid, box, part))
    out = [do_first(parts[0])]
    missing = object()
    for pid, box, part in children:
        _, status = os.waitpid(pid, 0)
        got = missing
        if status == 0:
            try:
                box.seek(0)
                got = pickle.load(box)
            except Exception:
                got = missing
        box.close()
        if got is missing:
            STATS["fallbacks"] += 1
            got = func(part)
        else:
            STATS["shares"] += 1
        out.append(got)
    return out
