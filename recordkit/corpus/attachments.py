"""Which file of the record root an attachment link names, as the vault's
tool finds it, and whether it may leave the root (docs/site.md,
"Attachments").

An attachment is any file a note embeds or links that is not a note: an
image, a video, a PDF, ``LICENSE.txt``.  :class:`AttachmentFinder` reads a
link's target as Obsidian does (``getFirstLinkpathDest``) and Quartz after
it:

1. a path relative to the linking note's folder (``./fig.png``,
   ``../media/fig.png``, ``fig.png`` beside the note) and a path from the
   root (``media/fig.png``): for a wikilink the root's first (Obsidian's
   exact path), for a Markdown link the note's (CommonMark's);
2. the vault's attachment folder (``attachmentFolderPath`` of
   ``.obsidian/app.json``; ``./sub`` is a folder of the note's own);
3. the name (or the path's tail) alone: the file of that name in the
   note's folder, else the one with the shortest path string (then the
   first in path order), the tie-break observed of Obsidian 1.13.

A target found is then refused when it is unsafe to copy into a site
(:attr:`Found.refused` says why): a path out of the root (``..``, an absolute path, a
symbolic link to a file outside), a hidden file or folder (``.git/``,
``.obsidian/``, ``.env``), something that is no regular file, or a file
larger than the cap.  Nothing here reads a file's content.
"""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

from ..common.walk import walk as _walk_tree
from .toolsettings import _read_json

#: the largest attachment copied when no cap is configured (50 MB)
DEFAULT_MAX_ATTACHMENT = 50 * 1024 * 1024
#: folders never searched by name (besides hidden ones)
_NOT_SEARCHED = frozenset({"node_modules"})


@dataclass(frozen=True)
class Found:
    """What a link's target names: ``path`` (root-relative, ``/``) when a
    file may be published, else ``refused`` (why not, in words) or neither
    (no such file)."""
    path: str | None = None
    refused: str | None = None
    size: int = 0
    mtime_ns: int = 0


MISSING = Found()


def attachment_folder(root) -> str | None:
    """Obsidian's "Default location for new attachments"
    (``attachmentFolderPath`` of ``.obsidian/app.json``): ``/`` (the root)
    or unset is None; ``./`` or ``./sub`` stays relative (the note's own
    folder)."""
    data = _read_json(Path(root) / ".obsidian" / "app.json")
    v = data.get("attachmentFolderPath") if isinstance(data, dict) else None
    if not isinstance(v, str):
        return None
    v = v.replace("\\", "/").strip()
    if v in ("", "/"):
        return None
    return v


def _clean(parts: list) -> list | None:
    """Path parts with ``.`` and ``..`` applied; None when one leaves the top."""
    out: list = []
    for p in parts:
        if p in ("", "."):
            continue
        if p == "..":
            if not out:
                return None
            out.pop()
        else:
            out.append(p)
    return out


