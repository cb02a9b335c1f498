"""All-or-nothing writes of several files, with a journal.

A :class:`Transaction` collects new contents and removals, then
:meth:`Transaction.commit` makes them all happen or none::

    tx = Transaction(journal_dir)
    tx.write(path, data, expect=digest_of_what_was_read)   # None: a new file
    tx.delete(path, expect=digest)
    tx.commit()

How: every new content is first written to a temporary file beside its
target (``.NAME.rk-TXID.new``, fsynced), and every file that will be
replaced or removed gets a backup, a hard link beside it
(``.NAME.rk-TXID.bak``, a copy where links are not possible).  Only when
all of that succeeded, and every file still holds what was read
(``expect``), are the temporary files renamed over their targets.  A
failure during those renames (a folder that refuses, a full disk) puts the
backups back.  The journal (``journal_dir/journal.json``, written
atomically before each phase) names every temporary file and backup, so a
run killed at any point is rolled back (or, once every rename happened,
completed) by :func:`recover`, which the next transaction calls first.

Knows nothing of records; writers serialize on ``journal_dir/journal.lock``
and, as every recordkit writer does, on an exclusive ``flock`` of each file
they replace.
"""
from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import secrets
import shutil
from dataclasses import dataclass
from pathlib import Path

from .writes import fsync_dir, replace_bytes, umask

JOURNAL = "journal.json"
LOCK = "journal.lock"

#: a seam for tests: called with (step index, target path) before each
#: rename or removal of the apply phase (a test raises here, or kills the
#: process, to show that nothing is left half done)
_before_apply = None


class TransactionError(OSError):
    """The transaction could not be completed; nothing was changed."""


class TransactionConflict(TransactionError):
    """A file changed since it was read (or a new file's name is taken)."""


def digest(data: bytes) -> str:
    """sha256 of the bytes, 128 bits: the loader's ``Record.digest``."""
    return hashlib.sha256(data).hexdigest()[:32]


@dataclass
class _Entry:
    path: str                 # target (absolute, symlinks resolved for writes)
    op: str                   # "write" | "delete"
    data: bytes | None = None
    expect: str | None = None  # digest the file must still have; None for a new file
    tmp: str | None = None
    backup: str | None = None
    original: bool = False     # a file was there before

    def journal(self) -> dict:
        return {"path": self.path, "op": self.op, "tmp": self.tmp, "backup": self.backup,
                "original": self.original}


