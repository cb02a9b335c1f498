"""The store of parsed records: the one cache of what parsing each file gave.

``recordkit lint``, ``export``, ``query``, ``build`` and ``serve`` load the
record through it (:func:`recordkit.corpus.load` with ``store=``), so a file
parsed by one command is not parsed again by the next while it is unchanged:
a record linted by pre-commit or CI is exported, queried or published
without reading its front matter again.

What is kept of a file is what :class:`recordkit.corpus.store.wire.ParsedRecord`
holds (front matter, relations with their positions, mention targets and
where each is, code ranges, fence infos, suppressions, id, kind, title, the
load diagnostics),
without the text, under the file's :class:`~recordkit.runtime.freshness.FileKey`.  A file
whose key is unchanged is taken from the store and its text is read from
the file only when something asks for it.  As in every cache that trusts a
stat (:mod:`recordkit.runtime.freshness`), a file whose modification or
change time is within the racy window of the moment the store read it
proves nothing by its stat (an edit in the same clock tick keeps it) and is
parsed again.  The key of the store holds recordkit's
version, PyYAML's, the schema (the default one and the user's files) and
``max_file_size``: whatever else changes a parse.  A record's links are
resolved after every load (:func:`recordkit.corpus.resolve.resolve_links`),
never kept resolved.

Per-record results of a loader ``analyze`` function that depend on nothing
but the record and the schema (those with ``cacheable = True``: the SQL rows
of :class:`recordkit.sql.database.RowAnalysis`) are kept beside the record;
any other analysis runs again on the records taken from the store, on every
core, unless it says ``on_restore = False`` (the SQL rows do: a record from
the store without them, as a lint leaves it, gets them where the database
is built).

On disk: ``<cache_dir>/records/<hash of the root>/N.pickle``, the entries
cut into :data:`BUCKETS` files by a hash of the path, so after an edit one
bucket is written, not the whole store.  A bucket that cannot be read (torn,
corrupt, of another version) counts as empty; entries of files that are no
longer walked are dropped when the store is saved, so it never holds more
than the record.
"""
from __future__ import annotations

import hashlib
import json
import os
import pickle
import time
import zlib
from pathlib import Path
from typing import NamedTuple

from ...runtime import batch, split, spread, workers
from ...runtime.freshness import FileKey, is_fresh
from ...runtime.snapshot import fast_dumps
from ...common.writes import replace_file
from ..analyses import before_fork, traits
from ..model import Record
from ..source import Source, body_bytes
from .parallel import parse_parallel
from .wire import ParsedRecord, StoreEntry, flat, unflat

#: bump when what an entry holds changes
VERSION = 6
BUCKETS = 64


class FileSource(Source):
    """The content of a record restored from the store: nothing until asked,
    then read from its file (whose stat is what the store saw).  The file
    may have changed since (an editor saved it after the load, a command
    wrote it): its text is then the new one, not the one its record was
    parsed from, and ``changed`` says so (the stat is not the stored one
    and the bytes do not hash to the stored digest), so that
    :meth:`parsed_from` is False and a copy of the corpus with that text
    parses it again rather than keeping the old parse."""
    __slots__ = ("path", "changed")

    def __init__(self, path: Path, digest: str | None = None, stat: tuple | None = None):
        Source.__init__(self, None, None, digest, stat)
        self.path = path
        self.changed = False

    def _decode(self) -> str:
        raw = self._raw
        if raw is None:
            raw, same = _read_checked(self.path, self.stat, self.digest)
            if not same:
                self.changed = True
        return raw.decode("utf-8", "replace")

    def parsed_from(self, text: str) -> bool:
        return self.text() == text and not self.changed

    def release(self) -> None:
        """Let go of the content: it is read from the file again when asked."""
        self._text = self._raw = self._body = self._line_starts = None

    def body_utf8(self, offset: int) -> str | memoryview:
        if self._text is not None or self._body is not None or self._raw is not None:
            return Source.body_utf8(self, offset)
        # read here, where ``text`` would read it, when the file's stat is
        # still the one it was parsed from (else as ``text`` reads it:
        # unreadable, or changed since, decoded with replacement characters)
        raw = _read_if_unchanged(self.path, self.stat)
        if raw is None:
            return self.body(offset)
        return body_bytes(raw, offset)


