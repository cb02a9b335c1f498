"""File names as recordkit prints them."""
from __future__ import annotations

import os
from pathlib import Path

from .text import path_text


def display_path(path, cwd: Path | None = None) -> str:
    """The file name relative to the current directory, '/'-separated (a
    byte of it that is not UTF-8 shown as ``\\xff``)."""
    cwd = cwd or Path.cwd()
    try:
        rel = os.path.relpath(path, cwd)
    except ValueError:  # another drive on Windows
        rel = str(path)
    return path_text(rel.replace(os.sep, "/"))
