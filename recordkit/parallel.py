"""Parse a large record on two (or more) cores.

Records are parsed in forked children, each taking a share of the files.  A
child sends its results back as plain tuples through a temporary file (pickling
dataclasses would cost more than the parsing saved); the parent parses its
own share meanwhile, then rebuilds the records.  Anything that goes wrong in
a child (an exception, a crash, a short read) makes the parent parse that
share itself, so the result never depends on whether parallelism worked.
"""
from __future__ import annotations

import os
import pickle
import sys
import threading
from pathlib import Path

from .model import Diagnostic, Record, Target
from .parse import DEFAULT_MAX_FILE_SIZE, read_record

#: below this many files the fork costs more than it saves
MIN_FILES = 2000
#: the parent's share of the files relative to a child's (see parse_parallel)
PARENT_WEIGHT = 1.25

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


def parse_serial(items, schema, analyze=None, keep_bytes: bool = False, max_size: int = DEFAULT_MAX_FILE_SIZE):
    """Parse each file; with ``analyze``, also keep ``analyze(record)`` of
    each readable record as its ``_analysis`` (run right after the parse,
    in the process that parsed it).  ``keep_bytes``: each record keeps the
    file's bytes too (a helper sends them).  ``max_size``: the largest
    file read (see :func:`recordkit.parse.read_record`)."""
    if analyze is None and not keep_bytes:
        return [read_record(path, rel, schema, False, max_size) for path, rel in items]
    out = []
    for path, rel in items:
        rec, diags = read_record(path, rel, schema, keep_bytes, max_size)
        if analyze is not None and rec.ok:
            rec.__dict__["_analysis"] = analyze(rec)
        out.append((rec, diags))
    return out


def _flat(rec: Record, diags: list[Diagnostic]) -> tuple:
    # positions of keys are left out: they are worked out again on first use
    # (for a diagnostic), which is rare, while sending them costs on every load
    # the file's bytes rather than its text: they pickle as a copy, and most
    # records' text is never read in the parent
    raw = rec.__dict__.get("_bytes")
    return (str(rec.path), rec.relpath, raw if raw is not None else rec.text, rec.meta, None, None,
            rec.fm_line, rec.fm_end_line,
            rec.body_offset, rec.body_line,
            rec.mention_targets,
            rec.suppressions, rec.kind, rec.id,
            {k: [(t.id, t.pos) for t in v] for k, v in rec.relations.items()},
            rec.__dict__.get("_code"), rec.__dict__.get("_fence_infos"), rec.__dict__.get("_analysis"),
            rec.digest, rec.stat, rec.__dict__.get("_no_fix"),
            [(d.code, d.message, d.line, d.col, d.end_line, d.end_col) for d in diags])


def _unflat(f: tuple, mention_re, p: Path) -> tuple[Record, list[Diagnostic]]:
    """The record ``_flat`` packed; ``p`` is its path as the parent has it
    (parsing the path string again would cost more than the rest)."""
    (path, relpath, text, meta, keys, values, fm_line, fm_end_line, body_offset, body_line, mention_targets,
     suppressions, kind, rid, relations, code, infos, analysis, digest, stat, no_fix, diags) = f
    is_raw = isinstance(text, bytes)
    rec = Record(path=p, relpath=relpath, _text=None if is_raw else text, _raw=text if is_raw else None,
                 meta=meta, _keys=keys, _values=values, fm_line=fm_line,
                 fm_end_line=fm_end_line, _body=None, body_line=body_line, body_offset=body_offset,
                 mention_targets=mention_targets, suppressions=suppressions, kind=kind, id=rid,
                 relations={k: [Target(i, pos) for i, pos in v] for k, v in relations.items()},
                 digest=digest, stat=stat)
    rec.__dict__["_mention_re"] = mention_re
    if code is not None:
        rec.__dict__["_code"] = code
    if infos is not None:
        rec.__dict__["_fence_infos"] = infos
    if analysis is not None:
        rec.__dict__["_analysis"] = analysis
    if no_fix is not None:
        rec.__dict__["_no_fix"] = no_fix
    return rec, [Diagnostic(c, msg, p, ln, col, el, ec) for c, msg, ln, col, el, ec in diags]


def parse_parallel(items: list, schema, jobs: int, analyze=None, max_size: int = DEFAULT_MAX_FILE_SIZE) -> list:
    """``parse_serial(items, schema, analyze, max_size=max_size)``, with
    ``jobs - 1`` forked helpers (``analyze``'s results must pickle)."""
    if jobs <= 1 or len(items) < 2:
        return parse_serial(items, schema, analyze, max_size=max_size)
    # Contiguous shares keep each child's files together on disk.  The parent
    # takes a larger share: a helper parses 15% slower per file (its first
    # writes to inherited pages cost copies) and then packs its results,
    # while the parent unpacks them only after its own share.  Measured on
    # the 10,000-file bench: 0.343 ms a file here, 0.43 ms in the helper
    # with packing, so 1.25 has both finish together.
    weights = [PARENT_WEIGHT] + [1.0] * (jobs - 1)
    total = sum(weights)
    bounds = [0]
    for w in weights:
        bounds.append(min(len(items), bounds[-1] + round(len(items) * w / total)))
    bounds[-1] = len(items)
    shares = [items[bounds[i]:bounds[i + 1]] for i in range(jobs)]
    if analyze is not None and hasattr(analyze, "before_fork"):
        analyze.before_fork()

    def in_helper(share):
        return [_flat(rec, d) for rec, d in parse_serial(share, schema, analyze, True, max_size)]

    results = fork_map(in_helper, shares, first=lambda share: parse_serial(share, schema, analyze, max_size=max_size))
    out = results[0]
    mention_re = schema.mention_re
    for share, flats in zip(shares[1:], results[1:]):
        if len(flats) == len(share) and all(f[0] == str(item[0]) for f, item in zip(flats, share)):
            out.extend(_unflat(f, mention_re, item[0]) for f, item in zip(flats, share))
        else:  # pragma: no cover - a helper that answered for other files
            STATS["fallbacks"] += 1
            out.extend(parse_serial(share, schema, analyze, max_size=max_size))
    return out


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
