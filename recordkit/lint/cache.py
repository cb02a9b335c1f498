"""The lint cache: when no input of a lint changed, its diagnostics are
read back instead of recomputed.

The key covers every input: recordkit's version, the schema, the
configuration and options, the content hash of every record file, the check
modules and the stored check results.  Beside it the cache keeps the files
that Markdown links were looked for outside the records (in a skipped
folder, outside the root) with whether each was a file, and checks them
again when it is read: a lint is answered from the cache only when each
still is, or still is not, there.  File hashes are themselves cached by
``(mtime_ns, size, inode, ctime_ns)`` so an unchanged record is not even
read (but for files changed just around the last read: see
:func:`unchanged_hashes`).  Writes
are atomic (temp file + ``os.replace``), so concurrent runs never see a torn
file: the last writer wins and both results are valid.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from ..version import code_fingerprint
from ..common.writes import atomic_write, content_digest, ignore_in_git, read_bytes, remove_stale_temps
from ..corpus.model import Diagnostic, Fix
from ..numeric.store import fingerprint
from ..runtime import freshness
from ..runtime.freshness import FileKey
from ..schema import default_schema_raw

CACHE_NAME = "lint-cache.json"
STAT_NAME = "file-hashes.json"


def _read_json(path: Path):
    try:
        with open(path, "r", encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


def _write_json(path: Path, data) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        ignore_in_git(path.parent)
        remove_stale_temps([path.parent], suffix=".json")   # of a killed run
        atomic_write(path, json.dumps(data, separators=(",", ":")))
    except OSError:
        pass  # a read-only checkout lints without a cache


def unchanged_hashes(files: list[Path], cache_dir: Path) -> dict[str, str] | None:
    """The content hash of every file, as stored by :func:`store_hashes`,
    when nothing changed; None as soon as one file is new, gone or changed
    (the lint then runs, and the loader hashes what it reads, on every core).

    A file is taken as unchanged when its
    :class:`~recordkit.runtime.freshness.FileKey` is the stored one; a file
    changed within the racy window of the stored read is read and hashed
    again (:func:`recordkit.runtime.freshness.unchanged_hashes`), and when
    that makes every such file old enough, the keys are stored anew (so it
    is hashed once, not on every run).  Reading and hashing every file
    instead would cost more than the whole warm lint may take."""
    old = _read_json(cache_dir / STAT_NAME)
    if not isinstance(old, dict) or old.get("v") != 2 or not isinstance(old.get("files"), dict):
        return None
    entries, since = old["files"], old.get("t", 0)

    def digest_of(path: str) -> str | None:
        data = read_bytes(Path(path))
        return None if data is None else content_digest(data)
    got = freshness.unchanged_hashes(entries, since, ((str(p), FileKey.at(p)) for p in files), len(files),
                                     digest_of)
    if got.settled:
        _write_json(cache_dir / STAT_NAME, {"v": 2, "t": got.settled, "files": entries})
    return got.hashes


def store_hashes(corpus, cache_dir: Path, started_ns: int) -> dict[str, str]:
    """Store the signature and hash of every file the loader read; return
    the hashes.  ``started_ns``: ``time.time_ns()`` from before the loader
    read the first file (see :func:`unchanged_hashes`)."""
    sigs = {}
    for r in corpus.files:
        if r.digest is not None and r.stat is not None and len(r.stat) == 4:
            sigs[str(r.path)] = list(r.stat) + [r.digest]
    _write_json(cache_dir / STAT_NAME, {"v": 2, "t": started_ns, "files": sigs})
    return {k: v[4] for k, v in sigs.items()}


def schema_fingerprint(config) -> dict:
    """What the schema is made of: the default schema and the user's file."""
    from ..schema import config_layers, schema_fingerprint_texts
    raw = {"default": default_schema_raw()}
    if config.schema is not None:
        layers, _error = config_layers(config)     # (as the walk read them: once a command)
        raw["user"] = schema_fingerprint_texts(config.schema, layers)   # the file and what it extends
    return raw


