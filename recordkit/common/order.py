"""The order of ids: ``KIND-NNN`` by kind, then by number (``LIT-9``
before ``LIT-10``), whatever the order they were found in."""
from __future__ import annotations

import math


def id_sort_key(record_id: str):
    """KIND-NNN ids sort by kind, then by number.  A number ``int()`` will
    not read (more than Python's 4,300 digits, or a digit such as ``²``)
    sorts after every number it reads, then by the id's text: never an
    exception."""
    kind, _, num = record_id.rpartition("-")
    if not num.isdigit():
        return (kind, 0, record_id)
    try:
        return (kind, int(num), record_id)
    except ValueError:
        return (kind, math.inf, record_id)
