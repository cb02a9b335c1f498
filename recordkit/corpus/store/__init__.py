"""The store of parsed records and the forms records travel in: the only
code that knows a record's wire form and its file's bytes.

- :mod:`.store`: :class:`RecordStore`, the cache of what parsing each file gave;
- :mod:`.wire`: what crosses a process boundary or goes to disk, as named tuples;
- :mod:`.parallel`: the parse on every core.

The store's names are importable from here (``from recordkit.corpus.store
import RecordStore``), loaded on first use: a load without a store never
imports it."""
from __future__ import annotations

_STORE_NAMES = {"BUCKETS", "CachedRecord", "FileSource", "RecordStore", "fm_digest", "store_folder", "store_key"}


def __getattr__(name: str):
    if name in _STORE_NAMES:
        from . import store
        return getattr(store, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
