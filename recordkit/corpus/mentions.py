"""Find the ids a Markdown body names, outside code.

A mention is a bare ``KIND-NNN`` token or an ``[[ID]]`` / ``[[ID|label]]``
wikilink.  Mentions inside fenced code blocks, indented code blocks, code
spans and HTML comments do not count.

This is a hand-written scanner rather than a markdown-it pass because it runs
on every file of the record on every lint: regular expressions over the whole
body are ~50x faster than a full CommonMark parse.  ``tests/test_mentions.py``
checks it against markdown-it-py's token stream on generated documents.
"""
from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from dataclasses import dataclass
from itertools import chain
from urllib.parse import unquote



@dataclass(slots=True)
class Mention:
    """A record named in a body: a bare ``KIND-NNN``, a ``[[wikilink]]``, an
    ``![[embed]]`` or a Markdown link to a ``.md`` file.  ``target`` is the
    record's id once the corpus's links are resolved
    (:func:`recordkit.corpus.resolve.resolve_links`), else the link's target
    as written; ``text``: the link's target as written (its syntax taken
    off), when it may differ from ``target``."""
    target: str
    line: int
    col: int
    end_col: int
    form: str = "bare"          # "bare", "wikilink", "embed", "markdown" or "tag" (``#tag``, ``@name``)
    label: str | None = None
    text: str | None = None


_BLANK_THEN_INDENT_RE = re.compile(r"\n[ \t]*\n((?: {4}| {0,3}\t)[^\n]*)")
_LEADING_INDENT_RE = re.compile(r"(?:[ \t]*\n)*(?= {4}| {0,3}\t)")
_TICKS_RE = re.compile(r"``*")  # a literal first char lets re search fast
_COMMENT_RE = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
# ``[[target#heading|label]]``, ``[[target^block]]``: group 1 the target, 2 the label.  (The
# target's run is greedy: what may follow it, ``#^|]``, is outside its class, so it can only end
# where the greedy run ends; a lazy run tried the rest after every character: 20% slower.)
_WIKI_RE = re.compile(r"\[\[([^\[\]|#^\n]+)(?:[#^][^\[\]|\n]*)?(?:\|([^\[\]\n]*))?\]\]")
# Dendron's order, ``[[label|target#heading]]``: group 1 the label, 2 the target
_WIKI_LABEL_FIRST_RE = re.compile(r"\[\[(?:([^\[\]|\n]*)\|)?([^\[\]|#^\n]+?)(?:[#^][^\[\]|\n]*)?\]\]")
# the destination of a Markdown link or image, ``](dest "title")``; bounded
# lengths keep a line of unclosed ``](`` linear
_MD_DEST_RE = re.compile(r"\]\([ \t]*(<[^<>\n]{0,2048}>|[^()\s]{1,2048})(?:[ \t]+(?:\"[^\"\n]{0,2048}\"|'[^'\n]{0,2048}'))?[ \t]*\)")
# a link reference definition, ``[label]: dest "title"`` (Foam writes one per
# wikilink at the end of a note; ``[text][label]`` links use them): group 1
# the label (not ``^``: a footnote), 2 the destination; a line may end in
# ``\r\n`` (a note saved on Windows)
_MD_DEF_RE = re.compile(r"^ {0,3}\[([^\[\]\n^][^\[\]\n]{0,998})\]:[ \t]*(<[^<>\n]{0,2048}>|[^\s<>]{1,2048})"
                        r"(?:[ \t]+(?:\"[^\"\n]{0,2048}\"|'[^'\n]{0,2048}'|\([^()\n]{0,2048}\)))?[ \t]*\r?$", re.M)
# a line after which a definition may start (a fence, a thematic break)
_CLOSES_BLOCK_RE = re.compile(r" {0,3}(?:`{3,}|~{3,}|(?:[-*_][ \t]*){3,})[ \t]*\Z")
# the same from its ``[``, group 1 the destination (what a rename rewrites)
_MD_DEF_AT_RE = re.compile(r"\[(?:[^\[\]\n^][^\[\]\n]{0,998})\]:[ \t]*(<[^<>\n]{0,2048}>|[^\s<>]{1,2048})"
                           r"(?:[ \t]+(?:\"[^\"\n]{0,2048}\"|'[^'\n]{0,2048}'|\([^()\n]{0,2048}\)))?")
_SCHEME_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_MD_TEXT_BACK = 1024   # how far back the link text's ``[`` is looked for
#: how far a fence may be indented (CommonMark allows 3 spaces; more inside
#: nested list items): a bound keeps a long line of backtick runs linear
_MAX_FENCE_INDENT = 40
_PARA_BREAK_RE = re.compile(r"\n[ \t]*\n")
# a line that starts an ATX heading or a list item (which interrupt a paragraph)
_BLOCK_START_RE = re.compile(r"\n {0,3}(?:#{1,6}[ \t\n]|[-*+][ \t]|1[.)][ \t])")
_QUOTE_START_RE = re.compile(r"\n {0,3}>")
_QUOTE_LINE_RE = re.compile(r" {0,3}>")
_HEADING_LINE_RE = re.compile(r" {0,3}#{1,6}[ \t\n]")
_SUPPRESS_RE = re.compile(r"<!--\s*recordkit:\s*ignore\s+([A-Z0-9 ,]+?)\s*-->")


def code_ranges(body: str, infos: list | None = None) -> list[tuple[int, int]]:
    """Sorted, non-overlapping (start, end) character ranges of ``body`` that
    are code (fenced or indented blocks, code spans) or HTML comments.
    ``infos``, when given, receives the text after the fence characters of
    every line that starts (after blanks) with a fence: a superset of the
    info strings of the body's fenced blocks."""
    ranges: list[tuple[int, int]] = []
    # every backtick run, found once: the fences among them, then the spans
    ticks = list(_TICKS_RE.finditer(body)) if "`" in body else []
    _fenced(body, ranges, infos, ticks)
    _indented(body, ranges)
    ranges.sort()
    _code_spans(body, ranges, ticks)
    if "!" in body and "<!--" in body:     # (the one-character test is the quick one)
        merged = _merged(ranges)
        for m in _COMMENT_RE.finditer(body):
            if not _inside(merged, m.start()):
                ranges.append((m.start(), m.end()))
    ranges.sort()
    return ranges


