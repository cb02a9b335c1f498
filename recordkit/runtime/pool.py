"""Work on two (or more) cores by forking, behind one policy.

A stage says what a part of its work is; this module decides whether to
fork (:func:`workers`: threads, ``RECORDKIT_JOBS``, size), how to weigh the
parts (:func:`split`, by the work's name in :mod:`recordkit.runtime.tuning`)
and runs them (:func:`spread`: the first part here and each other in a
forked helper that inherits everything already loaded; :class:`PieceHelper`:
one helper sending its results a piece at a time).  A helper's result comes
back pickled through a temporary file; anything that goes wrong in a helper
(an exception, a crash, a short read) makes this process do that part
itself, so the result never depends on whether forking worked.  Nothing
forks from a process in which another thread runs (:func:`can_fork`).
"""
from __future__ import annotations

import atexit
import os
import sys
import threading

from . import tuning
from .batch import collect_in_helper, pause_in_helper
from .snapshot import fast_dump, fast_dumps, load, loads

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

#: set in a helper forked by this module
_IN_HELPER = False


def _became_helper() -> None:
    global _IN_HELPER
    _IN_HELPER = True


def can_fork() -> bool:
    """Whether this process may fork a helper now: the system can, and no
    other thread runs (a fork copies only the thread that forks; a lock
    another thread holds then stays locked in the helper for ever).  Every
    fork of this package asks this, at the moment it forks."""
    return hasattr(os, "fork") and sys.platform != "win32" and threading.active_count() == 1


def in_helper() -> bool:
    """Whether this process is a helper forked by :func:`spread` (a part
    done in the parent, after a helper failed, answers False)."""
    return _IN_HELPER


def workers(n_items: int, *, name: str = "default") -> int:
    """The one jobs policy: how many processes (this one and its helpers)
    should share work of ``n_items`` items of the kind ``name``.  One when
    this process may not fork (:func:`can_fork`) or the work is below its
    floor (``tuning.FLOOR``); else ``RECORDKIT_JOBS`` when set; else one
    below ``tuning.MIN_FILES`` items, and the cores this process may use
    (at most ``tuning.MAX_JOBS``) above."""
    if n_items < tuning.FLOOR.get(name, 0) or not can_fork():
        return 1
    env = os.environ.get("RECORDKIT_JOBS")
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            return 1
    if n_items < tuning.MIN_FILES:
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, tuning.MAX_JOBS))


def split(items: list, n: int, *, name: str = "default") -> list[list]:
    """``items`` cut into ``n`` contiguous parts (contiguous: each helper's
    files stay together on disk) sized for the kind of work ``name``: the
    first part (this process's) weighs ``tuning.FIRST_WEIGHT[name]`` against
    one helper's part, or the helpers take ``tuning.HELPERS_SHARE[name]`` of
    the items together.  Empty parts are kept (their results are empty)."""
    if n <= 1:
        return [items]
    share = tuning.HELPERS_SHARE.get(name)
    if share is not None:
        size = int(len(items) * share / (n - 1))   # each helper's items
        k = len(items) - size * (n - 1)
        return [items[:k]] + [items[k + i * size:k + (i + 1) * size] for i in range(n - 1)]
    weights = [tuning.FIRST_WEIGHT.get(name, 1.0)] + [1.0] * (n - 1)
    total = sum(weights)
    bounds = [0]
    for w in weights:
        bounds.append(min(len(items), bounds[-1] + round(len(items) * w / total)))
    bounds[-1] = len(items)
    return [items[bounds[i]:bounds[i + 1]] for i in range(n)]


def spread(func, parts: list, *, name: str, first=None, collect: bool = False) -> list:
    """``[func(part) for part in parts]``, the first part in this process
    and each other in a forked helper when this process may fork
    (:func:`can_fork`), all here otherwise: the result is the same either
    way.  ``name``: the kind of work (it names the parts' figures in
    :mod:`recordkit.runtime.tuning`).  ``first``, when given, is called
    instead of ``func`` for the first part (this process can do more
    meanwhile).  ``collect``: the helpers run with the collector on (what
    they inherited is frozen: see
    :func:`recordkit.runtime.batch.shared_with_helpers`); else it is off in
    them (they are short-lived).  See :func:`fork_map` for how results come
    back."""
    return fork_map(func, parts, first=first, collect=collect)


def fork_map(func, parts: list, first=None, collect: bool = False) -> list:
    """``[func(part) for part in parts]``, the first part in this process
    and each other in a forked helper, which inherits everything already
    loaded (so ``func`` may read a whole corpus).  ``first``, when given, is
    called instead of ``func`` for the first part (this process can do more
    meanwhile).

    A helper writes its result, pickled, to an unlinked temporary file that
    is read once it has exited: through a pipe, a reader thread would have
    to win the GIL from this process's work for every chunk, and the helper
    would wait on it.  ``func``'s results must pickle, and hold nothing
    shared or recursive (the pickler keeps no memo).  A helper
    that fails has its part done here instead, so the result never depends
    on whether forking worked."""
    do_first = first or func
    if len(parts) < 2 or not can_fork():
        return [do_first(parts[0])] + [func(part) for part in parts[1:]]
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
                _became_helper()
                if collect:
                    collect_in_helper()
                else:
                    pause_in_helper()   # short-lived: no collection over what it inherited
                if done_r is not None:
                    os.close(done_r)
                fast_dump(func(part), box)
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
            # while the system takes its memory down (long for a helper
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
                got = load(box)
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


