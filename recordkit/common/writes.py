"""Atomic file writes, so a reader never sees half a file and a failed
write leaves the old one in place.  A user's file (``--fix``, ``promote
--apply``, ``rename``) goes through :func:`atomic_write` (fsynced; a checked
write, ``expect=``, never overwrites a change made after the read); a file
recordkit can make again (a site's page, a cache bucket), thousands at a
time, through :func:`replace_file` (a temporary file and a rename, no fsync).
"""
from __future__ import annotations

import hashlib
import os
import re
import stat
import tempfile
from contextlib import contextmanager, nullcontext
from pathlib import Path



class OutputRefused(Exception):
    """An output path that would replace a note (exit status 2; see
    :func:`check_output_file`)."""


def replace_file(path: Path, data: bytes | list[bytes]) -> None:
    """Write ``data`` (bytes, or a list of pieces written one after the
    other) through a temporary file beside ``path`` and a rename: a reader
    (a browser, the dev server, the next command) sees the old file or the
    new one, never half of one.  No fsync: for outputs and caches, which
    are made again when lost."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as fh:
            if isinstance(data, list):
                fh.writelines(data)
            else:
                fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


class WriteConflict(Exception):
    """The file changed since it was read: writing would lose that change.

    ``current``: the file's bytes now (None when it is gone)."""

    def __init__(self, path, current: bytes | None):
        super().__init__(f"{path} changed since it was read")
        self.path = Path(path)
        self.current = current


def content_digest(data: bytes) -> str:
    """The hash the loader keeps of each file it reads (``Record.digest``):
    sha256 of the bytes, 128 bits."""
    return hashlib.sha256(data).hexdigest()[:32]


def text_digest(text: str) -> str:
    """:func:`content_digest` of a decoded file's text (decoding UTF-8 and
    encoding again gives the same bytes, a BOM included)."""
    return content_digest(text.encode("utf-8"))


#: called with the target path just before ``os.replace`` (after the
#: unchanged-check): a seam for tests that simulate a racing editor
_before_replace = None

# tempfile's names: the prefix, 8 characters of [a-z0-9_], the suffix
_TEMP_RE = re.compile(r"\A\..+\.[a-z0-9_]{8}\.tmp\Z")


def atomic_write(path: str | Path, text: str | bytes, *, expect: str | None = None) -> None:
    """Write ``text`` to ``path`` atomically: a temporary file in the same
    folder, flushed and fsynced, then ``os.replace``.  An existing file's
    mode is kept; a new file gets the usual 0666 less the umask (not the
    temporary file's 0600).  A symbolic link is written through: its target
    is replaced and the link stays.  The file's owner and group are kept
    where the process may set them (root, or a group it is in; else the
    new file is the writer's, as an editor's save would make it).

    The rename makes a new file (a new inode): a *hard link* to the old
    file keeps the old text, and the path written is no longer linked to
    it.  That is the price of never leaving half a file; recordkit does not
    write a user's file in place.

    ``expect``: the :func:`content_digest` of the bytes the new text was
    made from.  Just before the replace, under an exclusive ``flock`` on the
    file (which every recordkit writer takes, so they serialize), the file
    is read again; when it no longer hashes to ``expect`` (an editor saved,
    another recordkit process wrote it) nothing is written and
    :class:`WriteConflict` is raised with the file's current bytes.  A write
    that lands on the old file between that check and the replace is found
    afterwards (the replaced file is still open), put back, and reported as
    a conflict too.  Only an editor that saves by renaming in those few
    microseconds can still be overwritten; no advisory scheme prevents that.
    """
    path = Path(path)
    target = Path(os.path.realpath(path)) if os.path.islink(path) else path
    data = text.encode("utf-8") if isinstance(text, str) else text
    if expect is None and is_stream(path):
        # /dev/null, /dev/stdout, a named pipe: written into, not replaced by a
        # file (opened by the name given: /dev/stdout's link is /proc's own)
        write_stream(path, data)
        return
    folder = target.parent if str(target.parent) else Path(".")
    owner = None
    try:
        st = target.stat()
        mode, owner = st.st_mode & 0o7777, (st.st_uid, st.st_gid)
    except FileNotFoundError:
        mode = 0o666 & ~umask()
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:  # name the file asked for, not the temporary one
        raise OSError(exc.errno, exc.strerror, str(path)) from exc
    try:
        _flock(fd, blocking=True)   # in use: a later run's clean-up leaves it alone
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
            if owner is not None:
                keep_owner(fh.fileno(), *owner)   # before the mode: chown clears set-id bits
            os.chmod(tmp, mode)
            # only a checked write takes the lock (a cache or a page is written whole)
            with (_locked_target(target) if expect is not None else nullcontext()) as held:
                if expect is not None:
                    current = _read_fd(held) if held is not None else None
                    if current is None or content_digest(current) != expect:
                        raise WriteConflict(path, current)
                if _before_replace is not None:
                    _before_replace(target)
                os.replace(tmp, target)
                if expect is not None and held is not None:
                    late = _read_fd(held)
                    if content_digest(late) != expect:
                        # written in place between the check and the replace:
                        # put that version back rather than lose it
                        replace_bytes(target, late, mode, owner)
                        raise WriteConflict(path, late)
    except BaseException:
        discard(tmp)
        raise
    fsync_dir(folder)


