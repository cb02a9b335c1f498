"""Run numeric checks, each in its own process tree, several at once.

Process model: one ``python -m recordkit.numeric.worker`` per check, started
in a new session, in a fresh temporary working directory (also its HOME and
TMPDIR), with a minimal environment (:func:`worker_env`), the job on stdin,
stdout/stderr sent to files, and one pipe on which it sends its result.  The
worker is a small supervisor that forks the check process and contains its
tree (see :mod:`recordkit.numeric.sandbox`: subreaper, memory of the whole
tree, number of processes).  At most ``jobs`` run at once.  The parent polls
them:

* a worker past its time limit is sent SIGTERM, on which its supervisor
  kills the check's whole tree; 2 s later the worker's process group is
  killed (SIGKILL) whatever happened.  Verdict ``timeout``; just before the
  limit the check dumps its Python stack (faulthandler), which the result
  quotes to show where it hung;
* a check process that ends without a result (a signal such as SIGSEGV,
  ``os._exit``, the kernel's OOM killer) is ``crashed``, with the signal's
  name or the exit status and the last lines of its stderr;
* a check that raises is ``error`` with the last frames of its traceback; a
  check whose processes together pass the memory limit, or one that starts
  too many, is ``error`` with ``limit`` set;
* the result is accepted only when it names the check and carries the
  random token the runner gave that worker alone; the parent is the only
  writer of the cache;
* a check whose ``timeout=`` is not a finite number of seconds > 0 is not
  run (``error``); the caller's limits are validated the same way.

None of this stops the other checks.  BLAS thread pools are limited to
``cpu_count // jobs`` threads per worker unless the environment already sets
``OMP_NUM_THREADS`` / ``OPENBLAS_NUM_THREADS`` / ``MKL_NUM_THREADS``.
"""
from __future__ import annotations

import datetime as _dt
import json
import math
import os
import re
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

from ..common.didyoumean import near_words
from ..config import ConfigError
from .registry import CheckSpec
from .results import CheckResult, verdict_of

DEFAULT_TIMEOUT = 60.0
DEFAULT_MEMORY = 4 << 30           # 4 GiB of address space per check
_POLL = 0.01
_PKG_PARENT = str(Path(__file__).resolve().parent.parent.parent)


class CheckSelectionError(ConfigError):
    """The checks asked for cannot be run as asked: an unknown id, a
    duplicated id (usage / configuration error, exit status 2)."""


class UnknownCheckError(CheckSelectionError):
    def __init__(self, unknown: dict[str, list[str]]):
        self.unknown = unknown          # id -> close ids
        parts = []
        for cid, near in unknown.items():
            hint = f" (did you mean {', '.join(near)}?)" if near else ""
            parts.append(f"`{cid}`{hint}")
        super().__init__(f"unknown check id{'s' if len(unknown) > 1 else ''}: " + "; ".join(parts))


class DuplicateCheckError(CheckSelectionError):
    pass


def parse_size(text: str | int | None) -> int | None:
    """``4G``, ``512M``, ``1.5GiB``, ``1000000`` (bytes), ``0``/``none`` (no limit)."""
    if text is None:
        return None
    if isinstance(text, int):
        return text or None
    s = str(text).strip().lower().replace("ib", "").replace("b", "")
    if s in ("", "0", "none", "off", "unlimited"):
        return None
    mult = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}
    k = mult.get(s[-1], 1)
    v = float(s[:-1] if s[-1] in mult else s) * k
    if not math.isfinite(v) or v < 1:
        raise ValueError(f"`{text}` is not a memory size")   # nan, inf, negative: not a limit
    return int(v)


