"""Values to bytes and back (pickle), for what goes to a helper process or
to a cache file: the one place that picks the protocol and the pickler's
tricks.  For plain data (no code, nothing a user wrote: only what this
package itself made and wrote)."""
from __future__ import annotations

import io
import pickle

PROTOCOL = pickle.HIGHEST_PROTOCOL


def dumps(data) -> bytes:
    """``data`` pickled (with the pickler's memo: shared objects stay shared)."""
    return pickle.dumps(data, protocol=PROTOCOL)


def fast_dumps(data) -> bytes:
    """``data`` pickled without the pickler's memo (``fast``): the memo
    records every object written, hundreds of thousands for a share of
    parsed records, and filling it costs more than the pickling.  For plain
    data with no cycle; anything the fast pickler refuses (a cycle, a depth
    past the recursion limit) is pickled with the memo."""
    buf = io.BytesIO()
    pickler = pickle.Pickler(buf, protocol=PROTOCOL)
    pickler.fast = True
    try:
        pickler.dump(data)
    except (ValueError, RecursionError):
        return pickle.dumps(data, protocol=PROTOCOL)
    return buf.getvalue()


def fast_dump(data, fh) -> None:
    """``data`` pickled into the open file ``fh``, streamed (no bytes of the
    whole pickle in memory) and without the pickler's memo (plain data with
    nothing shared: see :func:`fast_dumps`)."""
    pickler = pickle.Pickler(fh, protocol=PROTOCOL)
    pickler.fast = True
    pickler.dump(data)


def loads(data: bytes):
    return pickle.loads(data)


def load(fh):
    """The next value pickled in the open file ``fh``."""
    return pickle.load(fh)