class Transaction:
    def __init__(self, journal_dir: str | Path):
        self.journal_dir = Path(journal_dir)
        self.entries: list[_Entry] = []
        self.id = secrets.token_hex(4)

    # -- planning ----------------------------------------------------------
    def write(self, path: str | Path, data: str | bytes, expect: str | None = None) -> None:
        """Give ``path`` the content ``data``.  ``expect``: the digest of the
        bytes the new content was made from (the file must still hold them);
        None for a file that must not exist yet."""
        if isinstance(data, str):
            data = data.encode("utf-8")
        self.entries.append(_Entry(_real(path), "write", data, expect))

    def delete(self, path: str | Path, expect: str | None = None) -> None:
        """Remove ``path`` (which must still hold bytes of digest ``expect``, when given)."""
        self.entries.append(_Entry(str(Path(os.path.abspath(path))), "delete", None, expect))

    # -- doing -------------------------------------------------------------
    def commit(self) -> None:
        """Make every planned change, or none (raises :class:`TransactionError`
        or :class:`TransactionConflict`, with every file as it was)."""
        if not self.entries:
            return
        seen: dict = {}
        kept = []
        for e in self.entries:
            was = seen.get(e.path)
            if was is None:
                seen[e.path] = e
                kept.append(e)
            elif (was.op, was.data, was.expect) != (e.op, e.data, e.expect):
                # two names of one file (a symbolic link and its target) changed two ways
                raise TransactionError(f"{e.path} is reached by two names (a symbolic link) and would be "
                                       "changed in two ways; change it by hand")
        self.entries = kept         # (the same change through two names: made once)
        self.journal_dir.mkdir(parents=True, exist_ok=True)
        with _lock_file(self.journal_dir / LOCK):
            recover(self.journal_dir, locked=True)
            with contextlib.ExitStack() as locks:
                for e in sorted(self.entries, key=lambda e: e.path):
                    locks.enter_context(_locked(e.path))
                for e in self.entries:
                    tag = f".{Path(e.path).name}.rk-{self.id}"
                    folder = Path(e.path).parent
                    e.original = os.path.lexists(e.path)
                    e.tmp = str(folder / f"{tag}.new") if e.op == "write" else None
                    e.backup = str(folder / f"{tag}.bak") if e.original else None
                self._journal("staging")
                try:
                    self._check_and_stage()
                except BaseException:
                    self._discard()
                    raise
                self._journal("prepared")
                self._apply()
                self._journal("committed")
                self._discard(keep_targets=True)

    def _check_and_stage(self) -> None:
        for e in self.entries:
            p = Path(e.path)
            if e.op == "write" and e.expect is None:
                if e.original:
                    raise TransactionConflict(f"{p}: exists already")
                if not p.parent.is_dir():
                    raise TransactionError(f"{p.parent}: no such folder")
            else:
                if not e.original:
                    raise TransactionConflict(f"{p}: is gone since it was read")
                if e.expect is not None:
                    with open(p, "rb") as fh:
                        if digest(fh.read()) != e.expect:
                            raise TransactionConflict(f"{p}: changed since it was read")
        for e in self.entries:
            p = Path(e.path)
            try:
                if e.backup:
                    try:
                        os.link(p, e.backup)
                    except OSError:
                        shutil.copy2(p, e.backup)
                if e.op == "write":
                    mode = (os.stat(p).st_mode & 0o7777) if e.original else (0o666 & ~umask())
                    fd = os.open(e.tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                    with os.fdopen(fd, "wb") as fh:
                        fh.write(e.data)
                    os.chmod(e.tmp, mode)
            except OSError as exc:
                raise TransactionError(f"{p}: {exc.strerror or exc}") from exc
        # every staged file on disk before any rename: one file-system-wide
        # flush where the system has one (hundreds of fsyncs cost seconds)
        _flush([e.tmp for e in self.entries if e.tmp])
        for folder in {str(Path(e.path).parent) for e in self.entries}:
            fsync_dir(folder)

    def _apply(self) -> None:
        done: list[_Entry] = []
        e = None
        try:
            for i, e in enumerate(self.entries):
                if _before_apply is not None:
                    _before_apply(i, e.path)
                if e.op == "write":
                    os.replace(e.tmp, e.path)
                else:
                    os.unlink(e.path)
                done.append(e)
            for folder in {str(Path(e.path).parent) for e in self.entries}:
                fsync_dir(folder)
        except BaseException as exc:
            failed = e
            for d in reversed(done):
                _undo(d)
            self._discard()
            if isinstance(exc, OSError):
                where = failed.path if failed is not None else (exc.filename or "")
                raise TransactionError(f"{where}: {exc.strerror or exc}") from exc
            raise

    def _discard(self, keep_targets: bool = False) -> None:
        """Remove the temporary files and backups (and the journal)."""
        for e in self.entries:
            for p in (e.tmp, e.backup):
                if p:
                    _remove_if_there(p)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.journal_dir / JOURNAL)

    def _journal(self, state: str) -> None:
        data = json.dumps({"id": self.id, "state": state, "entries": [e.journal() for e in self.entries]})
        replace_bytes(self.journal_dir / JOURNAL, data.encode("utf-8"))


def _undo(e: _Entry) -> None:
    """Put back what one applied step changed."""
    if e.backup:
        os.replace(e.backup, e.path)
    elif e.op == "write":
        with contextlib.suppress(FileNotFoundError):
            os.unlink(e.path)


