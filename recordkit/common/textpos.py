"""Text positions: 1-based (line, column) ↔ character offset.

Columns count characters, as editors and ruff do.  The loader's scanners
count lines inline for speed; everything else converts here.
"""
from __future__ import annotations

import re
from array import array
from bisect import bisect_right

#: how far into a text (lines for offset_of, characters for line_col) the
#: plain search goes before a :class:`Positions`' line index is used: a rule
#: that asks for each of a long body's mentions in turn would otherwise take
#: time growing with the square of the body (13,000 embeds, each on its line:
#: 13 s to lint)
_NEAR_LINES = 64
_NEAR_CHARS = 8192
_NEWLINE = re.compile("\n")


class Positions:
    """Positions in one text, for a caller that asks about many of them (a
    rule about each mention of a long body, a format about each fix): the
    text's line starts are found once, at the first question far in."""

    __slots__ = ("text", "_starts")

    def __init__(self, text: str):
        self.text = text
        self._starts: array | None = None

    def line_starts(self) -> array:
        """The offset of each line's first character."""
        starts = self._starts
        if starts is None:
            starts = self._starts = array("q", [0])
            starts.extend(m.end() for m in _NEWLINE.finditer(self.text))
        return starts

    def offset_of(self, line: int, col: int) -> int:
        """Character offset of 1-based (line, col)."""
        text = self.text
        if line <= _NEAR_LINES:
            return _near_offset(text, line, col)
        starts = self.line_starts()
        if line - 1 >= len(starts):
            return len(text)
        return min(starts[line - 1] + col - 1, len(text))

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of character ``offset``."""
        if offset <= _NEAR_CHARS:
            return _near_line_col(self.text, offset)
        starts = self.line_starts()
        k = bisect_right(starts, offset) - 1
        return k + 1, offset - starts[k] + 1


def _near_offset(text: str, line: int, col: int) -> int:
    pos = 0
    for _ in range(line - 1):
        nl = text.find("\n", pos)
        if nl < 0:
            return len(text)
        pos = nl + 1
    return min(pos + col - 1, len(text))


def _near_line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


def line_starts(text: str) -> array:
    """The offset of each line's first character in ``text``."""
    return Positions(text).line_starts()


def offset_of(text: str, line: int, col: int) -> int:
    """Character offset of 1-based (line, col) in ``text`` (one question:
    a caller with many about one text holds a :class:`Positions`)."""
    return Positions(text).offset_of(line, col)


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of character ``offset`` in ``text`` (one
    question: a caller with many about one text holds a :class:`Positions`)."""
    return Positions(text).line_col(offset)


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
