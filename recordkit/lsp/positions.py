"""Positions as the client counts them.

The library counts code points: a diagnostic's 1-based (line, column), a
fix's character offsets into the whole text.  A client counts in the
encoding negotiated at ``initialize``: UTF-16 code units unless it offers
UTF-8 (or UTF-32) in ``general.positionEncodings``.  On a line holding
``é`` (one UTF-16 unit, two UTF-8 bytes), ``—`` (one unit, three bytes)
or an emoji outside the BMP (two units, four bytes), the three differ.

``Encoding(name)`` converts between offsets (code-point indexes into the
whole text) and :class:`lsprotocol.types.Position`/``Range``:
``enc.position(text, offset)``, ``enc.offset(text, position)``,
``enc.range(text, start, end)``, and ``enc.at(text, line, col)`` for the
library's 1-based (line, column).  A :class:`Lines` keeps a text's line
starts for a caller that converts many positions of one text.
"""
from __future__ import annotations

from bisect import bisect_right

from lsprotocol.types import Position, PositionEncodingKind, Range

from ..common.textpos import line_starts

UTF8 = PositionEncodingKind.Utf8.value
UTF16 = PositionEncodingKind.Utf16.value
UTF32 = PositionEncodingKind.Utf32.value


def _units_utf8(s: str) -> int:
    if s.isascii():
        return len(s)
    return len(s.encode("utf-8", "surrogatepass"))


def _units_utf16(s: str) -> int:
    if s.isascii():
        return len(s)
    return len(s) + sum(1 for ch in s if ord(ch) > 0xFFFF)


def _units_utf32(s: str) -> int:
    return len(s)


_UNITS = {UTF8: _units_utf8, UTF16: _units_utf16, UTF32: _units_utf32}


def _char_units(name: str):
    if name == UTF8:
        return lambda ch: 1 if ord(ch) < 0x80 else 2 if ord(ch) < 0x800 else 3 if ord(ch) < 0x10000 else 4
    if name == UTF16:
        return lambda ch: 2 if ord(ch) > 0xFFFF else 1
    return lambda ch: 1


class Encoding:
    """One negotiated position encoding (``"utf-16"``, ``"utf-8"`` or ``"utf-32"``)."""

    __slots__ = ("name", "units", "char_units")

    def __init__(self, name: str | PositionEncodingKind | None = None):
        name = getattr(name, "value", name) or UTF16
        if name not in _UNITS:
            raise ValueError(f"unknown position encoding {name!r}")
        self.name = name
        self.units = _UNITS[name]
        self.char_units = _char_units(name)

    def __repr__(self) -> str:
        return f"Encoding({self.name!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Encoding) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def lines(self, text: str) -> "Lines":
        return Lines(text, self)

    def position(self, text: str, offset: int) -> Position:
        return Lines(text, self).position(offset)

    def offset(self, text: str, position: Position) -> int:
        return Lines(text, self).offset(position)

    def range(self, text: str, start: int, end: int) -> Range:
        lines = Lines(text, self)
        return Range(lines.position(start), lines.position(end))

    def at(self, text: str, line: int, col: int) -> Position:
        """The Position of the library's 1-based (line, column)."""
        return Lines(text, self).at(line, col)


class Lines:
    """A text's line starts, found once, for converting many positions."""

    __slots__ = ("text", "enc", "starts")

    def __init__(self, text: str, enc: Encoding):
        self.text = text
        self.enc = enc
        self.starts = line_starts(text)

    def _line_end(self, k: int) -> int:
        """The offset where line ``k`` (0-based) ends, before its line break."""
        text = self.text
        end = self.starts[k + 1] - 1 if k + 1 < len(self.starts) else len(text)
        if end > self.starts[k] and text[end - 1:end] == "\r":
            end -= 1
        return end

    def position(self, offset: int) -> Position:
        offset = max(0, min(offset, len(self.text)))
        k = bisect_right(self.starts, offset) - 1
        return Position(k, self.enc.units(self.text[self.starts[k]:offset]))

    def offset(self, position: Position) -> int:
        k = position.line
        if k < 0:
            return 0
        if k >= len(self.starts):
            return len(self.text)
        start, end = self.starts[k], self._line_end(k)
        want = position.character
        if want <= 0:
            return start
        segment = self.text[start:end]
        if segment.isascii() or self.enc.name == UTF32:
            return start + min(want, len(segment))
        size = self.enc.char_units
        got = 0
        for i, ch in enumerate(segment):
            if got >= want:
                return start + i
            got += size(ch)
        return end   # past the line's end: the end (as the protocol says)

    def at(self, line: int, col: int) -> Position:
        """The Position of the library's 1-based (line, column) (column
        counted in code points; past the text: its end)."""
        k = line - 1
        if k < 0:
            return Position(0, 0)
        if k >= len(self.starts):
            return self.position(len(self.text))
        offset = min(self.starts[k] + max(col, 1) - 1, self._line_end(k) if col > 1 else self.starts[k])
        return Position(k, self.enc.units(self.text[self.starts[k]:offset]))

    def range(self, start: int, end: int) -> Range:
        return Range(self.position(start), self.position(end))
