"""The plugin loader: import every module of a folder of plugins, so that a
plugin (a lint rule, an output format) is added by adding one file.

This is the one place recordkit imports its own modules by name: a
folder's modules are found by listing it.  Modules whose name starts with
``_`` are left out (helpers of the folder).
"""
from __future__ import annotations

import importlib
import os
from pathlib import Path
from types import ModuleType


def import_folder(package: str, folder: str | Path) -> list[ModuleType]:
    """Import every module ``package.NAME`` of ``folder`` (``package``'s
    folder), in name order, and return them.  An error in a module
    propagates: a plugin that does not import is a fault to see, not to
    skip."""
    names = sorted(e.name[:-3] for e in os.scandir(folder)
                   if e.name.endswith(".py") and not e.name.startswith(("_", ".")) and e.is_file())
    return [importlib.import_module(f"{package}.{name}") for name in names]
