"""LOAD: what the site is built from, gathered once.

The record (:func:`recordkit.load`), the check results and every record's
check entries, the standings of the lifecycle, and the dates.  This is the
one module of the site that imports the lifecycle and the numeric checks,
so a move of those modules touches one file here.
"""
from __future__ import annotations

import datetime as _dt
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from ...corpus import Corpus

FAILING = ("fail", "error", "timeout", "crashed")


@dataclass
class SiteData:
    corpus: Corpus
    results: dict = field(default_factory=dict)          # check id -> CheckResult
    specs: dict = field(default_factory=dict)            # check id -> CheckSpec
    duplicates: dict = field(default_factory=dict)
    checks_of: dict = field(default_factory=dict)        # record id -> [check id]
    cited_by: dict = field(default_factory=dict)         # check id -> [record id]
    standings: dict = field(default_factory=dict)        # record id -> Standing
    git_dates: dict = field(default_factory=dict)        # relpath -> ISO date of the last commit


def gather(corpus: Corpus, dates: str = "fields") -> SiteData:
    from ...lifecycle import standings
    from ...numeric.discover import citations, discover_all
    from ...numeric.store import load_results
    data = SiteData(corpus)
    disc = discover_all(corpus)
    data.specs, data.duplicates = disc.checks, disc.duplicates
    try:
        data.results = load_results(corpus, disc.checks)
    except (OSError, ValueError):   # an unreadable results cache: every check "not run"
        data.results = {}
    data.cited_by = citations(corpus, disc.checks)
    for cid, rids in data.cited_by.items():
        for rid in rids:
            data.checks_of.setdefault(rid, []).append(cid)
    data.standings = standings(corpus, data.results)
    if dates == "git":
        data.git_dates = git_dates(corpus.root)
    return data


def check_entry(data: SiteData, cid: str) -> dict:
    """A check as a page shows it: verdict, measured discrepancy against
    tolerance, when it ran, and a CSS class for the verdict."""
    spec = data.specs.get(cid)
    r = data.results.get(cid)
    e = {"id": cid, "claim": spec.claim if spec else "", "form": spec.form if spec else None,
         "tolerance": spec.tolerance if spec else None, "discrepancy": None, "ran_at": None,
         "seconds": None, "message": None, "worst": None}
    if spec is None:
        e.update(verdict="unknown check", cls="unknown")
    elif cid in data.duplicates:
        e.update(verdict="defined more than once", cls="error")
    elif r is None:
        e.update(verdict="not run", cls="unknown")
    elif r.stale:
        e.update(verdict=f"stale (last {r.verdict})", cls="stale", ran_at=r.ran_at or None)
    else:
        e.update(verdict=r.verdict, cls=r.verdict if r.verdict in ("pass", *FAILING) else "unknown",
                 discrepancy=r.discrepancy, ran_at=r.ran_at or None, seconds=r.seconds,
                 message=r.message or None, worst=r.worst)
    d, tol = e["discrepancy"], e["tolerance"]
    if isinstance(d, float) and isinstance(tol, float):
        e["measured"] = f"{d:.3g} {'≤' if d <= tol else '>'} {tol:.3g}"
    elif isinstance(tol, float):
        e["measured"] = f"tolerance {tol:.3g}"
    else:
        e["measured"] = ""
    return e


def git_dates(root: Path) -> dict[str, str]:
    """relpath (relative to ``root``) -> date of the last commit that
    touched it, from one ``git log`` over the whole history (not one per
    file).  Empty outside a git work tree or without git."""
    try:
        top = subprocess.run(["git", "-C", str(root), "rev-parse", "--show-toplevel"],
                             capture_output=True, text=True, timeout=30)
        if top.returncode != 0:
            return {}
        proc = subprocess.run(["git", "-c", "core.quotePath=false", "-C", str(root), "log",
                               "--format=\x01%ct", "--name-only", "--no-renames", "--", "."],
                              capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.SubprocessError):
        return {}
    if proc.returncode != 0:
        return {}
    prefix = Path(root).resolve().relative_to(Path(top.stdout.strip()).resolve()).as_posix()
    prefix = "" if prefix == "." else prefix + "/"
    out: dict[str, str] = {}
    stamp = None
    for line in proc.stdout.split("\n"):
        if line.startswith("\x01"):
            stamp = _dt.datetime.fromtimestamp(int(line[1:]), _dt.timezone.utc).date().isoformat()
        elif line and stamp and line.startswith(prefix):
            out.setdefault(line[len(prefix):], stamp)   # newest first: the first seen is the last change
    return out