def _fence_lines(body: str, ticks=None):
    """(line_start, fence, info, line_end) of each line that starts (after
    spaces or tabs) with ``` or ~~~, in order.  ``ticks``: every run of
    backticks in the body (``_TICKS_RE``), when the caller has them: the
    backtick fences are read from them instead of searching the body again."""
    out = []
    if ticks is not None:
        ls = prev = 0   # line start of the last run looked at, and where it was
        for m in ticks:
            i, j = m.start(), m.end()
            if j - i < 3:
                continue
            # the line start, searched back only to the last run's (a body
            # with no newline and many runs would be quadratic otherwise)
            k = body.rfind("\n", prev, i)
            if k >= 0:
                ls = k + 1
            prev = i
            if i - ls <= _MAX_FENCE_INDENT and not body[ls:i].strip(" \t"):
                le = body.find("\n", j)
                le = len(body) if le < 0 else le
                out.append((ls, body[i:j], body[j:le], le))
    for needle in ("~~~",) if ticks is not None else ("```", "~~~"):
        # (a one-character ``in`` runs at memchr's speed; a search for the
        # three reads the body at a tenth of that, and most bodies have no ``~``)
        i = body.find(needle) if needle[0] in body else -1
        ls = prev = 0
        while i >= 0:
            k = body.rfind("\n", prev, i)
            if k >= 0:
                ls = k + 1
            prev = i
            if i - ls <= _MAX_FENCE_INDENT and not body[ls:i].strip(" \t"):
                j = i
                ch = needle[0]
                while j < len(body) and body[j] == ch:
                    j += 1
                le = body.find("\n", j)
                le = len(body) if le < 0 else le
                out.append((ls, body[i:j], body[j:le], le))
                i = body.find(needle, le)
            else:
                i = body.find(needle, i + 3)
    out.sort()
    return out


def _fenced(body: str, out: list, infos: list | None = None, ticks=None) -> None:
    open_char = None
    open_len = 0
    start = 0
    lines = _fence_lines(body, ticks)
    if infos is not None:
        infos.extend(info for _, _, info, _ in lines if info.strip())
    for ls, fence, info, le in lines:
        if open_char is None:
            if fence[0] == "`" and "`" in info:
                continue  # not a fence: an info string may not hold backticks
            open_char, open_len, start = fence[0], len(fence), ls
        elif fence[0] == open_char and len(fence) >= open_len and not info.strip():
            out.append((start, le))
            open_char = None
    if open_char is not None:
        out.append((start, len(body)))  # an unclosed fence runs to the end


def _indented(body: str, out: list) -> None:
    """Indented code blocks: lines indented 4+ after a blank line, or, in a
    list item, indented 4+ past the item's content (``-`` then 6 spaces);
    less is a paragraph of the item (indentation there means continuation,
    not code)."""
    # (an alternation with \A in the pattern would make the search 10x slower)
    lead = _LEADING_INDENT_RE.match(body) if body[:1] in (" ", "\t", "\n") else None
    starts = [lead.end()] if lead else []   # the body's first non-blank line
    if "\t" in body or "\n    " in body:     # (each match holds one; the search costs 2.5x these tests)
        starts += [m.start(1) for m in _BLANK_THEN_INDENT_RE.finditer(body)]
    if not starts:
        return
    fenced = _merged(sorted(out))
    if not (_LIST_ITEM_LINE_RE.search(body) if body[:1] not in _MARKER_FIRST else True):
        # no list: every such line after a blank line begins a block
        _indented_blocks(body, starts, fenced, out, None)
        return
    _indented_blocks(body, starts, fenced, out, _list_bases(body, fenced))


def _indented_blocks(body: str, starts: list, fenced: list, out: list, bases: dict | None) -> None:
    """The code blocks that begin at ``starts`` (lines indented 4+ after a
    blank line); ``bases``: the column each line's indentation counts from
    (the content column of the list item it is in; None: no list)."""
    last_end = -1      # end of the last indented block found
    n = len(body)
    blank_from = blank_to = -1
    for start in starts:
        if start < last_end or _inside(fenced, start):
            continue
        # a blank line begins no block: the first line after it that is not
        # blank may (the blank run found is kept: many such starts in one
        # run of blank lines are each skipped once)
        if blank_from <= start < blank_to:
            start = blank_to
        else:
            first = start
            while True:
                nl = body.find("\n", start)
                if body[start:n if nl < 0 else nl].strip():
                    break
                start = n if nl < 0 else nl + 1
                if nl < 0:
                    break
            blank_from, blank_to = first, start
        if start >= n or start < last_end or body[start] not in " \t" or _columns(body, start) < 4 \
                or _inside(fenced, start):
            continue
        base = 0
        if bases is not None:
            base = bases.get(start, 0)
            if base and _columns(body, start) < base + 4:
                continue     # a paragraph of a list item
        # the block runs while lines are blank or indented 4+ past the base
        end = start
        pos = start
        while pos < n:
            nl = body.find("\n", pos)
            line_end = n if nl < 0 else nl
            if body[pos:pos + 1] in (" ", "\t") and _columns(body, pos) >= base + 4:
                end = line_end
            elif body[pos:line_end].strip():
                break
            pos = line_end + 1
        out.append((start, end))
        last_end = end


def _columns(body: str, pos: int) -> int:
    """The column of the first non-blank character of the line at ``pos``
    (a tab goes to the next multiple of 4)."""
    col = 0
    n = len(body)
    while pos < n:
        c = body[pos]
        if c == " ":
            col += 1
        elif c == "\t":
            col += 4 - col % 4
        else:
            break
        pos += 1
    return col


