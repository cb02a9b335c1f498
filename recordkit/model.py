"""The data model: a record file, its positions, its mentions, a diagnostic.

Positions are 1-based ``(line, col, end_line, end_col)`` tuples; columns count
characters, as editors and ruff do.
"""
from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Pos = tuple  # (line, col, end_line, end_col), 1-based


#: integers beyond this lose digits in JavaScript (and in many JSON readers)
_JSON_SAFE_INT = 2**53 - 1


def plain_key(key: Any) -> str:
    """A front-matter key as text, spelt as YAML would (``true``, ``null``,
    ``2026-01-01``), never as a Python repr."""
    if isinstance(key, str):
        return key
    plain = to_plain(key)
    if isinstance(plain, str):
        return plain
    if plain is None:
        return "null"
    if isinstance(plain, bool):
        return "true" if plain else "false"
    if isinstance(plain, (int, float)):
        return str(plain)
    import json
    return json.dumps(plain, ensure_ascii=False)   # a list or mapping used as a key


def to_plain(value: Any) -> Any:
    """A front-matter value made JSON-ready, keeping its meaning: the one
    conversion every JSON output (``show --format json``, the content index,
    the graph page, the exports) goes through.

    Keys become strings (``1``, ``true``, ``null``, ``2026-01-01``), dates and
    times ISO strings (with their offset), sets sorted lists, ``!!binary``
    bytes their base64 text, integers too large for a JSON reader's double
    and NaN/infinity their YAML spelling as strings; anything else that is
    not JSON becomes its text.
    """
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, int):
        return value if -_JSON_SAFE_INT <= value <= _JSON_SAFE_INT else str(value)
    if isinstance(value, float):
        if value != value:
            return ".nan"
        if value in (float("inf"), float("-inf")):
            return ".inf" if value > 0 else "-.inf"
        return value
    if isinstance(value, (_dt.date, _dt.datetime, _dt.time)):
        return value.isoformat()
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            key = name = plain_key(k)
            n = 1
            while key in out:      # 1 and "1" are two YAML keys but would be one JSON name
                n += 1
                key = f"{name} ({n})"
            out[key] = to_plain(v)
        return out
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((to_plain(v) for v in value), key=lambda v: (type(v).__name__, str(v)))
    if isinstance(value, (bytes, bytearray)):
        import base64
        return base64.b64encode(bytes(value)).decode("ascii")
    return str(value)


@dataclass(slots=True)
class Mention:
    """An id named in a record's body: a bare ``KIND-NNN`` or a ``[[wikilink]]``."""
    target: str
    line: int
    col: int
    end_col: int
    form: str = "bare"          # "bare" or "wikilink"
    label: str | None = None


@dataclass(slots=True)
class Target:
    """One target of a front-matter relation, with the position of its item."""
    id: str
    pos: Pos


