"""Files changed on disk, for a client that cannot register
``workspace/didChangeWatchedFiles`` (Neovim declares no dynamic
registration): the record root and the checks folder watched with
``watchfiles`` (as ``recordkit serve`` does), its changes batched (a
``git checkout`` of thousands of files arrives as a few batches, not one
rebuild per file) and handed to ``on_change(paths)``.

Only what the loader reads is kept: ``.md`` files it would walk, the check
modules and the configuration files; ``.git``, the cache folder, hidden
folders and the configuration's ``skip_dirs``/``exclude`` never reach the
server.
"""
from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Callable

log = logging.getLogger(__name__)
CONFIG_NAMES = ("recordkit.toml", "pyproject.toml")


def relevant(workspace, path: Path) -> bool:
    """Whether a change of ``path`` matters to the server."""
    config = workspace.config
    path = Path(path)
    if path.name in CONFIG_NAMES or path.name.endswith(".schema.yaml"):
        return True
    cache = Path(config.cache_dir).resolve()
    if path == cache or path.is_relative_to(cache):
        return False
    if path.suffix == ".py":
        checks = Path(config.checks).resolve()
        return path.parent == checks and not path.name.startswith((".", "_"))
    return path.suffix == ".md" and workspace.is_record_path(path)


class DiskWatcher:
    """A thread watching the record with ``watchfiles`` until :meth:`stop`."""

    def __init__(self, workspace, on_change: Callable[[set[Path]], None], debounce_ms: int = 200):
        self.workspace = workspace
        self.on_change = on_change
        self.debounce_ms = debounce_ms
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self._run, name="recordkit-lsp-watch", daemon=True)

    def start(self) -> "DiskWatcher":
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stop_event.set()

    def _paths(self) -> list[str]:
        config = self.workspace.config
        out = [str(self.workspace.root)]
        checks = Path(config.checks).resolve()
        if checks.is_dir() and not checks.is_relative_to(self.workspace.root):
            out.append(str(checks))
        if config.file is not None and not Path(config.file).resolve().is_relative_to(self.workspace.root):
            out.append(str(Path(config.file).resolve().parent))
        return out

    def _run(self) -> None:
        import watchfiles
        from ..corpus.loader import skip_matcher
        root = self.workspace.root
        skip = skip_matcher(root, self.workspace.config.skip_dirs)

        def keep(change, path: str) -> bool:
            p = Path(path)
            try:
                parts = p.relative_to(root).parts
            except ValueError:
                parts = ()
            folder = str(root)
            for part in parts[:-1]:
                if part.startswith(".") or skip(folder, part):
                    return False
                folder = f"{folder}/{part}"
            return relevant(self.workspace, p)
        try:
            for changes in watchfiles.watch(*self._paths(), watch_filter=keep, debounce=self.debounce_ms, step=50,
                                            stop_event=self.stop_event, raise_interrupt=False, rust_timeout=400,
                                            yield_on_timeout=True):
                if changes:
                    self.on_change({Path(p) for _, p in changes})
        except Exception:   # a watcher that cannot run leaves the server without it, never dead
            log.exception("watching the record failed")
