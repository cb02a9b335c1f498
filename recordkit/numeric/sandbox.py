"""Contain one check's process tree: the supervisor half of the worker.

:func:`supervise` runs in the process the runner started.  It forks the
check process and stays small (no numpy), watching the check's whole tree:

* **Subreaper.**  On Linux it calls ``prctl(PR_SET_CHILD_SUBREAPER)``: a
  process the check starts stays our descendant when its parent dies, even
  after ``setsid()`` or a double fork, so it can be found and killed.  When
  the check process ends, everything it left behind is killed (SIGKILL)
  and reaped before the result is sent.
* **Memory of the tree.**  Every ~50 ms it sums the resident memory of the
  tree (``/proc/PID/statm``); when the sum passes the limit, the
  proportional set size (``smaps_rollup`` PSS, which counts a page shared
  by forked processes once) confirms it, and the tree is killed.  Each
  process is also capped by ``RLIMIT_AS`` (set in the check process,
  inherited), which turns a single runaway allocation into MemoryError.
  Polling means a tree can overshoot the limit for up to one interval.
* **Number of processes.**  More than ``max_procs`` processes in the tree
  (a fork bomb) kills it.  (``RLIMIT_NPROC`` counts per user, and root
  ignores it, so it is not used.)
* **Time.**  On SIGTERM (the runner's time limit) it kills the tree; past
  ``kill_at`` (the runner's limit plus a grace) it does so by itself; when
  the runner dies it kills the tree and exits.

Without ``/proc`` or the subreaper (not Linux) it falls back to the check's
process group: the check process is killed and the runner kills the group
after the supervisor ends; processes that left the group can survive.
cgroups are not used: they are not writable in most containers and CI
runners, and a v1 hierarchy cannot be delegated safely.
"""
from __future__ import annotations

import json
import os
import select
import signal
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
DEFAULT_MAX_PROCS = 256
_MEM_POLL = 0.05
_MAX_PAYLOAD = 32 << 20
try:
    _PAGE = os.sysconf("SC_PAGE_SIZE")
except (ValueError, OSError, AttributeError):  # pragma: no cover
    _PAGE = 4096


def _prctl(option: int, arg: int) -> bool:
    from ..runtime.system import prctl
    return prctl(option, arg)


