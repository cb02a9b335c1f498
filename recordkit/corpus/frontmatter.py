"""YAML front matter with positions: the value of a file's front matter
and the 1-based (line, col, end_line, end_col) of every key and value in it,
in one pass over PyYAML's node tree (C parser).  Knows nothing of records.
"""
from __future__ import annotations

import re

import yaml

try:
    from yaml import CSafeLoader as _BaseLoader
except ImportError:  # pragma: no cover - the C loader is several times faster
    from yaml import SafeLoader as _BaseLoader  # type: ignore


# First characters with which an implicit YAML 1.1 resolver (bool, int,
# float, null, timestamp, merge, value) can match; any other plain scalar is
# a string, so it needs no regular-expression tries.
_RESOLVER_FIRST = frozenset("yYnNtTfFoO-+0123456789.~<=")
_STR = "tag:yaml.org,2002:str"


class Loader(_BaseLoader):
    """SafeLoader whose timestamps never raise (an impossible date such as
    2026-13-45 stays a string, and the schema rule for dates reports it), and
    whose scalar resolution skips the resolvers that cannot match."""

    def resolve(self, kind, value, implicit):
        if kind is yaml.ScalarNode and implicit[0] and value:
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
        return super().resolve(kind, value, implicit)


#: plain scalar -> its resolved tag (dates, years and short words recur)
_RESOLVED: dict[str, str] = {}


def _timestamp(loader, node):
    try:
        return yaml.constructor.SafeConstructor.construct_yaml_timestamp(loader, node)
    except (ValueError, OverflowError):
        return loader.construct_scalar(node)


Loader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp)

OPEN_RE = re.compile(r"\A(\ufeff?)---[ \t]*\r?\n")
CLOSE_RE = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.M)


_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_MERGE = "tag:yaml.org,2002:merge"


def build(loader, node, path, line0, keys, values):
    """Construct ``node``'s value and record the position of every key and
    value below it, in one pass.

    This does what ``construct_document`` does for plain mappings, lists and
    strings (most of a record's front matter) without PyYAML's per-node
    bookkeeping, which costs more than the C parse itself; scalars of other
    tags, merge keys and unusual collection tags go to PyYAML's own
    constructors, so values are exactly what ``yaml.safe_load`` gives.
    """
    if isinstance(node, yaml.ScalarNode):
        if node.tag == _STR:
            return node.value
        return loader.yaml_constructors[node.tag](loader, node) if node.tag in loader.yaml_constructors \
            else loader.construct_object(node, deep=True)
    if isinstance(node, yaml.MappingNode):
        if node.tag != _MAP or any(k.tag == _MERGE for k, _ in node.value):
            data = loader.construct_object(node, deep=True)
            _positions(node, path, line0, keys, values)
            return data
        out = {}
        for k, v in node.value:
            if isinstance(k, yaml.ScalarNode):
                key = k.value if k.tag == _STR else build(loader, k, path, line0, {}, {})
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
            out[key] = build(loader, v, p, line0, keys, values)
        return out
    if isinstance(node, yaml.SequenceNode):
        if node.tag != _SEQ:
            data = loader.construct_object(node, deep=True)
            _positions(node, path, line0, keys, values)
            return data
        out = []
        for i, item in enumerate(node.value):
            p = path + (i,)
            sm, em = item.start_mark, item.end_mark
            values[p] = (sm.line + line0, sm.column + 1, em.line + line0, em.column + 1)
            out.append(build(loader, item, p, line0, keys, values))
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


def front_matter_positions(text: str) -> tuple[dict, dict]:
    """The key and value positions of a file's front matter (empty when it
    has none or it does not parse)."""
    keys: dict = {}
    values: dict = {}
    m = OPEN_RE.match(text)
    close = CLOSE_RE.search(text, m.end()) if m else None
    if not close:
        return keys, values
    try:
        loader = Loader(text[m.end():close.start()])
        try:
            node = loader.get_single_node()
        finally:
            loader.dispose()
    except yaml.YAMLError:
        return keys, values
    if node is not None:
        _positions(node, (), 2, keys, values)
    return keys, values




def read_front_matter(fm_text: str, line0: int):
    """``(value, keys, values)`` of the front matter text ``fm_text``, whose
    first line is line ``line0`` of the file.  Raises :class:`yaml.YAMLError`
    (and RecursionError, ValueError, TypeError, OverflowError on values
    PyYAML cannot build) for the caller to turn into a diagnostic."""
    loader = Loader(fm_text)
    try:
        node = loader.get_single_node()
        keys: dict = {}
        values: dict = {}
        data = build(loader, node, (), line0, keys, values) if node is not None else None
    finally:
        loader.dispose()
    return data, keys, values
