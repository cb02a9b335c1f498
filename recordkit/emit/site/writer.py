"""EMIT, the file side: write the site's files atomically, only when their
bytes change, and keep a manifest of what was written.

The manifest (``.recordkit-site.json`` in the output folder) maps each
output file to the hash of its bytes and, for a record page, the key of
what the page depends on (:func:`views.record_key`).  With it, a build in a
fresh process skips the pages whose key is unchanged and leaves every
unchanged file untouched (same bytes, same mtime), and removes the files
of the previous build that this one did not produce (a deleted or newly
excluded record's page).  It never removes a file it did not write.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from ...common.writes import replace_file as write_atomic
from ...common.walk import walk as _walk_tree

MANIFEST = ".recordkit-site.json"
VERSION = 1


class NotASite(Exception):
    """The output folder holds files, and no manifest says recordkit wrote them."""


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def same_size(path, size) -> bool:
    """Whether the file at ``path`` is there with ``size`` bytes (a file a
    build wrote, still as it was written)."""
    try:
        return os.stat(path).st_size == size
    except OSError:
        return False


class Manifest:
    def __init__(self, out: Path, files: dict | None = None, meta: dict | None = None):
        self.out = out
        self.files: dict[str, dict] = files or {}
        self.meta: dict = meta or {}
        #: the files a folder that was no site held before a forced build
        #: (relative paths): those the build writes over are reported
        self.foreign: frozenset[str] = frozenset()

    @classmethod
    def read(cls, out: Path, force: bool = False) -> "Manifest":
        p = out / MANIFEST
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
            if data.get("version") == VERSION and isinstance(data.get("files"), dict):
                return cls(out, data["files"], data.get("meta") or {})
        except FileNotFoundError:
            if out.is_dir() and any(out.iterdir()):
                if not force:
                    raise NotASite(f"{out} is not empty and holds no recordkit site "
                                   f"(no {MANIFEST}); choose another folder or pass --force")
                m = cls(out)
                m.foreign = frozenset(_files_under(out))
                return m
        except (OSError, ValueError, AttributeError):
            pass   # an unreadable manifest: every file is written again
        return cls(out)

    def write(self) -> None:
        data = json.dumps({"version": VERSION, "meta": self.meta, "files": self.files},
                          sort_keys=True, separators=(",", ":")).encode()
        write_atomic(self.out / MANIFEST, data)


def _files_under(out: Path) -> list[str]:
    """Every file under ``out`` ('/'-separated, relative), links not followed."""
    found = []
    for folder, dirs, files in _walk_tree(out):
        rel = os.path.relpath(folder, out)
        for name in files:
            found.append(name if rel == "." else f"{rel}/{name}".replace(os.sep, "/"))
    return found


class SiteWriter:
    """Writes files under ``out``; ``written``/``kept`` count what happened."""

    def __init__(self, out: Path, old: Manifest):
        self.out = out
        self.old = old
        self.new = Manifest(out, meta=dict(old.meta))
        self.written: list[str] = []
        self.kept = 0
        self._dirs: set = set()

    def _folder(self, rel: str) -> None:
        d = os.path.dirname(rel)
        if d not in self._dirs:
            (self.out / d).mkdir(parents=True, exist_ok=True)
            self._dirs.add(d)

    def unchanged(self, rel: str, key: str) -> bool:
        """Whether ``rel`` was written with dependency key ``key`` and still
        exists as written (then it is kept, and need not be rendered)."""
        e = self.old.files.get(rel)
        if not e or e.get("key") != key:
            return False
        try:
            st = os.stat(self.out / rel)
        except OSError:
            return False
        if st.st_size != e.get("size"):
            return False
        self.new.files[rel] = e
        self.kept += 1
        return True

    def put(self, rel: str, data: bytes | str | list, key: str | None = None) -> bool:
        """Write ``data`` to ``rel`` unless the same bytes are there; True
        when written.  ``data`` may be a list of pieces (bytes or str) that
        make the file one after the other: a large file (the graph page) is
        then never held in memory as one string."""
        if isinstance(data, list):
            data = [x.encode("utf-8", "surrogatepass") if isinstance(x, str) else x for x in data]
            hasher = hashlib.blake2b(digest_size=16)
            for x in data:
                hasher.update(x)
            h = hasher.hexdigest()
            size = sum(len(x) for x in data)
        else:
            if isinstance(data, str):
                data = data.encode("utf-8", "surrogatepass")
            h = digest(data)
            size = len(data)
        entry = {"hash": h, "size": size}
        if key:
            entry["key"] = key
        e = self.old.files.get(rel)
        self.new.files[rel] = entry
        if e and e.get("hash") == h:
            try:
                if os.stat(self.out / rel).st_size == size:
                    self.kept += 1
                    return False
            except OSError:
                pass
        self._folder(rel)
        write_atomic(self.out / rel, data)
        self.written.append(rel)
        return True

    def record(self, rel: str, entry: dict, wrote: bool) -> None:
        """Note a file a helper process wrote (or kept)."""
        self.new.files[rel] = entry
        if wrote:
            self.written.append(rel)
        else:
            self.kept += 1

    def finish(self) -> list[str]:
        """Remove what the last build wrote and this one did not, write the
        manifest; returns the removed paths."""
        removed = []
        for rel in self.old.files:
            if rel not in self.new.files:
                p = self.out / rel
                try:
                    p.unlink()
                    removed.append(rel)
                except FileNotFoundError:
                    pass
                parent = p.parent
                while parent != self.out:
                    try:
                        parent.rmdir()
                    except OSError:
                        break
                    parent = parent.parent
        self.new.write()
        return removed