def pending(journal_dir: str | Path) -> dict | None:
    """The journal a killed transaction left, or None."""
    try:
        return json.loads((Path(journal_dir) / JOURNAL).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return {"state": "unreadable", "entries": []}


def recover(journal_dir: str | Path, locked: bool = False) -> str | None:
    """Finish what a killed transaction left: roll it back when it stopped
    before every change was made, complete it (remove its backups) when it
    stopped after.  Returns what was done ("rolled back", "completed") or
    None when there was nothing to do."""
    journal_dir = Path(journal_dir)
    if not (journal_dir / JOURNAL).exists():
        return None
    if not locked:
        journal_dir.mkdir(parents=True, exist_ok=True)
        with _lock_file(journal_dir / LOCK):
            return recover(journal_dir, locked=True)
    j = pending(journal_dir)
    if j is None:
        return None
    state = j.get("state")
    entries = j.get("entries") or []
    if state == "unreadable":
        # the journal itself is written atomically, so this is not ours to fix
        raise TransactionError(f"{journal_dir / JOURNAL}: unreadable journal of an interrupted write; "
                               f"look at it and remove it")
    if state == "prepared":
        for d in reversed(entries):
            tmp, backup, path = d.get("tmp"), d.get("backup"), d["path"]
            if d["op"] == "write" and tmp and os.path.exists(tmp):
                os.unlink(tmp)                        # this rename never happened
                if backup and os.path.lexists(backup):
                    os.unlink(backup)
                continue
            if d["op"] == "delete" and os.path.lexists(path):
                if backup and os.path.lexists(backup):
                    os.unlink(backup)                 # never removed
                continue
            # the step happened: undo it
            if backup and os.path.lexists(backup):
                os.replace(backup, path)
            elif not d.get("original") and d["op"] == "write":
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(path)
        done = "rolled back"
    else:   # "staging": nothing was applied; "committed": everything was
        for d in entries:
            for p in (d.get("tmp"), d.get("backup")):
                if p:
                    _remove_if_there(p)
        done = "completed" if state == "committed" else "rolled back"
    for folder in {str(Path(d["path"]).parent) for d in entries}:
        fsync_dir(folder)
    os.unlink(journal_dir / JOURNAL)
    return done


# -- helpers -----------------------------------------------------------------

def _remove_if_there(path: str) -> None:
    """Remove a temporary file or backup: one that is not there (never
    made, or a name too long to have been made) is no error, else a
    transaction that failed to stage would leave its journal behind and
    stop every later write."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError as exc:
        if exc.errno not in (errno.ENAMETOOLONG, errno.ENOENT, errno.ENOTDIR):
            raise


def _real(path) -> str:
    p = os.path.abspath(path)
    return os.path.realpath(p) if os.path.islink(p) else p


@contextlib.contextmanager
def _lock_file(path: Path):
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        _flock(fd)
        yield
    finally:
        os.close(fd)


@contextlib.contextmanager
def _locked(path: str):
    """An exclusive ``flock`` on the file at ``path`` (the lock every
    recordkit writer takes on a file it replaces); nothing when it does not
    exist."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        yield
        return
    try:
        _flock(fd)
        yield
    finally:
        os.close(fd)


def _flock(fd: int) -> None:
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return
    with contextlib.suppress(OSError):
        fcntl.flock(fd, fcntl.LOCK_EX)


#: from how many files on: a syncfs of their file system rather than an
#: fsync of each
SYNCFS_FROM = 16


def _flush(paths: list[str]) -> None:
    """Make the files at ``paths`` durable: an ``fsync`` of each, or for
    :data:`SYNCFS_FROM` files or more, ``syncfs`` on their file systems
    where Linux offers it (one journal commit: hundreds of fsyncs cost
    seconds).  Not for a few: ``syncfs`` writes out everything any process
    left unwritten on the file system, so a rename of one record just after
    a 200 MB export waited for all of it (the fuzz test saw a one-file rename
    take 10.6 s while other tests wrote)."""
    if not paths:
        return
    syncfs = _syncfs() if len(paths) >= SYNCFS_FROM else None
    if syncfs is not None:
        done = set()
        for p in paths:
            dev = os.stat(p).st_dev
            if dev in done:
                continue
            fd = os.open(p, os.O_RDONLY)
            try:
                if syncfs(fd) != 0:
                    break           # fall back to fsync below
            finally:
                os.close(fd)
            done.add(dev)
        else:
            return
    for p in paths:
        fd = os.open(p, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _syncfs():
    from ..runtime.system import syncfs_function
    return syncfs_function()
