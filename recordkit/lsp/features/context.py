"""What every feature asks of a snapshot: where the references are, the
cursor's place, and positions in the client's encoding.

A feature is a plain function over ``(snap, uri, position/params)``.  The
snapshot (:class:`recordkit.lsp.workspace.Snapshot`) holds the corpus with
every open document's unsaved text applied; what the features work out
over it once (the :class:`FeatureIndex`: every record's reference spans,
the typed in-links of every record) is kept on the snapshot through its
``memo(key, make)`` hook (:func:`kept`), so it lives exactly as long as
the snapshot it was made from and no module holds a cache.

Positions: the library speaks 1-based ``(line, column)`` in code points,
end column exclusive; the client speaks 0-based LSP positions in its
negotiated encoding (UTF-16 unless it offered UTF-8 or UTF-32).  Only the
line's text is needed to convert, so a conversion costs the length of one
line, not of the file.
"""
from __future__ import annotations

import re
from typing import NamedTuple

from lsprotocol import types as lsp

#: a rule code under the cursor (hover shows its documentation)
RULE_RE = re.compile(r"\bRK\d{3}\b")
#: the characters an id or a link target may hold around the cursor
WORD_RE = re.compile(r"[\w./-]+")


# -- the snapshot's hook -------------------------------------------------------------------
def kept(snap, key: str, make):
    """``make()``, worked out once per snapshot: the snapshot's ``memo``
    hook keeps it (a snapshot without the hook, as a caller's own adapter
    may be, gets it worked out each time)."""
    memo = getattr(snap, "memo", None)
    if memo is not None:
        return memo(key, make)
    # the engine's Snapshot keeps its own analyses in its instance dict
    # (``lifecycle``, ``lint_context``); until it offers ``memo``, the
    # features' are kept there too, under one declared name
    own = getattr(snap, "__dict__", None)
    if own is None:
        return make()
    store = own.setdefault("features_memo", {})
    got = store.get(key)
    if got is None:
        got = store[key] = make()
    return got


def seed(snap, key: str, value) -> None:
    """Keep ``value`` under ``key`` on the snapshot (what :func:`kept` then answers)."""
    kept(snap, key, lambda: value)


# -- positions -----------------------------------------------------------------------------
def encoding_name(snap) -> str:
    """``"utf-16"``, ``"utf-8"`` or ``"utf-32"``: what the client negotiated."""
    enc = getattr(snap, "encoding", None)
    name = getattr(enc, "name", None) or getattr(enc, "value", None) or enc
    name = str(name or "utf-16").lower().replace("_", "-")
    if "8" in name:
        return "utf-8"
    if "32" in name:
        return "utf-32"
    return "utf-16"


def units(s: str, enc: str) -> int:
    """How long ``s`` is in the encoding's code units."""
    if enc == "utf-32" or s.isascii():
        return len(s)
    if enc == "utf-8":
        return len(s.encode("utf-8", "surrogatepass"))
    return len(s) + sum(1 for ch in s if ord(ch) > 0xFFFF)


def code_points(line_text: str, character: int, enc: str) -> int:
    """The code-point index in ``line_text`` of the LSP ``character`` (code units)."""
    if enc == "utf-32" or line_text.isascii():
        return min(character, len(line_text))
    n = 0
    for i, ch in enumerate(line_text):
        if n >= character:
            return i
        n += units(ch, enc)
    return len(line_text)