def keep_owner(fd: int, uid: int, gid: int) -> None:
    """Give the open file ``fd`` the owner ``uid`` and group ``gid`` (those
    of the file it replaces), as far as the process may: the owner and the
    group, else the group alone, else neither (a PermissionError is no
    error: the file is then the writer's)."""
    fchown = getattr(os, "fchown", None)
    if fchown is None:  # pragma: no cover - not POSIX
        return
    try:
        st = os.fstat(fd)
        if (st.st_uid, st.st_gid) == (uid, gid):
            return
        try:
            fchown(fd, uid, gid)
        except PermissionError:
            if st.st_gid != gid:
                fchown(fd, -1, gid)
    except OSError:
        pass


def replace_bytes(target: str | Path, data: bytes, mode: int | None = None, owner: tuple | None = None) -> None:
    """Replace ``target`` with ``data`` durably: a temporary file beside it
    (fsynced, given ``mode``, by default 0666 less the umask, and ``owner``,
    ``(uid, gid)``, when given and allowed), renamed over it, and the folder
    fsynced.  No check of what the file held: for files
    only recordkit writes (a journal, a version put back)."""
    target = Path(target)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
            if owner is not None:
                keep_owner(fh.fileno(), *owner)
        os.chmod(tmp, 0o666 & ~umask() if mode is None else mode)
        os.replace(tmp, target)
    except BaseException:
        discard(tmp)
        raise
    fsync_dir(target.parent)


def discard(path: str | Path) -> None:
    """Remove ``path`` if it is there (a temporary file after a failure)."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def fsync_dir(folder) -> None:
    """fsync a folder, so that a rename in it is durable (where the system allows it)."""
    try:  # make the rename itself durable; not possible everywhere
        dfd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)


def _flock(fd: int, *, blocking: bool) -> bool:
    """Take an exclusive advisory lock on ``fd``; False when it is held
    elsewhere (non-blocking).  Where ``flock`` does not exist or the file
    system refuses it, go on without (True): the hash check still holds."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
    except BlockingIOError:
        return False
    except OSError:
        return True
    return True


@contextmanager
def _locked_target(target: Path):
    """Hold an exclusive ``flock`` on the file now at ``target`` (yield its
    descriptor; None when there is no file).  The lock is on the file, which
    a writer replaces: after locking, check that ``target`` still names the
    locked file, else lock the new one."""
    for _ in range(1000):
        try:
            fd = os.open(target, os.O_RDONLY | getattr(os, "O_BINARY", 0))
        except FileNotFoundError:
            yield None
            return
        try:
            _flock(fd, blocking=True)
            try:
                st = os.stat(target)
            except FileNotFoundError:
                continue
            fst = os.fstat(fd)
            if (st.st_dev, st.st_ino) != (fst.st_dev, fst.st_ino):
                continue
            yield fd
            return
        finally:
            os.close(fd)
    raise OSError(f"{target}: could not lock it (replaced 1000 times in a row)")


def _read_fd(fd: int) -> bytes:
    chunks, pos = [], 0
    while True:
        b = os.pread(fd, 1 << 20, pos)
        if not b:
            return b"".join(chunks)
        chunks.append(b)
        pos += len(b)


def read_bytes(path: str | Path) -> bytes | None:
    """The file's bytes, None when it is gone."""
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except FileNotFoundError:
        return None