def _list_bases(body: str, fenced: list) -> dict:
    """For each line start after a blank line: the content column of the
    innermost list item the line may belong to (0: none), read in one pass
    over the lines (CommonMark's list items: the content begins after the
    marker and 1–4 spaces; a line after a blank line belongs to an item
    when indented to its content column or more)."""
    bases: dict = {}
    stack: list = []        # content columns of the open items, outermost first
    blank_before = True
    code = False            # the last line was in an indented code block
    empty_item = 0          # the depth of an item opened empty on the last line (0: none)
    pos = 0
    n = len(body)
    while pos < n:
        nl = body.find("\n", pos)
        line_end = n if nl < 0 else nl
        line = body[pos:line_end]
        if not line.strip():
            if empty_item and empty_item == len(stack) and not blank_before:
                stack.pop()          # an item that begins empty ends at a blank line
            empty_item = 0
            blank_before = True
            pos = line_end + 1
            continue
        empty_item = 0               # (set again below when this line opens an empty item)
        col = _columns(body, pos)
        if _inside(fenced, pos):
            k = bisect_right(fenced, (pos, _BIG)) - 1
            if fenced[k][0] == pos:       # a fence's first line: closes the items it is left of
                while stack and col < stack[-1]:
                    stack.pop()
            pos = max(line_end, fenced[k][1]) + 1
            blank_before = False
            code = False
            continue
        base = stack[-1] if stack else 0
        if code and col >= base + 4:
            pos = line_end + 1
            continue
        if blank_before or code:
            # (no lazy continuation after a blank line or a code block)
            while stack and col < stack[-1]:
                stack.pop()
            base = stack[-1] if stack else 0
            if blank_before:
                bases[pos] = base
                if col >= base + 4:
                    code = True
                    blank_before = False
                    pos = line_end + 1
                    continue
        text = line.lstrip(" \t")
        m = _MARKER_RE.match(text) if col < base + 4 and not _BREAK_LINE_RE.match(text) else None
        if m is not None and not blank_before and not code and not (stack and col < stack[-1]) and \
                (m.group(2) and m.group(2) != "1" or not text[m.end():].strip()):
            # a new list (not a sibling of an open item) of an ordered item
            # not numbered 1, or of an empty item, does not interrupt a paragraph
            m = None
        if m is not None:
            while stack and col < stack[-1]:
                stack.pop()
            # the item's content column, and that of each item it opens on
            # the same line (``- - x``, ``1. - x``); a tab after a marker
            # goes to the next tab stop (``-\tx``: column 4)
            at = pos + (len(line) - len(text))      # where the marker begins
            mcol = col
            empty = False
            while m is not None:
                p = at + m.end(1)
                c = mcol + m.end(1)
                q = p
                while q < line_end and body[q] in " \t":
                    c += 4 - c % 4 if body[q] == "\t" else 1
                    q += 1
                if q >= line_end:                   # an empty item: its content one past the marker
                    stack.append(mcol + m.end(1) + 1)
                    empty = True
                    break
                if c - (mcol + m.end(1)) > 4:      # 5+ spaces: the content is code, one past the marker
                    stack.append(mcol + m.end(1) + 1)
                    break
                stack.append(c)
                rest = body[q:line_end]
                m = _MARKER_RE.match(rest) if not _BREAK_LINE_RE.match(rest) else None
                at, mcol = q, c
            empty_item = len(stack) if empty else 0
        elif not blank_before and not code and _INTERRUPT_RE.match(text):
            while stack and col < stack[-1]:
                stack.pop()
        code = False
        blank_before = False
        pos = line_end + 1
    return bases


#: a list item's marker at the start of a line's text: group 1 the marker,
#: 2 an ordered item's number
_MARKER_RE = re.compile(r"([-*+]|(\d{1,9})[.)])(?=[ \t]|$)")
_LIST_ITEM_LINE_RE = re.compile(r"\n[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)", re.M)
_MARKER_FIRST = frozenset(" \t-*+0123456789")
#: a thematic break (not a list item: ``* * *``)
_BREAK_LINE_RE = re.compile(r"(?:[-*_][ \t]*){3,}$")
#: a line that ends a paragraph without a blank line: a heading, a quote, a
#: thematic break, a fence
_INTERRUPT_RE = re.compile(r"#{1,6}(?:[ \t]|$)|>|(?:[-*_][ \t]*){3,}$|```|~~~")


def _inside(ranges, pos: int) -> bool:
    """Whether ``pos`` is in one of ``ranges`` (sorted, not overlapping)."""
    k = bisect_right(ranges, (pos, _BIG)) - 1
    return k >= 0 and ranges[k][0] <= pos < ranges[k][1]


_BIG = float("inf")


def _merged(ranges) -> list:
    """Sorted ``ranges`` with overlapping ones joined."""
    out: list = []
    for s, e in ranges:
        if out and s < out[-1][1]:
            if e > out[-1][1]:
                out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
    return out



_PERCENT_COMMENT_RE = re.compile(r"%%.*?(?:%%|\Z)", re.S)


def with_percent_comments(body: str, code: list) -> list:
    """``code`` (:func:`code_ranges`) with Obsidian's ``%% … %%`` comments
    outside code (an unclosed one runs to the end), for a schema with
    ``comments: [percent]``: no link is read in one, as none is shown."""
    if "%%" not in body:
        return code
    extra = [m.span() for m in _PERCENT_COMMENT_RE.finditer(body) if not (code and _inside(code, m.start()))]
    return _merged(sorted(code + extra)) if extra else code


def without_comments(body: str, code: list | None = None) -> str:
    """``body`` without its comments: HTML's (``<!-- … -->`` outside code,
    an unclosed one to the end, as CommonMark reads one) and, where the
    loader counted them among the code ranges (a schema with ``comments:
    [percent]``), Obsidian's ``%% … %%``.  Markdown readers hide them, and
    the lint reads no link in them; with raw HTML escaped, the pages showed
    them as text, a note to oneself published.  A comment on lines of its
    own leaves a blank line (it ended the paragraph).  ``code``: the
    record's ``code`` (:func:`code_ranges`, and the ``%%`` comments), when
    known.  What the site shows of a body, and where the lint looks for a
    link's heading."""
    html = "<!--" in body
    percent = code is not None and "%%" in body
    if not html and not percent:
        return body
    if code is None:
        code = code_ranges(body)
    # (a code range that starts with "%%" is one of those comments: a code
    # span starts with a backtick, a block with its fence or indentation)
    cuts = [(s, e) for s, e in code if html and body.startswith("<!--", s) or percent and body.startswith("%%", s)]
    pieces, pos = [], 0
    for s, e in cuts:
        if s >= pos:
            pieces.append(body[pos:s])
            pos = e
    if not pieces:
        return body
    pieces.append(body[pos:])
    return "".join(pieces)


