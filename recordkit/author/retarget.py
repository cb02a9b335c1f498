"""Rewrite the references to one id in one file's text, losslessly.

A reference is the id as a token (no letter, digit, ``_`` or ``-`` on
either side) anywhere in the front matter (relations in any style and
quoting, ``id:``, ``claim:`` requirements, free text such as a
``status_note``, YAML comments), and in the body outside code: bare
mentions, ``[[wikilinks]]`` (their labels too) and HTML comments, plus the
SQL of ``query`` blocks.  Only the id's own characters change; every other
byte (quotes, comments, CRLF, a BOM) stays.  Ids inside other code (code
spans, fenced or indented blocks) are not references and are left, and
reported, so that a user can see them.

Every edit is checked by reading the new text back: its front matter must
be the old one with the id replaced in every string, and its body must
name the same ids (the old one replaced).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..markdown.blocks import code_ranges
from ..markdown.links import with_addresses


class EditRefused(Exception):
    """An edit would not read back as intended (the file is left alone)."""


def token_re(record_id: str) -> re.Pattern:
    """The id as a token: no letter, digit, ``_`` or ``-`` on either side.
    (Written with the id first and the look behind after it, so that the
    regular expression engine searches for the id's characters at once
    rather than trying the look behind at every character: 40x faster
    on a 10 KB file, the same matches.)"""
    e = re.escape(record_id)
    return re.compile(e + r"(?<![\w-]" + e + r")(?![\w-])")


@dataclass
class Retargeted:
    text: str
    count: int = 0                                   # references rewritten
    left: list[int] = field(default_factory=list)    # lines of occurrences left (inside code)


def replace_deep(value, pattern: re.Pattern, new: str):
    """``value`` with every token match in every string (keys too) replaced."""
    if isinstance(value, str):
        return pattern.sub(new, value)
    if isinstance(value, dict):
        return {replace_deep(k, pattern, new): replace_deep(v, pattern, new) for k, v in value.items()}
    if isinstance(value, list):
        return [replace_deep(v, pattern, new) for v in value]
    return value


_FENCE_RE = re.compile(r"[ \t]*(`{3,}|~{3,})[ \t]*([^\s`]*)")


def _editable_code(body: str, start: int) -> bool:
    """Whether the code range starting at ``start`` is an HTML comment or a
    ``query`` block (where ids are references, not code)."""
    if body.startswith("<!--", start):
        return True
    m = _FENCE_RE.match(body, start)
    return bool(m) and m.group(2).lower() == "query"


def retarget(rec, old: str, new: str, pattern: re.Pattern | None = None) -> Retargeted:
    """The text of ``rec``'s file with every reference to ``old`` made one
    to ``new`` (unchanged text when there is none)."""
    pattern = pattern or token_re(old)
    text = rec.text
    if old not in text:
        return Retargeted(text)
    cut = rec.body_offset if rec.body_offset else 0
    pieces: list[str] = []
    pos = 0
    count = 0
    left: list[int] = []
    # front matter: every token (its lines are YAML: values, keys, comments)
    for m in pattern.finditer(text, 0, cut):
        pieces.append(text[pos:m.start()])
        pieces.append(new)
        pos = m.end()
        count += 1
    body = text[cut:]
    if old in body:
        code = with_addresses(body, code_ranges(body))      # (an id in a link's address is no reference)
        ci = 0
        lines_before, counted = 1, 0    # the line of offset ``counted``, counted on as we go
        for m in pattern.finditer(body):
            s = m.start()
            while ci < len(code) and code[ci][1] <= s:
                ci += 1
            if ci < len(code) and code[ci][0] <= s and not _editable_code(body, code[ci][0]):
                # (counted from the last one: from the start each time, n
                # ids left in code blocks took n^2: 75,000 took 11 s)
                lines_before += text.count("\n", counted, cut + s)
                counted = cut + s
                left.append(lines_before)
                continue
            pieces.append(text[pos:cut + s])
            pieces.append(new)
            pos = cut + m.end()
            count += 1
    pieces.append(text[pos:])
    return Retargeted("".join(pieces), count, left)


def verify(rec, new_text: str, schema, pattern: re.Pattern, new: str) -> None:
    """Read ``new_text`` back: raise :class:`EditRefused` unless its front
    matter is ``rec``'s with the id replaced and its body names the same
    ids (the old one replaced)."""
    from ..corpus.parse import parse_text
    after, diags = parse_text(new_text, rec.path, rec.relpath, schema)
    if rec.ok:
        if not after.ok:
            raise EditRefused(f"{rec.relpath}: the edited front matter would not parse")
        if after.meta != replace_deep(rec.meta, pattern, new):
            raise EditRefused(f"{rec.relpath}: the edited front matter would not read back as the old one "
                              f"with the id replaced (an escaped or split id?); edit it by hand")
    from ..corpus.resolve import texts_as_written
    want = [replace_deep(t, pattern, new) for t in texts_as_written(rec)]
    if after.mention_targets != want:
        raise EditRefused(f"{rec.relpath}: the edited body would not name the same records; edit it by hand")