def remove_stale_temps(folders, suffix: str = ".md", min_age: float = 60.0) -> list[Path]:
    """Remove the temporary files a killed writer left in ``folders``: only
    names :func:`atomic_write` makes for files ending in ``suffix``
    (``.NAME.md.k2x_9abc.tmp``), only regular files older than ``min_age``
    seconds that no writer holds locked.  Returns what was removed."""
    import time
    removed = []
    now = time.time()
    for folder in folders:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for e in entries:
            name = e.name
            if not (name.startswith(".") and name.endswith(".tmp")) or not _TEMP_RE.match(name):
                continue
            if not name[:-13].endswith(suffix):
                continue
            try:
                if not e.is_file(follow_symlinks=False) or now - e.stat(follow_symlinks=False).st_mtime < min_age:
                    continue
                fd = os.open(e.path, os.O_RDONLY)
            except OSError:
                continue
            try:
                if not _flock(fd, blocking=False):
                    continue   # a writer is still at it
                st, fst = os.lstat(e.path), os.fstat(fd)
                if (st.st_dev, st.st_ino) != (fst.st_dev, fst.st_ino):
                    continue
                os.unlink(e.path)
                removed.append(Path(e.path))
            except OSError:
                continue
            finally:
                os.close(fd)
    return removed


def umask() -> int:
    """The process's umask (read without changing it)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


#: what an output file of each kind begins with, so that an existing file
#: of another kind (a note, a README) is not replaced by mistake
_OUTPUT_MAGIC = {
    "sqlite": ((b"SQLite format 3\x00",), "an SQLite database"),
    "html": ((b"<!doctype html", b"<html"), "an HTML page"),
}
_MARKDOWN = (".md", ".markdown", ".mdown", ".mkd")


def is_stream(path) -> bool:
    """Whether ``path`` (followed through symbolic links) is a character
    device or a named pipe (``/dev/null``, ``/dev/stdout``, a FIFO): an
    output written there is written straight into it, never by replacing
    it with a file (:func:`atomic_write`, :func:`write_stream`)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


def write_stream(path, data: bytes | list[bytes]) -> None:
    """Write ``data`` into the character device or named pipe ``path``
    (see :func:`is_stream`): opened for writing, not created or replaced."""
    with open(path, "wb") as fh:
        if isinstance(data, list):
            fh.writelines(data)
        else:
            fh.write(data)


def check_output_file(path, kind: str | None = None) -> None:
    """Refuse (:class:`OutputRefused`) an output path that would replace a
    note: a Markdown file (a record, a README: no output of recordkit is
    Markdown, and a symbolic link is judged by what it points to), or an
    existing file that does not look like an output of ``kind``
    (``"sqlite"``, ``"html"``); and one that is no file to write: an empty
    name, a folder, a block device or a socket.  A character device or a
    named pipe (``/dev/null``, ``/dev/stdout``) is written into
    (:func:`is_stream`), never replaced."""
    from .text import path_text
    if not str(path):
        raise OutputRefused("the output file name is empty: give a file name")
    p = Path(path)
    shown = path_text(str(p))
    real = Path(os.path.realpath(p)) if os.path.islink(p) else p
    for q in {p, real}:
        if q.suffix.lower() in _MARKDOWN:
            raise OutputRefused(f"{path_text(str(q))} is a Markdown file name: recordkit writes no Markdown "
                                "there, and would replace a note; give another file name")
    try:
        mode = os.stat(p).st_mode
    except (OSError, ValueError):
        return          # not there yet (or the write itself will say what is wrong)
    from .reading import file_kind
    special = file_kind(mode)
    if special is not None and not (stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)):
        raise OutputRefused(f"{shown} is {special}, not a file recordkit can write: give a file name")
    if kind is None or special is not None:
        return
    try:
        with open(p, "rb") as fh:
            head = fh.read(64)
    except OSError:
        return          # the write itself will say what is wrong
    if not head.strip():
        return          # an empty file: nothing to lose
    magics, what = _OUTPUT_MAGIC[kind]
    if not head.lstrip().lower().startswith(tuple(m.lower() for m in magics)):
        raise OutputRefused(f"{shown} exists and is not {what}: it would be replaced; remove it first or give "
                          "another file name")


def ignore_in_git(folder) -> None:
    """Make the cache folder ``folder`` ignore itself in git (a
    ``.gitignore`` of ``*``), unless it has one, or holds a ``.git`` or a
    Markdown file (then it is no folder of recordkit's own: a ``*`` there
    would hide notes from git).  Never raises."""
    folder = Path(folder)
    gi = folder / ".gitignore"
    try:
        if gi.exists():
            return
        with os.scandir(folder) as entries:
            for e in entries:
                if e.name == ".git" or e.name.lower().endswith(_MARKDOWN):
                    return
        gi.write_text("*\n", encoding="utf-8")
    except OSError:
        pass