# a link's destination or a definition may follow
_ADDRESS_HINT_RE = re.compile(r"\][(:]")
# an autolink, ``<https://example.org/LIT-001>``: a scheme of 2 to 32 characters
_AUTOLINK_RE = re.compile(r"<[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]{0,2048}>")


def address_ranges(body: str, code: list) -> list[tuple[int, int]]:
    """(start, end) of each link's address outside code: an inline link's
    or image's destination (``[t](../figures/LIT-001.png)``), an autolink
    (``<https://x.org/LIT-001>``), a link reference definition's
    destination.  An id in one is part of an address, not a mention (the
    site shows no text there, and a rename must not change a file's path)."""
    out: list = []
    hint = _ADDRESS_HINT_RE.search(body)      # (one search: two ``in`` tests of two characters cost 4x)
    if hint is not None and "](" in body:
        for d in _MD_DEST_RE.finditer(body):
            s = d.start()
            k = body.rfind("[", max(0, s - _MD_TEXT_BACK), s)
            if k < 0 or body.find("\n\n", k, s) >= 0 or (code and _inside(code, s)):
                continue
            out.append(d.span(1))
    if "<" in body and ":" in body:
        for m in _AUTOLINK_RE.finditer(body):
            if not (code and _inside(code, m.start())):
                out.append(m.span())
    if hint is not None and "]:" in body:
        for ws, we, *_ in definitions(body, md_only=False):
            if not (code and _inside(code, ws)):
                d = markdown_destination(body, ws, we)
                if d is not None:
                    out.append(d.span(1))
    return out


# ``#tag`` as Obsidian and Foam read one in a body: after a line's start or a
# blank, letters, digits, ``_``, ``-`` and ``/`` (nesting), at least one of
# them no digit (``#123`` is none), not a heading's ``# `` nor ``##``
_BODY_TAG_RE = re.compile(r"(?:(?<=\s)|^)#([\w/-]*[^\W\d][\w/-]*)", re.M)


def body_tags(body: str, code: list | None = None) -> list[str]:
    """The ``#tags`` of ``body`` outside code, comments and links'
    addresses, in order, each once, without the ``#`` (and without a ``/``
    or ``-`` it ends with)."""
    if "#" not in body:
        return []
    if code is None:
        code = code_ranges(body)
    skips = with_addresses(body, code)
    out: list = []
    for m in _BODY_TAG_RE.finditer(body):
        if skips and _inside(skips, m.start()):
            continue
        tag = m.group(1).rstrip("/-")
        if tag and tag not in out and any(not c.isdigit() for c in tag if c not in "/-"):
            out.append(tag)
    return out


def with_addresses(body: str, code: list) -> list:
    """``code`` (:func:`code_ranges`) and :func:`address_ranges`, joined:
    where no mention is looked for."""
    extra = address_ranges(body, code)
    return _merged(sorted(code + extra)) if extra else code

def _code_spans(body: str, ranges: list, ticks=None) -> None:
    """CommonMark code spans: a run of n backticks up to the next run of
    exactly n backticks in the same paragraph; a run with no such closer is
    literal text, and the scan goes on after it.  ``ticks``: the body's
    backtick runs, when the caller has them.

    Linear in the body: each run is looked at once as an opener, and its
    closer is found by bisection in the list of the paragraph's runs of its
    width (a scan forward from every unmatched opener would be quadratic in
    the runs of a paragraph)."""
    blocks = _merged(ranges)    # fenced and indented blocks
    if ticks is None:
        ticks = _TICKS_RE.finditer(body)
    # the runs outside blocks, each with the paragraph it belongs to: a
    # paragraph ends at a blank line, at a code block, at a heading line and
    # at a list item's first line
    runs = []
    append = runs.append
    bi, nb = 0, len(blocks)
    para = 0
    last_end = 0
    find = body.find
    by_width: dict[tuple[int, int], list[int]] = {}
    for m in ticks:
        s, e = m.span()
        if nb:
            while bi < nb and blocks[bi][1] <= s:
                bi += 1
            if bi < nb and blocks[bi][0] <= s:
                continue
            if bi and blocks[bi - 1][1] > last_end:
                para += 1        # a code block between this run and the last
        if runs and find("\n", last_end, s) >= 0 and _breaks_paragraph(body, last_end, s):
            para += 1
        key = (para, e - s)
        same = by_width.get(key)
        if same is None:
            by_width[key] = [len(runs)]
        else:
            same.append(len(runs))
        append((s, e, para))
        last_end = e
    if not runs:
        return
    i, n = 0, len(runs)
    while i < n:
        s, e, p = runs[i]
        start = s
        if s > 0 and body[s - 1] == "\\" and _escaped(body, s):
            # an escaped backtick is literal; the rest of the run may open a span
            if e - s == 1:
                i += 1
                continue
            start += 1
        same = by_width.get((p, e - start))
        j = -1
        if same:
            k = bisect_right(same, i)
            if k < len(same):
                j = same[k]
        if j > i:
            ranges.append((start, runs[j][1]))
            i = j + 1
        else:
            i += 1


def _escaped(body: str, pos: int) -> bool:
    """Whether the character at ``pos`` follows an odd number of backslashes."""
    k = pos
    while k > 0 and body[k - 1] == "\\":
        k -= 1
    return (pos - k) % 2 == 1


