"""File names as recordkit prints them."""
from __future__ import annotations

import os
from pathlib import Path


def display_path(path, cwd: Path | None = None) -> str:
    """The file name relative to the current directory, '/'-separated."""
    cwd = cwd or Path.cwd()
    try:
        rel = os.path.relpath(path, cwd)
    except ValueError:  # another drive on Windows
        rel = str(path)
    return rel.replace(os.sep, "/")
