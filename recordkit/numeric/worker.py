"""Run one numeric check: ``python -m recordkit.numeric.worker`` (the job on stdin).

The runner (:mod:`recordkit.numeric.runner`) starts one worker per check, in
its own session (process group), with stdout and stderr sent to files, the
job (JSON) on stdin and the write end of a pipe, ``result_fd``, on which the
worker sends back one JSON message.  The worker is two processes:

* the **supervisor** (the process the runner started) reads the job, makes
  itself a *child subreaper* (Linux ``PR_SET_CHILD_SUBREAPER``: every
  process the check starts, even in a new session or by a double fork, stays
  its descendant when orphaned), forks the check process and watches it:

  - it sums the resident memory of the whole tree (every ~50 ms; PSS, which
    counts a page shared by forked children once, confirms a breach) and
    kills the tree when the sum passes the job's ``memory`` bytes, or when
    the tree holds more than ``max_procs`` processes;
  - on SIGTERM (the runner's time limit) it kills the tree;
  - when the check process ends, it kills everything the check left behind
    and reaps it, then sends the check's result with the job's ``id`` and
    ``token`` on ``result_fd`` and exits.

* the **check process** caps its own address space (``RLIMIT_AS``, inherited
  by what it starts) and disables core dumps *before* importing numpy or the
  check, enables :mod:`faulthandler` (a segfault leaves a Python traceback
  on stderr), imports the check module by file path with the checks folder
  first on ``sys.path`` (function checks) or execs the block with ``np`` and
  ``rng`` defined (block checks; the block must set ``error``), calls the
  function with ``rng = np.random.default_rng(seed)``, and sends its payload
  to the supervisor over a private pipe: ``{"status": "ok", "value": float
  or {name: float}, "report": str|None}`` or ``{"status": "error", "type",
  "message", "traceback"}``.

No file is written: the runner is the only writer of the result cache.  A
check process that dies before sending its payload (signal, ``os._exit``,
killed at a limit) is reported from its wait status and stderr.  Where the
subreaper is not available (not Linux), the supervisor falls back to
killing the check's process group.
"""
from __future__ import annotations

import json
import os
import sys
import traceback

_WORKER_FILE = os.path.abspath(__file__)


def _limit_memory(nbytes: int | None) -> None:
    try:
        import resource
    except ImportError:  # pragma: no cover - not POSIX
        return
    try:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    except (ValueError, OSError):
        pass
    if nbytes:
        try:
            soft, hard = resource.getrlimit(resource.RLIMIT_AS)
            if hard != resource.RLIM_INFINITY:
                nbytes = min(nbytes, hard)
            resource.setrlimit(resource.RLIMIT_AS, (nbytes, nbytes))
        except (ValueError, OSError):
            pass


def _die_with_parent() -> None:
    """Ask the kernel to kill this process when its parent dies (Linux)."""
    import signal
    from ..runtime.system import PR_SET_PDEATHSIG, prctl
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _tail_traceback(exc: BaseException, frames: int = 4) -> str:
    """The last frames of ``exc``'s traceback, without the worker's own."""
    tb = [f for f in traceback.extract_tb(exc.__traceback__) if os.path.abspath(f.filename) != _WORKER_FILE]
    lines = traceback.format_list(tb[-frames:])
    lines += traceback.format_exception_only(type(exc), exc)
    return "".join(lines).rstrip()


def _number(x, what: str, _depth: int = 0) -> float:
    """``x`` as a real float, or TypeError / ValueError saying why it is not
    a discrepancy.  A 1-element array is judged by its element (a bool, a
    string or a complex number inside one is no more a number than bare),
    a masked value has no number at all, a complex number is not a real
    discrepancy (``float()`` of a numpy complex drops its imaginary part),
    and an integer too large for a float is said so."""
    import numpy as np
    if isinstance(x, (bool, np.bool_)):
        raise TypeError(f"{what} is a bool ({x}); a check returns a discrepancy, e.g. abs(a - b), not a comparison")
    if x is None:
        raise TypeError(f"{what} is None; a check must return its discrepancy")
    if isinstance(x, (str, bytes, np.str_, np.bytes_)):
        # float("0") is 0.0: a check returning the text "0" passed
        raise TypeError(f"{what} is a {type(x).__name__} ({str(x)[:40]!r}), not a number; return a float")
    if isinstance(x, (complex, np.complexfloating)):
        raise TypeError(f"{what} is a complex number ({x}), not a real discrepancy; return e.g. abs(z)")
    if isinstance(x, np.ma.MaskedArray) and np.ma.getmaskarray(x).any():
        raise TypeError(f"{what} is masked (numpy.ma: no value at all), not a number")
    if isinstance(x, np.ndarray):
        if x.size != 1:
            raise TypeError(f"{what} is an array of shape {x.shape}; return a float, or a dict name -> float")
        if x.dtype.kind == "b":
            raise TypeError(f"{what} is a bool array ({x.reshape(-1)[0]}); a check returns a discrepancy, "
                            f"e.g. abs(a - b), not a comparison")
        if x.dtype.kind == "c":
            raise TypeError(f"{what} is a complex array ({x.reshape(-1)[0]}), not a real discrepancy; "
                            f"return e.g. abs(z)")
        if x.dtype.kind in "USV":
            raise TypeError(f"{what} is an array of {x.dtype} ({str(x.reshape(-1)[0])[:40]!r}), not a number; "
                            f"return a float")
        item = np.asarray(x).reshape(()).item()
        if _depth < 4:
            return _number(item, what, _depth + 1)
        raise TypeError(f"{what} is a nested array, not a number")
    if isinstance(x, int) and not isinstance(x, bool):
        try:
            return float(x)
        except OverflowError:
            raise ValueError(f"{what} is an integer too large for a float (about 10**{int(x.bit_length() * 0.30103)}); "
                             f"return a float") from None
    try:
        v = float(x)
    except OverflowError:
        raise ValueError(f"{what} ({type(x).__name__}) is too large for a float") from None
    except (TypeError, ValueError):
        raise TypeError(f"{what} is a {type(x).__name__}, not a number") from None
    if not isinstance(v, float):
        raise TypeError(f"{what} is a {type(x).__name__}, not a number")
    return v


