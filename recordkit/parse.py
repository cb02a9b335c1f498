"""Parse one record file: split the front matter, read it with positions,
find the body's mentions.  Never raises on bad input: problems come back as
diagnostics (RK101–RK104) and the record keeps what could be read.
"""
from __future__ import annotations

import hashlib
import os
import re
import stat
from bisect import bisect_right
from pathlib import Path

import yaml

from .config import DEFAULT_MAX_FILE_SIZE
from .mentions import code_ranges, mention_targets, scan_suppressions
from .model import Diagnostic, Record

try:
    from yaml import CSafeLoader as _BaseLoader
except ImportError:  # pragma: no cover - the C loader is several times faster
    from yaml import SafeLoader as _BaseLoader  # type: ignore


# First characters with which an implicit YAML 1.1 resolver (bool, int,
# float, null, timestamp, merge, value) can match; any other plain scalar is
# a string, so it needs no regular-expression tries.
_RESOLVER_FIRST = frozenset("yYnNtTfFoO-+0123456789.~<=")
_STR = "tag:yaml.org,2002:str"


class _Loader(_BaseLoader):
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


_Loader.add_constructor("tag:yaml.org,2002:timestamp", _timestamp)

_OPEN_RE = re.compile(r"\A(\ufeff?)---[ \t]*\r?\n")
_CLOSE_RE = re.compile(r"^(?:---|\.\.\.)[ \t]*\r?$", re.M)


_MAP = "tag:yaml.org,2002:map"
_SEQ = "tag:yaml.org,2002:seq"
_MERGE = "tag:yaml.org,2002:merge"


#: how many values YAML aliases may add to a front matter once expanded
#: ("billion laughs": 0.5 KB of aliases expanding to millions of values)
MAX_ALIAS_EXPANSION = 10_000
#: how deep front-matter values may nest (lists in mappings in lists ...)
MAX_DEPTH = 100


class AliasBomb(Exception):
    """The front matter's aliases expand to too much, or refer to themselves."""

    def __init__(self, message, node):
        super().__init__(message)
        self.node = node


def _check_aliases(node) -> None:
    """Raise :class:`AliasBomb` when aliases make ``node`` (a composed
    document, where an alias is the same node object as its anchor) expand
    to more than ``MAX_ALIAS_EXPANSION`` values beyond its distinct nodes,
    or when an alias refers to a node that contains it, or when values nest
    more than ``MAX_DEPTH`` deep (every later step, from the JSON outputs to
    the graph page, would walk them by recursion).  Linear in the
    distinct nodes: each node's expanded size is worked out once."""
    size: dict[int, int] = {}
    open_: set[int] = set()
    # iterative post-order walk (a deep document must not hit the recursion limit)
    stack = [(node, False, 0)]
    while stack:
        n, done, depth = stack.pop()
        key = id(n)
        if done:
            open_.discard(key)
            total = 1
            if isinstance(n, yaml.MappingNode):
                for k, v in n.value:
                    total += size[id(k)] + size[id(v)]
            elif isinstance(n, yaml.SequenceNode):
                for item in n.value:
                    total += size[id(item)]
            size[key] = total
            if total - len(size) > MAX_ALIAS_EXPANSION:
                raise AliasBomb(f"front matter is too large once its aliases are expanded: {total:,} values "
                                f"or more here, and aliases may add at most {MAX_ALIAS_EXPANSION:,}", n)
            continue
        if key in size:
            continue
        if key in open_:
            raise AliasBomb("front matter has an alias inside the value it refers to (a recursive structure)", n)
        if depth > MAX_DEPTH:
            raise AliasBomb(f"front matter is nested more than {MAX_DEPTH} levels deep here", n)
        open_.add(key)
        stack.append((n, True, depth))
        if isinstance(n, yaml.MappingNode):
            for k, v in reversed(n.value):
                stack.append((v, False, depth + 1))
                stack.append((k, False, depth + 1))
        elif isinstance(n, yaml.SequenceNode):
            for item in reversed(n.value):
                stack.append((item, False, depth + 1))


def _may_expand_or_nest(fm_text: str) -> bool:
    """Whether :func:`_check_aliases` could refuse ``fm_text``: it holds an
    alias, or enough of the characters that open a level (``[``, ``{``,
    ``-``, ``:``; every level needs one) to nest past ``MAX_DEPTH``."""
    if "*" in fm_text:
        return True
    return sum(fm_text.count(c) for c in "[{-:") > MAX_DEPTH


def _build(loader, node, path, line0, keys, values):
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
                key = k.value if k.tag == _STR else _build(loader, k, path, line0, {}, {})
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
            out[key] = _build(loader, v, p, line0, keys, values)
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
            out.append(_build(loader, item, p, line0, keys, values))
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


