"""The lint cache: when no input of a lint changed, its diagnostics are
read back instead of recomputed.

The key covers every input: recordkit's version, the schema, the
configuration and options, the content hash of every record file, the check
modules and the stored check results.  File hashes are themselves cached by
``(mtime_ns, size, inode)`` so an unchanged record is not even read.  Writes
are atomic (temp file + ``os.replace``), so concurrent runs never see a torn
file: the last writer wins and both results are valid.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from .. import __version__
from ..model import Diagnostic, Fix

CACHE_NAME = "lint-cache.json"
STAT_NAME = "file-hashes.json"


def _read_json(path: Path):
    try:
        with open(path, "r", encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


def _write_json(path: Path, data) -> None:
    from ..edit import atomic_write
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        gi = path.parent / ".gitignore"
        if not gi.exists():
            gi.write_text("*\n")
        atomic_write(path, json.dumps(data, separators=(",", ":")))
    except OSError:
        pass  # a read-only checkout lints without a cache


def unchanged_hashes(files: list[Path], cache_dir: Path) -> dict[str, str] | None:
    """The stored content hash of every file, when every file's stat
    signature ``(mtime_ns, size, inode)`` is the one stored with it; None as
    soon as one file is new, gone or touched (the lint then runs, and the
    loader hashes what it reads, on every core)."""
    old = _read_json(cache_dir / STAT_NAME)
    if not old or len(old) != len(files):
        return None
    out: dict[str, str] = {}
    for p in files:
        key = str(p)
        prev = old.get(key)
        if prev is None:
            return None
        try:
            st = os.stat(p)
        except OSError:
            return None
        if prev[0] != st.st_mtime_ns or prev[1] != st.st_size or prev[2] != st.st_ino:
            return None
        out[key] = prev[3]
    return out


def store_hashes(corpus, cache_dir: Path) -> dict[str, str]:
    """Store the signature and hash of every file the loader read; return
    the hashes."""
    sigs = {}
    for r in corpus.files:
        if r.digest is not None and r.stat is not None:
            sigs[str(r.path)] = list(r.stat) + [r.digest]
    _write_json(cache_dir / STAT_NAME, sigs)
    return {k: v[3] for k, v in sigs.items()}


def lint_key(config, schema_raw: dict, options: dict, hashes: dict[str, str]) -> str:
    h = hashlib.blake2b(digest_size=20)
    h.update(__version__.encode())
    h.update(json.dumps(schema_raw, sort_keys=True, default=str).encode())
    h.update(json.dumps(config.raw, sort_keys=True, default=str).encode())
    h.update(os.fsencode(str(config.root)))   # a file name need not be UTF-8
    h.update(json.dumps(options, sort_keys=True, default=str).encode())
    for k in sorted(hashes):
        h.update(os.fsencode(k))
        h.update(hashes[k].encode())
    # the check results and every check's source hash (its module, the local
    # modules it imports such as recordkit.measures, its inputs)
    from ..numeric.cache import fingerprint
    h.update(fingerprint(config).encode())
    return h.hexdigest()


def load(cache_dir: Path, key: str) -> list[Diagnostic] | None:
    data = _read_json(cache_dir / CACHE_NAME)
    if not data or data.get("key") != key:
        return None
    out = []
    for d in data["diagnostics"]:
        fix = Fix(**d["fix"]) if d.get("fix") else None
        out.append(Diagnostic(d["code"], d["message"], Path(d["path"]), d["line"], d["col"],
                              d.get("end_line"), d.get("end_col"), d["severity"], d.get("record"), fix))
    return out


def store(cache_dir: Path, key: str, diags: list[Diagnostic]) -> None:
    rows = []
    for d in diags:
        rows.append({"code": d.code, "message": d.message, "path": str(d.path), "line": d.line, "col": d.col,
                     "end_line": d.end_line, "end_col": d.end_col, "severity": d.severity, "record": d.record,
                     "fix": ({"start": d.fix.start, "end": d.fix.end, "content": d.fix.content,
                              "message": d.fix.message} if d.fix else None)})
    _write_json(cache_dir / CACHE_NAME, {"key": key, "diagnostics": rows})
