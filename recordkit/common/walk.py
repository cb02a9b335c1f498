"""``os.walk`` without recursion.

Python 3.11's ``os.walk`` recurses once per folder level: a folder 1,000
levels deep (a generated tree, a loop of bind mounts) ended every command
in ``RecursionError``.  :func:`walk` keeps a stack instead and yields what
``os.walk(top)`` yields, in the same order: top-down, ``dirnames`` pruned in
place by the caller, links to folders listed but not walked into, folders
that cannot be read skipped."""
from __future__ import annotations

import os
from typing import Iterator


def walk(top) -> Iterator[tuple[str, list[str], list[str]]]:
    stack = [os.fspath(top)]
    while stack:
        folder = stack.pop()
        try:
            scan = os.scandir(folder)
        except OSError:
            continue
        dirs: list[str] = []
        files: list[str] = []
        with scan:
            while True:
                try:
                    entry = next(scan)
                except StopIteration:
                    break
                except OSError:
                    break
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    is_dir = False
                (dirs if is_dir else files).append(entry.name)
        yield folder, dirs, files
        # (dirs as the caller left it; reversed: the first is walked first)
        for name in reversed(dirs):
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                stack.append(path)


def every_path(folder) -> Iterator:
    """Every file and folder below ``folder``, as :class:`pathlib.Path`
    (what ``Path(folder).rglob("*")`` gives, which recurses as deep as the
    tree: links to folders listed, not walked into)."""
    from pathlib import Path
    for base, dirs, files in walk(folder):
        here = Path(base)
        for name in dirs:
            yield here / name
        for name in files:
            yield here / name