def _read_checked(path, stat, digest) -> tuple[bytes, bool]:
    """The file's bytes (``b""`` when it cannot be read), and whether they
    are the ones its record was parsed from: its stat signature is still
    ``stat`` before and after the read, or else its bytes hash to
    ``digest`` (a stat changed by a ``touch``, the content not)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    except OSError:
        return b"", False
    try:
        before = _key(os.fstat(fd))
        chunks = []
        while True:
            b = os.read(fd, 1 << 20)
            if not b:
                break
            chunks.append(b)
        after = _key(os.fstat(fd))
    except OSError:
        return b"", False
    finally:
        os.close(fd)
    raw = b"".join(chunks)
    if stat is not None and before == after == tuple(stat):
        return raw, True
    return raw, digest is not None and hashlib.sha256(raw).hexdigest()[:32] == digest


def _key(st) -> tuple:
    return (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)


def _read_if_unchanged(path, stat) -> bytes | None:
    """The file's bytes, or None when it cannot be read or its stat
    signature ``(mtime_ns, size, inode, ctime_ns)`` is no longer ``stat``
    (the one its record was parsed from: the file changed since)."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if stat is None or (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns) != tuple(stat):
            return None
        chunks = []
        while True:
            b = os.read(fd, 1 << 20)
            if not b:
                data = b"".join(chunks)
                return data if len(data) == st.st_size else None
            chunks.append(b)
    except OSError:
        return None
    finally:
        os.close(fd)


class Restored(NamedTuple):
    """A record restored from the store, kept for the next parse (serve)."""
    entry: StoreEntry
    record: Record
    diagnostics: list


class CachedRecord(Record):
    """A record restored from the store, its text read from its file on
    first use (:class:`FileSource`).  The positions of the fields a derive
    rule reads are kept (``_values`` then holds those alone, ``_keys``
    None); any other position works out every position from the text, as
    for a record parsed in a helper process."""
    __slots__ = ()

    @Record.keys.getter
    def keys(self) -> dict:
        if self._keys is None:
            self._positions()
        return self._keys

    @Record.values.getter
    def values(self) -> dict:
        if self._keys is None:       # only the derive fields' positions were kept
            self._positions()
        return self._values

    def value_pos(self, *path):
        if self._keys is None:
            part = self._values
            if part is not None and path in part:
                return part[path]
        return Record.value_pos(self, *path)