def _breaks_paragraph(body: str, a: int, b: int) -> bool:
    """Whether a paragraph ends between offsets ``a`` and ``b`` (which hold
    no code block): a blank line, or a line that starts a heading or a list
    item (each interrupts a paragraph)."""
    nl = body.find("\n", a, b)
    if nl < 0:
        return False
    if _PARA_BREAK_RE.search(body, nl, b) or _BLOCK_START_RE.search(body, nl, b):
        return True
    # a block quote interrupts a paragraph, but its own lines continue it
    for q in _QUOTE_START_RE.finditer(body, nl, b):
        prev = body.rfind("\n", 0, q.start()) + 1
        if not _QUOTE_LINE_RE.match(body, prev):
            return True
    # a heading is one line: the paragraph after it starts on the next one
    return _HEADING_LINE_RE.match(body, body.rfind("\n", 0, a) + 1) is not None


def scan_mentions(body: str, id_re: "re.Pattern | LinkScan | None", first_line: int = 1, code: list | None = None,
                  links=None) -> list[Mention]:
    """Every mention in ``body``; lines are counted from ``first_line``.
    ``code`` is :func:`code_ranges` of the body, when the caller has it.
    ``id_re``: the bare ``KIND-NNN`` tokens to find, or None for none, or
    a record's :class:`LinkScan` (which then says how to scan).
    ``links``: the schema's link settings
    (:class:`recordkit.corpus.resolve.LinkSettings`), or None for the
    research defaults (wikilinks target first, no Markdown links)."""
    if isinstance(id_re, LinkScan):
        return id_re.scan(body, first_line, code)
    # Two searches, each with a pattern a literal leads, merged in order: an
    # alternation of both is 5x slower than the two together.  The loop is
    # written out flat because it runs once per mention of the whole record.
    wikis = _links(body, links)
    if code is None:
        code = code_ranges(body)
    code = with_addresses(body, code)
    nc = len(code)
    nw = len(wikis)
    ci = wi = 0
    next_wiki = wikis[0][0] if nw else -1
    wiki_end = -1
    out: list[Mention] = []
    append = out.append
    line = first_line
    last = 0
    line_start = 0
    count = body.count
    rfind = body.rfind
    end_of_body = len(body) + 1
    ids = id_re.finditer(body) if id_re is not None else ()
    for m in chain(ids, (None,)):
        s = end_of_body if m is None else m.start()
        if m is not None and s:
            c = body[s - 1]
            if c.isalnum() or c == "_" or c == "-":
                continue
        while 0 <= next_wiki <= s:   # links that start before this id
            ws, we, target, label, form = wikis[wi]
            wi += 1
            next_wiki = wikis[wi][0] if wi < nw else -1
            if ws < wiki_end:
                continue   # inside the link just emitted (a wikilink in a Markdown link's text)
            if nc:
                while ci < nc and code[ci][1] <= ws:
                    ci += 1
                if ci < nc and code[ci][0] <= ws:
                    continue
            wiki_end = we
            n = count("\n", last, ws)
            if n:
                line += n
                line_start = rfind("\n", last, ws) + 1
            last = ws
            col = ws - line_start + 1
            append(Mention(target, line, col, col + (we - ws), form, label))
        if m is None:
            break
        if s < wiki_end:
            continue  # part of the wikilink just emitted
        if nc:
            while ci < nc and code[ci][1] <= s:
                ci += 1
            if ci < nc and code[ci][0] <= s:
                continue
        n = count("\n", last, s)
        if n:
            line += n
            line_start = rfind("\n", last, s) + 1
        last = s
        col = s - line_start + 1
        append(Mention(m.group(), line, col, col + (m.end() - s)))
    return out


def _links(body: str, links) -> list[tuple]:
    """(start, end, target, label, form) of every wikilink, embed and (when
    ``links.markdown_links``) Markdown link to a ``.md`` file in ``body``,
    code or not, in order of their start."""
    out: list[tuple] = []
    if "[[" in body:
        label_first = links is not None and links.wikilink_order == "label-first"
        if label_first:
            for w in _WIKI_LABEL_FIRST_RE.finditer(body):
                ws = w.start()
                form = "wikilink"
                if ws and body[ws - 1] == "!":
                    ws -= 1
                    form = "embed"
                label = w.group(1)
                target = w.group(2).strip()
                if label and label[-1] == "\\":    # ``\|`` in a table
                    label = label[:-1]
                if _is_attachment(target) or _is_pattern(target):
                    continue
                out.append((ws, w.end(), target, label, form))
        else:
            for w in _WIKI_RE.finditer(body):
                ws = w.start()
                form = "wikilink"
                target = w.group(1).strip()
                if links is not None:
                    if ws and body[ws - 1] == "!":
                        ws -= 1
                        form = "embed"
                    if target[-1:] == "\\":     # ``[[Note\|label]]``: Obsidian's bar escaped in a table
                        target = target[:-1].rstrip()
                    if _is_attachment(target) or _is_pattern(target):
                        continue
                out.append((ws, w.end(), target, w.group(2), form))
    if links is not None and links.sigils:
        tags = _sigil_links(body, links.sigils)
        if tags:
            out = sorted(out + tags) if out else tags
    if links is not None and links.markdown_links and "](" in body:
        md = []
        bare = links.markdown_extensionless
        for d in _MD_DEST_RE.finditer(body):
            target = markdown_target(d.group(1), bare)
            if target is None:
                continue
            s = d.start()
            k = body.rfind("[", max(0, s - _MD_TEXT_BACK), s)
            if k < 0 or body.find("\n\n", k, s) >= 0:
                continue     # no link text: not a link
            label = body[k + 1:s]
            if k and body[k - 1] == "!":
                k -= 1
            md.append((k, d.end(), target, label, "markdown"))
        if md:
            out = sorted(out + md) if out else md
    if links is not None and links.markdown_links and "]:" in body:
        defs = definitions(body)
        if defs:
            out = sorted(out + defs) if out else defs
    return out


# ``#name`` and ``@name`` as Dendron reads them: after a line's start or a
# blank (not ``a#b``, not an address ``ana@x.org``), a dotted name
# (``#eval.bench``; a dot ending a sentence is not part of it), not all
# digits (``#123``), not a heading's ``# ``
_SIGIL_RE = re.compile(r"(?:(?<=\s)|^)([#@])([\w-]+(?:\.[\w-]+)*)", re.M)
# (a name of digits alone is no tag: told after the match, as a look-ahead
# for a letter ran on past the name's end: ``#123..abc``)
_LETTER_RE = re.compile(r"[^\W\d]")


