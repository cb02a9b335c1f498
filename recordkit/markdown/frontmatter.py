"""YAML front matter with positions: the value of a file's front matter
and the 1-based (line, col, end_line, end_col) of every key and value in it,
in one pass over PyYAML's node tree (C parser).  Knows nothing of records.
"""
from __future__ import annotations

import re
from bisect import bisect_right

import yaml

# the guards every YAML text a user gives goes through before anything walks
# it (alias bombs, nesting too deep for the C composer or for recursion);
# their names are this module's too
from .yamlguard import (  # noqa: F401
    COMPOSE_SAFE, MAX_ALIAS_EXPANSION, MAX_DEPTH, AliasBomb, check_aliases, check_depth, compose,
    may_expand_or_nest)

try:
    from yaml import CSafeLoader as _BaseLoader
except ImportError:  # pragma: no cover - the C loader is several times faster
    from yaml import SafeLoader as _BaseLoader  # type: ignore


# First characters with which an implicit YAML 1.1 resolver (bool, int,
# float, null, timestamp, merge, value) can match; any other plain scalar is
# a string, so it needs no regular-expression tries.
_RESOLVER_FIRST = frozenset("yYnNtTfFoO-+0123456789.~<=")
_STR = "tag:yaml.org,2002:str"
_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"
_SCALAR_NODE, _SEQUENCE_NODE, _MAPPING_NODE = yaml.ScalarNode, yaml.SequenceNode, yaml.MappingNode


class Loader(_BaseLoader):
    """SafeLoader whose timestamps never raise (an impossible date such as
    2026-13-45 stays a string, and the schema rule for dates reports it), and
    whose scalar resolution skips the resolvers that cannot match."""

    def resolve(self, kind, value, implicit):
        if kind is _SCALAR_NODE:
            if implicit[0]:
                if value:
                    c = value[0]
                    # a letter-led plain scalar longer than "False" matches no resolver
                    if c not in _RESOLVER_FIRST or (len(value) > 5 and c.isalpha()):
                        return _STR
                    tag = _RESOLVED.get(value)
                    if tag is None:
                        tag = super().resolve(kind, value, implicit)
                        if len(_RESOLVED) < 65536:
                            _RESOLVED[value] = tag
                    return tag
            elif not self.yaml_path_resolvers:
                return _STR     # a quoted scalar: what BaseResolver.resolve gives, without its walk
        elif not self.yaml_path_resolvers:
            # a collection: BaseResolver.resolve's default tags (the C parser asks for every one)
            if kind is _SEQUENCE_NODE:
                return _SEQ
            if kind is _MAPPING_NODE:
                return _MAP
        return super().resolve(kind, value, implicit)

    if not _BaseLoader.yaml_path_resolvers:
        # PyYAML's C composer calls these two around every node; with no
        # path resolvers (recordkit adds none) BaseResolver's return at
        # once.  A builtin that takes the same arguments and keeps nothing
        # does the same without a Python frame (60 calls a record).
        descend_resolver = staticmethod(slice)      # (parent, index) -> a throwaway slice
        ascend_resolver = staticmethod(tuple)       # () -> ()


#: plain scalar -> its resolved tag (dates, years and short words recur)
_RESOLVED: dict[str, str] = {}


def _timestamp(loader, node):
    value = node.value
    got = _TIMESTAMPS.get(value) if type(value) is str else None
    if got is not None:
        return got
    try:
        got = yaml.constructor.SafeConstructor.construct_yaml_timestamp(loader, node)
    except (ValueError, OverflowError):
        return loader.construct_scalar(node)
    if type(value) is str and len(_TIMESTAMPS) < 65536:
        _TIMESTAMPS[value] = got
    return got


#: a timestamp scalar -> its value (a date or datetime: immutable, so one
#: object may stand for every equal scalar; the same dates recur in every record)
_TIMESTAMPS: dict = {}


Loader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp)

#: the tags of scalars whose constructor :func:`build` calls at once (the
#: others, ``!!seq x`` say, go through PyYAML's ``construct_object``, which
#: runs a collection's generator constructor to its end)
_SCALAR_TAGS = frozenset("tag:yaml.org,2002:" + t for t in ("bool", "int", "float", "null", "timestamp"))


def _refusing(tag: str, construct):
    """``construct`` that raises a marked error for a scalar it cannot read
    (``!!bool abc`` was a KeyError, ``!!timestamp abc`` an AttributeError,
    ``!!int ''`` an IndexError: tracebacks, not diagnostics)."""
    name = tag.rsplit(":", 1)[-1]

    def constructor(loader, node):
        try:
            return construct(loader, node)
        except yaml.YAMLError:
            raise
        except Exception:
            shown = node.value if isinstance(node.value, str) else ""
            shown = shown if len(shown) <= 40 else shown[:39] + "…"
            raise yaml.constructor.ConstructorError(
                None, None, f"{shown!r} is not a valid !!{name}", node.start_mark) from None
    return constructor


for _tag in _SCALAR_TAGS:
    Loader.add_constructor(_tag, _refusing(_tag, Loader.yaml_constructors[_tag]))