@dataclass(eq=False)
class Record:
    """One file of the record, as loaded.  ``meta`` is None when the front
    matter could not be read (the reason is a load diagnostic)."""
    path: Path                               # absolute
    relpath: str                             # relative to the record root, '/'-separated
    # the whole file, decoded (``text``); a record parsed in a helper process
    # arrives as the file's bytes, decoded on first use
    _text: str | None = field(default="", repr=False)
    _raw: bytes | None = field(default=None, repr=False)
    meta: dict | None = None
    # key path tuple -> Pos of the key / of the value or list item; None when
    # not kept (a record parsed in a helper process): worked out on first use
    _keys: dict | None = field(default=None, repr=False)
    _values: dict | None = field(default=None, repr=False)
    fm_line: int = 1                         # line of the opening '---'
    fm_end_line: int = 1                     # line of the closing '---'
    _body: str | None = field(default="", repr=False)   # ``body``: text[body_offset:]
    body_line: int = 1                       # file line of the body's first line
    body_offset: int = 0                     # character offset of the body in ``text``
    # the ids the body names outside code, in order (what scan_mentions
    # finds, without positions); the mentions with their positions are
    # worked out on first use (``mentions``)
    mention_targets: list[str] = field(default_factory=list)
    _mentions: list[Mention] | None = field(default=None, repr=False)
    suppressions: dict[int, frozenset] = field(default_factory=dict)  # line -> codes ignored on it
    kind: str | None = None
    id: str | None = None
    relations: dict[str, list[Target]] = field(default_factory=dict)
    digest: str | None = None                # sha256 of the file's bytes, 128 bits (the lint cache's key)
    stat: tuple | None = None                # (mtime_ns, size, inode, ctime_ns) when it was read

    @property
    def keys(self) -> dict:
        if self._keys is None:
            self._positions()
        return self._keys

    @keys.setter
    def keys(self, value: dict) -> None:
        self._keys = value

    @property
    def values(self) -> dict:
        if self._values is None:
            self._positions()
        return self._values

    @values.setter
    def values(self, value: dict) -> None:
        self._values = value

    @property
    def text(self) -> str:
        """The whole file, decoded."""
        if self._text is None:
            self._text = self._raw.decode("utf-8") if self._raw is not None else ""
            self._raw = None
        return self._text

    @text.setter
    def text(self, value: str) -> None:
        self._text = value
        self._raw = None
        self.__dict__.pop("_line_starts", None)

    @property
    def body(self) -> str:
        """The text after the front matter (the whole text when it has none)."""
        if self._body is None:
            self._body = self.text[self.body_offset:]
        return self._body

    @body.setter
    def body(self, value: str) -> None:
        self._body = value

    @property
    def mentions(self) -> list[Mention]:
        """Every mention in the body with its line and column (the same
        targets as ``mention_targets``)."""
        if self._mentions is None:
            from .mentions import scan_mentions
            pattern = self.__dict__.get("_mention_re")
            if pattern is None:   # a record not made by the loader
                from .schema import load_schema
                pattern = load_schema().mention_re
            self._mentions = scan_mentions(self.body, pattern, self.body_line, self.__dict__.get("_code"))
        return self._mentions

    @mentions.setter
    def mentions(self, value: list[Mention]) -> None:
        self._mentions = value
        self.mention_targets = [m.target for m in value]

    def _positions(self) -> None:
        from .parse import front_matter_positions
        self._keys, self._values = front_matter_positions(self.text)

    # -- convenient fields ---------------------------------------------------
    @property
    def stem(self) -> str:
        return self.path.stem

    @property
    def ok(self) -> bool:
        return isinstance(self.meta, dict)

    def get(self, key: str, default: Any = None) -> Any:
        return self.meta.get(key, default) if isinstance(self.meta, dict) else default

    @property
    def title(self) -> str:
        t = self.get("title")
        return t if isinstance(t, str) else ""

    @property
    def status(self) -> str | None:
        s = self.get("status")
        return s if isinstance(s, str) else None

    @property
    def tags(self) -> list[str]:
        t = self.get("tags")
        if isinstance(t, str):
            return [t]
        return [x for x in t if isinstance(x, str)] if isinstance(t, list) else []

    def key_pos(self, *path) -> Pos:
        """Position of the key at ``path``; falls back to the nearest parent,
        then to the opening line of the front matter."""
        while path:
            if path in self.keys:
                return self.keys[path]
            if path in self.values:
                return self.values[path]
            path = path[:-1]
        return (self.fm_line, 1, self.fm_line, 4)

    def value_pos(self, *path) -> Pos:
        """Position of the value (or list item) at ``path``, else of its key."""
        if path in self.values:
            return self.values[path]
        return self.key_pos(*path)

    def line_text(self, line: int) -> str:
        """The text of a 1-based line, without its line ending.  Lines end
        at "\n" only (as editors and positions count them: a lone "\r",
        U+0085, U+2028 and U+2029 stay inside the line).  The line starts
        are found once per record."""
        starts = self.__dict__.get("_line_starts")
        text = self.text
        if starts is None:
            starts = [0]
            find = text.find
            i = find("\n")
            while i >= 0:
                starts.append(i + 1)
                i = find("\n", i + 1)
            self.__dict__["_line_starts"] = starts
        if not 0 < line <= len(starts) or (line == len(starts) and starts[-1] == len(text) and line > 1):
            return ""
        end = starts[line] - 1 if line < len(starts) else len(text)
        s = text[starts[line - 1]:end]
        return s[:-1] if s.endswith("\r") else s


@dataclass(slots=True)
class Fix:
    """A safe edit: replace ``text[start:end]`` of the file with ``content``."""
    start: int
    end: int
    content: str
    message: str = ""


@dataclass
class Diagnostic:
    code: str
    message: str
    path: Path
    line: int = 1
    col: int = 1
    end_line: int | None = None
    end_col: int | None = None
    severity: str = "error"
    record: str | None = None
    fix: Fix | None = None
    #: what else the diagnostic is about, beyond the file it is in: keys
    #: made by :mod:`recordkit.lint.involve` (a record id ``KIND-NNN``, the
    #: links into a record ``<-KIND-NNN``, a check ``check:ID``).  ``lint
    #: PATHS`` reports a diagnostic located elsewhere when one of the paths
    #: holds, or held, one of these.
    about: tuple = ()

    @classmethod
    def at(cls, code: str, message: str, record: "Record", pos: Pos, **kw) -> "Diagnostic":
        line, col, end_line, end_col = pos
        return cls(code, message, record.path, line, col, end_line, end_col, record=record.id, **kw)

    def sort_key(self):
        return (str(self.path), self.line, self.col, self.code)