# -- the site's record cache ------------------------------------------------------------
#
# A fresh ``recordkit build`` on an existing site should not parse 10,000
# files again (2.6 s of CPU) to find the one that changed.  The cache keeps
# every file's parse (front matter, relations, mentions, code ranges,
# diagnostics: what :class:`recordkit.corpus.parallel.ParsedRecord` holds,
# without the text) under its stat signature ``(mtime_ns, size, inode,
# ctime_ns)``; a file whose signature is unchanged is taken from the cache
# and its text is read from the file only when a page needs it.  As in the
# lint cache (:func:`recordkit.lint.cache.unchanged_hashes`), a file whose
# change time is within ``RACY_NS`` of the moment the cache was written
# proves nothing by its stat and is parsed again.  The cache is cut into
# buckets by a hash of the path, so after an edit one bucket is written,
# not the whole cache.

CACHE_VERSION = 2
CACHE_BUCKETS = 64

#: corpus -> {path: digest of the front matter text}: what the graph page
#: shows of a record comes from its front matter and edges, not its body
FM_DIGESTS: "weakref.WeakKeyDictionary" = None   # set below


def _init_weak():
    global FM_DIGESTS
    import weakref
    FM_DIGESTS = weakref.WeakKeyDictionary()


_init_weak()


def _lazy_record_class():
    from ...corpus.model import Record

    class CachedRecord(Record):
        """A record restored from the site's cache: its text is read from
        its file on first use (the file's stat is what the cache saw)."""
        __slots__ = ()

        @Record.text.getter      # the setter stays Record's
        def text(self) -> str:
            if self._text is None:
                if self._raw is None:
                    try:
                        with open(self.path, "rb") as fh:
                            self._raw = fh.read()
                    except OSError:
                        self._raw = b""
                self._text = self._raw.decode("utf-8", "replace")
                self._raw = None
            return self._text

    return CachedRecord


_CachedRecord = None


