"""The data model: a record file, its positions, its mentions, a diagnostic.

Positions are 1-based ``(line, col, end_line, end_col)`` tuples; columns count
characters, as editors and ruff do.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..common.didyoumean import IdIndex
from ..common.text import plain_key, to_plain  # noqa: F401  (re-exported: the model's values made plain)
from ..config import Config
from ..schema import Schema, load_schema
from ..markdown.frontmatter import front_matter_positions
from .mentions import Mention, scan_mentions, spot_places
from .source import Source

if TYPE_CHECKING:  # networkx is imported when the graph is first asked for
    import networkx as nx

Pos = tuple  # (line, col, end_line, end_col), 1-based


def split_tags(text: str) -> list[str]:
    """The tags of a ``tags:`` written as one string: its comma-separated
    parts, trimmed (one part: the string itself)."""
    if "," not in text:
        return [text]
    return [p.strip() for p in text.split(",") if p.strip()]


@dataclass(slots=True)
class Target:
    """One target of a front-matter relation, with the position of its item.
    ``id``: the record it names once the corpus's links are resolved
    (:func:`recordkit.corpus.resolve.resolve_links`), else the value as
    written; ``text``: the value as written, when it may differ from ``id``."""
    id: str
    pos: Pos
    text: str | None = None


@dataclass(eq=False, slots=True)
class Record:
    """One file of the record, as loaded.  ``meta`` is None when the front
    matter could not be read (the reason is a load diagnostic).

    Every attribute is declared here (the class has slots: nothing can be
    added on the side); the underscored ones are the storage behind a
    property or a method, or a cache of something worked out on first use,
    named only here, in :mod:`.source` and in :mod:`.store`.  The file's
    content, digest and stat are its ``source``; what later stages work
    out per record is not kept here (``Corpus.analyses``)."""
    path: Path                               # absolute
    relpath: str                             # relative to the record root, '/'-separated
    #: the file's content, its digest and stat (:class:`~recordkit.corpus.source.Source`):
    #: the text, or the file's bytes (a record parsed in a helper process),
    #: or nothing until asked (a record from the store of parsed records)
    source: Source = field(default_factory=Source, repr=False)
    meta: dict | None = None
    # key path tuple -> Pos of the key / of the value or list item; None when
    # not kept (a record parsed in a helper process): worked out on first use
    _keys: dict | None = field(default=None, repr=False)
    _values: dict | None = field(default=None, repr=False)
    fm_line: int = 1                         # line of the opening '---'
    fm_end_line: int = 1                     # line of the closing '---'
    body_line: int = 1                       # file line of the body's first line
    body_offset: int = 0                     # character offset of the body in ``text``
    # the ids the body names outside code, in order (what scan_mentions
    # finds, without positions); the mentions with their positions are
    # worked out on first use (``mentions``)
    mention_targets: list[str] = field(default_factory=list)
    _mentions: list[Mention] | None = field(default=None, repr=False)
    #: where each of ``mention_targets`` is, packed (see
    #: :func:`~recordkit.corpus.mentions.mention_spots`; read with
    #: :meth:`mention_places`), found with them when the links are ids (the
    #: research defaults), else None
    _spots: tuple | None = field(default=None, repr=False)
    suppressions: dict[int, frozenset] = field(default_factory=dict)  # line -> codes ignored on it
    #: the kind (``kind_from``), None when no source yields a kind
    kind: str | None = None
    #: the id (``id_from``; the file's stem when no source yields one)
    id: str | None = None
    #: the title (``title_from``; "" when no source yields one) and where it
    #: came from: "field", "h1", "stem", or None.  A record not made by the
    #: loader has ``_title`` None: its title is its ``title`` field's
    _title: str | None = field(default=None, repr=False)
    title_source: str | None = None
    relations: dict[str, list[Target]] = field(default_factory=dict)
    #: (start, end) character ranges of the body that are code or comments
    #: (``mentions.code_ranges``), found at load; the section rules reuse them
    code: list | None = field(default=None, repr=False)
    #: the text after the fence of every line that starts with a fence: lets
    #: check discovery skip the bodies that hold no check block
    fence_infos: list[str] | None = field(default=None, repr=False)
    #: the schema's ``mention_re``, for working out the mentions' positions
    mention_re: Any = field(default=None, repr=False)
    #: set (True) by the loader when the schema reads a body's ``#tags``
    #: (``tags.inline``); ``_inline_tags``: those tags, found on first use
    inline_tags: bool = field(default=False, repr=False)
    _inline_tags: list | None = field(default=None, repr=False)
    #: the status a ``derive`` rule on ``status`` names (MADR's ``status:
    #: superseded by [ADR-0008](…)`` is ``superseded``), set by the loader;
    #: None: the field's value is the status
    status_word: str | None = field(default=None, repr=False)
    #: the body's headings, kept by :func:`recordkit.markdown.sections.headings`
    #: on first use
    section_headings: list | None = field(default=None, repr=False)

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
        s = self.source
        t = s._text
        return t if t is not None else s.text()

    @text.setter
    def text(self, value: str) -> None:
        s = self.source
        self.source = Source(value, None, s.digest, s.stat)

    @property
    def body(self) -> str:
        """The text after the front matter (the whole text when it has none)."""
        s = self.source
        b = s._body
        return b if b is not None else s.body(self.body_offset)

    @body.setter
    def body(self, value: str) -> None:
        self.source.set_body(value)

    @property
    def digest(self) -> str | None:
        """sha256 of the file's bytes, 128 bits (the lint cache's key); None when not read."""
        return self.source.digest

    @digest.setter
    def digest(self, value: str | None) -> None:
        self.source.digest = value

    @property
    def stat(self) -> tuple | None:
        """``(mtime_ns, size, inode, ctime_ns)`` of the file when it was read, None when not read."""
        return self.source.stat

    @property
    def mentions(self) -> list[Mention]:
        """Every mention in the body with its line and column (the same
        targets as ``mention_targets``)."""
        if self._mentions is None:
            pattern = self.mention_re
            if pattern is None:   # a record not made by the loader
                pattern = load_schema().mention_re
            self._mentions = scan_mentions(self.body, pattern, self.body_line, self.code)
        return self._mentions

    @mentions.setter
    def mentions(self, value: list[Mention]) -> None:
        self._mentions = value
        self.mention_targets = [m.target for m in value]
        self._spots = None

    def found_mentions(self, targets: list[str], spots: tuple | None) -> None:
        """Keep what the loader's scan found: the targets and, packed, where
        each is (:func:`~recordkit.corpus.mentions.mention_spots`; None when
        not packed)."""
        self.mention_targets = targets
        self._spots = spots

    def known_mentions(self) -> list[Mention] | None:
        """The mentions with their positions when worked out already, else None."""
        return self._mentions

    def forget_mentions(self) -> None:
        """Let the mentions' positions be worked out again (the targets changed)."""
        self._mentions = None

    @property
    def positions_known(self) -> bool:
        """Whether the mentions' positions are at hand without a scan
        (packed by the loader, or worked out)."""
        return self._spots is not None or self._mentions is not None

    def mention_places(self) -> tuple | None:
        """``(lines, cols, wikilinks)`` of the mentions of ``mention_targets``
        as the loader found them (lines from the body's first, 0; see
        :func:`~recordkit.corpus.mentions.spot_places`), or None when it
        did not pack them (the links are not ids, or the mentions were set)."""
        spots = self._spots
        return spot_places(spots) if spots is not None else None

    def _positions(self) -> None:
        self._keys, self._values = front_matter_positions(self.text)

    # -- convenient fields ---------------------------------------------------
    @property
    def stem(self) -> str:
        return self.path.stem

    @property
    def has_front_matter(self) -> bool:
        """Whether the file opens a front matter (a record of a schema with
        ``front_matter: optional`` may have none: its ``meta`` is empty)."""
        from ..markdown.frontmatter import OPEN_RE
        return OPEN_RE.match(self.text) is not None

    @property
    def ok(self) -> bool:
        return isinstance(self.meta, dict)

    def get(self, key: str, default: Any = None) -> Any:
        return self.meta.get(key, default) if isinstance(self.meta, dict) else default

    @property
    def title(self) -> str:
        t = self._title
        if t is None:
            t = self.get("title")
            return t if isinstance(t, str) else ""
        return t

    @title.setter
    def title(self, value: str) -> None:
        self._title = value

    @property
    def aliases(self) -> list[str]:
        """The ``aliases`` field's strings (one string counts as one alias)."""
        a = self.get("aliases")
        if isinstance(a, str):
            return [a.strip()] if a.strip() else []
        return [x.strip() for x in a if isinstance(x, str) and x.strip()] if isinstance(a, list) else []

    @property
    def path_id(self) -> str:
        """The path relative to the root without ``.md``, '/'-separated."""
        r = self.relpath
        return r[:-3] if r.endswith(".md") else r

    @property
    def status(self) -> str | None:
        """The record's status: the ``status`` field's string, or the status
        a derive rule reads in it (:attr:`status_word`)."""
        s = self.get("status")
        return (self.status_word or s) if isinstance(s, str) else None

    @property
    def tags(self) -> list[str]:
        """The ``tags`` field's strings; one string is a list of tags split
        at commas (``tags: soil, carbon``, as Obsidian and Foam read it)."""
        t = self.get("tags")
        if isinstance(t, str):
            got = split_tags(t)
        else:
            got = [x for x in t if isinstance(x, str)] if isinstance(t, list) else []
        if self.inline_tags:
            inline = self._inline_tags
            if inline is None:
                from ..markdown.links import body_tags
                inline = self._inline_tags = body_tags(self.body, self.code)
            if inline:
                seen = set(got)
                got = got + [x for x in inline if not (x in seen or seen.add(x))]
        return got

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

    def offset_of(self, line: int, col: int) -> int:
        """Character offset in ``text`` of 1-based (line, col), by the line
        starts the record finds once (a caller asking about many of its
        positions stays linear)."""
        starts = self.source.line_starts()
        if line - 1 >= len(starts):
            return len(self.text)
        return min(starts[line - 1] + col - 1, len(self.text))

    def line_text(self, line: int) -> str:
        """The text of a 1-based line, without its line ending.  Lines end
        at "\n" only (as editors and positions count them: a lone "\r",
        U+0085, U+2028 and U+2029 stay inside the line).  The line starts
        are found once per record."""
        text = self.text
        starts = self.source.line_starts()
        if not 0 < line <= len(starts) or (line == len(starts) and starts[-1] == len(text) and line > 1):
            return ""
        end = starts[line] - 1 if line < len(starts) else len(text)
        s = text[starts[line - 1]:end]
        return s[:-1] if s.endswith("\r") else s