def select(corpus, ids: Iterable[str] | None, discovery, on_duplicate: str = "error") -> list[CheckSpec]:
    """The specs to run for ``ids`` (check ids, or record ids meaning the
    checks that record cites or holds); every check when ``ids`` is empty.

    Raises :class:`UnknownCheckError` for an id that is neither.  A selected
    id defined more than once raises :class:`DuplicateCheckError` when
    ``on_duplicate`` is "error"; with "skip" it is left out (lint reports it
    as RK501)."""
    from .discover import citations
    checks = discovery.checks
    ids = [i.strip() for i in ids or [] if i.strip()]
    chosen: list[str] = []
    unknown: dict[str, list[str]] = {}
    if not ids:
        chosen = list(checks)
    else:
        cited = None
        for i in ids:
            if i in checks:
                chosen.append(i)
            elif i in corpus.records:
                if cited is None:
                    cited = citations(corpus, checks)
                mine = [c for c, recs in cited.items() if i in recs]
                missing = [c for c in mine if c not in checks]
                if missing:
                    unknown.update({c: near_words(c, checks, n=3) for c in missing})
                if not mine:
                    raise CheckSelectionError(f"record {i} cites no numeric check")
                chosen.extend(c for c in mine if c in checks)
            else:
                unknown[i] = near_words(i, checks, n=3)
    if unknown:
        raise UnknownCheckError(unknown)
    seen = set()
    chosen = [c for c in chosen if not (c in seen or seen.add(c))]
    dups = [c for c in chosen if c in discovery.duplicates]
    if dups and on_duplicate == "skip":
        chosen = [c for c in chosen if c not in discovery.duplicates]
    elif dups:
        raise DuplicateCheckError("; ".join(discovery.duplicate_message(c) for c in dups))
    return [checks[c] for c in chosen]


class ChecksCancelled(Exception):
    """The caller's ``cancel()`` said stop: the checks still running were
    killed (their sandboxes' process trees) and have no result; ``done``
    holds the results of those that finished before (stored as usual)."""

    def __init__(self, done: dict):
        super().__init__(f"cancelled after {len(done)} check{'s' if len(done) != 1 else ''}")
        self.done = done


def run_checks(corpus, ids: Iterable[str] | None = None, *, jobs: int | None = None,
               timeout: float = DEFAULT_TIMEOUT, memory: int | str | None = DEFAULT_MEMORY,
               use_cache: bool = True, progress: Callable | None = None,
               discovery=None, on_duplicate: str = "skip", quiet: bool = True,
               pass_env: Iterable[str] = (), max_timeout: float | None = None,
               max_procs: int | None = None, cancel: Callable[[], bool] | None = None) -> dict[str, CheckResult]:
    """Run the checks ``ids`` (all when None) of ``corpus`` and return
    ``id -> CheckResult`` in id order; store the results in the cache.

    A cached result whose source hash matches is reused (``cached=True``)
    unless ``use_cache`` is False; timeouts and crashes, which depend on the
    limits, are always run again.  ``progress(result)`` is called as each
    check finishes (cached ones first).  Raises
    :class:`CheckSelectionError` (a :class:`~recordkit.config.ConfigError`)
    for unknown ids, and for duplicated ids when ``on_duplicate`` is
    "error" (by default they are skipped: lint reports them as RK501).
    It never prints (``quiet`` is accepted for callers that pass it).

    ``timeout`` (the default limit) and ``max_timeout`` (a cap on every
    limit, a check's own ``timeout=`` included) are None or finite seconds
    > 0 (:class:`~recordkit.config.ConfigError` otherwise).  ``pass_env``:
    names of environment variables a check may see besides the minimal
    set (:data:`ENV_ALLOW`).  ``max_procs``: most processes a check's tree
    may hold (default 256).  ``cancel()``: asked as the checks run (every
    poll, ~50 ms); when it answers True the running checks are stopped
    (each sandbox told to kill its check's tree, then its process group
    killed) and :class:`ChecksCancelled` raised, the finished results
    stored."""
    from .store import read_cache, write_results
    from .discover import discover_all
    timeout = check_limit(timeout, "the time limit")
    max_timeout = check_limit(max_timeout, "the largest time limit")
    disc = discovery or discover_all(corpus)
    specs = select(corpus, ids, disc, on_duplicate)
    memory = parse_size(memory)
    cache_dir = Path(corpus.config.cache_dir)
    previous = read_cache(cache_dir)
    results: dict[str, CheckResult] = {}
    todo = []
    for spec in specs:
        old = previous.get(spec.id)
        if (use_cache and old is not None and old.hash == spec.hash and reusable(old)
                and not (spec.run_problem and old.verdict != "error")):   # a pass from before the check was refused
            old.cached, old.stale = True, False
            refresh_location(old, spec)
            results[spec.id] = old
            if progress:
                progress(old)
        else:
            todo.append(spec)
    # longest first (by the last known time): the wall time is shorter
    todo.sort(key=lambda s: -(previous[s.id].seconds if s.id in previous else float("inf")))
    try:
        fresh = run_specs(todo, checks_dir=Path(corpus.config.checks), jobs=jobs, timeout=timeout, memory=memory,
                          progress=progress, pass_env=pass_env, max_timeout=max_timeout, max_procs=max_procs,
                          cancel=cancel)
    except ChecksCancelled as exc:
        if exc.done:
            write_results(cache_dir, exc.done, keep=set(disc.checks))
        results.update(exc.done)
        raise ChecksCancelled(results) from None
    results.update(fresh)
    if fresh:
        write_results(cache_dir, fresh, keep=set(disc.checks))
    return {cid: results[cid] for cid in sorted(results)}