def fm_digest(rec) -> str:
    import hashlib
    if rec.meta is None:
        return ""
    return hashlib.blake2b(rec.text[:rec.body_offset].encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


def front_matter_digests(corpus) -> dict:
    """{path: digest of its front matter} for every record of ``corpus``
    (from the cache when it loaded the corpus)."""
    d = FM_DIGESTS.get(corpus)
    if d is None:
        d = {str(r.path): fm_digest(r) for r in corpus.records.values()}
        FM_DIGESTS[corpus] = d
    return d


def _cache_folder(config, root: Path) -> Path:
    import hashlib
    return Path(config.cache_dir) / "site-records" / hashlib.sha1(str(root).encode()).hexdigest()[:16]


def _cache_key(config, schema_raw) -> str:
    import hashlib
    from ...version import __version__
    import json as _json
    return hashlib.sha1(_json.dumps([CACHE_VERSION, __version__, schema_raw, config.max_file_size],
                                    sort_keys=True, default=str).encode()).hexdigest()


def _bucket(path: str) -> int:
    import zlib
    return zlib.crc32(path.encode("utf-8", "surrogatepass")) % CACHE_BUCKETS


class RecordCache:
    """The parsed records of one record root, in memory and on disk
    (``<cache_dir>/site-records/<hash of the root>/N.pickle``).  ``serve``
    keeps one alive between rebuilds; ``recordkit build`` reads it from disk."""

    def __init__(self, config, root: Path):
        from ...lint.cache import schema_fingerprint
        self.config, self.root = config, Path(root)
        self.folder = _cache_folder(config, self.root)
        self.key = _cache_key(config, schema_fingerprint(config))
        # path -> (stat signature, flat ParsedRecord without the text, front
        # matter digest, time.time_ns() from before the file was read)
        self.entries: dict | None = None
        self.dirty: set = set()

    def _read(self) -> None:
        import pickle
        self.entries = {}
        for k in range(CACHE_BUCKETS):
            try:
                with open(self.folder / f"{k}.pickle", "rb") as fh:
                    data = pickle.load(fh)
            except Exception:   # missing, torn or of another version: parsed again
                self.dirty.add(k)
                continue
            if not isinstance(data, dict) or data.get("key") != self.key:
                self.dirty.add(k)
                continue
            self.entries.update(data["entries"])

    def save(self) -> None:
        import pickle
        from .writer import write_atomic
        if not self.dirty:
            return
        by: dict = {k: {} for k in self.dirty}
        for p, e in self.entries.items():
            b = _bucket(p)
            if b in by:
                by[b][p] = e
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            for k, entries in by.items():
                write_atomic(self.folder / f"{k}.pickle",
                             pickle.dumps({"key": self.key, "entries": entries},
                                          protocol=pickle.HIGHEST_PROTOCOL))
            self.dirty.clear()
        except OSError:
            pass   # a read-only cache folder: the next build parses again

    def load(self, files: list | None = None):
        """The corpus, parsing only the files whose stat changed since the
        cache saw them (and those changed just around then).  Returns the
        corpus and the set of paths parsed again."""
        import os
        import time
        from ...common.gcpause import gc_paused
        from ...corpus.loader import Corpus, iter_files
        from ...corpus.model import Diagnostic
        from ...corpus.parallel import _flat, ParsedRecord
        from ...corpus.parse import read_record
        from ...schema import load_schema
        from ...lint.cache import RACY_NS
        global _CachedRecord
        if _CachedRecord is None:
            _CachedRecord = _lazy_record_class()
        config = self.config
        root = self.root.resolve()
        schema = load_schema(config.schema)
        if self.entries is None:
            self._read()
        started = time.time_ns()
        if files is None:
            files = iter_files(root, config.exclude)
        prefix = len(str(root)) + 1
        corpus = Corpus(root=root, schema=schema, config=config)
        fms = {}
        entries = self.entries
        seen = set()
        parsed_again = set()
        mention_re = schema.mention_re
        derive_fields = {r.get("from_field") for r in schema.derive}
        from ...corpus.model import Target
        slots: list = []          # (path, record, diagnostics) or (path, None, relpath) to parse
        todo = []
        with gc_paused():
            for path in files:
                key = str(path)
                seen.add(key)
                e = entries.get(key)
                if e is not None:
                    try:
                        st = os.stat(path)
                        sig = (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)
                    except OSError:
                        sig = None
                    # a change in the clock tick of the read keeps the stat: re-read such a file
                    if sig == e[0] and max(sig[0], sig[3]) < e[3] - RACY_NS:
                        f = ParsedRecord._make(e[1])
                        rec = _CachedRecord(
                            path=path, relpath=f.relpath, _text=None, _raw=None, meta=f.meta, fm_line=f.fm_line,
                            fm_end_line=f.fm_end_line, _body=None, body_line=f.body_line,
                            body_offset=f.body_offset, mention_targets=f.mention_targets,
                            suppressions=f.suppressions, kind=f.kind, id=f.id,
                            relations={k: [Target(i, pos) for i, pos in v] for k, v in f.relations.items()},
                            digest=f.digest, stat=f.stat, code=f.code, fence_infos=f.fence_infos,
                            mention_re=mention_re, no_fix=f.no_fix)
                        if e[4]:
                            # the positions of the fields derived edges read (else one more
                            # YAML parse each); any other position is worked out in full
                            rec._values = e[4]
                        diags = [Diagnostic(c, msg, path, ln, col, el, ec) for c, msg, ln, col, el, ec in f.diagnostics]
                        fms[key] = e[2]
                        slots.append((path, rec, diags))
                        continue
                rel = key[prefix:].replace(os.sep, "/")
                slots.append((path, None, rel))
                todo.append((path, rel))
            if todo:
                from ...common.fork import default_jobs
                from ...corpus.parallel import parse_parallel
                parsed = iter(parse_parallel(todo, schema, default_jobs(len(todo)), max_size=config.max_file_size))
            for path, rec, diags in slots:
                if rec is None:
                    key = str(path)
                    rec, diags = next(parsed)
                    parsed_again.add(key)
                    flat = list(_flat(rec, diags))
                    flat[2] = None            # the text stays in the file
                    fms[key] = fm_digest(rec)
                    if rec.stat is not None:
                        vals = rec._values
                        part = {k: v for k, v in vals.items() if k and k[0] in derive_fields} if vals else None
                        entries[key] = (rec.stat, tuple(flat), fms[key], started, part or None)
                        self.dirty.add(_bucket(key))
                    elif key in entries:
                        del entries[key]
                        self.dirty.add(_bucket(key))
                corpus.files.append(rec)
                corpus.diagnostics.extend(diags)
                if rec.ok and rec.id not in corpus.records:
                    corpus.records[rec.id] = rec
        for key in [k for k in entries if k not in seen]:
            del entries[key]
            self.dirty.add(_bucket(key))
        FM_DIGESTS[corpus] = fms
        return corpus, parsed_again