def fm_digest(rec: Record) -> str:
    """A digest of the front matter's text ("" without one): what the
    site's graph page shows of a record comes from it, not the body."""
    if rec.meta is None:
        return ""
    return hashlib.blake2b(rec.text[:rec.body_offset].encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


def store_key(config) -> str:
    """What a parse depends on beside the file: recordkit's and PyYAML's
    versions, the schema's files, ``max_file_size``."""
    import yaml
    from ...schema import default_schema_raw, schema_fingerprint_texts
    from ...version import code_fingerprint
    spec = config.schema
    return hashlib.sha1(json.dumps(
        [VERSION, code_fingerprint(), yaml.__version__, default_schema_raw(),
         schema_fingerprint_texts(spec) if spec is not None else None, str(spec), config.max_file_size],
        sort_keys=True, default=str).encode()).hexdigest()


def store_folder(config, root: Path) -> Path:
    return Path(config.cache_dir) / "records" / hashlib.sha1(os.fsencode(str(root))).hexdigest()[:16]


def _bucket(path: str) -> int:
    return zlib.crc32(path.encode("utf-8", "surrogatepass")) % BUCKETS


class RecordStore:
    """The parsed records of one record root, in memory and on disk.

    ``parse(items, schema, jobs, analyze)`` is :func:`parse_parallel` that
    takes what it can from the store; ``save()`` writes the buckets that
    changed.  A long-lived process (``recordkit serve``) keeps one alive
    between loads; a command reads it from disk.  ``parsed_again``: the
    paths the last ``parse`` parsed (not taken from the store);
    ``fm_digests``: path -> :func:`fm_digest` of the last ``parse``'s files,
    or None where it was not worked out (see :meth:`front_matter_digests`)."""

    def __init__(self, config, root: str | Path | None = None):
        self.config = config
        self.root = Path(config.root if root is None else root).resolve()
        self.folder = store_folder(config, self.root)
        self.key = store_key(config)
        #: path -> StoreEntry (on disk: plain tuples, read back by name)
        self.entries: dict | None = None
        self.dirty: set[int] = set()
        self.parsed_again: set[str] = set()
        self.fm_digests: dict[str, str] = {}
        self.hits = 0
        #: path -> :class:`Restored` by the last parse, when the owner asks
        #: for records to be reused (``restored = {}``: serve)
        self.restored: dict | None = None
        self.restored_schema = None

    # -- disk ------------------------------------------------------------------
    def _read(self) -> None:
        self.entries = {}
        for k in range(BUCKETS):
            try:
                with open(self.folder / f"{k}.pickle", "rb") as fh:
                    data = pickle.load(fh)
                if not isinstance(data, dict) or data.get("key") != self.key \
                        or not isinstance(data.get("entries"), dict):
                    raise ValueError("another version")
                entries = data["entries"]
                for p, e in entries.items():
                    if not (isinstance(p, str) and isinstance(e, tuple) and len(e) == 6 and _bucket(p) == k):
                        raise ValueError("malformed entry")
                entries = {p: StoreEntry._make(e) for p, e in entries.items()}
            except FileNotFoundError:
                continue
            except Exception:   # torn, corrupt or of another version: parsed again, rewritten
                self.dirty.add(k)
                continue
            self.entries.update(entries)

    def save(self) -> None:
        """Write the buckets that changed (to a temporary file, then renamed:
        a reader never sees half a bucket).  A folder that cannot be written
        leaves the store as it was: the next load parses again."""
        if not self.dirty or self.entries is None:
            return
        by: dict = {k: {} for k in self.dirty}
        for p, e in self.entries.items():
            b = _bucket(p)
            if b in by:
                by[b][p] = tuple(e)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            cache_dir = Path(self.config.cache_dir)
            from ...common.writes import ignore_in_git
            ignore_in_git(cache_dir)
            if (cache_dir / "site-records").is_dir():     # the site's own cache, before this store
                import shutil
                shutil.rmtree(cache_dir / "site-records", ignore_errors=True)
            for k, entries in by.items():
                replace_file(self.folder / f"{k}.pickle", _dumps({"key": self.key, "entries": entries}))
            self.dirty.clear()
        except OSError:
            pass

    # -- loading ------------------------------------------------------------------
    def parse(self, items: list, schema, jobs: int, analyze=None, max_size: int | None = None,
              whole: bool = True, results: dict | None = None) -> list:
        """``parse_parallel(items, schema, jobs, analyze, max_size, results=results)``,
        parsing only the files whose stat changed since the store saw them
        (and those changed just around then).  ``whole``: ``items`` are
        every file of the root, so entries of other paths are dropped."""
        from ..parse import DEFAULT_MAX_FILE_SIZE
        if max_size is None:
            max_size = DEFAULT_MAX_FILE_SIZE
        if results is None:
            results = {}
        if self.entries is None:
            self._read()
        entries = self.entries
        started = time.time_ns()
        akey, cacheable, on_restore = traits(analyze)
        mention_re = schema.mention_re
        derive_fields = {r.get("from_field") for r in schema.derive}
        # a long-lived reader (serve) takes the record it restored last time
        # for an entry that is still the same (resolving links again starts
        # from the links as written: a record can be loaded into a new corpus)
        reuse = self.restored if (self.restored is not None and analyze is None
                                  and self.restored_schema == schema.raw) else None
        if self.restored is not None and reuse is None:
            self.restored.clear()
            self.restored_schema = schema.raw
            reuse = self.restored if analyze is None else None
        fms: dict[str, str] = {}
        self.parsed_again = set()
        self.hits = 0
        slots: list = []      # (path, record, diagnostics) or (path, None, None) to parse
        todo = []
        analyse = []          # records from the store that need ``analyze`` run
        seen = set()
        with batch():
            for path, rel in items:
                key = str(path)
                seen.add(key)
                e = entries.get(key)
                if e is not None:
                    # a change in the clock tick of the read keeps the stat: parse such a file again
                    try:
                        fresh = is_fresh(FileKey.at(path), e.key, e.started)
                        if not fresh:
                            rec, diags = None, None
                        elif reuse is not None and key in reuse and reuse[key].entry is e:
                            rec, diags = reuse[key].record, reuse[key].diagnostics   # those of the last parse
                            if ParsedRecord._make(e.record).content is None:
                                # its text read meanwhile is let go, as a record restored anew has none
                                rec.source.release()
                        else:
                            rec, diags = self._restore(e, path, mention_re)
                            if reuse is not None:
                                reuse[key] = Restored(e, rec, diags)
                        got = e.analyses.get(akey, _MISSING) if (rec is not None and cacheable and e.analyses) \
                            else _MISSING
                    except Exception:     # an entry that is not what this version writes: parsed again
                        rec = None
                    if rec is not None:
                        if analyze is not None and rec.ok:
                            if got is _MISSING:
                                if on_restore:
                                    analyse.append((key, rec))
                            elif got is not None:
                                results[path] = got
                        fms[key] = e.fm_digest
                        slots.append((path, rec, diags))
                        self.hits += 1
                        continue
                slots.append((path, None, None))
                todo.append((path, rel))
            # each record is kept as soon as it is parsed (or arrives from a
            # helper, whose packing is kept as it came): while the other core
            # still parses, not all at once after
            kept: list = [None] * len(todo)

            def keep(i, rec, diags, flat):
                kept[i] = self._keep(str(todo[i][0]), rec, diags, started, derive_fields,
                                     results.get(rec.path) if cacheable and rec.ok else _MISSING, akey, flat)
            parsed = iter(parse_parallel(todo, schema, min(jobs, workers(len(todo), name="parse")), analyze,
                                         max_size=max_size, keep=keep, results=results)) if todo else iter(())
            if analyse:
                self._analyse(analyse, analyze, jobs, cacheable, akey, results)
            out = []
            done = iter(kept)
            for path, rec, diags in slots:
                if rec is None:
                    key = str(path)
                    rec, diags = next(parsed)
                    self.parsed_again.add(key)
                    fms[key] = next(done)
                out.append((rec, diags))
            if whole:
                for key in [k for k in entries if k not in seen]:
                    del entries[key]
                    self.dirty.add(_bucket(key))
                if reuse is not None:
                    for key in [k for k in reuse if k not in seen]:
                        del reuse[key]
        self.fm_digests = fms
        return out

    def front_matter_digests(self, corpus) -> dict[str, str]:
        """path -> :func:`fm_digest` of every file of ``corpus`` (the last
        load), working out those the store did not hold (and keeping them)."""
        fms = self.fm_digests
        entries = self.entries or {}
        for rec in corpus.files:
            key = str(rec.path)
            if fms.get(key) is None:
                fms[key] = d = fm_digest(rec)
                e = entries.get(key)
                if e is not None and e.fm_digest is None:
                    entries[key] = e._replace(fm_digest=d)
                    self.dirty.add(_bucket(key))
        return fms

    def _restore(self, e: StoreEntry, path: Path, mention_re) -> tuple[Record, list]:
        f = ParsedRecord._make(e.record)
        source = FileSource(path, f.digest, f.stat) if f.content is None else Source(f.content, None, f.digest, f.stat)
        rec, diags = unflat(f, mention_re, path, source, CachedRecord)
        if e.derive_positions:
            rec._values = e.derive_positions
        return rec, diags

    def _keep(self, key: str, rec: Record, diags: list, started: int, derive_fields: set, analysis,
              akey, packed: ParsedRecord | None = None) -> str:
        """Store a record just parsed (before its links are resolved);
        returns its front matter digest.  ``analysis``: its result of a
        cacheable ``analyze``, else ``_MISSING``.  ``packed``: the record as
        a helper sent it (:func:`~recordkit.corpus.store.wire.flat`), taken
        as it is rather than packed again."""
        # the front matter's digest (for the site) when the text is at hand;
        # a record parsed in a helper arrives as bytes, not decoded for it
        held = rec.source.held()
        fm = fm_digest(rec) if isinstance(held, str) else None
        entries = self.entries
        stat = rec.stat
        if stat is None or not isinstance(stat, tuple) or len(stat) != 4:
            # not read (a folder, a FIFO, too large, unreadable): looked at again every time
            if key in entries:
                del entries[key]
                self.dirty.add(_bucket(key))
            return fm
        # without the text: a record parsed in a helper arrives as bytes,
        # which decoding here only to leave out would cost a copy of every
        # file.  The text stays in the file; but a text that is not the
        # file's (not UTF-8: the record has none) is kept as it is.  The
        # analysis is kept apart (when it may be)
        if packed is None:
            packed = ParsedRecord._make(flat(rec, diags, content=False))
        record = tuple(packed._replace(content=None if held else "", analysis=None))
        vals = rec._values
        part = {k: v for k, v in vals.items() if k and k[0] in derive_fields} if vals else None
        analyses = {akey: analysis} if analysis is not _MISSING else None
        entries[key] = StoreEntry(stat, record, fm, started, part or None, analyses)
        self.dirty.add(_bucket(key))
        return fm

    def _analyse(self, todo: list, analyze, jobs: int, cacheable: bool, akey, results: dict) -> None:
        """Run ``analyze`` on the records taken from the store (on every
        core); keep a cacheable result in the store."""
        recs = [rec for _, rec in todo]
        n = min(jobs, workers(len(recs), name="store.analyse"))
        if n > 1:
            before_fork(analyze)
        parts = split(recs, n, name="store.analyse")
        got = spread(lambda part: [analyze(r) for r in part], parts, name="store.analyse")
        entries = self.entries
        for (key, rec), a in zip(todo, (a for part in got for a in part)):
            if a is not None:
                results[rec.path] = a
            if cacheable:
                e = entries[key]
                analyses = dict(e.analyses or {})
                analyses[akey] = a
                entries[key] = e._replace(analyses=analyses)
                self.dirty.add(_bucket(key))


_MISSING = object()


def _dumps(data) -> bytes:
    """``data`` pickled without the pickler's memo
    (:func:`recordkit.runtime.snapshot.fast_dumps`).  What is pickled
    here is plain data with no cycle, and front matter whose YAML aliases
    share values expands them by at most ``MAX_ALIAS_EXPANSION``
    (:func:`recordkit.markdown.frontmatter.check_aliases`)."""
    return fast_dumps(data)