def lint_key(config, schema_raw: dict, options: dict, hashes: dict[str, str]) -> str:
    h = hashlib.blake2b(digest_size=20)
    h.update(code_fingerprint().encode())      # (the version, and every file of the package)
    # entries written before diagnostics carried `about`, or fixes their applicability, do not match
    h.update(b"diagnostics-with-about-and-applicability, abouts shared")
    # results of an older scan do not match: RK112, no mention in a link's address, %% comments
    h.update(b"2026-12-05: rk112, addresses, percent comments, definitions, derived rk301")
    h.update(json.dumps(schema_raw, sort_keys=True, default=str).encode())
    h.update(json.dumps(config.raw, sort_keys=True, default=str).encode())
    h.update(os.fsencode(str(config.root)))   # a file name need not be UTF-8
    # the Dendron workspace's dendron.yml names the vault: which cross-vault
    # links (``dendron://vault/…``) name its notes (RK305)
    from ..corpus.vaults import dendron_config_bytes
    h.update(dendron_config_bytes(config.root))
    h.update(json.dumps(options, sort_keys=True, default=str).encode())
    for k in sorted(hashes):
        h.update(os.fsencode(k))
        h.update(hashes[k].encode())
    # the check results and every check's source hash (its module, the local
    # modules it imports such as recordkit.measures, its inputs)
    h.update(fingerprint(config).encode())
    return h.hexdigest()


def outside_files_unchanged(consulted) -> bool:
    """Whether each file a lint looked for outside the records (a Markdown
    link to a file that is no record: in a skipped folder, outside the root;
    see :attr:`recordkit.corpus.resolve.Resolver.files_consulted`) still is,
    or still is not, a file.  The records' hashes do not cover them: a link
    to such a file that is deleted (or created) changes the lint's answer
    (RK305) with no record changed."""
    if not isinstance(consulted, dict):
        return False
    return all(os.path.isfile(path) == bool(was) for path, was in consulted.items())


def load(cache_dir: Path, key: str) -> list[Diagnostic] | None:
    data = _read_json(cache_dir / CACHE_NAME)
    if not data or data.get("key") != key:
        return None
    if not outside_files_unchanged(data.get("outside", {})):
        return None
    out = []
    shared = [tuple(a) for a in data.get("abouts") or ()]
    for d in data["diagnostics"]:
        fix = Fix(**d["fix"]) if d.get("fix") else None
        about = d.get("about")
        about = shared[about] if isinstance(about, int) else tuple(about or ())
        out.append(Diagnostic(d["code"], d["message"], Path(d["path"]), d["line"], d["col"],
                              d.get("end_line"), d.get("end_col"), d["severity"], d.get("record"), fix,
                              about))
    return out


#: an ``about`` of more ids than this is written once in the cache's
#: ``abouts`` and named by its index: an ambiguous link among thousands of
#: notes sharing a title gives each of its thousands of diagnostics the same
#: candidates (the cache of 6,000 such notes was 446 MB)
SHARED_ABOUT = 8


def store(cache_dir: Path, key: str, diags: list[Diagnostic], outside: dict[str, bool] | None = None) -> None:
    """Store ``diags`` under ``key``; ``outside``: the files looked for
    outside the records, each with whether it was a file (checked again by
    :func:`load`)."""
    rows = []
    abouts: list[list] = []
    index: dict = {}
    for d in diags:
        about = d.about
        if len(about) > SHARED_ABOUT:
            ref = index.get(id(about))      # (the same tuple object: a tuple's hash is not kept)
            if ref is None:
                ref = index[id(about)] = len(abouts)
                abouts.append(list(about))
            about = ref
        else:
            about = list(about)
        rows.append({"code": d.code, "message": d.message, "path": str(d.path), "line": d.line, "col": d.col,
                     "end_line": d.end_line, "end_col": d.end_col, "severity": d.severity, "record": d.record,
                     "about": about,
                     "fix": ({"start": d.fix.start, "end": d.fix.end, "content": d.fix.content,
                              "message": d.fix.message, "applicability": d.fix.applicability}
                             if d.fix else None)})
    _write_json(cache_dir / CACHE_NAME, {"key": key, "diagnostics": rows, "abouts": abouts,
                                         "outside": dict(outside or {})})