def normalize(value) -> float | dict[str, float]:
    """A check's return value as a float or a dict str -> float."""
    if isinstance(value, dict):
        if not value:
            raise TypeError("the check returned an empty dict")
        return {str(k): _number(v, f"entry `{k}`") for k, v in value.items()}
    return _number(value, "the returned value")


def _run_function(job: dict, rng):
    import importlib.util
    import inspect

    from recordkit.numeric.registry import REGISTRY
    path = job["path"]
    folder = job.get("checks_dir") or os.path.dirname(path)
    sys.path.insert(0, folder)
    name = os.path.splitext(os.path.basename(path))[0]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    reg = REGISTRY.get(job["id"])
    if reg is None or reg.func is None:
        raise LookupError(f"importing {path} did not register a check `{job['id']}`")
    func = reg.func
    try:
        nparams = len([p for p in inspect.signature(func).parameters.values()
                       if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)])
    except (TypeError, ValueError):
        nparams = 1
    value = func(rng) if nparams >= 1 else func()
    return value, getattr(func, "report", None)


def _run_block(job: dict, rng):
    import numpy as np
    # pad so that line numbers in tracebacks are the record file's lines
    code = "\n" * (job["code_line"] - 1) + job["source"]
    env = {"__name__": "__check__", "np": np, "numpy": np, "rng": rng}
    exec(compile(code, job["path"], "exec"), env)
    if "error" not in env:
        raise NameError("the check block did not set `error` (its discrepancy)")
    report = env.get("report")
    return env["error"], report if callable(report) or isinstance(report, str) else None


def run_check(job: dict) -> dict:
    """Run the check of ``job`` in this process; its payload."""
    import faulthandler
    faulthandler.enable(file=sys.stderr, all_threads=False)
    if job.get("dump_at"):
        # just before the runner kills us at the time limit, say where we are
        import time as _time
        faulthandler.dump_traceback_later(max(0.05, job["dump_at"] - _time.time()), exit=False)
    ballast = bytearray(4 << 20)   # freed on MemoryError so the result can still be sent
    import time
    t0 = time.perf_counter()
    try:
        import numpy as np
        rng = np.random.default_rng(job["seed"])
        if job["form"] == "block":
            value, report = _run_block(job, rng)
        else:
            value, report = _run_function(job, rng)
        value = normalize(value)
        report_text = None
        if report is not None:
            try:
                report_text = report() if callable(report) else str(report)
                report_text = None if report_text is None else str(report_text)
            except Exception as exc:  # noqa: BLE001 - a broken report must not fail the check
                report_text = f"(the check's report raised {type(exc).__name__}: {exc})"
        payload = {"status": "ok", "value": value, "report": report_text}
    except MemoryError as exc:
        del ballast
        payload = {"status": "error", "type": "MemoryError", "memory": True,
                   "message": f"MemoryError{': ' + str(exc) if str(exc) else ''}",
                   "traceback": _safe_tb(exc)}
    except SystemExit as exc:
        payload = {"status": "error", "type": "SystemExit",
                   "message": ("the check called `sys.exit()`" if exc.code is None
                               else f"the check called `sys.exit` with `{exc.code}`"), "traceback": _safe_tb(exc)}
    except BaseException as exc:  # noqa: BLE001 - everything the check does is reported
        payload = {"status": "error", "type": type(exc).__name__,
                   "message": "".join(traceback.format_exception_only(type(exc), exc)).strip(),
                   "traceback": _safe_tb(exc)}
    payload["seconds"] = time.perf_counter() - t0
    faulthandler.cancel_dump_traceback_later()
    sys.stdout.flush()
    return payload


def _check_process(job: dict, wfd: int) -> None:
    """The forked child: run the check, send the payload on ``wfd``, exit."""
    code = 0
    try:
        _die_with_parent()
        _limit_memory(job.get("memory"))
        payload = run_check(job)
        try:
            data = json.dumps(payload, allow_nan=True).encode("utf-8")
        except (TypeError, ValueError) as exc:
            data = json.dumps({"status": "error", "type": type(exc).__name__,
                               "message": f"the result cannot be sent: {exc}"}).encode()
        view = memoryview(data)
        while view:
            n = os.write(wfd, view)
            view = view[n:]
    except BaseException:  # noqa: BLE001 - never return into the supervisor's code
        code = 70
        try:
            traceback.print_exc()
        except BaseException:  # noqa: BLE001
            pass
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BaseException:  # noqa: BLE001
            pass
        os._exit(code)


def main(argv: list[str] | None = None) -> int:
    job = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    from .sandbox import supervise
    return supervise(job, _check_process)


def _safe_tb(exc: BaseException) -> str:
    try:
        return _tail_traceback(exc)
    except Exception:  # noqa: BLE001
        return f"{type(exc).__name__}: {exc}"


if __name__ == "__main__":
    sys.exit(main())
