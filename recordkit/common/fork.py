"""Work on two (or more) cores by forking: :func:`fork_map` runs a function
over parts of a list, the first part here and each other in a forked helper
that inherits everything already loaded.  A helper's result comes back
pickled through a temporary file; anything that goes wrong in a helper (an
exception, a crash, a short read) makes this process do that part itself,
so the result never depends on whether forking worked.
"""
from __future__ import annotations

import atexit
import os
import sys
import threading

#: below this many items the fork costs more than it saves
MIN_FILES = 2000

#: how many parts came back from helpers, and how many had to be done again here
STATS = {"shares": 0, "fallbacks": 0}


#: what a helper writes to its pipe once its result is written whole
_DONE = b"\x01"
#: helpers that said they were done, not yet reaped (reaped by the next
#: :func:`fork_map`, or by the system when this process ends)
_UNREAPED: list[int] = []


def _reap_ended() -> None:
    """Reap the helpers of earlier calls that have exited since."""
    for pid in list(_UNREAPED):
        try:
            ended, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:      # reaped by someone else (the check sandbox reaps every child)
            ended = pid
        if ended:
            _UNREAPED.remove(pid)


def reap_helpers() -> None:
    """Wait for every helper that said it was done to have exited, and reap
    it (before this process exits: what the helpers cost then counts in
    its parent's usage of its children, as it did when each was waited
    for)."""
    while _UNREAPED:
        pid = _UNREAPED.pop()
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass


atexit.register(reap_helpers)


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
    _reap_ended()
    children = []
    for part, box in zip(parts[1:], boxes):
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            done_r, done_w = os.pipe()
        except OSError:
            done_r = done_w = None
        try:
            pid = os.fork()
        except OSError:     # no process to spare (EAGAIN, ENOMEM): this process does the part
            for fd in (done_r, done_w):
                if fd is not None:
                    os.close(fd)
            children.append((None, box, part, None))
            continue
        if pid == 0:  # the helper: work, write, and leave without cleanup
            code = 0
            try:
                import gc
                gc.disable()   # short-lived: no collection over what it inherited
                if done_r is not None:
                    os.close(done_r)
                pickler = pickle.Pickler(box, protocol=pickle.HIGHEST_PROTOCOL)
                pickler.fast = True
                pickler.dump(func(part))
                box.flush()
                if done_w is not None:
                    os.write(done_w, _DONE)
            except BaseException:
                code = 1
            finally:
                os._exit(code)
        if done_w is not None:
            os.close(done_w)
        children.append((pid, box, part, done_r))
    try:
        out = [do_first(parts[0])]
    except BaseException:
        # this process's part failed: the helpers' parts would be thrown
        # away, so they are stopped (not waited for at exit), and reaped later
        import signal
        for pid, box, _, done_r in children:
            if done_r is not None:
                os.close(done_r)
            if pid is not None:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
                _UNREAPED.append(pid)
            box.close()
        raise
    missing = object()
    for pid, box, part, done_r in children:
        ok = False
        if pid is None:     # never forked
            box.close()
            STATS["fallbacks"] += 1
            out.append(func(part))
            continue
        if done_r is not None:
            # the helper says it is done before it exits: its result is read
            # while the system takes its memory down (0.03-0.1 s for a helper
            # that built a large part), and it is reaped later
            try:
                ok = os.read(done_r, 1) == _DONE
            except OSError:
                ok = False
            finally:
                os.close(done_r)
        if ok:
            _UNREAPED.append(pid)
        else:
            _, status = os.waitpid(pid, 0)
            ok = done_r is None and status == 0
        got = missing
        if ok:
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
