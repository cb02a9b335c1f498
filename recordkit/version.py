"""recordkit's version (one place; pyproject.toml says the same), and a
digest of the package's own files that every cache is keyed by."""
from __future__ import annotations

import hashlib
import os
from functools import lru_cache

__version__ = "0.1.0"


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """A digest of every file of the installed package (its code, schemas,
    templates, scripts), in name order.  The caches of parses, lint results,
    the query database and the site's pages are keyed by it, not by
    ``__version__`` alone: the version does not change between two commits
    of a development install, and a parse made by older code (a scanner
    since fixed) must never be reused.  About 3 ms (1.7 MB), once a process."""
    from .common.walk import walk as _walk_tree
    root = os.path.dirname(os.path.abspath(__file__))
    h = hashlib.blake2b(digest_size=16)
    h.update(__version__.encode())
    for folder, dirs, files in _walk_tree(root):
        # (templates/vendor/: mermaid's 2.7 MB, copied into a site as it is,
        # which no cache holds anything made from)
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith(".")
                         and not (d == "vendor" and folder == os.path.join(root, "templates")))
        for name in sorted(files):
            if name.endswith((".pyc", ".pyo")):
                continue
            path = os.path.join(folder, name)
            try:
                with open(path, "rb") as fh:
                    data = fh.read()
            except OSError:
                continue
            h.update(os.fsencode(os.path.relpath(path, root)) + b"\0")
            h.update(len(data).to_bytes(8, "little"))
            h.update(data)
    return h.hexdigest()