def _sigil_links(body: str, sigils: tuple) -> list[tuple]:
    """(start, end, target, None, "tag") of each ``#name`` and ``@name``
    of ``body`` (code or not) whose sigil ``sigils`` maps to a prefix: a
    link to the note ``prefix + name`` (Dendron's ``#tag`` is
    ``[[tags.tag]]``, ``@ana`` ``[[user.ana]]``)."""
    prefixes = dict(sigils)
    if not any(k in body for k in prefixes):
        return []
    return [(m.start(), m.end(), prefixes[m.group(1)] + m.group(2), None, "tag")
            for m in _SIGIL_RE.finditer(body) if m.group(1) in prefixes and _LETTER_RE.search(m.group(2))]


def definitions(body: str, md_only: bool = True) -> list[tuple]:
    """(start, end, target, label, "markdown") of each link reference
    definition in ``body`` whose destination is a ``.md`` file, code or
    not: a line ``[label]: dest "title"`` that starts the body, follows a
    blank line, a heading or another definition (one cannot interrupt a
    paragraph), the first of its label (CommonMark keeps the first).
    ``start`` is the ``[``, ``end`` the end of the line's last part.
    ``md_only=False``: every definition, ``target`` None where the
    destination is not a ``.md`` file."""
    out: list[tuple] = []
    seen: set = set()
    prev_end = -2               # the end of the last definition line
    for d in _MD_DEF_RE.finditer(body):
        s = d.start()
        if s:
            p = body.rfind("\n", 0, s - 1) + 1       # the line before
            line = body[p:s - 1].rstrip("\r")
            if line.strip() and prev_end != s - 1 and not _HEADING_LINE_RE.match(line + "\n") \
                    and not _CLOSES_BLOCK_RE.match(line):
                continue
        prev_end = d.end()
        key = " ".join(d.group(1).split()).casefold()
        if key in seen:
            continue
        seen.add(key)
        target = markdown_target(d.group(2))
        if target is not None or not md_only:
            out.append((d.start(1) - 1, s + len(d.group(0).rstrip(" \t\r")), target, d.group(1), "markdown"))
    return out


def markdown_destination(text: str, start: int, end: int) -> "re.Match | None":
    """The match whose group 1 is the destination of the Markdown link or
    link reference definition at ``text[start:end]`` (as :func:`_links`
    gives them), or None."""
    if text.startswith("[", start):
        d = _MD_DEF_AT_RE.match(text, start, end)
        if d is not None and d.end() == end and text.rfind("\n", 0, start) + 1 >= start - 3:
            return d
    d = None
    for m in _MD_DEST_RE.finditer(text, start, end):
        if m.end() == end:          # (the link's own destination: its text may hold another)
            d = m
    return d


def mention_targets(body: str, targets_re: re.Pattern, code: list | None = None) -> list[str]:
    """The targets of :func:`scan_mentions` (``[m.target for m in
    scan_mentions(body, ...)]``, same order), without positions, at the
    speed of the regular-expression engine: the loader keeps these for
    every record, and the positions are worked out only for a record whose
    mentions someone reads (``tests/test_mentions.py`` checks the two
    agree).  ``targets_re`` is the schema's ``mention_targets_re``.

    The body is cut at code ranges and at wikilinks (which are not in
    code); the ids of each piece between come from one ``findall`` whose
    look-behind still sees the character before the piece.
    """
    if code is None:
        code = code_ranges(body)
    code = with_addresses(body, code)
    skips = code
    wikis = None
    if "[[" in body:
        wikis = [(w.start(), w.end(), w.group(1).strip()) for w in _wikilinks_outside(body, code)]
        if wikis:
            skips = sorted([(s, e, None) for s, e in code] + wikis)
    out: list[str] = []
    findall = targets_re.findall
    if targets_re.groups < 2:
        # a schema without kinds: the number is the only group, and findall
        # gives it as a string (not a tuple to unpack): the token is "-NNN"
        def findall(text, *at, _find=targets_re.findall):
            return [("", num) for num in _find(text, *at)]
    pos = 0
    for skip in skips:
        s, e = skip[0], skip[1]
        if s > pos:
            for *kinds, num in findall(body, pos, s):
                out.append("".join(kinds) + "-" + num)
        if wikis is not None and skip[2:] and skip[2] is not None:
            out.append(skip[2])
        if e > pos:
            pos = e
    for *kinds, num in findall(body, pos):
        out.append("".join(kinds) + "-" + num)
    return out


def _wikilinks_outside(body: str, code: list) -> list:
    """The ``_WIKI_RE`` matches of ``body`` that do not start inside one of
    the ``code`` ranges (sorted ``(start, end)`` pairs)."""
    out = []
    nc = len(code)
    ci = 0
    for w in _WIKI_RE.finditer(body):
        ws = w.start()
        while ci < nc and code[ci][1] <= ws:
            ci += 1
        if ci < nc and code[ci][0] <= ws:
            continue
        out.append(w)
    return out


#: the item type of the arrays a record's ``mention_spots`` packs (at least 32 bits)
_SPOT_TYPE = "I" if array("I").itemsize >= 4 else "L"
#: how the schema's ``mention_targets_re`` ends: the number, captured
_NUMBER_TAIL = r"([0-9]{3,})(?![\w-])"
_SPOTS_RES: dict = {}


def _spots_re(targets_re: re.Pattern) -> tuple[re.Pattern, bool]:
    """``targets_re`` (the schema's ``mention_targets_re``) with the number
    not captured, and whether it has kinds: the one group that matched is
    then the kind, and ``m.lastindex`` names it (no tuple of every group
    made and joined for each mention, as ``findall`` does).  A schema
    without kinds has no group left: the kind is "" then.

    A ``-`` led pattern gets ``(?=[0-9]{3})`` after its ``-`` (implied by
    the number that follows, so it matches the same): most hyphens of a
    body (``fine-tune``, ``| --- |``) are then passed over before the
    kinds' look-behinds are tried, which halves the search (0.24 → 0.12
    CPU-s over the 10,000 bodies of the bench)."""
    got = _SPOTS_RES.get(targets_re)
    if got is None:
        pattern = targets_re.pattern
        if not pattern.endswith(_NUMBER_TAIL):
            raise ValueError(f"not a schema's mention_targets_re: {pattern!r}")
        head = pattern[:-len(_NUMBER_TAIL)]
        if head.startswith("-(?:"):
            head = "-(?=[0-9]{3})" + head[1:]
        got = _SPOTS_RES[targets_re] = (
            re.compile(head + r"[0-9]{3,}(?![\w-])", targets_re.flags),
            targets_re.groups > 1)
    return got


