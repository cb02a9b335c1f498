"""The order of ids: ``KIND-NNN`` by kind, then by number (``LIT-9``
before ``LIT-10``), whatever the order they were found in."""
from __future__ import annotations


def id_sort_key(record_id: str):
    """KIND-NNN ids sort by kind, then by number."""
    kind, _, num = record_id.rpartition("-")
    return (kind, int(num) if num.isdigit() else 0, record_id)
