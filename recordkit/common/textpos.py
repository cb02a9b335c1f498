"""Text positions: 1-based (line, column) ↔ character offset.

Columns count characters, as editors and ruff do.  The loader's scanners
count lines inline for speed; everything else converts here.
"""
from __future__ import annotations


def offset_of(text: str, line: int, col: int) -> int:
    """Character offset of 1-based (line, col) in ``text``."""
    pos = 0
    for _ in range(line - 1):
        nl = text.find("\n", pos)
        if nl < 0:
            return len(text)
        pos = nl + 1
    return min(pos + col - 1, len(text))


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of character ``offset`` in ``text``."""
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


def trimmed_span(text: str, pos: tuple) -> tuple:
    """``pos`` (line, col, end_line, end_col) with its end pulled back over
    trailing blank space (a block node of YAML ends at the start of the
    next line); ``pos`` itself when there is nothing to trim."""
    line, col, end_line, end_col = pos
    if end_line is None or (end_line, end_col) <= (line, col):
        return pos
    start = offset_of(text, line, col)
    end = offset_of(text, end_line, end_col)
    while end > start and text[end - 1] in " \t\r\n":
        end -= 1
    if end <= start:
        return pos
    el, ec = line_col(text, end)
    return (line, col, el, ec)


def eol_of(text: str) -> str:
    """The file's line-ending style: that of its first line break."""
    nl = text.find("\n")
    if nl > 0 and text[nl - 1] == "\r":
        return "\r\n"
    return "\n"