def line_of(text: str, line: int) -> str:
    """The 1-based line of ``text`` (without its line ending)."""
    start = 0
    for _ in range(line - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            return ""
    end = text.find("\n", start)
    s = text[start:] if end < 0 else text[start:end]
    return s[:-1] if s.endswith("\r") else s


class Lines:
    """A text's lines, found once (a feature asking about many places of one text)."""

    __slots__ = ("text", "lines")

    def __init__(self, text: str):
        self.text = text
        self.lines = text.split("\n")

    def line(self, line: int) -> str:
        """The 1-based line, without its line ending."""
        if not 0 < line <= len(self.lines):
            return ""
        s = self.lines[line - 1]
        return s[:-1] if s.endswith("\r") else s


class RecordLines:
    """A record's lines, by the line starts its source finds once (no copy of the text)."""

    __slots__ = ("rec",)

    def __init__(self, rec):
        self.rec = rec

    def line(self, line: int) -> str:
        return self.rec.line_text(line)


def position(lines: Lines, line: int, col: int, enc: str) -> lsp.Position:
    """The LSP position of the library's 1-based (line, column)."""
    text = lines.line(line)
    return lsp.Position(line=max(line - 1, 0), character=units(text[:max(col - 1, 0)], enc))


def lsp_range(lines: Lines, pos: tuple, enc: str) -> lsp.Range:
    """The LSP range of a library position ``(line, col, end_line, end_col)``."""
    line, col, end_line, end_col = pos
    end_line = end_line or line
    end_col = end_col or col
    return lsp.Range(start=position(lines, line, col, enc), end=position(lines, end_line, end_col, enc))


def offset_range(text: str, start: int, end: int, enc: str) -> lsp.Range:
    """The LSP range of ``text[start:end]`` (code-point offsets)."""
    return lsp.Range(start=offset_position(text, start, enc), end=offset_position(text, end, enc))


def offset_position(text: str, offset: int, enc: str) -> lsp.Position:
    line = text.count("\n", 0, offset)
    start = text.rfind("\n", 0, offset) + 1
    return lsp.Position(line=line, character=units(text[start:offset], enc))


def cursor(snap, uri: str, pos: lsp.Position):
    """``(record, line, col)`` of an LSP position in an open document or a
    file of the record: 1-based line and code-point column; the record is
    None when the file is none of the corpus's."""
    rec = snap.record(uri)
    if rec is None:
        return None, pos.line + 1, pos.character + 1
    text = line_of(rec.text, pos.line + 1)
    return rec, pos.line + 1, code_points(text, pos.character, encoding_name(snap)) + 1


def uri_of(snap, rec) -> str:
    return snap.uri_of(rec.path)


# -- the references of a record ------------------------------------------------------------
class Ref(NamedTuple):
    """One reference to a record in a file: where (1-based, code points, end
    exclusive), what it names once resolved (``target``: a record id, or
    None when it names none), as written, by which relation (the schema's
    mention relation for a body link), and from where: ``"frontmatter"``,
    ``"body"`` or ``"id"`` (a record's own ``id:`` value)."""
    line: int
    col: int
    end_line: int
    end_col: int
    target: str | None
    written: str
    relation: str
    origin: str
    form: str = "value"

    @property
    def pos(self) -> tuple:
        return (self.line, self.col, self.end_line, self.end_col)

    def holds(self, line: int, col: int) -> bool:
        """Whether the cursor (1-based line, column) is on the reference (its end included)."""
        if line < self.line or line > self.end_line:
            return False
        if line == self.line and col < self.col:
            return False
        return not (line == self.end_line and col > self.end_col)


def record_refs(corpus, rec) -> list[Ref]:
    """Every reference ``rec`` makes: its relations' targets, its body's
    links and mentions, and its own id (a rename starts there too)."""
    records = corpus.records
    schema = corpus.schema
    out: list[Ref] = []
    if not rec.ok:
        return out
    own = rec.values.get(("id",))
    if own is not None and rec.id is not None:
        out.append(Ref(*own, rec.id, rec.id, "id", "id"))
    for rel, targets in (rec.relations or {}).items():
        for t in targets:
            written = t.text if t.text is not None else t.id
            out.append(Ref(*t.pos, t.id if t.id in records else None, written, rel, "frontmatter"))
    mrel = schema.mention_relation
    for m in rec.mentions:
        written = m.text if m.text is not None else m.target
        out.append(Ref(m.line, m.col, m.line, m.end_col, m.target if m.target in records else None,
                       written, mrel, "body", m.form))
    return out


class FeatureIndex:
    """What the features ask of one snapshot's corpus, worked out on first
    use and kept with it: each record's references (:func:`record_refs`),
    and which records point at each id (by relation or mention)."""

    def __init__(self, corpus):
        self.corpus = corpus
        self._refs: dict = {}
        self._sources: dict | None = None

    def refs_from(self, other: "FeatureIndex") -> None:
        """Take ``other``'s references of the records this corpus shares with it."""
        self._refs.update(other._refs)

    def sources_map(self) -> dict | None:
        """id -> the records pointing at it, when worked out."""
        return self._sources

    def set_sources(self, sources: dict) -> None:
        self._sources = sources

    @staticmethod
    def targets_of(rec) -> set:
        """The ids ``rec``'s relations and body name (as its in-links count them)."""
        if not rec.ok:
            return set()
        seen = {t.id for ts in (rec.relations or {}).values() for t in ts}
        seen.update(rec.mention_targets)
        return seen

    def refs(self, rec) -> list[Ref]:
        got = self._refs.get(rec.path)
        if got is None or got[0] is not rec:
            got = self._refs[rec.path] = (rec, record_refs(self.corpus, rec))
        return got[1]

    def sources(self, rid: str) -> list:
        """The records whose relations or body name ``rid`` (in file order)."""
        index = self._sources
        if index is None:
            index = self._sources = {}
            for rec in self.corpus.files:
                for target in self.targets_of(rec):
                    index.setdefault(target, []).append(rec)
        return index.get(rid, [])

    def references(self, rid: str, *, include_own: bool = False) -> list[tuple]:
        """``(record, Ref)`` of every reference to ``rid`` across the record."""
        out = []
        for rec in self.sources(rid):
            out.extend((rec, r) for r in self.refs(rec) if r.target == rid and r.origin != "id")
        if include_own:
            rec = self.corpus.records.get(rid)
            if rec is not None:
                out.extend((rec, r) for r in self.refs(rec) if r.origin == "id")
        return out


def index_of(snap) -> FeatureIndex:
    """The snapshot's :class:`FeatureIndex` (one per snapshot)."""
    return kept(snap, "lsp.features.index", lambda: FeatureIndex(snap.corpus))


def ref_at(snap, uri: str, pos: lsp.Position) -> tuple:
    """``(record, Ref)`` of the reference under the cursor, or ``(record, None)``.
    A record id written where no relation reads it (a ``claim:`` of a
    ``promote_when``, a table cell inside code) counts when it names a record."""
    rec, line, col = cursor(snap, uri, pos)
    if rec is None:
        return None, None
    for r in index_of(snap).refs(rec):
        if r.holds(line, col):
            return rec, r
    word = word_at(line_of(rec.text, line), col)
    if word is not None:
        text, start, end = word
        if text in snap.corpus.records:
            return rec, Ref(line, start, line, end, text, text, "", "word")
    return rec, None


def word_at(text: str, col: int) -> tuple[str, int, int] | None:
    """``(word, col, end_col)`` of the id-like word at 1-based ``col`` of a line."""
    for m in WORD_RE.finditer(text):
        if m.start() + 1 <= col <= m.end() + 1:
            w = m.group().rstrip(".")
            return w, m.start() + 1, m.start() + 1 + len(w)
    return None


def location(snap, rec, pos: tuple, lines: Lines | None = None) -> lsp.Location:
    """The LSP location of a library position in ``rec``."""
    lines = lines or Lines(rec.text)
    return lsp.Location(uri=uri_of(snap, rec), range=lsp_range(lines, pos, encoding_name(snap)))


def whole_file(snap, rec) -> lsp.Location:
    """The start of a record's file (what "go to definition" jumps to)."""
    return lsp.Location(uri=uri_of(snap, rec), range=lsp.Range(start=lsp.Position(line=0, character=0),
                                                               end=lsp.Position(line=0, character=0)))
