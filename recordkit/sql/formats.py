"""A query's result as text: an aligned table, JSON, CSV.  Each is written
as a stream (``write_table``, ``write_json``, ``write_csv``: the rows are
not held, for ``recordkit query``); the string forms (``format_*``) are the
streams collected."""
from __future__ import annotations

import csv
import io
import json
import math
import tempfile
from itertools import islice
from typing import TYPE_CHECKING

from ..common.text import terminal_safe

if TYPE_CHECKING:
    from .result import Result


def _cell(v, width: int | None) -> str:
    if v is None:
        return ""
    s = str(v) if not isinstance(v, float) else f"{v:.6g}"
    s = s.replace("\r\n", "⏎").replace("\n", "⏎").replace("\t", " ")
    # a title's ESC sequence or bidi override is shown, not obeyed by the terminal
    s = terminal_safe(s, keep_newlines=False)
    if width and len(s) > width:
        s = s[:width - 1] + "…"
    return s


def format_table(result: Result, width: int | None = 60) -> str:
    """An aligned text table (cells cut at ``width`` characters; numbers
    right-aligned; control characters and bidi overrides shown as escapes,
    :func:`recordkit.common.text.terminal_safe`): :func:`write_table`'s
    lines, without the final line break."""
    out: list[str] = []
    write_table(result.columns, result.rows, out.append, width)
    return "".join(out)[:-1]


def write_table(columns, rows, write, width: int | None = 60) -> int:
    """An aligned text table of ``rows`` (see :func:`format_table`) and a
    final line break, written through ``write`` without holding the rows: a first
    pass keeps the cells in a temporary file (in memory up to 16 MB) while
    the columns' widths are found, a second writes the lines.  (The table
    held every row: 1.35 GB for 3 million.)  Returns the number of rows."""
    cols = [terminal_safe(str(c), keep_newlines=False) for c in columns]
    w = [len(c) for c in cols]
    numeric = [True] * len(cols)
    n = 0
    # cells are shown text (terminal_safe: no raw control character), so
    # NUL and LF cannot be in one
    with tempfile.SpooledTemporaryFile(max_size=16 << 20, mode="w+", encoding="utf-8",
                                       errors="surrogatepass", newline="\n") as spool:
        for chunk in _chunks(rows):
            lines = []
            for r in chunk:
                cells = [_cell(v, width) for v in r]
                for i, c in enumerate(cells):
                    if len(c) > w[i]:
                        w[i] = len(c)
                    if numeric[i] and not (isinstance(r[i], (int, float)) or r[i] is None):
                        numeric[i] = False
                lines.append("\x00".join(cells))
            n += len(chunk)
            spool.write("\n".join(lines) + "\n")
        if not n:
            numeric = [False] * len(cols)
        write("  ".join(c.ljust(w[i]) for i, c in enumerate(cols)).rstrip() + "\n"
              + "  ".join("-" * w[i] for i in range(len(cols))) + "\n")
        spool.seek(0)
        out = []
        for line in spool:
            cells = line[:-1].split("\x00") if cols else []
            out.append("  ".join(c.rjust(w[i]) if numeric[i] else c.ljust(w[i])
                                 for i, c in enumerate(cells)).rstrip())
            if len(out) >= 1000:
                write("\n".join(out) + "\n")
                out = []
        if out:
            write("\n".join(out) + "\n")
    return n


def _json_value(v):
    if isinstance(v, bytes):   # a BLOB: as hexadecimal text
        return v.hex()
    raise TypeError(f"{type(v).__name__} is not JSON")


def _json_row(columns, row) -> dict:
    return {k: (("nan" if math.isnan(v) else "inf" if v > 0 else "-inf")
                if isinstance(v, float) and not math.isfinite(v) else v) for k, v in zip(columns, row)}


def _chunks(rows, n: int = 1000):
    it = iter(rows)
    while True:
        got = list(islice(it, n))
        if not got:
            return
        yield got


def write_json(columns, rows, write) -> None:
    """``rows`` as a list of objects, one a row with the ``columns`` as
    keys; strict JSON (an infinite or NaN number as the string "inf",
    "-inf" or "nan", a BLOB as hexadecimal text); written a thousand rows
    at a time through ``write`` (only those are held)."""
    enc = json.JSONEncoder(indent=2, ensure_ascii=False, default=_json_value, allow_nan=False)
    first = True
    for chunk in _chunks(rows):
        text = enc.encode([_json_row(columns, r) for r in chunk])     # "[\n  {...},\n  {...}\n]"
        write(("[\n" if first else ",\n") + text[2:-2])
        first = False
    write("[]" if first else "\n]")


def write_csv(columns, rows, write) -> None:
    """``columns``, then ``rows``, as CSV lines, written a thousand rows
    at a time."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    for chunk in _chunks(rows):
        w.writerows(chunk)
        write(buf.getvalue())
        buf.seek(0)
        buf.truncate()
    write(buf.getvalue())


def format_json(result: Result) -> str:
    """:func:`write_json` of the whole result, as one string."""
    out: list[str] = []
    write_json(result.columns, result.rows, out.append)
    return "".join(out)


def format_csv(result: Result) -> str:
    """:func:`write_csv` of the whole result, as one string."""
    out: list[str] = []
    write_csv(result.columns, result.rows, out.append)
    return "".join(out)
