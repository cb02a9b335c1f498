"""Block structure of a record's body that rules need: ATX headings outside
code, and pipe tables under a heading."""
from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from .blocks import code_ranges

_HEADING_RE = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$", re.M)


@dataclass(slots=True)
class Heading:
    level: int
    title: str
    line: int        # file line
    offset: int      # character offset in the body


def _in_code(ranges, pos):
    k = bisect_right(ranges, (pos, float("inf"))) - 1
    return k >= 0 and ranges[k][0] <= pos < ranges[k][1]


def headings(rec) -> list[Heading]:
    """The body's ATX headings outside code, in order (cached on the record)."""
    cached = rec.section_headings
    if cached is not None:
        return cached
    body = rec.body
    out: list[Heading] = []
    ranges = None
    line = 0
    last = 0
    find = body.find
    i = find("#")
    while i >= 0:
        ls = body.rfind("\n", 0, i) + 1
        if i - ls <= 3 and (i == ls or not body[ls:i].strip(" ")):
            m = _HEADING_RE.match(body, ls)
            if m:
                if ranges is None:
                    ranges = rec.code
                    if ranges is None:
                        ranges = code_ranges(body)
                if not (ranges and _in_code(ranges, ls)):
                    line += body.count("\n", last, ls)
                    last = ls
                    out.append(Heading(len(m.group(1)), m.group(2).strip(), rec.body_line + line, ls))
        nl = find("\n", i)
        if nl < 0:
            break
        i = find("#", nl)
    rec.section_headings = out
    return out


def section_text(rec, title: str) -> tuple[str, int] | None:
    """The text of the first section titled ``title`` (case-insensitive) and
    the file line its first line is on; None when there is none."""
    hs = headings(rec)
    want = title.strip().lower()
    for i, h in enumerate(hs):
        if h.title.lower() == want:
            start = rec.body.find("\n", h.offset)
            start = len(rec.body) if start < 0 else start + 1
            end = len(rec.body)
            for h2 in hs[i + 1:]:
                if h2.level <= h.level:
                    end = h2.offset
                    break
            return rec.body[start:end], h.line + 1
    return None


@dataclass(slots=True)
class TableRow:
    cells: list[str]
    cols: list[int]      # 1-based column of each cell's text
    line: int


def _split_row(line: str) -> tuple[list[str], list[int]]:
    """Cells of a pipe-table row and the 1-based column of each cell's text
    (an escaped pipe ``\\|`` stays inside its cell)."""
    raw = line.split("|")
    parts: list[str] = []
    for piece in raw:
        if parts and parts[-1].endswith("\\"):
            parts[-1] += "|" + piece
        else:
            parts.append(piece)
    offsets = []
    pos = 0
    for p in parts:
        offsets.append(pos)
        pos += len(p) + 1
    if parts and not parts[0].strip():          # leading pipe
        parts, offsets = parts[1:], offsets[1:]
    if len(parts) > 1 and not parts[-1].strip():  # trailing pipe
        parts, offsets = parts[:-1], offsets[:-1]
    cells, cols = [], []
    for p, off in zip(parts, offsets):
        stripped = p.strip()
        cells.append(stripped)
        cols.append(off + (len(p) - len(p.lstrip())) + 1)
    return cells, cols


#: a table's delimiter row (``| --- | :-: |``).  Spaces are read only once:
#: ``^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$`` says the same, but
#: where a "|" may be missing two runs of spaces meet, and a long line of
#: spaces was tried cut at every place (8,000 spaces: 0.6 s;
#: tests/corpus/test_linear_patterns.py)
_DELIM_RE = re.compile(r"^\s*(?:\|\s*)?:?-+:?\s*(?:\|\s*:?-+:?\s*)*(?:\|\s*)?$")


def first_table(text: str, first_line: int) -> tuple[TableRow, list[TableRow]] | None:
    """The first pipe table in ``text``: its header row and body rows."""
    lines = text.split("\n")
    for i in range(len(lines) - 1):
        if "|" in lines[i] and _DELIM_RE.match(lines[i + 1]) and "-" in lines[i + 1]:
            cells, cols = _split_row(lines[i])
            header = TableRow(cells, cols, first_line + i)
            rows = []
            for j in range(i + 2, len(lines)):
                if "|" not in lines[j] or not lines[j].strip():
                    break
                c, k = _split_row(lines[j])
                rows.append(TableRow(c, k, first_line + j))
            return header, rows
    return None
