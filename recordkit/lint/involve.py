"""Which diagnostics *involve* some files: what ``recordkit lint PATHS`` reports.

A diagnostic is located in one file, but may depend on others: a dangling
relation depends on the id it names no longer being held by any file, a
cycle on every record along it, an unmet ``promote_when`` on the records
that point at the theory, an unknown check on the module that defined it.
Rules say so in :attr:`recordkit.model.Diagnostic.about`, a tuple of *keys*:

``KIND-NNN``
    a record id: the diagnostic depends on what the record holding that id
    says (that it exists, its kind, its status, its relations);
``<-KIND-NNN``
    the links into a record: the diagnostic depends on which records point
    at it (by a front-matter relation or a body mention), as a
    ``promote_when`` ``record:`` requirement or "isolated record" does;
``check:ID``
    a numeric check: the diagnostic depends on the check's definition (the
    module or the record's block that defines it) and its result.

A file *holds* keys: a record file its id, ``<-T`` for every record ``T``
it points at (relations and mentions), and ``check:ID`` for every check
block in its body; a check module ``check:ID`` for every check it defines.
For each path given, :func:`path_keys` collects the keys of the file as it
is now *and* as it is in git's ``HEAD`` (so a deleted or renamed file, an
id changed in place, a removed relation or a deleted check still count).
A path that does not exist and is not in ``HEAD`` (or outside git) holds
the id its file name names, when it names one (records are named after
their ids: RK106).  A folder stands for every file under it.

:func:`involved` keeps a diagnostic located in (or under) a path, or whose
``about`` shares a key with the paths' keys.
"""
from __future__ import annotations

import os
import stat
import subprocess
import tempfile
from pathlib import Path
from ..common.walk import walk as _walk_tree

CHECK = "check:"
LINKS = "<-"


def given_path(p) -> Path:
    """A path given on the command line, absolute and with its folders
    resolved, but not its last part: a record file that is a symbolic link
    (to a file outside the root, or to ``/dev/zero``) is named by the
    loader, and so by its diagnostics, where the link is, not where it
    points."""
    p = Path(os.path.abspath(p))
    if p.is_symlink():
        return p.parent.resolve() / p.name
    return p.resolve()


def check_key(check_id: str) -> str:
    return CHECK + check_id


def links_key(record_id: str) -> str:
    return LINKS + record_id


def record_keys(rec, schema=None) -> set[str]:
    """The keys a parsed record file holds (see the module docstring)."""
    out: set[str] = set()
    if not rec.ok:
        return out
    rid = rec.meta.get("id")
    out.add(rid if isinstance(rid, str) and rid else rec.id or rec.path.stem)
    for targets in rec.relations.values():
        for t in targets:
            out.add(links_key(t.id))
    for t in rec.mention_targets:
        out.add(links_key(t))
    from ..numeric.discover import block_checks
    for spec in block_checks(rec, []):
        out.add(check_key(spec.id))
    return out


def _is_check_module(path: Path, checks: Path) -> bool:
    return path.suffix == ".py" and path.parent == checks and not path.name.startswith((".", "_"))


def module_keys(path: Path, checks: Path) -> set[str]:
    """``check:ID`` for every check the module at ``path`` defines (read
    with :mod:`ast`, never imported)."""
    from ..numeric.discover import module_checks
    return {check_key(s.id) for s in module_checks(path, checks, [])}


def _file_keys(path: Path, relpath: str | None, data: bytes | None, schema, checks: Path) -> set[str]:
    """The keys of one file, from its bytes (None: read it from ``path``).
    ``relpath``: its path in the record root, None when it is not under it
    (a Markdown file there is no record)."""
    if path.suffix == ".md":
        if relpath is None:
            return set()
        from ..corpus.parse import parse_bytes
        if data is None:
            data = _read_regular(path)
            if data is None:
                return set()
        rec, _ = parse_bytes(data, path, relpath, schema)
        return record_keys(rec, schema)
    if _is_check_module(path, checks):
        if data is None or _read_regular(path) == data:
            return module_keys(path, checks)
        with tempfile.TemporaryDirectory(prefix="recordkit-head-") as tmp:
            copy = Path(tmp) / path.name
            copy.write_bytes(data)
            return module_keys(copy, checks)
    return set()


def _read_regular(path: Path, max_size: int | None = None) -> bytes | None:
    """The bytes of a regular file of at most ``max_size`` bytes (the
    default cap when None; never a FIFO or a device: reading one could block
    or never end); None otherwise."""
    if max_size is None:
        from ..config import DEFAULT_MAX_FILE_SIZE
        max_size = DEFAULT_MAX_FILE_SIZE
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > max_size:
            return None
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(max_size + 1)     # (a file that grew since the stat)
        return data if len(data) <= max_size else None
    except OSError:
        return None
    finally:
        os.close(fd)


def _walk(folder: Path) -> list[Path]:
    out = []
    for dirpath, dirnames, filenames in _walk_tree(folder):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for name in filenames:
            if name.endswith((".md", ".py")) and not name.startswith("."):
                out.append(Path(dirpath) / name)
    return out