def refresh_location(r: CheckResult, spec: CheckSpec) -> CheckResult:
    """Take where the check is and what it says from its current ``spec``
    into the result ``r`` of the same source (hash): a block moves when
    lines are inserted above it or its record is moved or renamed, and the
    hash (the block's code and fence line) does not see that."""
    r.tolerance = spec.tolerance
    r.path, r.line, r.form, r.claim = spec.path, spec.line, spec.form, spec.claim
    return r


def reusable(r: CheckResult) -> bool:
    """Whether a cached result may stand for a new run of the same source:
    pass, fail and error do; a timeout, a crash or a memory limit depends
    on the limits and the machine, so those run again."""
    return r.verdict in ("pass", "fail", "error") and r.limit is None


@dataclass
class _Running:
    spec: CheckSpec
    proc: subprocess.Popen
    start: float
    deadline: float
    timeout: float | None
    token: str
    rfd: int | None
    buf: bytearray
    out: "_Output"                   # the worker's stdout and stderr, capped (:class:`_Output`)
    err: "_Output"
    asked: float | None = None       # the check's own timeout= when a cap lowered it
    term_at: float | None = None     # when the supervisor was told to stop (time limit)


def check_limit(value, what: str) -> float | None:
    """A time limit from the caller: None (no limit), or a finite number of
    seconds > 0.  Anything else raises :class:`ConfigError` (``0`` or NaN
    would silently remove the limit)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ConfigError(f"{what} must be a finite number of seconds > 0, not `{value}`")
    return float(value)


def run_specs(specs: list[CheckSpec], *, checks_dir: Path, cwd: Path | None = None, jobs: int | None = None,
              timeout: float | None = DEFAULT_TIMEOUT, memory: int | None = DEFAULT_MEMORY,
              progress: Callable | None = None, pass_env: Iterable[str] = (),
              max_timeout: float | None = None, max_procs: int | None = None,
              cancel: Callable[[], bool] | None = None) -> dict[str, CheckResult]:
    """Run ``specs`` (no cache), each in its own worker process, in a fresh
    temporary working directory (``cwd`` is accepted for compatibility and
    ignored: a check does not run in the record).  ``cancel``: see
    :func:`run_checks`."""
    timeout = check_limit(timeout, "the time limit")
    max_timeout = check_limit(max_timeout, "the largest time limit")
    if not specs:
        return {}
    jobs = max(1, int(jobs or os.cpu_count() or 1))
    out: dict[str, CheckResult] = {}
    pending = deque(specs)
    running: list[_Running] = []
    withheld = withheld_values(pass_env)
    with tempfile.TemporaryDirectory(prefix="recordkit-checks-", ignore_cleanup_errors=True) as tmp:
        try:
            n = 0
            while pending or running:
                if cancel is not None and cancel():
                    raise ChecksCancelled(out)      # (the finally below stops what runs)
                while pending and len(running) < jobs:
                    spec = pending.popleft()
                    if spec.run_problem:
                        res = _invalid(spec, memory)
                        out[spec.id] = res
                        if progress:
                            progress(res)
                        continue
                    n += 1
                    running.append(_start(spec, Path(tmp), n, checks_dir, jobs, pass_env, timeout,
                                          max_timeout, memory, max_procs))
                finished = False
                now = time.monotonic()
                for r in list(running):
                    _read(r)
                    exited = _exited(r.proc)
                    if not exited and r.timeout is not None and now >= r.deadline and r.term_at is None:
                        _signal(r.proc, signal.SIGTERM)     # the supervisor kills the check's tree
                        r.term_at = now
                    timed_out = r.term_at is not None
                    if not exited and not (timed_out and now >= r.term_at + _TERM_GRACE):
                        continue
                    _kill_group(r.proc)
                    r.proc.wait()
                    _read(r, final=True)
                    res = scrub(_result(r, timed_out, time.monotonic() - r.start, memory), withheld)
                    out[r.spec.id] = res
                    running.remove(r)
                    finished = True
                    if progress:
                        progress(res)
                if not finished and running:
                    _wait_for_output(running)
        finally:
            for r in running:           # interrupted: leave nothing behind
                _signal(r.proc, signal.SIGTERM)     # (the sandbox kills its check's tree)
            for r in running:
                try:
                    r.proc.wait(timeout=_TERM_GRACE)
                except subprocess.TimeoutExpired:
                    pass
                _kill_group(r.proc)
                r.proc.wait()
                if r.rfd is not None:
                    os.close(r.rfd)
                r.out.close()
                r.err.close()
    return out


#: environment variables a check sees (when set for recordkit), besides those
#: recordkit sets itself; ``pass_env`` / ``--pass-env`` adds names
ENV_ALLOW = ("PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_NUMERIC", "TZ", "PYTHONHOME",
             "LD_LIBRARY_PATH", "SYSTEMROOT")
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS",
               "VECLIB_MAXIMUM_THREADS")
_TERM_GRACE = 2.0


def worker_env(jobs: int, home: str, pass_env: Iterable[str] = ()) -> dict:
    """The whole environment of a check: a short allow-list, not ours (which
    may hold tokens and passwords)."""
    src = os.environ
    env = {k: src[k] for k in ENV_ALLOW if k in src}
    env["PYTHONPATH"] = _PKG_PARENT + (os.pathsep + src["PYTHONPATH"] if src.get("PYTHONPATH") else "")
    threads = str(max(1, (os.cpu_count() or 1) // jobs))
    for var in THREAD_VARS:
        env[var] = src.get(var, threads)
    env["HOME"] = env["TMPDIR"] = home
    env["PYTHONDONTWRITEBYTECODE"] = "1"   # keep the checks folder clean
    env["PYTHONUNBUFFERED"] = "1"          # so a crash keeps what was printed
    env["PYTHONHASHSEED"] = src.get("PYTHONHASHSEED", "0")  # reproducible set and dict-of-set orders
    env["MPLBACKEND"] = src.get("MPLBACKEND", "Agg")
    for name in pass_env:
        name = name.strip()
        if name and name in src:
            env[name] = src[name]
    return env


def withheld_values(pass_env: Iterable[str] = ()) -> list[str]:
    """Values of our environment that the checks are not given and that may
    be secrets (16 characters or more, or 6 or more in a variable named
    like ``*TOKEN*``, ``*SECRET*``, ``*PASS*``, ``*KEY*``…; not a path, a
    number or a user or host name), longest first.  A check can still find them (``/proc/PID/environ`` of the
    runner, files of the user); :func:`scrub` keeps them out of what is
    printed and cached."""
    given = set(ENV_ALLOW) | set(THREAD_VARS) | {"PYTHONPATH", "PYTHONHASHSEED", "MPLBACKEND"} | _BENIGN
    given |= {n.strip() for n in pass_env}
    vals = set()
    for k, v in os.environ.items():
        if k in given or k.startswith(("LC_", "XDG_")) or v.startswith(("/", "~", ".")):
            continue
        if v.replace(".", "").replace(":", "").replace("-", "").isdigit():
            continue
        if len(v) >= 16 or (len(v) >= 6 and _SECRET_NAME.search(k)):
            vals.add(v)
    return sorted(vals, key=len, reverse=True)


#: variables whose values are no secret and appear in paths and messages (a user name)
_BENIGN = {"USER", "LOGNAME", "USERNAME", "HOSTNAME", "HOME", "PWD", "OLDPWD", "SHELL", "TERM", "TERM_PROGRAM",
           "COLORTERM", "DISPLAY", "EDITOR", "VISUAL", "PAGER", "MAIL", "SHLVL", "_"}
_SECRET_NAME = re.compile(r"TOKEN|SECRET|PASS|KEY|AUTH|CRED|PRIVATE|SESSION|COOKIE|API", re.I)


def scrub(res: CheckResult, withheld: list[str]) -> CheckResult:
    """``res`` with every withheld environment value in its free text
    (message, traceback, report, entry names) replaced by ``[redacted]``."""
    if not withheld:
        return res

    def clean(text):
        if not isinstance(text, str):
            return text
        for v in withheld:
            if v in text:
                text = text.replace(v, "[redacted]")
        return text
    res.message = clean(res.message)
    res.traceback = clean(res.traceback)
    res.report = clean(res.report)
    if res.discrepancies:
        res.discrepancies = {clean(k): v for k, v in res.discrepancies.items()}
        res.worst = clean(res.worst)
    return res


def _start(spec: CheckSpec, tmp: Path, n: int, checks_dir: Path, jobs: int, pass_env, timeout: float | None,
           max_timeout: float | None, memory: int | None, max_procs: int | None) -> _Running:
    t = spec.timeout if spec.timeout is not None else timeout
    asked = None
    if max_timeout is not None and (t is None or t > max_timeout):
        asked, t = t, max_timeout
    home = tmp / f"{n:04d}"
    home.mkdir(mode=0o700)
    token = secrets.token_hex(16)
    rfd, wfd = os.pipe()
    job = {"id": spec.id, "form": spec.form, "path": str(spec.path), "seed": spec.seed,
           "checks_dir": str(checks_dir), "source": spec.source if spec.form == "block" else None,
           "code_line": spec.code_line, "memory": memory, "max_procs": max_procs, "token": token,
           "result_fd": wfd,
           "dump_at": (time.time() + t - min(0.5, t * 0.1)) if t else None,
           "kill_at": (time.time() + t + 5) if t else None, "parent": os.getpid()}
    # stdout and stderr go to pipes that the runner drains as they fill,
    # keeping the first and last _KEEP bytes of each (a check printing in a
    # loop filled the disk at hundreds of MB a second)
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    start = time.monotonic()
    try:
        proc = subprocess.Popen([sys.executable, "-m", "recordkit.numeric.worker"],
                                cwd=str(home), stdin=subprocess.PIPE, stdout=out_w, stderr=err_w,
                                env=worker_env(jobs, str(home), pass_env), start_new_session=True,
                                pass_fds=(wfd,))
    except BaseException:
        os.close(out_r)
        os.close(err_r)
        os.close(rfd)
        raise
    finally:
        os.close(wfd)
        os.close(out_w)
        os.close(err_w)
    try:
        proc.stdin.write(json.dumps(job).encode("utf-8"))
        proc.stdin.close()
    except OSError:
        pass
    os.set_blocking(rfd, False)
    return _Running(spec, proc, start, start + t if t else float("inf"), t, token, rfd, bytearray(),
                    _Output(out_r), _Output(err_r), asked=asked)


#: bytes kept of the start and of the end of each of a check's stdout and stderr
_KEEP = 64 << 10
#: most bytes read from one stream in one round (then the other checks' turn)
_ROUND = 4 << 20
#: most bytes read from one stream after its worker ended (a process that
#: escaped the worker's group may hold the pipe open and keep writing)
_FINAL = 64 << 20


class _Output:
    """One output stream of a worker, read from a non-blocking pipe as it
    comes, so that the check never blocks on a full pipe and the runner
    never holds more than ``2 * _KEEP`` bytes of it: the first ``_KEEP``
    bytes, the last ``_KEEP``, and the count of those cut between them."""

    def __init__(self, fd: int | None, keep: int = _KEEP):
        self.fd = fd
        self.keep = keep
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0
        if fd is not None:
            os.set_blocking(fd, False)

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        room = self.keep - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            if len(self.tail) > 2 * self.keep:
                del self.tail[:-self.keep]

    def drain(self, final: bool = False) -> None:
        budget = _FINAL if final else _ROUND
        while self.fd is not None:
            if budget <= 0:
                if final:
                    self.close()
                return
            try:
                data = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                if final:
                    self.close()
                return
            except OSError:
                data = b""
            if not data:
                self.close()
                return
            self.feed(data)
            budget -= len(data)

    def close(self) -> None:
        if self.fd is not None:
            try:
                os.close(self.fd)
            except OSError:
                pass
            self.fd = None

    @property
    def cut(self) -> int:
        return self.total - len(self.head) - min(len(self.tail), self.keep)

    def text(self) -> str:
        """What was kept, as text; a line says how much was cut in between."""
        tail = bytes(self.tail[-self.keep:])
        mid = f"\n[… {_size(self.cut)} of output cut …]\n".encode() if self.cut > 0 else b""
        return (bytes(self.head) + mid + tail).decode("utf-8", "replace")


def _read(r: _Running, final: bool = False) -> None:
    """Take what the worker sent so far (it must never block on a full pipe):
    its result, and its stdout and stderr."""
    r.out.drain(final)
    r.err.drain(final)
    while r.rfd is not None:
        try:
            data = os.read(r.rfd, 1 << 16)
        except BlockingIOError:
            if not final:
                return
            data = b""
        except OSError:
            data = b""
        if not data:
            os.close(r.rfd)
            r.rfd = None
            return
        if len(r.buf) < (64 << 20):
            r.buf.extend(data)


def _wait_for_output(running: list[_Running]) -> None:
    """Sleep until a worker writes something, at most one poll interval
    (a check that prints a lot is not held back by the runner's sleep)."""
    import select as _select
    fds = [fd for r in running for fd in (r.rfd, r.out.fd, r.err.fd) if fd is not None]
    if not fds or not hasattr(_select, "poll"):
        time.sleep(_POLL)
        return
    try:
        poller = _select.poll()
        for fd in fds:
            poller.register(fd, _select.POLLIN)
        poller.poll(_POLL * 1000)
    except (OSError, ValueError):
        time.sleep(_POLL)


def _signal(proc: subprocess.Popen, sig: int) -> None:
    if proc.returncode is None:
        try:
            os.kill(proc.pid, sig)
        except OSError:
            pass


def _invalid(spec: CheckSpec, memory: int | None) -> CheckResult:
    parts = []
    if spec.problem:
        parts.append(f"{spec.problem}; not run")
    if spec.timeout_problem:
        parts.append(f"{spec.timeout_problem}; not run (give a finite number of seconds > 0, "
                     f"or no timeout= for the default)")
    return CheckResult(id=spec.id, verdict="error", tolerance=spec.tolerance, hash=spec.hash, form=spec.form,
                       path=spec.path, line=spec.line, claim=spec.claim, memory=memory,
                       message="; ".join(parts),
                       ran_at=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"))


def _exited(proc: subprocess.Popen) -> bool:
    """Whether the worker has ended, without reaping it (so that its
    process group id cannot be reused before we kill the group)."""
    if proc.returncode is not None:
        return True
    try:
        info = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return proc.poll() is not None
    except AttributeError:  # pragma: no cover - no waitid
        return proc.poll() is not None
    return info is not None and info.si_pid != 0


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, OSError):
        pass


def _tail(out: "_Output", n: int = 12) -> str:
    """The last ``n`` lines (not blank) of what was kept of ``out``."""
    lines = [l for l in out.text().splitlines() if l.strip()]
    return "\n".join(lines[-n:])


def _stack_from_faulthandler(err: str, frames: int = 4) -> str | None:
    """The innermost frames of a faulthandler dump (most recent call first)."""
    lines = err.splitlines()
    start = None
    for i, l in enumerate(lines):
        if l.startswith(("Fatal Python error", "Timeout (", "Current thread", "Thread 0x", "Stack (most recent")):
            start = i
    if start is None:
        return None
    head = [l if not l.startswith("Timeout (") else "where it was when the time limit came:"
            for l in lines if l.startswith(("Fatal Python error", "Timeout ("))]
    worker = os.path.join("recordkit", "numeric", "worker.py")
    stack = [l.strip() for l in lines[start + 1:] if l.strip().startswith("File ")
             and worker not in l and "<frozen runpy>" not in l]
    return "\n".join(head[:1] + stack[:frames]) or None


def _signal_name(sig: int) -> str:
    try:
        name = signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"
    desc = signal.strsignal(sig) if hasattr(signal, "strsignal") else None
    return f"{name} ({desc.lower()})" if desc else name


def _message(r: _Running) -> tuple[dict | None, str | None]:
    """The worker's message, verified: it must name this check and carry the
    token the runner gave this worker alone (a check cannot answer for
    another one).  (message, why it was rejected)."""
    if not r.buf:
        return None, None
    try:
        msg = json.loads(r.buf.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None, "the worker's result channel carried something that is not its result"
    if not isinstance(msg, dict) or msg.get("id") != r.spec.id or msg.get("token") != r.token:
        return None, "the worker's result channel carried a result that is not this check's"
    return msg, None


def _result(r: _Running, timed_out: bool, wall: float, memory: int | None) -> CheckResult:
    spec = r.spec
    base = dict(id=spec.id, tolerance=spec.tolerance, hash=spec.hash, form=spec.form, path=spec.path,
                line=spec.line, claim=spec.claim, timeout=r.timeout, memory=memory,
                ran_at=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"))
    msg, forged = _message(r)
    if timed_out:
        stack = _stack_from_faulthandler(_tail(r.err, 40))
        why = "time limit"
        if r.asked is not None:
            why += f"; the check asks for {r.asked:g} s, capped by the largest time limit"
        return CheckResult(verdict="timeout", seconds=round(wall, 3), limit="timeout",
                           message=f"killed after {r.timeout:g} s ({why})",
                           traceback=stack, **base)
    if forged:
        return CheckResult(verdict="error", message=forged, seconds=round(wall, 3), **base)
    payload = msg.get("payload") if msg else None
    if not isinstance(payload, dict):
        payload = None
    reason = msg.get("reason") if msg else None
    detail = (msg.get("detail") or {}) if msg else {}
    seconds = round(payload.get("seconds", wall) if payload else wall, 3)
    if reason == "memory":
        return CheckResult(verdict="error", seconds=round(wall, 3), limit="memory",
                           message=f"the check's processes together held {_size(detail.get('held'))} in "
                                   f"{detail.get('procs')} process(es), over the memory limit "
                                   f"{_size(memory)}; all were killed", **base)
    if reason == "procs":
        return CheckResult(verdict="error", seconds=round(wall, 3), limit="procs",
                           message=f"the check started too many processes ({detail.get('procs')} at once); "
                                   f"all were killed", **base)
    if payload is not None and payload.get("status") == "ok":
        try:
            value = payload["value"]
            verdict, d, entries, worst, msg_ = verdict_of(value, spec.tolerance)
        except (KeyError, TypeError, ValueError, AttributeError):
            return CheckResult(verdict="error", message="the worker sent a result without a readable value",
                               seconds=seconds, **base)
        return CheckResult(verdict=verdict, discrepancy=d, discrepancies=entries, worst=worst,
                           message=msg_, seconds=seconds, report=payload.get("report"), **base)
    if payload is not None:
        mem = bool(payload.get("memory"))
        text = str(payload.get("message") or payload.get("type") or "error")
        if mem and memory:
            text += f" (memory limit {_size(memory)})"
        return CheckResult(verdict="error", message=text, traceback=payload.get("traceback"),
                           seconds=seconds, limit="memory" if mem else None, **base)
    # no result: the check process (or the worker) died
    status = (msg.get("status") or {}) if msg else {}
    rc = r.proc.returncode
    if "signal" in status:
        rc = -int(status["signal"])
    elif "exit" in status:
        rc = int(status["exit"])
    err = _tail(r.err, 40)
    stack = _stack_from_faulthandler(err)
    limit = None
    if rc is not None and rc < 0:
        msg_ = f"killed by {_signal_name(-rc)}"
        if -rc == signal.SIGKILL:
            msg_ += " — out of memory, or killed from outside"
            limit = "memory"
    else:
        msg_ = f"the process exited with status {rc} before reporting a result (os._exit, or a crash)"
    if msg and msg.get("bad"):
        msg_ += f"; {msg['bad']}"
    if "MemoryError" in err:
        limit = "memory"
        msg_ += f"; MemoryError (memory limit {_size(memory)})" if memory else "; MemoryError"
    tb = stack or (_tail(r.err, 8) or None)
    return CheckResult(verdict="crashed", message=msg_, traceback=tb, seconds=round(wall, 3), limit=limit, **base)


def _size(n: int | None) -> str:
    if not n:
        return "none"
    for unit, k in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= k:
            v = n / k
            return f"{v:g} {unit}" if v == int(v) else f"{v:.1f} {unit}"
    return f"{n} B"
