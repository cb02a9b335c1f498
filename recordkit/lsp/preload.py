"""A cold start read ahead: before the server starts any thread, a helper
forked through :class:`recordkit.runtime.Background` reads the record the
current folder's configuration names into the store of parsed records,
on every core (a helper runs no thread, so it may spread the parse),
while the server imports pygls and answers ``initialize``.  The server's
own load, in its worker thread, waits for it when the client names the
same record and then reads the store warm; another record: the helper is
stopped.  Nothing is read ahead when the store is there already (a warm
start) or the record is small (under ``runtime.tuning.MIN_FILES`` files:
one process parses it as fast)."""
from __future__ import annotations

import os
from pathlib import Path


class Preload:
    """The helper reading ``root`` ahead (see the module)."""

    def __init__(self, root: Path, helper):
        self.root = root
        self.helper = helper

    def settle(self, root: Path, timeout: float = 120.0) -> bool:
        """Before the server loads ``root``: wait for the helper when it
        reads that record (whether it stored it), else stop it."""
        if Path(root).resolve() == self.root:
            return self.helper.wait(timeout)
        self.helper.stop()
        return False


def preload(folder: Path) -> Preload | None:
    """Start reading ahead the record ``folder``'s configuration names,
    when its store is cold; None when nothing is read ahead."""
    from ..config import load_config
    from ..corpus.store.store import store_folder
    from ..runtime import Background
    try:
        config = load_config(Path(folder))
        root = Path(config.root).resolve()
        if not root.is_dir() or store_folder(config, root).exists():
            return None
    except Exception:       # a configuration that does not load: the server reports it at initialize
        return None

    def read_ahead():
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)          # stdout is the client's channel: nothing of the helper's goes there
        from ..corpus.loader import iter_files, load
        from ..runtime.tuning import MIN_FILES
        files = iter_files(root, config.exclude, config.skip_dirs)
        if len(files) >= MIN_FILES:
            load(root, config=config, files=files, store=True)
    helper = Background.start(read_ahead)
    return None if helper is None else Preload(root, helper)