def _git(top: Path, *args: str, stdin: bytes | None = None) -> bytes | None:
    env = dict(os.environ, GIT_LITERAL_PATHSPECS="1")
    try:
        proc = subprocess.run(["git", "-C", str(top), *args], input=stdin, capture_output=True, env=env,
                              timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout if proc.returncode == 0 else None


def _rename_sources(top: Path, rels: list[str]) -> list[str]:
    """The paths in HEAD that git sees renamed (in the index or the work
    tree) to a path at or under one of ``rels``: the file given is the new
    name, and what the old name held matters as much."""
    # (the whole tree: a rename is seen only with both of its sides)
    out = _git(top, "diff", "-z", "--name-status", "--find-renames", "HEAD")
    if not out:
        return []
    given = [r.rstrip("/") for r in rels]

    def under(name: str) -> bool:
        return any(g == "." or name == g or name.startswith(g + "/") for g in given)

    fields = out.split(b"\0")
    sources = []
    i = 0
    while i < len(fields):
        status = fields[i]
        if status.startswith((b"R", b"C")) and i + 2 < len(fields):
            if status.startswith(b"R") and under(os.fsdecode(fields[i + 2])):
                sources.append(os.fsdecode(fields[i + 1]))
            i += 3
        else:
            i += 2
    return sources


def head_files(paths: list[Path]) -> dict[Path, bytes] | None:
    """The content in git's ``HEAD`` of every file at or under ``paths``
    (absolute), as absolute worktree paths; None outside a git work tree or
    before the first commit."""
    if not paths:
        return {}
    start = next((p for p in (paths[0], *paths[0].parents) if p.is_dir()), None)
    if start is None:
        return None
    out = _git(start, "rev-parse", "--show-toplevel")
    if not out:
        return None
    top = Path(os.fsdecode(out.strip())).resolve()
    rels = []
    for p in paths:
        try:
            rels.append(p.relative_to(top).as_posix() or ".")
        except ValueError:
            continue
    if not rels:
        return {}
    rels += _rename_sources(top, rels)
    listing = _git(top, "ls-tree", "-r", "-z", "--full-tree", "HEAD", "--", *rels)
    if listing is None:
        return None
    blobs = []
    for entry in listing.split(b"\0"):
        if not entry:
            continue
        meta, _, name = entry.partition(b"\t")
        parts = meta.split()
        if len(parts) == 3 and parts[1] == b"blob":
            blobs.append((parts[2], top / os.fsdecode(name)))
    if not blobs:
        return {}
    batch = _git(top, "cat-file", "--batch", stdin=b"".join(sha + b"\n" for sha, _ in blobs))
    if batch is None:
        return None
    result: dict[Path, bytes] = {}
    pos = 0
    for sha, path in blobs:
        nl = batch.find(b"\n", pos)
        if nl < 0:
            break
        header = batch[pos:nl].split()
        if len(header) != 3:   # "<sha> missing"
            pos = nl + 1
            continue
        size = int(header[2])
        result[path] = batch[nl + 1:nl + 1 + size]
        pos = nl + 1 + size + 1
    return result


def path_keys(paths: list[Path], *, root: Path, checks: Path, schema, use_git: bool = True,
              unknown: list | None = None, max_size: int | None = None) -> set[str]:
    """The keys the files at or under ``paths`` hold now or held in ``HEAD``.
    ``unknown`` receives the paths that exist neither now nor in ``HEAD``;
    a file over ``max_size`` bytes (or not a regular file) holds none now."""
    root = Path(root).resolve()
    checks = Path(checks).resolve()
    keys: set[str] = set()
    current: list[Path] = []
    for p in paths:
        if p.is_dir():
            current.extend(_walk(p))
        elif p.exists():
            current.append(p)

    def rel(p: Path) -> str | None:
        try:
            return p.relative_to(root).as_posix()
        except ValueError:
            return None

    now: dict[Path, bytes | None] = {}
    for p in current:
        now[p] = _read_regular(p, max_size)
        keys |= _file_keys(p, rel(p), now[p], schema, checks) if now[p] is not None else set()
    head = head_files(paths) if use_git else None
    for p, data in (head or {}).items():
        if now.get(p) != data:   # (unchanged since HEAD: its keys are in already)
            keys |= _file_keys(p, rel(p), data, schema, checks)
    for p in paths:
        if not p.exists() and (head is None or not any(h.is_relative_to(p) for h in head)):
            if unknown is not None:
                unknown.append(p)
            m = schema.id_re.match(p.stem) if p.suffix == ".md" and schema.id_re is not None else None
            if m and m.end() == len(p.stem):
                keys.add(p.stem)
    return keys


def involved(diags: list, paths: list[Path] | None, keys: set[str] | None = None) -> list:
    """The diagnostics located in (or under) ``paths`` or about one of
    ``keys``; all of them when no path is given."""
    if not paths:
        return diags
    files = set()
    dirs = []
    for p in paths:
        p = given_path(p)
        if p.is_dir():
            dirs.append(p)
        else:
            files.add(p)
    keys = keys or set()
    out = []
    for d in diags:
        dp = Path(d.path)
        if dp in files or any(dp.is_relative_to(x) for x in dirs) or (keys and not keys.isdisjoint(d.about)):
            out.append(d)
    return out