OPEN_RE = re.compile(r"\A(\ufeff?)---[ \t]*\r?\n")
CLOSE_RE = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.M)
# a line break before a closing line: the same lines, found by a search a
# literal leads (``CLOSE_RE``'s ``^`` is tried at every character)
_BEFORE_CLOSE_RE = re.compile(r"\n(?=(?:---|\.\.\.)[ \t]*\r?$)", re.M)


def find_close(text: str, pos: int):
    """``CLOSE_RE.search(text, pos)`` for a ``pos`` at a line's start (after
    the opening line), at a third of its cost: the closing line is at
    ``pos`` or after a line break."""
    got = CLOSE_RE.match(text, pos)
    if got is None:
        nl = _BEFORE_CLOSE_RE.search(text, pos)
        if nl is not None:
            got = CLOSE_RE.match(text, nl.end())
    return got


_MERGE = "tag:yaml.org,2002:merge"


class KeyPositions(dict):
    """Key path -> position, and ``duplicates``: (path, the first key's
    position, the repeated key's) of each string key a mapping repeats
    (YAML wants keys unique; PyYAML keeps the last value: RK112)."""
    __slots__ = ("duplicates",)

    def __init__(self):
        super().__init__()
        self.duplicates: list = []


def build(loader, node, path, line0, keys, values, merge=True):
    """Construct ``node``'s value and record the position of every key and
    value below it, in one pass.

    This does what ``construct_document`` does for plain mappings, lists and
    strings (most of a record's front matter) without PyYAML's per-node
    bookkeeping, which costs more than the C parse itself; scalars of other
    tags, merge keys and unusual collection tags go to PyYAML's own
    constructors, so values are exactly what ``yaml.safe_load`` gives.
    ``merge``: whether a merge key may be in the document (False when its
    text holds neither ``<<`` nor a ``!`` tag: its mappings are then not
    searched for one).  A string value is taken in the loop of its mapping
    or list, without a call of its own (most values are strings).
    """
    cls = node.__class__
    if cls is _SCALAR_NODE or isinstance(node, _SCALAR_NODE):
        tag = node.tag
        if tag == _STR:
            return node.value
        return loader.yaml_constructors[tag](loader, node) if tag in _SCALAR_TAGS \
            else loader.construct_object(node, deep=True)
    if cls is _MAPPING_NODE or isinstance(node, _MAPPING_NODE):
        if node.tag != _MAP or merge and any(k.tag == _MERGE for k, _ in node.value):
            data = loader.construct_object(node, deep=True)
            _positions(node, path, line0, keys, values)
            return data
        out = {}
        for k, v in node.value:
            if k.__class__ is _SCALAR_NODE or isinstance(k, _SCALAR_NODE):
                if k.tag == _STR:
                    key = k.value
                    p = path + (key,)
                    sm, em = k.start_mark, k.end_mark
                    if key in out and keys.__class__ is KeyPositions:
                        keys.duplicates.append((p, keys[p], (sm.line + line0, sm.column + 1, em.line + line0,
                                                              em.column + 1)))
                    keys[p] = (sm.line + line0, sm.column + 1, em.line + line0, em.column + 1)
                    sm, em = v.start_mark, v.end_mark
                    values[p] = (sm.line + line0, sm.column + 1, em.line + line0, em.column + 1)
                    out[key] = v.value if v.__class__ is _SCALAR_NODE and v.tag == _STR else \
                        build(loader, v, p, line0, keys, values, merge)
                    continue
                key = build(loader, k, path, line0, {}, {}, merge)
                p = path + (key,)
                sm, em = k.start_mark, k.end_mark
                keys[p] = (sm.line + line0, sm.column + 1, em.line + line0, em.column + 1)
            else:
                key = loader.construct_object(k, deep=True)
                p = path + (str(key),)
            sm, em = v.start_mark, v.end_mark
            values[p] = (sm.line + line0, sm.column + 1, em.line + line0, em.column + 1)
            try:
                hash(key)
            except TypeError:
                raise yaml.constructor.ConstructorError("while constructing a mapping", node.start_mark,
                                                        "found unhashable key", k.start_mark)
            out[key] = build(loader, v, p, line0, keys, values, merge)
        return out
    if cls is _SEQUENCE_NODE or isinstance(node, _SEQUENCE_NODE):
        if node.tag != _SEQ:
            data = loader.construct_object(node, deep=True)
            _positions(node, path, line0, keys, values)
            return data
        out = []
        append = out.append
        for i, item in enumerate(node.value):
            p = path + (i,)
            sm, em = item.start_mark, item.end_mark
            values[p] = (sm.line + line0, sm.column + 1, em.line + line0, em.column + 1)
            append(item.value if item.__class__ is _SCALAR_NODE and item.tag == _STR else
                   build(loader, item, p, line0, keys, values, merge))
        return out
    return loader.construct_object(node, deep=True)


