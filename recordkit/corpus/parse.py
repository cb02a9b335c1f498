"""Parse one record file: split the front matter, read it with positions
(:mod:`.frontmatter`), find the body's mentions (:mod:`.mentions`).  Never raises on bad input: problems come back as
diagnostics (RK101–RK104, RK109, RK112) and the record keeps what could be read.
"""
from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

import yaml

from ..config import DEFAULT_MAX_FILE_SIZE
from ..common.reading import file_kind, read_fd
from ..common.text import kind_of
from ..markdown.frontmatter import (OPEN_RE, AliasBomb, find_close, has_yaml_only_breaks, mark_position,
                                    read_front_matter)
from .identity import MAX_ID_LENGTH, is_research_identity, record_id, record_kind, record_title
from ..markdown.blocks import code_ranges, scan_suppressions, with_percent_comments
from .model import Diagnostic, Record, Target
from .source import Source
from .resolve import body_links


def parse_text(text: str, path: Path, relpath: str, schema) -> tuple[Record, list[Diagnostic]]:
    """Parse a decoded file.  Returns the record and its load diagnostics."""
    rec = Record(path=path, relpath=relpath, source=Source(text))
    diags: list[Diagnostic] = []
    m = OPEN_RE.match(text)
    if not m:
        rec.body, rec.body_line, rec.body_offset = text, 1, 0
        _scan_body(rec, schema)
        if schema.front_matter_required and not schema.is_page(relpath):
            diags.append(Diagnostic("RK101", "no YAML front matter: the file must start with a '---' line",
                                    path, 1, 1, 1, 2))
        else:   # a note all the same (Obsidian, Foam): a record with no fields
            _no_fields(rec, schema)
        return rec, diags
    fm_start = m.end()
    close = find_close(text, fm_start)
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
        data, keys, values, exact = read_front_matter(fm_text, line0)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = mark_position(fm_text, line0, mark) if mark else (line0, 1)
        problem = exc.problem or exc.context or "invalid YAML"
        # told by where the scanner stopped, not by PyYAML's wording
        if mark is not None and isinstance(exc, yaml.scanner.ScannerError) and \
                0 <= mark.index < len(fm_text) and fm_text[mark.index] == "\t":
            problem = "a tab, where YAML indents with spaces only: replace it with spaces"
        diags.append(Diagnostic("RK102", f"front matter is not valid YAML: {problem}", path, line, col, line, col + 1))
        return rec, diags
    except AliasBomb as exc:
        line, col = mark_position(fm_text, line0, exc.node.start_mark)
        diags.append(Diagnostic("RK102", str(exc), path, line, col, line, col + 1))
        return rec, diags
    except yaml.YAMLError as exc:  # pragma: no cover - unmarked errors are rare
        diags.append(Diagnostic("RK102", f"front matter is not valid YAML: {exc}", path, line0, 1))
        return rec, diags
    except (RecursionError, ValueError, TypeError, OverflowError) as exc:
        diags.append(Diagnostic("RK102", f"front matter cannot be read: {exc}", path, line0, 1))
        return rec, diags
    except Exception as exc:    # a constructor's own error: a diagnostic, never a traceback
        diags.append(Diagnostic("RK102", f"front matter cannot be read: {type(exc).__name__}: {exc}"[:300],
                                path, line0, 1))
        return rec, diags
    if data is None and not schema.front_matter_required:
        data = {}
    if not isinstance(data, dict):
        what = "empty" if data is None else f"{kind_of(data)}, not a mapping"
        diags.append(Diagnostic("RK104", f"front matter is {what}", path, line0, 1, line0, 1))
        return rec, diags
    rec.meta = data
    rec.keys, rec.values = keys, values
    for where, first, again in getattr(keys, "duplicates", ()):
        name = ".".join(str(k) for k in where)
        diags.append(Diagnostic("RK112", f"duplicate key `{name}`: its value at line {first[0]} is lost (YAML keys "
                                f"must be unique; this one wins)", path, *again))
    _identify(rec, data, schema)
    _collect_relations(rec, schema)
    return rec, diags


#: why ``lint --fix`` leaves a file alone (:func:`fix_refusal`)
NO_FIX = ("its front matter's positions cannot be mapped to lines safely "
          "(it holds a line break other than \\n or \\r\\n)")


def fix_refusal(rec: Record) -> str | None:
    """Why ``--fix`` must leave the file of ``rec`` alone, or None: the
    parser could not map its front matter's positions to lines safely (a
    line break other than "\\n" or "\\r\\n" in it), so no edit may be
    placed by them.  Worked out again from the text (rarely asked: a file
    with fixes), as :func:`parse_text` reads it."""
    if not rec.ok:
        return None
    text = rec.text
    m = OPEN_RE.match(text)
    close = find_close(text, m.end()) if m else None
    if not close:
        return None
    fm_text = text[m.end():close.start()]
    if not has_yaml_only_breaks(fm_text):
        return None
    try:
        exact = read_front_matter(fm_text, 2)[3]
    except Exception:       # (it parsed when the record was made: it parses now)
        return None
    return None if exact else NO_FIX


def _no_fields(rec: Record, schema) -> None:
    """A file with no front matter, where the schema lets that be: a
    record whose fields are none."""
    rec.meta = {}
    rec.keys, rec.values = {}, {}
    _identify(rec, rec.meta, schema)


