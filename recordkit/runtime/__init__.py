"""The speed wing: how recordkit is fast, kept apart from what it computes.

It knows no record.  It is the only package that forks (:mod:`.pool`:
:func:`spread` and the one jobs policy), pauses the collector or trims the
C heap (:mod:`.batch`), pickles for speed (:mod:`.snapshot`), decides
whether a file changed (:mod:`.freshness`) or holds a measured figure
(:mod:`.tuning`).  A stage says what a part of its work is and calls in
here; tests/architecture/test_runtime_room.py keeps it so.
"""
from __future__ import annotations

from .batch import batch, release_free_memory, shared_with_helpers
from .pool import Background, PieceHelper, STATS, can_fork, in_helper, reap_helpers, split, spread, workers

__all__ = ["batch", "release_free_memory", "shared_with_helpers", "Background", "PieceHelper", "STATS", "can_fork",
           "in_helper", "reap_helpers", "split", "spread", "workers"]