class PieceHelper:
    """A forked helper that works through ``items`` ``size`` at a time,
    ``func(items[i:i + size])`` each, and sends each piece of results as soon
    as it is made, so that this process takes them in between pieces of its
    own work (:meth:`pieces`) instead of all at once when both are done:
    what :func:`fork_map` leaves to the end, with the other core idle
    (unpickling a helper's share of parsed records).

    Each piece is pickled (no memo) and written to an unlinked temporary
    file, then its length is written to a pipe; this process reads the
    lengths without waiting and each piece with ``pread`` at its own
    offset.  The helper's end closes the pipe.  Whatever did not arrive
    (the fork failed, the helper died, a piece was refused) is for the
    caller to do, from the first item whose result did not arrive."""

    def __init__(self, func, items: list, size: int):
        import tempfile
        self.pid: int | None = None
        self._r: int | None = None
        self._box = None
        self._pending = b""
        self._offset = 0
        if not can_fork():      # the caller does it all
            return
        try:
            box = tempfile.TemporaryFile()
        except OSError:
            return
        try:
            r, w = os.pipe()
        except OSError:
            box.close()
            return
        _reap_ended()
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            pid = os.fork()
        except OSError:     # no process to spare: the caller does it all
            os.close(r)
            os.close(w)
            box.close()
            return
        if pid == 0:  # the helper: work, write, and leave without cleanup
            code = 0
            try:
                _became_helper()
                pause_in_helper()   # short-lived: no collection over what it inherited
                os.close(r)
                fd = box.fileno()
                for i in range(0, len(items), size):
                    data = fast_dumps(func(items[i:i + size]))
                    view = memoryview(data)
                    while view:
                        view = view[os.write(fd, view):]
                    os.write(w, len(data).to_bytes(8, "little"))
                os.write(w, bytes(8))       # the end mark
            except BaseException:
                code = 1
            finally:
                os._exit(code)
        os.close(w)
        os.set_blocking(r, False)
        self.pid, self._r, self._box = pid, r, box

    def pieces(self, block: bool = False) -> list:
        """The pieces (lists of results, in order) that arrived since the
        last call; with ``block``, every piece still to come, until the
        helper says it is done (its end mark, a zero length: read at once,
        not when the system has taken the helper down) or ends without
        saying so."""
        out: list = []
        if self._r is None:
            return out
        if block:
            os.set_blocking(self._r, True)
        while self._r is not None:
            try:
                got = os.read(self._r, 1 << 16)
            except BlockingIOError:
                break
            except OSError:
                got = b""
            if not got:         # the helper ended without its end mark
                self.close()
                break
            data = self._pending + got
            n = len(data) // 8 * 8
            self._pending = data[n:]
            fd = self._box.fileno()
            for k in range(0, n, 8):
                size = int.from_bytes(data[k:k + 8], "little")
                if size == 0:       # the end mark: every piece is in
                    self.close()
                    return out
                blob = os.pread(fd, size, self._offset)
                self._offset += size
                try:
                    piece = loads(blob) if len(blob) == size else None
                except Exception:
                    piece = None
                if not isinstance(piece, list):     # refused: the rest is the caller's
                    self.close(kill=True)
                    return out
                out.append(piece)
        return out

    def close(self, kill: bool = False) -> None:
        """Stop listening (``kill``: stop the helper too, its work unwanted);
        the helper is reaped later (:func:`reap_helpers`)."""
        if self._r is not None:
            os.close(self._r)
            self._r = None
        if self._box is not None:
            self._box.close()
            self._box = None
        if self.pid is not None:
            if kill:
                import signal
                try:
                    os.kill(self.pid, signal.SIGKILL)
                except OSError:
                    pass
            _UNREAPED.append(self.pid)
            self.pid = None


class Background:
    """A helper forked now to do ``func()`` on its own while this process
    goes on (a cache on disk warmed before a long-lived process starts its
    threads: ``recordkit lsp`` reads the record into the store of parsed
    records while it answers ``initialize``).  Nothing comes back but its
    exit status; :meth:`wait` for it, or :meth:`stop` it.  ``start`` gives
    None when this process may not fork (:func:`can_fork`): then nothing
    is done ahead."""

    def __init__(self, pid: int):
        self.pid = pid
        self.status: int | None = None

    @classmethod
    def start(cls, func) -> "Background | None":
        if not can_fork():
            return None
        pid = os.fork()
        if pid == 0:      # the helper: it may spread its own work (it runs no thread)
            code = 1
            try:
                func()
                code = 0
            except BaseException:     # a helper's failure is only its exit status
                pass
            finally:
                os._exit(code)
        return cls(pid)

    def wait(self, timeout: float | None = None) -> bool:
        """Wait (up to ``timeout`` s) for the helper to end; whether it did, successfully."""
        import time
        end = None if timeout is None else time.monotonic() + timeout
        while self.status is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:     # reaped elsewhere
                self.status = -1
                break
            if pid:
                self.status = status
                break
            if end is not None and time.monotonic() > end:
                return False
            time.sleep(0.01)
        return self.status == 0

    def stop(self) -> None:
        """End the helper (if it still runs) and reap it."""
        if self.status is None:
            import signal
            try:
                os.kill(self.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            self.wait()