@dataclass(slots=True)
class Fix:
    """An edit: replace ``text[start:end]`` of the file with ``content``.
    ``applicability`` is ``"safe"`` (keeps the meaning: ``lint --fix``
    applies it) or ``"unsafe"`` (may change the meaning: applied only with
    ``--unsafe-fixes``), as in ruff."""
    start: int
    end: int
    content: str
    message: str = ""
    applicability: str = "safe"

    @property
    def safe(self) -> bool:
        return self.applicability == "safe"


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


@dataclass(eq=False)
class Corpus:
    """The loaded record.

    ``records``: id -> Record (the first file of each id, in path order);
    ``files``: every file read, including those that failed to parse and
    duplicates; ``diagnostics``: what loading found (RK101–RK104, RK109, RK112);
    ``kept_graph``: its :class:`networkx.MultiDiGraph` once the graph stage
    built it (ask :func:`recordkit.graph.of`, which builds it on first use
    and keeps it here), else None.

    Every attribute is declared here, the caches too (``kept_graph``,
    ``_by_path``, ``_id_index``).
    """
    root: Path
    schema: Schema
    config: Config
    files: list[Record] = field(default_factory=list)
    records: dict[str, Record] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: later stages' per-record results, worked out where each file was
    #: parsed by the ``analyze`` function given to :func:`load` (see there):
    #: its ``key`` -> {record path: result} (a record it did not run on, or
    #: whose result was None, is not there)
    analyses: dict = field(default_factory=dict)
    kept_graph: "nx.MultiDiGraph | None" = field(default=None, repr=False)
    _by_path: dict | None = field(default=None, repr=False)
    _id_index: IdIndex | None = field(default=None, repr=False)
    #: made on first use and kept with the corpus: its link resolver
    #: (:func:`recordkit.corpus.resolve.resolver_for`) and the checks of its
    #: records' blocks, with their problems (:func:`recordkit.numeric.discover.discover_all`)
    _resolver: Any = field(default=None, repr=False)
    _check_blocks: tuple | None = field(default=None, repr=False)

    @property
    def analysis_key(self) -> object:
        """The key of the ``analyze`` function the corpus was loaded with, or None."""
        return next(iter(self.analyses), None)

    def get(self, record_id: str) -> Record | None:
        return self.records.get(record_id)

    def __contains__(self, record_id: str) -> bool:
        return record_id in self.records

    def __len__(self) -> int:
        return len(self.records)

    def by_path(self, path: str | Path) -> Record | None:
        """The file loaded from ``path`` (any spelling of it), or None."""
        index = self._by_path
        if index is None or len(index) != len(self.files):
            index = self._by_path = {rec.path: rec for rec in self.files}
        p = Path(path)
        # as named (a symbolic link is a record file in its own right), then resolved
        return index.get(p) or index.get(Path(os.path.abspath(p))) or index.get(p.resolve())

    def file_at(self, path: Path) -> Record | None:
        """The file loaded from exactly ``path`` (as a record's ``path``), or None."""
        index = self._by_path
        if index is None or len(index) != len(self.files):
            index = self._by_path = {rec.path: rec for rec in self.files}
        return index.get(path)

    def near_ids(self, target: str, exclude: str | None = None, n: int = 1) -> list[str]:
        """The record ids one edit away from ``target`` (see
        :mod:`recordkit.common.didyoumean`); the index is built once."""
        return self.id_index().nearest(target, exclude, n)

    def id_index(self) -> IdIndex:
        """The index of the record's ids for :meth:`near_ids`, built on first use."""
        index = self._id_index
        if index is None or len(index.ids) != len(self.records):
            index = self._id_index = IdIndex(self.records)
        return index