def mention_spots(body: str, targets_re: re.Pattern, code: list | None = None) -> tuple[list[str], tuple]:
    """:func:`mention_targets` and where each target is, in one walk:
    ``(targets, spots)``, ``spots`` being ``(lines, cols, wikilinks)``:
    ``lines`` and ``cols`` the bytes of an ``array`` of one number per
    target, the line (counted from the body's first line, 0) and the
    column (1-based) where the mention starts; ``wikilinks`` ``((index,
    label), ...)`` of the targets written as wikilinks (``label`` None for
    ``[[ID]]``), or None.  The loader keeps both for every record (8 bytes
    a mention, where a Mention object costs a hundred), and
    :func:`spot_rows` turns them into the rows of the ``mentions`` table
    without the body.

    One search of the whole body for ids (``targets_re``, the schema's
    ``mention_targets_re``, with a quicker first test: :func:`_spots_re`)
    and one for wikilinks; an id counts when its ``-`` is in no code range
    and no wikilink that counts, a wikilink when it starts in no code
    range.  (Searching each stretch between code ranges and wikilinks on
    its own finds the same ids: every code range and wikilink begins and
    ends with a character that is neither a digit nor a word character
    next to one, so no id runs across the edge of one; it cost a search
    per stretch.)  Lines are counted from one mention to the next (the
    line's start looked for only when the line changed)."""
    if code is None:
        code = code_ranges(body)
    code = with_addresses(body, code)
    # (no test for "[[" first: a two-character ``in`` reads the whole body,
    # a third of what the search costs, and most bodies hold a wikilink)
    wikis = _wikilinks_outside(body, code)
    skips = sorted(code + [w.span() for w in wikis]) if wikis else code
    spots_re, kinds = _spots_re(targets_re)
    out: list[str] = []
    append = out.append
    lines = array(_SPOT_TYPE)
    cols = array(_SPOT_TYPE)
    put_line = lines.append
    put_col = cols.append
    wikilinks = None
    count = body.count
    rfind = body.rfind
    line = last = line_start = 0
    si, ns = 0, len(skips)
    wi, nw = 0, len(wikis) if wikis else 0
    next_wiki = wikis[0].start() if nw else -1
    for m in spots_re.finditer(body):
        x = m.start()
        if ns:
            while si < ns and skips[si][1] <= x:
                si += 1
            if si < ns and skips[si][0] <= x:
                continue        # in code, or in a wikilink
        while 0 <= next_wiki < x:     # the wikilinks before this id
            w = wikis[wi]
            n = count("\n", last, next_wiki)
            if n:
                line += n
                line_start = rfind("\n", last, next_wiki) + 1
            last = next_wiki
            if wikilinks is None:
                wikilinks = []
            wikilinks.append((len(out), w[2]))
            append(w[1].strip())
            put_line(line)
            put_col(next_wiki - line_start + 1)
            wi += 1
            next_wiki = wikis[wi].start() if wi < nw else -1
        kind = m[m.lastindex] if kinds else ""     # (the match is "-NNN": the kind is behind it)
        at = x - len(kind)
        n = count("\n", last, at)
        if n:
            line += n
            line_start = rfind("\n", last, at) + 1
        last = at
        put_line(line)
        put_col(at - line_start + 1)
        append(kind + m[0])
    while next_wiki >= 0:
        w = wikis[wi]
        n = count("\n", last, next_wiki)
        if n:
            line += n
            line_start = rfind("\n", last, next_wiki) + 1
        last = next_wiki
        if wikilinks is None:
            wikilinks = []
        wikilinks.append((len(out), w[2]))
        append(w[1].strip())
        put_line(line)
        put_col(next_wiki - line_start + 1)
        wi += 1
        next_wiki = wikis[wi].start() if wi < nw else -1
    if not out:
        return out, (b"", b"", None)
    return out, (lines.tobytes(), cols.tobytes(), tuple(wikilinks) if wikilinks else None)


def spot_places(spots: tuple) -> tuple:
    """``(lines, cols, wikilinks)`` of :func:`mention_spots`'s ``spots``:
    the lines (from the body's first, 0) and columns as arrays."""
    lines = array(_SPOT_TYPE)
    lines.frombytes(spots[0])
    cols = array(_SPOT_TYPE)
    cols.frombytes(spots[1])
    return lines, cols, spots[2]


def spot_rows(targets: list[str], spots: tuple, first_line: int = 1) -> list[tuple]:
    """``(target, line, col, form, label)`` of each mention of
    :func:`mention_spots` (``first_line``: the body's first line in the
    file): what :func:`mention_positions` gives for the same body."""
    lines, cols, _ = spot_places(spots)
    rows = [(t, first_line + n, col, "bare", None) for t, n, col in zip(targets, lines, cols)]
    if spots[2]:
        for i, label in spots[2]:
            t, line, col, _, _ = rows[i]
            rows[i] = (t, line, col, "wikilink", label)
    return rows


def mention_positions(body: str, targets_re: re.Pattern, first_line: int = 1,
                      code: list | None = None) -> list[tuple]:
    """``(target, line, col, form, label)`` of each mention
    :func:`scan_mentions` finds with the research defaults (``id_re`` the
    schema's ``mention_re``, no link settings), in the same order, as
    plain tuples: the rows of the ``mentions`` table.  Found by
    :func:`mention_spots` (a search per stretch between code ranges and
    wikilinks, the left boundary in ``targets_re``'s look-behind), so only
    the mentions themselves are looked at one by one, not every id-like
    token and code range (``tests/corpus/test_mentions.py`` checks the two
    agree).  ``targets_re`` is the schema's ``mention_targets_re``."""
    return spot_rows(*mention_spots(body, targets_re, code), first_line)


