"""A record's identity as the schema says to find it: its id (``id_from``),
its kind (``kind_from``) and its title (``title_from``).

Each is an ordered list of sources; the first that yields wins.  The research
schema's sources (``field:id``; the ``kind`` group of ``id_pattern``;
``field:title``) take a fast path: a dictionary look-up and one match.
"""
from __future__ import annotations

import re
from bisect import bisect_right

_H1_RE = re.compile(
    # ATX: '# Title', '# Title #' (the closing hashes are cut in Python: a
    # pattern for them backtracks on a long line of blanks); Setext: a text
    # line underlined with '='
    r"^ {0,3}#(?=[ \t\r]|$)(?P<atx>[^\n]*)$"
    r"|^(?P<setext> {0,3}[^\s#>][^\n]*)\n {0,3}=+[ \t\r]*$",
    re.M)


def _atx_text(text: str) -> str:
    """An ATX heading's text without its closing sequence of '#'."""
    t = text.strip()
    if t.endswith("#"):
        head = t.rstrip("#")
        if not head or head[-1] in " \t":
            t = head.rstrip()
    return t


def _in(ranges, pos: int) -> bool:
    k = bisect_right(ranges, (pos, float("inf"))) - 1
    return k >= 0 and ranges[k][0] <= pos < ranges[k][1]


def first_h1(body: str, code: list | None) -> str | None:
    """The text of the body's first level-1 heading (ATX ``# x`` or Setext
    ``x`` over ``===``) outside code and comments, or None."""
    if "#" not in body and "=" not in body:
        return None
    for m in _H1_RE.finditer(body):
        if code and _in(code, m.start()):
            continue
        text = m.group("atx")
        if text is None:
            text = m.group("setext")
            if _LIST_OR_RULE_RE.match(text):
                continue
            text = text.strip()
        else:
            text = _atx_text(text)
        if text:
            return text
    return None


# a line Setext cannot underline: a list item, or a thematic break / table rule
_LIST_OR_RULE_RE = re.compile(r"\s*(?:[-*+](?:\s|$)|\d{1,9}[.)](?:\s|$)|[-*_ ]{3,}$|\|)")


#: a front-matter id longer than this is not taken (RK105 says so): the id
#: is written wherever the record is named (every mention row of an
#: export, every edge, every page that links it), so a 150,000-character id
#: with 11,000 mentions made a 3.5 GB database; no one writes an id that long
MAX_ID_LENGTH = 256


def record_id(meta: dict, relpath: str, stem: str, sources) -> str:
    """The record's id: the first of ``sources`` (``id_from``) that yields a
    non-empty string of at most :data:`MAX_ID_LENGTH` characters; the file's
    stem when none does."""
    for src, arg in sources:
        if src == "field":
            v = meta.get(arg)
            if isinstance(v, str) and v and len(v) <= MAX_ID_LENGTH:
                return v
        elif src == "stem":
            return stem
        elif src == "path":
            return relpath[:-3] if relpath.endswith(".md") else relpath
    return stem


def _kind_name(value: str, schema, by_dir: bool = False) -> str | None:
    """``value`` as a kind of the schema: its name, any case (or, for a
    folder, the kind's ``dir``)."""
    if value in schema.kinds:
        return value
    folded = _folded_kinds(schema)
    k = folded.get(value.lower())
    if k is None and by_dir:
        k = folded.get(("dir", value.lower()))
    return k


def _folded_kinds(schema) -> dict:
    memo = schema._per_kind
    out = memo.get(("folded-kinds", ""))
    if out is None:
        out = {}
        for name, kind in schema.kinds.items():
            out.setdefault(name.lower(), name)
            if kind.dir:
                out.setdefault(("dir", kind.dir.lower()), name)
        memo[("folded-kinds", "")] = out
    return out


def _mapped(value, mapping, schema, by_dir: bool = False) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    value = str(value).strip()
    if not value:
        return None
    if mapping:
        k = mapping.get(value.lower())
        if k is not None:
            return k
    return _kind_name(value, schema, by_dir)


def record_kind(rid: str, meta: dict, relpath: str, schema) -> str | None:
    """The record's kind: the first entry of ``kind_from`` that yields a kind
    the schema knows.  When none does, the kind an ``id_pattern`` group names
    (an unknown kind, which RK108 reports), else None."""
    unknown = None
    for ks in schema.kind_from:
        src = ks.source
        if src == "pattern":
            rx = schema.id_re
            if rx is None or ks.arg not in rx.groupindex:
                continue
            m = rx.match(rid)
            if m is None:
                continue
            v = m.group(ks.arg)
            if v is None:
                continue
            if v in schema.kinds:
                return v
            if unknown is None:
                unknown = v
        elif src == "field":
            v = meta.get(ks.arg)
            if isinstance(v, list):
                for item in v:
                    k = _mapped(item, ks.map, schema)
                    if k is not None:
                        return k
                continue
            k = _mapped(v, ks.map, schema)
            if k is not None:
                return k
        elif src == "folder":
            parts = relpath.split("/")
            if len(parts) - 1 >= ks.arg:
                k = _mapped(parts[ks.arg - 1], ks.map, schema, by_dir=True)
                if k is not None:
                    return k
        elif src == "prefix":
            head, sep, _ = rid.partition(ks.arg)
            if sep and head:
                k = _mapped(head, ks.map, schema)
                if k is not None:
                    return k
        elif src == "default":
            return ks.arg
    return unknown


def record_title(meta: dict, body_fn, code_fn, stem: str, sources) -> tuple[str, str | None]:
    """(title, where it came from: "field", "h1", "stem"; or "" and None).
    ``body_fn``/``code_fn`` give the body and its code ranges when a heading
    is looked for."""
    for src, arg in sources:
        if src == "field":
            v = meta.get(arg)
            if isinstance(v, str) and v.strip():
                return v, "field"
        elif src == "h1":
            v = first_h1(body_fn(), code_fn())
            if v is not None:
                return v, "h1"
        elif src == "stem":
            return stem, "stem"
    return "", None


def is_research_identity(schema) -> bool:
    """Whether the schema takes ids, kinds and titles as the research record
    does (``field:id``, the ``kind`` group, ``field:title``): the fast path."""
    memo = schema._per_kind
    key = ("research-identity", "")
    if key not in memo:
        ks = schema.kind_from
        memo[key] = (schema.id_from == (("field", "id"),)
                     and len(ks) == 1 and ks[0].source == "pattern" and ks[0].arg == "kind"
                     and schema.title_from == (("field", "title"),))
    return memo[key]