def _has_yaml_only_breaks(fm_text: str) -> bool:
    return any(c in fm_text for c in _YAML_ONLY_BREAKS)


class _LineMap:
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


def parse_text(text: str, path: Path, relpath: str, schema) -> tuple[Record, list[Diagnostic]]:
    """Parse a decoded file.  Returns the record and its load diagnostics."""
    rec = Record(path=path, relpath=relpath, _text=text)
    diags: list[Diagnostic] = []
    m = _OPEN_RE.match(text)
    if not m:
        diags.append(Diagnostic("RK101", "no YAML front matter: the file must start with a '---' line",
                                path, 1, 1, 1, 2))
        rec.body, rec.body_line, rec.body_offset = text, 1, 0
        _scan_body(rec, schema)
        return rec, diags
    fm_start = m.end()
    close = _CLOSE_RE.search(text, fm_start)
    if not close:
        diags.append(Diagnostic("RK101", "front matter is not closed: no '---' line after the opening one",
                                path, 1, 1, 1, 4))
        return rec, diags
    fm_text = text[fm_start:close.start()]
    rec.fm_line = 1
    rec.fm_end_line = 2 + fm_text.count("\n")
    nl = text.find("\n", close.end())
    rec.body_offset = len(text) if nl < 0 else nl + 1
    rec.body = text[rec.body_offset:]
    rec.body_line = rec.fm_end_line + 1
    _scan_body(rec, schema)

    line0 = 2  # the front matter's first line is line 2 of the file
    try:
        loader = _Loader(fm_text)
        try:
            node = loader.get_single_node()
            if node is not None and _may_expand_or_nest(fm_text):
                _check_aliases(node)
            keys: dict = {}
            values: dict = {}
            data = _build(loader, node, (), line0, keys, values) if node is not None else None
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = (mark.line + line0) if mark else line0
        col = (mark.column + 1) if mark else 1
        if mark and _has_yaml_only_breaks(fm_text):
            line, col = _LineMap(fm_text, line0).pos(mark.line, mark.column)
        problem = exc.problem or exc.context or "invalid YAML"
        diags.append(Diagnostic("RK102", f"front matter is not valid YAML: {problem}", path, line, col, line, col + 1))
        return rec, diags
    except AliasBomb as exc:
        mark = exc.node.start_mark
        line, col = _LineMap(fm_text, line0).pos(mark.line, mark.column) if _has_yaml_only_breaks(fm_text) \
            else (mark.line + line0, mark.column + 1)
        diags.append(Diagnostic("RK102", str(exc), path, line, col, line, col + 1))
        return rec, diags
    except yaml.YAMLError as exc:  # pragma: no cover - unmarked errors are rare
        diags.append(Diagnostic("RK102", f"front matter is not valid YAML: {exc}", path, line0, 1))
        return rec, diags
    except (RecursionError, ValueError, TypeError, OverflowError) as exc:
        diags.append(Diagnostic("RK102", f"front matter cannot be read: {exc}", path, line0, 1))
        return rec, diags
    if not isinstance(data, dict):
        what = "empty" if data is None else f"a {type(data).__name__}, not a mapping"
        diags.append(Diagnostic("RK104", f"front matter is {what}", path, line0, 1, line0, 1))
        return rec, diags
    if _has_yaml_only_breaks(fm_text):
        lm = _LineMap(fm_text, line0)
        lm.convert(keys)
        lm.convert(values)
        if not lm.check_keys(keys):
            rec.__dict__["_no_fix"] = ("its front matter's positions cannot be mapped to lines safely "
                                       "(it holds a line break other than \\n or \\r\\n)")
    rec.meta = data
    rec.keys, rec.values = keys, values
    rid = data.get("id")
    rec.id = rid if isinstance(rid, str) and rid else path.stem
    rec.kind = schema.kind_of(rec.id) if isinstance(rec.id, str) else None
    _collect_relations(rec, schema)
    return rec, diags


def front_matter_positions(text: str) -> tuple[dict, dict]:
    """The key and value positions of a file's front matter (empty when it
    has none or it does not parse)."""
    keys: dict = {}
    values: dict = {}
    m = _OPEN_RE.match(text)
    close = _CLOSE_RE.search(text, m.end()) if m else None
    if not close:
        return keys, values
    try:
        loader = _Loader(text[m.end():close.start()])
        try:
            node = loader.get_single_node()
            if node is not None and _may_expand_or_nest(text):
                _check_aliases(node)
        finally:
            loader.dispose()
    except (yaml.YAMLError, AliasBomb):
        return keys, values
    if node is not None:
        _positions(node, (), 2, keys, values)
        fm_text = text[m.end():close.start()]
        if _has_yaml_only_breaks(fm_text):
            lm = _LineMap(fm_text, 2)
            lm.convert(keys)
            lm.convert(values)
    return keys, values


