"""```` ```query ```` blocks in a record's body: found (:func:`query_blocks`)
and, once run (:func:`recordkit.sql.query.evaluate_blocks`), their results
as data and as text (``recordkit show``)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .formats import format_table

if TYPE_CHECKING:
    from .result import Result


_OPEN = re.compile(r"^([ \t]{0,3})(`{3,}|~{3,})[ \t]*query(?:[ \t]+([^\n`]*))?[ \t]*$")


@dataclass
class QueryBlock:
    """A fenced ```` ```query ```` block of a record's body."""
    record: str
    line: int          # file line of the opening fence
    sql: str
    col: int = 1
    end_col: int = 1


@dataclass
class BlockResult:
    block: QueryBlock
    result: Result | None = None
    error: str | None = None

    def to_dict(self) -> dict:
        out = {"line": self.block.line, "sql": self.block.sql, "error": self.error}
        if self.result is not None:
            out.update(columns=self.result.columns, rows=[list(r) for r in self.result.rows],
                       tables=sorted(self.result.tables))
        return out


def query_blocks(rec) -> list[QueryBlock]:
    """The ``query`` blocks of a record's body, in order."""
    body = rec.body
    if "query" not in body:
        return []
    lines = body.split("\n")
    out = []
    i = 0
    while i < len(lines):
        line = lines[i].rstrip("\r")
        m = _OPEN.match(line)
        if m:
            fence = m.group(2)
            j = i + 1
            sql = []
            while j < len(lines):
                s = lines[j].rstrip("\r").strip()
                if s.startswith(fence[0] * len(fence)) and not s.strip(fence[0]):
                    break
                sql.append(lines[j].rstrip("\r"))
                j += 1
            out.append(QueryBlock(rec.id, rec.body_line + i, "\n".join(sql).strip(),
                                  len(m.group(1)) + 1, len(line) + 1))
            i = j + 1
            continue
        # skip other fenced blocks whole (a ```query line inside one is code)
        fm = re.match(r"^[ \t]{0,3}(`{3,}|~{3,})", line)
        if fm:
            fence = fm.group(1)
            j = i + 1
            while j < len(lines):
                s = lines[j].rstrip("\r").strip()
                if s.startswith(fence[0] * len(fence)) and not s.strip(fence[0]):
                    break
                j += 1
            i = j + 1
            continue
        i += 1
    return out


def format_query_blocks(blocks: list[BlockResult], width: int | None = 60) -> str:
    """The results of a record's query blocks as text (for ``recordkit show``)."""
    if not blocks:
        return ""
    out = ["", "", "Queries"]
    for b in blocks:
        first = " ".join(b.block.sql.split())
        out.append(f"  line {b.block.line}: {first if len(first) <= 80 else first[:79].rstrip() + '…'}")
        if b.error:
            out.append(f"    error: {b.error}")
            continue
        n = len(b.result.rows)
        if b.result.columns:
            out.extend("    " + line for line in format_table(b.result, width).split("\n"))
        out.append(f"    ({n} row{'s' if n != 1 else ''})")
    return "\n".join(out)
