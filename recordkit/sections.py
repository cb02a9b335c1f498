"""Block structure of a record's body that rules need: ATX headings outside
code, and pipe tables under a heading."""
from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass

from .mentions import code_ranges

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
    cached = rec.__dict__.get("_headings")
    if cached is not None:
        return cached
    body = rec.body
    out: list[Heading] = []
    if "#" in body:
        ranges = code_ranges(body) if ("```" in body or "~~~" in body or "\n    " in body) else []
        line = 0
        last = 0
        for m in _HEADING_RE.finditer(body):
            if ranges and _in_code(ranges, m.start()):
                continue
            line += body.count("\n", last, m.start())
            last = m.start()
            out.append(Heading(len(m.group(1)), m.group(2).strip(), rec.body_line + line, m.start()))
    rec.__dict__["_headings"] = out
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
    cells, cols = [], []
    s = line
    i = 0
    n = len(s)
    while i < n and s[i] in " \t":
        i += 1
    if i < n and s[i] == "|":
        i += 1
    start = i
    while i <= n:
        if i == n or (s[i] == "|" and (i == 0 or s[i - 1] != "\\")):
            raw = s[start:i]
            if i == n and not raw.strip():
                break
            lead = len(raw) - len(raw.lstrip())
            cells.append(raw.strip())
            cols.append(start + lead + 1)
            start = i + 1
        i += 1
    return cells, cols


_DELIM_RE = re.compile(r"^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$")


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