def _scan_body(rec: Record, schema) -> None:
    infos: list[str] = []
    code = code_ranges(rec.body, infos)
    rec.__dict__["_code"] = code   # reused by the section rules
    rec.__dict__["_fence_infos"] = infos   # lets check discovery skip bodies with no check fence
    rec.mention_targets = mention_targets(rec.body, schema.mention_targets_re, code)
    rec.__dict__["_mention_re"] = schema.mention_re   # for the positions, when asked
    if "<!--" in rec.text:
        rec.suppressions = scan_suppressions(rec.text)


def _collect_relations(rec: Record, schema) -> None:
    from .model import Target
    meta = rec.meta
    for name in schema.relations:
        if name not in meta:
            continue
        value = meta[name]
        if isinstance(value, str):
            rec.relations[name] = [Target(value.strip(), rec.value_pos(name))]
        elif isinstance(value, list):
            rec.relations[name] = [Target(v.strip(), rec.value_pos(name, i))
                                   for i, v in enumerate(value) if isinstance(v, str)]




class NotRead(Exception):
    """The path is not a regular file, or is larger than the size cap."""


def read_record(path: Path, relpath: str, schema, keep_bytes: bool = False,
                max_size: int = DEFAULT_MAX_FILE_SIZE) -> tuple[Record, list[Diagnostic]]:
    """Read and parse the file at ``path``.  ``keep_bytes``: also keep the
    file's bytes as ``_bytes`` when they decoded (for a helper process to
    send).  Only a regular file (or a symbolic link to one) of at most
    ``max_size`` bytes is read; anything else is an RK109 diagnostic."""
    try:
        data, st = _read(path, max_size)
    except NotRead as exc:
        rec = Record(path=path, relpath=relpath)
        return rec, [Diagnostic("RK109", str(exc), path, 1, 1)]
    except OSError as exc:
        rec = Record(path=path, relpath=relpath)
        return rec, [Diagnostic("RK103", f"file cannot be read: {exc.strerror or exc}", path, 1, 1)]
    rec, diags = parse_bytes(data, path, relpath, schema)
    # sha256 runs on the CPU's SHA instructions here: 30% faster than blake2b
    rec.digest = hashlib.sha256(data).hexdigest()[:32]
    rec.stat = (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)
    if keep_bytes and (rec._text or not data):
        rec.__dict__["_bytes"] = data
    return rec, diags


def _size(n: int) -> str:
    for unit, k in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= k:
            return f"{n / k:.1f} {unit}".replace(".0 ", " ")
    return f"{n} bytes"


def _kind_of(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _read(path, max_size: int = DEFAULT_MAX_FILE_SIZE) -> tuple[bytes, os.stat_result]:
    """The file's bytes and its stat, with plain system calls (half the cost
    of ``open()``'s buffered file object, which matters 10,000 times).

    Opened without blocking (a named pipe would wait for a writer forever)
    and read only when it is a regular file, at most ``max_size`` bytes (a
    link to ``/dev/zero`` or a file that grows as it is read cannot exhaust
    memory)."""
    fd = os.open(path, os.O_RDONLY | _NONBLOCK | getattr(os, "O_BINARY", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRead(f"not read: the path is {_kind_of(st.st_mode)}, not a regular file")
        if st.st_size > max_size:
            raise NotRead(f"not read: the file is {_size(st.st_size)}, larger than max_file_size "
                          f"({_size(max_size)})")
        data = os.read(fd, st.st_size + 1)
        if len(data) != st.st_size:   # short read, or the file grew: read to the end
            chunks = [data]
            got = len(data)
            while got <= max_size:
                more = os.read(fd, min(1 << 20, max_size + 1 - got))
                if not more:
                    break
                chunks.append(more)
                got += len(more)
            if got > max_size:
                raise NotRead(f"not read: the file grew past max_file_size ({_size(max_size)}) as it was read")
            data = b"".join(chunks)
    finally:
        os.close(fd)
    return data, st


_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def parse_bytes(data: bytes, path: Path, relpath: str, schema) -> tuple[Record, list[Diagnostic]]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        rec = Record(path=path, relpath=relpath)
        return rec, [Diagnostic("RK103", f"file is not valid UTF-8: byte 0x{data[exc.start]:02x} at offset {exc.start}",
                                path, line, col, line, col + 1)]
    return parse_text(text, path, relpath, schema)