@dataclass
class AttachmentFinder:
    """Finds attachments under ``root`` (walked once, by name, only when a
    link needs it).  ``max_size``: the cap in bytes; ``skip``: root-relative
    folders never searched by name (the site's own output)."""
    root: Path
    max_size: int = DEFAULT_MAX_ATTACHMENT
    folder: str | None = None
    skip: tuple = ()
    by_name: dict | None = field(default=None, repr=False)
    found: dict = field(default_factory=dict, repr=False)

    @classmethod
    def for_root(cls, root, max_size: int = DEFAULT_MAX_ATTACHMENT, skip: tuple = ()) -> "AttachmentFinder":
        root = Path(root).resolve()
        return cls(root, max_size, attachment_folder(root), tuple(skip))

    # -- resolution ------------------------------------------------------
    def find(self, target: str, from_path: str | None, wiki: bool = False) -> Found:
        """The file ``target`` (a link's path as written, maybe
        ``%20``-encoded) names, linked from the note at ``from_path``
        (root-relative); ``wiki``: a wikilink or embed (a path from the
        root is tried before one from the note's folder)."""
        key = (target, from_path, wiki)
        got = self.found.get(key)
        if got is None:
            got = self.found[key] = self._find(target, from_path, wiki)
        return got

    def _find(self, target: str, from_path: str | None, wiki: bool) -> Found:
        t = target.strip()
        if t.startswith("<") and t.endswith(">"):
            t = t[1:-1].strip()
        t = t.split("#", 1)[0].split("?", 1)[0] if "#" in t or "?" in t else t
        if not t or "\x00" in t:
            return MISSING
        t = t.replace("\\", "/")
        if t.startswith("/") and not t.startswith("//"):
            # a path from the vault's top, as Obsidian, Quartz and Dendron read
            # ``/assets/fig.png``: a file of the record root, never of the disk's
            for name in ([t, unquote(t)] if "%" in t else [t]):
                rel = _clean(name.lstrip("/").split("/"))
                got = self._at("/".join(rel)) if rel else MISSING
                if got is not MISSING:
                    return got
            return Found(refused="an absolute path: no such file under the record root")
        if t.startswith("/") or (len(t) > 1 and t[1] == ":") or t.startswith("~"):
            return Found(refused="an absolute path: outside the record root")
        here = (from_path or "").split("/")[:-1]
        for name in ([t, unquote(t)] if "%" in t else [t]):
            got = self._find_as(name, here, wiki)
            if got is not MISSING:
                return got
        return MISSING

    def _find_as(self, t: str, here: list, wiki: bool) -> Found:
        parts = t.split("/")
        tries = []
        rel = _clean(here + parts)
        if rel is None:
            return Found(refused="a path that leaves the record root")
        tries.append(rel)
        top = _clean(parts)
        if top is not None and top != rel:
            # Obsidian: an exact path from the root wins over one beside the
            # note (a Markdown link reads from the note first, as CommonMark does)
            tries.insert(0 if wiki and not t.startswith(("./", "../")) else 1, top)
        if self.folder is not None and "/" not in t:
            f = self.folder
            base = here + f[2:].split("/") if f.startswith("./") or f == "." else f.split("/")
            got = _clean(base + [t])
            if got is not None:
                tries.append(got)
        for p in tries:
            got = self._at("/".join(p))
            if got is not MISSING:
                return got
        if ".." in parts:
            return MISSING
        return self._by_name(t, "/".join(here))

    def _by_name(self, t: str, here: str) -> Found:
        if self.by_name is None:
            self.by_name = self._index()
        name = t.rsplit("/", 1)[-1]
        found = [p for p in self.by_name.get(name.casefold(), ()) if p == t or p.endswith("/" + t)]
        if not found:
            low = t.casefold()
            found = [p for p in self.by_name.get(name.casefold(), ())
                     if p.casefold() == low or p.casefold().endswith("/" + low)]
        if not found:
            return MISSING
        own = [p for p in found if p.rsplit("/", 1)[0] == here or ("/" not in p and not here)]
        best = own[0] if own else min(found, key=lambda p: (len(p), p))     # (the shortest path string)
        return self._at(best)

    def _index(self) -> dict:
        """name (case-folded) -> root-relative paths of every file not hidden."""
        out: dict = {}
        root = str(self.root)
        skip = set(self.skip)
        for folder, dirs, files in _walk_tree(root):
            rel = os.path.relpath(folder, root).replace(os.sep, "/")
            rel = "" if rel == "." else rel + "/"
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _NOT_SEARCHED
                             and rel + d not in skip)
            for name in sorted(files):
                if not name.startswith(".") and not name.endswith(".md"):
                    out.setdefault(name.casefold(), []).append(rel + name)
        return out

    def _at(self, rel: str) -> Found:
        """The file at the root-relative ``rel`` (already free of ``..``),
        or why it may not be published."""
        path = self.root / rel
        try:
            st = os.lstat(path)
        except (OSError, ValueError):
            return MISSING
        if any(p.startswith(".") for p in rel.split("/")):
            return Found(refused="a hidden file or folder")
        try:
            real = Path(os.path.realpath(path))
        except (OSError, ValueError):
            return Found(refused="a path that cannot be read")
        if real != self.root and self.root not in real.parents:
            return Found(refused="a symbolic link to a file outside the record root")
        inside = real.relative_to(self.root).as_posix()
        if any(p.startswith(".") for p in inside.split("/")):
            return Found(refused="a link to a hidden file or folder")
        try:
            st = os.stat(real)
        except OSError:
            return MISSING
        if not stat.S_ISREG(st.st_mode):
            return Found(refused="not a regular file")
        if st.st_size > self.max_size:
            return Found(refused=f"larger than the attachment cap ({st.st_size:,} bytes > {self.max_size:,})")
        return Found(path=rel, size=st.st_size, mtime_ns=st.st_mtime_ns)
