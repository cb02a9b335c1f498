"""Reading a file a user names (a schema file): a regular file only, and
at most a bounded number of bytes, so a named pipe cannot hang a command
and a link to ``/dev/zero`` cannot fill the memory."""
from __future__ import annotations

import os
import stat

#: the most a configuration or schema file may hold
MAX_SETTINGS_FILE = 16 * 1024 * 1024


class NotAFile(OSError):
    """The path is not a regular file, or is larger than allowed (the
    message says which, without the path: the caller names it)."""


def file_kind(mode: int) -> str | None:
    """What a path that is not a regular file is, by its ``st_mode`` ("a
    named pipe (FIFO)", "a folder", ...); None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def open_regular(path) -> tuple[int, os.stat_result]:
    """``(descriptor, stat)`` of the regular file at ``path`` (symbolic links
    followed), opened without blocking, so a named pipe with no writer does
    not wait.  Raises :class:`NotAFile` for anything else (the descriptor
    closed), OSError when it cannot be opened."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        st = os.fstat(fd)
    except OSError:
        os.close(fd)
        raise
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise NotAFile(f"it is {file_kind(st.st_mode)}, not a file")
    return fd, st


def read_fd(fd: int, limit: int) -> bytes:
    """What ``fd`` holds, at most ``limit + 1`` bytes (one more than
    ``limit`` says that it held more)."""
    chunks, got = [], 0
    while got <= limit:
        b = os.read(fd, min(1 << 20, limit + 1 - got))
        if not b:
            break
        chunks.append(b)
        got += len(b)
    return b"".join(chunks)


def read_regular_file(path, max_size: int = MAX_SETTINGS_FILE) -> bytes:
    """The bytes of the regular file at ``path`` (symbolic links followed).
    Raises :class:`NotAFile` for anything else (opened without blocking,
    so a named pipe with no writer does not wait) or a file larger than
    ``max_size`` bytes (checked as it is read too: a file that grows), and
    OSError when it cannot be read."""
    fd, st = open_regular(path)
    try:
        if st.st_size > max_size:
            raise NotAFile(f"it is larger than {max_size // (1024 * 1024)} MB")
        data = read_fd(fd, max_size)
        if len(data) > max_size:
            raise NotAFile(f"it grew past {max_size // (1024 * 1024)} MB as it was read")
        return data
    finally:
        os.close(fd)
