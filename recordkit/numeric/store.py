"""The result store: ``<cache_dir>/checks.json``, and the one way to load
a record's results (:func:`load_results`).

Format: ``{"version": 1, "results": {check id: CheckResult.to_json()}}``.
Each result carries the source hash of the check when it ran; a result is
reused only while that hash matches (see :mod:`recordkit.numeric.discover`).

Writes are atomic (a temporary file renamed over the old one, via
:func:`recordkit.common.writes.atomic_write`), so a reader never sees half a file.
Two runs that finish at the same time do not lose each other's results: a
writer takes an exclusive ``flock`` on ``checks.lock``, re-reads the file,
merges its own results into it and writes it back.
"""
from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from ..common.writes import atomic_write
from .discover import discover, function_checks
from .results import CheckResult

CACHE_FILE = "checks.json"
VERSION = 1


def cache_path(cache_dir) -> Path:
    return Path(cache_dir) / CACHE_FILE


def read_cache(cache_dir) -> dict[str, CheckResult]:
    """id -> result, from the cache; empty when there is none or it is
    unreadable (a corrupt cache is ignored, and rewritten by the next run)."""
    p = cache_path(cache_dir)
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("version") != VERSION or not isinstance(data.get("results"), dict):
        return {}
    out = {}
    for cid, d in data["results"].items():
        try:
            out[cid] = CheckResult.from_json(d)
        except (TypeError, ValueError):
            continue
    return out


@contextlib.contextmanager
def _locked(cache_dir: Path):
    lock = cache_dir / "checks.lock"
    fh = open(lock, "a+")
    try:
        try:
            import fcntl
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        except ImportError:  # pragma: no cover - not POSIX: atomic replace only
            pass
        yield
    finally:
        fh.close()   # releases the lock


def write_results(cache_dir, results: dict[str, CheckResult], keep: set[str] | None = None) -> None:
    """Merge ``results`` into the cache.  ``keep``: when given, entries for
    ids outside it (checks that no longer exist) are dropped."""
    cache_dir = Path(cache_dir)
    cache_dir.mkdir(parents=True, exist_ok=True)
    from ..common.writes import ignore_in_git
    ignore_in_git(cache_dir)
    with _locked(cache_dir):
        current = read_cache(cache_dir)
        for cid, r in results.items():
            current[cid] = r
        if keep is not None:
            current = {k: v for k, v in current.items() if k in keep}
        payload = {"version": VERSION,
                   "results": {cid: _stored(r) for cid, r in sorted(current.items())}}
        # ASCII: a check module's file name that is not UTF-8 (a lone surrogate here) is kept as \udcff
        atomic_write(cache_path(cache_dir), json.dumps(payload, indent=1) + "\n")


def _stored(r: CheckResult) -> dict:
    d = r.to_json()
    d.pop("cached", None)
    d.pop("stale", None)
    return d


def clear(cache_dir) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(cache_path(cache_dir))


def fingerprint(config) -> str:
    """A hash of everything check results and check discovery depend on
    outside the record files: the cache file, and each function check's id
    and source hash (which covers its module, the local modules it imports
    and its inputs).  A cache of lint output must include it in its key, or
    RK50x diagnostics go stale when checks run or change.  Reads the check
    modules with :mod:`ast`; needs no corpus."""
    import hashlib

    h = hashlib.sha256()
    try:
        h.update(cache_path(config.cache_dir).read_bytes())
    except OSError:
        h.update(b"<no results>")
    problems: list = []
    for spec in function_checks(config.checks, problems, max_size=config.max_file_size):
        h.update(f"{spec.id}\0{spec.hash}\0".encode("utf-8", "surrogatepass"))
    for p in problems:     # (a check module's file name need not be UTF-8)
        h.update(str(p).encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def load_results(corpus, specs=None) -> dict[str, CheckResult]:
    """id -> :class:`CheckResult` for every current check of ``corpus`` that
    has a cached result; ``stale`` is set when the check's source changed
    since.  Checks never run are absent.  ``specs`` (from
    :func:`recordkit.numeric.discover.discover`) saves a second discovery."""
    if specs is None:
        specs = discover(corpus)
    cached = read_cache(corpus.config.cache_dir)
    out = {}
    for cid, spec in specs.items():
        r = cached.get(cid)
        if r is None:
            continue
        # a result other than an error for a check that is now refused (bad
        # tolerance=, unknown key) was made before it was refused: not current
        r.stale = r.hash != spec.hash or bool(spec.run_problem and r.verdict != "error")
        if not r.stale:     # the same source, perhaps moved: say where it is now
            r.tolerance = spec.tolerance
            r.path, r.line, r.form, r.claim = spec.path, spec.line, spec.form, spec.claim
        out[cid] = r
    return out