def _identify(rec: Record, data: dict, schema) -> None:
    """The record's id, kind and title, as the schema's ``id_from``,
    ``kind_from`` and ``title_from`` say."""
    stem = rec.path.stem
    if is_research_identity(schema):   # the research record's way, at the cost of today's
        rid = data.get("id")
        rec.id = rid if isinstance(rid, str) and rid and len(rid) <= MAX_ID_LENGTH else stem
        rec.kind = schema.kind_of(rec.id) if not schema.page_globs or not schema.is_page(rec.relpath) else None
        t = data.get("title")
        if isinstance(t, str) and t.strip():
            rec.title, rec.title_source = t, "field"
        else:
            rec.title, rec.title_source = t if isinstance(t, str) else "", None
        return
    rec.id = record_id(data, rec.relpath, stem, schema.id_from)
    # a page (an index, a template: the schema's ``pages``) is of no kind
    rec.kind = None if schema.is_page(rec.relpath) else record_kind(rec.id, data, rec.relpath, schema)
    rec.title, rec.title_source = record_title(data, lambda: rec.body, lambda: rec.code, stem, schema.title_from)


def _scan_body(rec: Record, schema) -> None:
    infos: list[str] = []
    code = code_ranges(rec.body, infos)
    if schema.percent_comments:
        code = with_percent_comments(rec.body, code)
    rec.code = code                 # reused by the section rules
    rec.fence_infos = infos         # lets check discovery skip bodies with no check fence
    rec.found_mentions(*body_links(rec.body, schema, code))
    rec.mention_re = schema.mention_re   # for the positions, when asked
    text = rec.text
    if "!" in text and "<!--" in text:     # (the one-character test runs at memchr's speed)
        rec.suppressions = scan_suppressions(text)


def _collect_relations(rec: Record, schema) -> None:
    meta = rec.meta
    for name in schema.relations:
        if name not in meta:
            continue
        value = meta[name]
        if isinstance(value, str):
            rec.relations[name] = [Target(value.strip(), rec.value_pos(name))]
        elif isinstance(value, list):
            wiki = _unquoted_wikilink(value)
            if wiki is not None:
                rec.relations[name] = [Target(wiki, rec.value_pos(name))]
                continue
            out = []
            for i, v in enumerate(value):
                if not isinstance(v, str):
                    v = _unquoted_wikilink(v)
                    if v is None:
                        continue
                out.append(Target(v.strip(), rec.value_pos(name, i)))
            rec.relations[name] = out


def _unquoted_wikilink(value) -> str | None:
    """``[[Note]]`` written unquoted in YAML is a list holding a list holding
    ``Note``: the wikilink it was meant to be (the resolver reads it)."""
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], list) and len(value[0]) == 1 \
            and isinstance(value[0][0], str):
        return f"[[{value[0][0]}]]"
    return None


class NotRead(Exception):
    """The path is not a regular file, or is larger than the size cap."""


def _why_unread(path, exc: OSError) -> str:
    """Why a file could not be read, as its reader can act on it: a link
    that names nothing (or a loop of links) said as such, with where it
    points, not as "No such file or directory" of a file the folder lists."""
    import errno
    try:
        if os.path.islink(path):
            if exc.errno == errno.ELOOP:
                return f"it is a symbolic link that leads, through links, back to itself ({exc.strerror})"
            if exc.errno == errno.ENOENT:
                return f"it is a symbolic link to {os.readlink(path)}, which does not exist"
    except OSError:
        pass
    return exc.strerror or str(exc)


def read_record(path: Path, relpath: str, schema, keep_bytes: bool = False,
                max_size: int = DEFAULT_MAX_FILE_SIZE) -> tuple[Record, list[Diagnostic]]:
    """Read and parse the file at ``path``.  ``keep_bytes``: its source
    also keeps the file's bytes when they decoded (for a helper process to
    send).  Only a regular file (or a symbolic link to one) of at most
    ``max_size`` bytes is read; anything else is an RK109 diagnostic."""
    try:
        data, st = read_regular(path, max_size)
    except NotRead as exc:
        rec = Record(path=path, relpath=relpath)
        return rec, [Diagnostic("RK109", str(exc), path, 1, 1)]
    except OSError as exc:
        rec = Record(path=path, relpath=relpath)
        return rec, [Diagnostic("RK103", f"file cannot be read: {_why_unread(path, exc)}", path, 1, 1)]
    rec, diags = parse_bytes(data, path, relpath, schema)
    # sha256 runs on the CPU's SHA instructions here: 30% faster than blake2b
    source = rec.source
    source.digest = hashlib.sha256(data).hexdigest()[:32]
    source.stat = (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)
    if keep_bytes and (source.held() or not data):
        source.keep_bytes(data)
    return rec, diags


def _size(n: int) -> str:
    for unit, k in (("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10)):
        if n >= k:
            return f"{n / k:.1f} {unit}".replace(".0 ", " ")
    return f"{n} bytes"


def read_regular(path, max_size: int = DEFAULT_MAX_FILE_SIZE) -> tuple[bytes, os.stat_result]:
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
            raise NotRead(f"not read: the path is {file_kind(st.st_mode)}, not a regular file")
        if st.st_size > max_size:
            raise NotRead(f"not read: the file is {_size(st.st_size)}, larger than max_file_size "
                          f"({_size(max_size)})")
        data = os.read(fd, st.st_size + 1)
        if len(data) != st.st_size:   # short read, or the file grew: read to the end
            data += read_fd(fd, max_size - len(data))
            if len(data) > max_size:
                raise NotRead(f"not read: the file grew past max_file_size ({_size(max_size)}) as it was read")
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
