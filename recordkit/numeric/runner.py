"""Run numeric checks, each in its own process, several at once.

Process model: one ``python -m recordkit.numeric.worker`` subprocess per
check, started in a new session (so it leads its own process group), with
stdin closed and stdout/stderr sent to temporary files.  At most ``jobs`` run
at once.  The parent polls them:

* a worker past its time limit is killed with SIGKILL to its whole process
  group (so processes the check started die too), verdict ``timeout``; just
  before the limit the worker dumps its Python stack (faulthandler), which
  the result quotes to show where it hung;
* a worker that ends without writing its result (a signal such as SIGSEGV,
  ``os._exit``, the kernel's OOM killer) is ``crashed``, with the signal's
  name or the exit status and the last lines of its stderr (a segfault's
  Python traceback, from faulthandler);
* a check that raises is ``error`` with the last frames of its traceback;
  the worker's address space is capped (``RLIMIT_AS``, ``memory`` bytes), so
  a memory hog gets a MemoryError (``error``, limit ``memory``) instead of
  taking the machine down;
* after any worker ends, its process group is killed, so nothing a check
  started outlives it.

None of this stops the other checks.  BLAS thread pools are limited to
``cpu_count // jobs`` threads per worker unless the environment already sets
``OMP_NUM_THREADS`` / ``OPENBLAS_NUM_THREADS`` / ``MKL_NUM_THREADS``.
"""
from __future__ import annotations

import datetime as _dt
import json
import os
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
            parts.append(f"{cid!r}{hint}")
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
    if s[-1] in mult:
        return int(float(s[:-1]) * mult[s[-1]])
    return int(float(s))


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


def run_checks(corpus, ids: Iterable[str] | None = None, *, jobs: int | None = None,
               timeout: float = DEFAULT_TIMEOUT, memory: int | str | None = DEFAULT_MEMORY,
               use_cache: bool = True, progress: Callable | None = None,
               discovery=None, on_duplicate: str = "skip", quiet: bool = True) -> dict[str, CheckResult]:
    """Run the checks ``ids`` (all when None) of ``corpus`` and return
    ``id -> CheckResult`` in id order; store the results in the cache.

    A cached result whose source hash matches is reused (``cached=True``)
    unless ``use_cache`` is False; timeouts and crashes, which depend on the
    limits, are always run again.  ``progress(result)`` is called as each
    check finishes (cached ones first).  Raises
    :class:`CheckSelectionError` (a :class:`~recordkit.config.ConfigError`)
    for unknown ids, and for duplicated ids when ``on_duplicate`` is
    "error" (by default they are skipped: lint reports them as RK501).
    It never prints (``quiet`` is accepted for callers that pass it)."""
    from .store import read_cache, write_results
    from .discover import discover_all
    disc = discovery or discover_all(corpus)
    specs = select(corpus, ids, disc, on_duplicate)
    memory = parse_size(memory)
    cache_dir = Path(corpus.config.cache_dir)
    previous = read_cache(cache_dir)
    results: dict[str, CheckResult] = {}
    todo = []
    for spec in specs:
        old = previous.get(spec.id)
        if use_cache and old is not None and old.hash == spec.hash and reusable(old):
            old.cached, old.stale = True, False
            old.tolerance = spec.tolerance
            results[spec.id] = old
            if progress:
                progress(old)
        else:
            todo.append(spec)
    # longest first (by the last known time): the wall time is shorter
    todo.sort(key=lambda s: -(previous[s.id].seconds if s.id in previous else float("inf")))
    fresh = run_specs(todo, checks_dir=Path(corpus.config.checks), cwd=Path(corpus.config.base),
                      jobs=jobs, timeout=timeout, memory=memory, progress=progress)
    results.update(fresh)
    if fresh:
        write_results(cache_dir, fresh, keep=set(disc.checks))
    return {cid: results[cid] for cid in sorted(results)}


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
    job_path: str
    result_path: str
    out_path: str
    err_path: str


def run_specs(specs: list[CheckSpec], *, checks_dir: Path, cwd: Path, jobs: int | None = None,
              timeout: float | None = DEFAULT_TIMEOUT, memory: int | None = DEFAULT_MEMORY,
              progress: Callable | None = None) -> dict[str, CheckResult]:
    """Run ``specs`` (no cache), each in its own worker process."""
    if not specs:
        return {}
    jobs = max(1, int(jobs or os.cpu_count() or 1))
    env = _worker_env(jobs)
    out: dict[str, CheckResult] = {}
    pending = deque(specs)
    running: list[_Running] = []
    with tempfile.TemporaryDirectory(prefix="recordkit-checks-") as tmp:
        try:
            while pending or running:
                while pending and len(running) < jobs:
                    spec = pending.popleft()
                    running.append(_start(spec, Path(tmp), checks_dir, cwd, env, timeout, memory))
                finished = False
                now = time.monotonic()
                for r in list(running):
                    exited = _exited(r.proc)
                    timed_out = not exited and r.timeout is not None and now >= r.deadline
                    if not (exited or timed_out):
                        continue
                    _kill_group(r.proc)
                    r.proc.wait()
                    res = _result(r, timed_out, time.monotonic() - r.start, memory)
                    out[r.spec.id] = res
                    running.remove(r)
                    finished = True
                    if progress:
                        progress(res)
                if not finished:
                    time.sleep(_POLL)
        finally:
            for r in running:           # interrupted: leave nothing behind
                _kill_group(r.proc)
                r.proc.wait()
    return out