def markdown_target(href: str, extensionless: bool = False) -> str | None:
    """The file a Markdown link's destination names, URL-decoded, without
    its ``#anchor`` or query; None for an external address (``https:``,
    ``mailto:``, any scheme) or a destination that is not a ``.md`` file.
    ``extensionless``: a path whose file name has no extension names the
    ``.md`` file of that name (``Note%20One`` → ``Note One.md``, as
    Obsidian reads it)."""
    href = href.strip()
    if href.startswith("<") and href.endswith(">"):
        href = href[1:-1].strip()
    if not href or _SCHEME_RE.match(href) or href.startswith(("#", "//")):
        return None
    for sep in ("#", "?"):
        k = href.find(sep)
        if k >= 0:
            href = href[:k]
    href = unquote(href)
    if not href.lower().endswith(".md"):
        name = href.rsplit("/", 1)[-1]
        if extensionless and name.strip(". ") and not _has_extension(name):
            return href + ".md"
        return None
    return href


#: what ends a file name that has an extension: a dot, then up to 8 letters
#: and digits with a letter among them (``.png``, ``.py``, ``.tar.gz``, ``.mp4``)
_EXTENSION_RE = re.compile(r"\.(?=[0-9]{0,7}[A-Za-z])[A-Za-z0-9]{1,8}\Z")


def _has_extension(name: str) -> bool:
    """Whether a link's file name ends with an extension: ``figure.png``,
    ``run.py`` do; ``v1.2 notes``, ``v1.2``, ``Dr. Who`` are note names
    with a dot in them (an extensionless link to ``v1.2 notes.md``)."""
    return "." in name and _EXTENSION_RE.search(name) is not None


#: file types a vault links to that are not notes (``![[figure.png]]``):
#: such a link names an attachment, not a record
ATTACHMENT_SUFFIXES = frozenset("""
png jpg jpeg gif svg webp bmp tif tiff avif heic ico pdf mp3 mp4 m4a m4v wav ogg oga webm flac mov mkv avi
canvas excalidraw csv tsv xls xlsx doc docx ppt pptx odt ods odp zip gz tar epub json yaml yml txt html htm
""".split())


def _is_attachment(target: str) -> bool:
    k = target.rfind(".")
    return k > 0 and target[k + 1:].lower() in ATTACHMENT_SUFFIXES


def _is_pattern(target: str) -> bool:
    """Whether a link's target is a pattern over note names, not a name:
    Dendron's wildcard note reference ``![[journal.2020.*]]`` (every note
    of that level).  It names no one record, so it is no record link (and
    not missing); no note's name holds a ``*`` (Windows forbids it, and
    Obsidian and Dendron with it)."""
    return "*" in target


def mention_links(body: str, targets_re: re.Pattern | None, code: list | None, links) -> list[tuple[str, str]]:
    """(target as written, form) of every mention :func:`scan_mentions`
    finds with ``links`` settings, in the same order, without positions
    (``tests/corpus/test_mentions.py`` checks the two agree): what the
    resolver resolves for every record of a vault, the positions being
    worked out only for a record whose mentions someone reads.
    ``targets_re``: the schema's ``mention_targets_re``, or None when bare
    mentions do not count."""
    if code is None:
        code = code_ranges(body)
    code = with_addresses(body, code)
    nc = len(code)
    ci = 0
    kept = []
    last_end = -1
    for ws, we, target, _label, form in _links(body, links):
        if ws < last_end:
            continue
        while ci < nc and code[ci][1] <= ws:
            ci += 1
        if ci < nc and code[ci][0] <= ws:
            continue
        kept.append((ws, we, target, form))
        last_end = we
    out: list[tuple[str, str]] = []
    if targets_re is None:
        return [(t, f) for _, _, t, f in kept]
    skips = sorted([(s, e, None, None) for s, e in code] + kept) if kept else code
    findall = targets_re.findall
    pos = 0
    for skip in skips:
        s, e = skip[0], skip[1]
        if s > pos:
            for *kinds, num in findall(body, pos, s):
                out.append(("".join(kinds) + "-" + num, "bare"))
        if skip[2:] and skip[2] is not None:
            out.append((skip[2], skip[3]))
        if e > pos:
            pos = e
    for *kinds, num in findall(body, pos):
        out.append(("".join(kinds) + "-" + num, "bare"))
    return out


class LinkScan:
    """What a record of a vault keeps in place of the schema's
    ``mention_re`` (``Record.mention_re``): :func:`scan_mentions` given it
    scans with the vault's link settings and gives each mention the record
    its link resolves to (``resolve(text)``: the id, or None), keeping the
    text as written.  So a record's mentions with their positions are
    worked out only when someone reads them, already resolved.  ``texts``:
    the record's link targets as written, in order (what it was loaded
    with), from which a corpus re-read after an edit resolves again."""
    __slots__ = ("id_re", "links", "resolve", "texts")

    def __init__(self, id_re, links, resolve, texts=()):
        self.id_re = id_re
        self.links = links
        self.resolve = resolve
        self.texts = texts

    def scan(self, body: str, first_line: int, code: list | None) -> list[Mention]:
        out = scan_mentions(body, self.id_re, first_line, code, self.links)
        resolve = self.resolve
        for m in out:
            m.text = m.target
            got = resolve(m.target)
            if got is not None:
                m.target = got
        return out


def scan_suppressions(text: str) -> dict[int, frozenset]:
    """``<!-- recordkit: ignore RK305 -->`` lines: the codes they silence, by
    the line they apply to (the next line; and their own line)."""
    out: dict[int, set] = {}
    line, last = 1, 0
    for m in _SUPPRESS_RE.finditer(text):
        line += text.count("\n", last, m.start())   # counted on from the last one: linear
        last = m.start()
        codes = {c for c in re.split(r"[\s,]+", m.group(1)) if c}
        for ln in (line, line + 1):
            out.setdefault(ln, set()).update(codes)
    return {k: frozenset(v) for k, v in out.items()}
