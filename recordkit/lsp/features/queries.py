"""Live ```query blocks: completion of the record database's tables and
columns (:data:`recordkit.sql.tables.TABLE_SQL`, documented in
docs/query.md) and of SQL's words, inside a fenced ``query`` block.  The
block's RK701 diagnostics are the engine's (the lint runs the block)."""
from __future__ import annotations

import re

from lsprotocol import types as lsp

from ...sql.tables import TABLE_SQL, TABLES
from .context import units

_OPEN_RE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})[ \t]*query\b")
_COLUMN_RE = re.compile(r"^\s+([a-z_][a-z0-9_]*)\s+[A-Z]", re.M)
_WORD_RE = re.compile(r"([A-Za-z_][\w]*)\.?([A-Za-z_]\w*)?$")
_ALIAS_RE = re.compile(r"\b(?:FROM|JOIN)\s+([a-z_]\w*)(?:\s+(?:AS\s+)?([a-z_]\w*))?", re.I)
SQL_WORDS = ("SELECT", "FROM", "WHERE", "JOIN", "LEFT JOIN", "ON", "GROUP BY", "ORDER BY", "HAVING", "LIMIT",
             "AND", "OR", "NOT", "EXISTS", "IN", "LIKE", "DISTINCT", "COUNT", "AS", "DESC", "ASC")
_KEYWORDS = frozenset(w for w in SQL_WORDS if " " not in w) | {"WHERE", "GROUP", "ORDER", "LIMIT", "ON"}


def columns() -> dict[str, list[str]]:
    """table -> its columns, as the database declares them."""
    return {t: _COLUMN_RE.findall(TABLE_SQL[t]) for t in TABLES if t in TABLE_SQL}


def block_at(text: str, line: int) -> tuple[int, int] | None:
    """``(first, last)`` 0-based lines of the ```query block's SQL holding ``line``, or None."""
    lines = text.split("\n")
    fence = None
    start = None
    for i, raw in enumerate(lines):
        s = raw.rstrip("\r")
        if fence is None:
            m = _OPEN_RE.match(s)
            if m:
                fence, start = m.group(1), i + 1
            elif s.lstrip().startswith(("```", "~~~")):
                fence, start = s.lstrip()[:3], None     # another fenced block: skipped
            continue
        if s.strip().startswith(fence):
            if start is not None and start <= line < i:
                return start, i - 1
            fence = None
        if i > line and fence is None:
            break
    if fence is not None and start is not None and start <= line:
        return start, len(lines) - 1      # (a block still being written)
    return None


def complete_in_block(snap, text: str, pos: lsp.Position, before: str, enc: str) -> lsp.CompletionList | None:
    """Tables, columns (``alias.`` gives its table's) and SQL words, when the
    cursor is inside a ```query block; None elsewhere."""
    where = block_at(text, pos.line)
    if where is None:
        return None
    sql = "\n".join(text.split("\n")[where[0]:where[1] + 1])
    cols = columns()
    m = _WORD_RE.search(before)
    word = m.group(0) if m else ""
    items = []
    if "." in word:
        qualifier, word = word.split(".", 1)
        table = _aliases(sql).get(qualifier, qualifier)
        for c in cols.get(table, ()):
            items.append((c, lsp.CompletionItemKind.Field, f"column of {table}"))
    else:
        for t, cs in cols.items():
            items.append((t, lsp.CompletionItemKind.Class, "table: " + ", ".join(cs)))
        seen = set()
        for t in set(_aliases(sql).values()):
            for c in cols.get(t, ()):
                if c not in seen:
                    seen.add(c)
                    items.append((c, lsp.CompletionItemKind.Field, f"column of {t}"))
        items.extend((w, lsp.CompletionItemKind.Keyword, "SQL") for w in SQL_WORDS)
    start = units(before[:len(before) - len(word)], enc)
    rng = lsp.Range(start=lsp.Position(line=pos.line, character=start), end=pos)
    out = [lsp.CompletionItem(label=label, kind=kind, detail=detail, text_edit=lsp.TextEdit(range=rng, new_text=label))
           for label, kind, detail in items if label.lower().startswith(word.lower())]
    return lsp.CompletionList(is_incomplete=False, items=out)


def _aliases(sql: str) -> dict[str, str]:
    """alias (or table name) -> table, from the query's FROM and JOIN clauses."""
    out = {}
    tables = set(TABLE_SQL)
    for m in _ALIAS_RE.finditer(sql):
        table, alias = m.group(1), m.group(2)
        if table in tables:
            out[table] = table
            if alias and alias.upper() not in _KEYWORDS:
                out[alias] = table
    return out