def _worker_env(jobs: int) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = _PKG_PARENT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    threads = str(max(1, (os.cpu_count() or 1) // jobs))
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(var, threads)
    env["PYTHONDONTWRITEBYTECODE"] = "1"   # keep the checks folder clean
    env["PYTHONUNBUFFERED"] = "1"          # so a crash keeps what was printed
    env.setdefault("PYTHONHASHSEED", "0")  # reproducible set and dict-of-set orders
    return env


def _start(spec: CheckSpec, tmp: Path, checks_dir: Path, cwd: Path, env: dict,
           timeout: float | None, memory: int | None) -> _Running:
    t = spec.timeout if spec.timeout is not None else timeout
    stem = f"{len(list(tmp.iterdir())):04d}"
    job = {"id": spec.id, "form": spec.form, "path": str(spec.path), "seed": spec.seed,
           "checks_dir": str(checks_dir), "source": spec.source if spec.form == "block" else None,
           "code_line": spec.code_line, "memory": memory,
           "dump_at": (time.time() + t - min(0.5, t * 0.1)) if t else None,
           "kill_at": (time.time() + t + 5) if t else None, "parent": os.getpid()}
    job_path, result_path = str(tmp / f"{stem}.job.json"), str(tmp / f"{stem}.result.json")
    out_path, err_path = str(tmp / f"{stem}.out"), str(tmp / f"{stem}.err")
    with open(job_path, "w", encoding="utf-8") as fh:
        json.dump(job, fh)
    start = time.monotonic()
    with open(out_path, "wb") as fo, open(err_path, "wb") as fe:
        proc = subprocess.Popen([sys.executable, "-m", "recordkit.numeric.worker", job_path, result_path],
                                cwd=str(cwd if cwd.is_dir() else Path.cwd()), stdin=subprocess.DEVNULL,
                                stdout=fo, stderr=fe, env=env, start_new_session=True)
    return _Running(spec, proc, start, start + t if t else float("inf"), t, job_path, result_path,
                    out_path, err_path)


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


def _tail(path: str, n: int = 12, limit: int = 64 << 10) -> str:
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            fh.seek(max(0, size - limit))
            data = fh.read().decode("utf-8", "replace")
    except OSError:
        return ""
    lines = [l for l in data.splitlines() if l.strip()]
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


def _result(r: _Running, timed_out: bool, wall: float, memory: int | None) -> CheckResult:
    spec = r.spec
    base = dict(id=spec.id, tolerance=spec.tolerance, hash=spec.hash, form=spec.form, path=spec.path,
                line=spec.line, claim=spec.claim, timeout=r.timeout, memory=memory,
                ran_at=_dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"))
    payload = None
    if not timed_out:
        try:
            with open(r.result_path, encoding="utf-8") as fh:
                payload = json.load(fh)
        except (OSError, ValueError):
            payload = None
    seconds = round(payload.get("seconds", wall) if payload else wall, 3)
    if timed_out:
        stack = _stack_from_faulthandler(_tail(r.err_path, 40))
        return CheckResult(verdict="timeout", seconds=round(wall, 3), limit="timeout",
                           message=f"killed after {r.timeout:g} s (time limit)",
                           traceback=stack, **base)
    if payload is not None and payload.get("status") == "ok":
        value = payload["value"]
        verdict, d, entries, worst, msg = verdict_of(value, spec.tolerance)
        return CheckResult(verdict=verdict, discrepancy=d, discrepancies=entries, worst=worst,
                           message=msg, seconds=seconds, report=payload.get("report"), **base)
    if payload is not None:
        mem = bool(payload.get("memory"))
        msg = payload.get("message") or payload.get("type") or "error"
        if mem and memory:
            msg += f" (memory limit {_size(memory)})"
        return CheckResult(verdict="error", message=msg, traceback=payload.get("traceback"),
                           seconds=seconds, limit="memory" if mem else None, **base)
    # no result: the process died
    rc = r.proc.returncode
    err = _tail(r.err_path, 40)
    stack = _stack_from_faulthandler(err)
    limit = None
    if rc is not None and rc < 0:
        msg = f"killed by {_signal_name(-rc)}"
        if -rc == signal.SIGKILL:
            msg += " — out of memory, or killed from outside"
            limit = "memory"
    else:
        msg = f"the process exited with status {rc} before reporting a result (os._exit, or a crash)"
    if "MemoryError" in err:
        limit = "memory"
        msg += f"; MemoryError (memory limit {_size(memory)})" if memory else "; MemoryError"
    tb = stack or (_tail(r.err_path, 8) or None)
    return CheckResult(verdict="crashed", message=msg, traceback=tb, seconds=round(wall, 3), limit=limit, **base)


def _size(n: int | None) -> str:
    if not n:
        return "none"
    for unit, k in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= k:
            v = n / k
            return f"{v:g} {unit}" if v == int(v) else f"{v:.1f} {unit}"
    return f"{n} B"