def _positions(node, path, line0, keys, values):
    """Record positions only (for subtrees PyYAML constructed itself)."""
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if isinstance(k, yaml.ScalarNode):
                p = path + (k.value,)
                sm, em = k.start_mark, k.end_mark
                keys[p] = (sm.line + line0, sm.column + 1, em.line + line0, em.column + 1)
                sm, em = v.start_mark, v.end_mark
                values[p] = (sm.line + line0, sm.column + 1, em.line + line0, em.column + 1)
                _positions(v, p, line0, keys, values)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            p = path + (i,)
            sm, em = item.start_mark, item.end_mark
            values[p] = (sm.line + line0, sm.column + 1, em.line + line0, em.column + 1)
            _positions(item, p, line0, keys, values)


# Lines.  recordkit's line is what editors, ``grep -n`` and git show: a line
# ends at "\n" (a "\r" just before it belongs to the line ending).  A lone
# "\r", U+0085, U+2028 and U+2029 are characters inside a line.  YAML (and
# PyYAML's marks) also breaks lines at those four, so when a front matter
# holds one, the marks' lines and columns are converted to recordkit's.
_YAML_ONLY_BREAKS = ("\r", "\x85", "\u2028", "\u2029")
_YAML_BREAK_RE = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


def has_yaml_only_breaks(fm_text: str) -> bool:
    return any(c in fm_text for c in _YAML_ONLY_BREAKS)


class LineMap:
    """Converts PyYAML's (line, column) in a front matter, counted with YAML's
    line breaks, to recordkit's (line, column), counted with "\n" only."""

    def __init__(self, fm_text: str, line0: int):
        self.text = fm_text
        self.line0 = line0
        self.ystarts = [0] + [m.end() for m in _YAML_BREAK_RE.finditer(fm_text)]
        self.nstarts = [0] + [m.end() for m in re.finditer("\n", fm_text)]

    def offset(self, yline: int, ycol: int) -> int:
        """Character offset in the front matter of a YAML (0-based) line and column."""
        if yline >= len(self.ystarts):
            return len(self.text)
        return min(self.ystarts[yline] + ycol, len(self.text))

    def pos(self, yline: int, ycol: int) -> tuple[int, int]:
        """File (line, col), 1-based, of a YAML (0-based) line and column."""
        off = self.offset(yline, ycol)
        k = bisect_right(self.nstarts, off) - 1
        return k + self.line0, off - self.nstarts[k] + 1

    def convert(self, table: dict) -> None:
        """Convert a keys or values table of positions in place."""
        l0 = self.line0
        for p, (line, col, end_line, end_col) in table.items():
            a = self.pos(line - l0, col - 1)
            b = self.pos(end_line - l0, end_col - 1)
            table[p] = (a[0], a[1], b[0], b[1])

    def check_keys(self, keys: dict) -> bool:
        """Whether each (converted) key position holds its key's first character."""
        starts = self.nstarts
        for p, (line, col, _, _) in keys.items():
            k = p[-1] if p else None
            if not isinstance(k, str) or not k:
                continue
            off = starts[line - self.line0] + col - 1 if line - self.line0 < len(starts) else -1
            if off < 0 or off >= len(self.text) or self.text[off] not in (k[0], "'", '"', "?"):
                return False
        return True


def front_matter_positions(text: str) -> tuple[dict, dict]:
    """The key and value positions of a file's front matter (empty when it
    has none or it does not parse)."""
    keys: dict = {}
    values: dict = {}
    m = OPEN_RE.match(text)
    close = find_close(text, m.end()) if m else None
    if not close:
        return keys, values
    try:
        loader, node = compose(text[m.end():close.start()], Loader)
        loader.dispose()
    except (yaml.YAMLError, AliasBomb):
        return keys, values
    if node is not None:
        _positions(node, (), 2, keys, values)
        fm_text = text[m.end():close.start()]
        if has_yaml_only_breaks(fm_text):
            lm = LineMap(fm_text, 2)
            lm.convert(keys)
            lm.convert(values)
    return keys, values


def read_front_matter(fm_text: str, line0: int):
    """``(value, keys, values, exact)`` of the front matter text
    ``fm_text``, whose first line is line ``line0`` of the file; ``exact``
    is False when its positions could not be mapped to lines safely (a line
    break other than "\n" or "\r\n" in it).  Raises :class:`yaml.YAMLError`,
    :class:`AliasBomb` (and RecursionError, ValueError, TypeError,
    OverflowError on values PyYAML cannot build) for the caller to turn into
    a diagnostic (:func:`mark_position` places a mark)."""
    loader, node = compose(fm_text, Loader)
    try:
        keys = KeyPositions()
        values: dict = {}
        data = build(loader, node, (), line0, keys, values, "<<" in fm_text or "!" in fm_text) \
            if node is not None else None
    finally:
        loader.dispose()
    exact = True
    if has_yaml_only_breaks(fm_text):
        lm = LineMap(fm_text, line0)
        lm.convert(keys)
        lm.convert(values)
        exact = lm.check_keys(keys)
    return data, keys, values, exact


def mark_position(fm_text: str, line0: int, mark) -> tuple[int, int]:
    """The file's (line, col) of a PyYAML mark in ``fm_text``."""
    if has_yaml_only_breaks(fm_text):
        return LineMap(fm_text, line0).pos(mark.line, mark.column)
    return mark.line + line0, mark.column + 1