class Tree:
    """The processes below this one (Linux ``/proc``)."""

    def __init__(self) -> None:
        self.me = os.getpid()
        self.proc = os.path.isdir("/proc/self/task")
        self.children_file = os.path.exists(f"/proc/self/task/{self.me}/children")

    def _children(self, pid: int) -> list[int]:
        out: list[int] = []
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            return out
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/children", "rb") as fh:
                    out.extend(int(x) for x in fh.read().split())
            except (OSError, ValueError):
                pass
        return out

    def _scan(self) -> dict[int, list[int]]:
        """ppid -> pids, from every /proc/PID/stat (when the children files are absent)."""
        kids: dict[int, list[int]] = {}
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            try:
                with open(f"/proc/{name}/stat", "rb") as fh:
                    ppid = int(fh.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            kids.setdefault(ppid, []).append(int(name))
        return kids

    def descendants(self) -> list[int]:
        if not self.proc:
            return []
        table = None if self.children_file else self._scan()
        seen: set[int] = set()
        out: list[int] = []
        todo = [self.me]
        while todo:
            p = todo.pop()
            for k in (self._children(p) if table is None else table.get(p, [])):
                if k not in seen and k != self.me:
                    seen.add(k)
                    out.append(k)
                    todo.append(k)
        return out


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm", "rb") as fh:
            return int(fh.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


def _pss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as fh:
            for line in fh:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return _rss(pid)


def _reap(child: int, status: int | None) -> int | None:
    """Reap every ended child; the wait status of ``child`` once it ended."""
    while True:
        try:
            pid, st = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return status
        if pid == 0:
            return status
        if pid == child:
            status = st


def _kill_tree(tree: Tree, child: int, status: int | None, limit: float = 5.0) -> tuple[int | None, int]:
    """SIGKILL every descendant until none is left (a process forking while
    we kill is caught on the next round, as its orphans come to us).
    Returns the check process's wait status and how many processes were killed."""
    killed: set[int] = set()
    end = time.monotonic() + limit
    if status is None:
        try:
            os.kill(child, signal.SIGKILL)
        except OSError:
            pass
    while True:
        pids = tree.descendants()
        for p in pids:
            try:
                os.kill(p, signal.SIGKILL)
                killed.add(p)
            except OSError:
                pass
        status = _reap(child, status)
        if not pids or time.monotonic() > end:
            break
        time.sleep(0.002)
    if not tree.proc:                # no /proc: at least the check process
        if status is None:
            try:
                _, status = os.waitpid(child, 0)
            except ChildProcessError:
                pass
    killed.discard(child)
    return status, len(killed)


def supervise(job: dict, check_process) -> int:
    """Fork ``check_process(job, write_fd)`` and contain its tree; send one
    JSON message on ``job["result_fd"]``."""
    result_fd = int(job["result_fd"])
    token = job.pop("token", "")
    parent = job.get("parent")
    terminated: list[int] = []
    signal.signal(signal.SIGTERM, lambda *_: terminated.append(1))
    # the runner dies: SIGTERM, not SIGKILL, so that the tree is killed first
    _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    if parent and os.getppid() != parent:
        os._exit(70)
    subreaper = _prctl(PR_SET_CHILD_SUBREAPER, 1)
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
    except OSError:
        pass
    memory = job.get("memory") or None
    max_procs = int(job.get("max_procs") or DEFAULT_MAX_PROCS)
    kill_at = job.get("kill_at")
    r, w = os.pipe()
    from ..runtime.system import fork_process
    child = fork_process()
    if child == 0:   # the check process
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.close(r)
        os.close(result_fd)
        check_process(job, w)
        os._exit(70)   # pragma: no cover - check_process never returns
    os.close(w)
    os.set_blocking(r, False)
    tree = Tree()
    buf = bytearray()
    status: int | None = None
    reason = None
    detail: dict = {}
    peak = 0
    next_mem = 0.0
    open_r: int | None = r

    def drain() -> None:
        nonlocal open_r
        while open_r is not None:
            try:
                data = os.read(open_r, 1 << 16)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            if not data:
                os.close(open_r)
                open_r = None
                return
            if len(buf) < _MAX_PAYLOAD:
                buf.extend(data)

    while True:
        try:
            select.select([open_r] if open_r is not None else [], [], [], 0.02)
        except (InterruptedError, OSError):
            pass
        drain()
        status = _reap(child, status)
        if parent and os.getppid() != parent:       # the runner is gone
            _kill_tree(tree, child, status)
            os._exit(70)
        if terminated:
            reason = "terminated"
            break
        if kill_at and time.time() > kill_at:
            reason = "timeout"
            break
        if status is not None:
            break
        now = time.monotonic()
        if now >= next_mem and tree.proc:
            next_mem = now + _MEM_POLL
            pids = tree.descendants()
            if len(pids) > max_procs:
                reason, detail = "procs", {"procs": len(pids)}
                break
            if memory:
                total = sum(_rss(p) for p in pids)
                if total > memory:
                    total = sum(_pss(p) for p in pids)
                peak = max(peak, total)
                if total > memory:
                    reason, detail = "memory", {"held": total, "procs": len(pids)}
                    break
    status, killed = _kill_tree(tree, child, status)
    drain()
    if open_r is not None:
        os.close(open_r)
    payload = None
    bad = None
    if buf:
        try:
            payload = json.loads(buf.decode("utf-8"))
            if not isinstance(payload, dict):
                payload, bad = None, "the check process sent something that is not a result"
        except (UnicodeDecodeError, ValueError):
            bad = "the check process sent a malformed result (something else wrote to its result pipe)"
    st = None
    if status is not None:
        if os.WIFSIGNALED(status):
            st = {"signal": os.WTERMSIG(status)}
        elif os.WIFEXITED(status):
            st = {"exit": os.WEXITSTATUS(status)}
    msg = {"id": job.get("id"), "token": token, "payload": payload, "status": st, "reason": reason,
           "detail": detail, "peak": peak, "killed": killed, "subreaper": subreaper, "bad": bad}
    data = json.dumps(msg).encode("utf-8")
    try:
        view = memoryview(data)
        while view:
            n = os.write(result_fd, view)
            view = view[n:]
        os.close(result_fd)
    except OSError:
        return 70
    return 0
