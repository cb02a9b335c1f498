"""The CommonMark blocks of a Markdown body that no link is read in: code
(fenced and indented blocks, code spans), HTML and Obsidian comments, and
the ``<!-- recordkit: ignore … -->`` suppressions.

This is a hand-written scanner rather than a markdown-it pass because it runs
on every file of the record on every lint: regular expressions over the whole
body are ~50x faster than a full CommonMark parse.
``tests/corpus/test_mentions.py`` checks it against markdown-it-py's token
stream on generated documents.  Knows nothing of records.
"""
from __future__ import annotations

import re
from bisect import bisect_right


_BLANK_THEN_INDENT_RE = re.compile(r"\n[ \t]*\n((?: {4}| {0,3}\t)[^\n]*)")
_LEADING_INDENT_RE = re.compile(r"(?:[ \t]*\n)*(?= {4}| {0,3}\t)")
_TICKS_RE = re.compile(r"``*")  # a literal first char lets re search fast
_COMMENT_RE = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
# a line after which a definition may start (a fence, a thematic break)
CLOSES_BLOCK_RE = re.compile(r" {0,3}(?:`{3,}|~{3,}|(?:[-*_][ \t]*){3,})[ \t]*\Z")
#: how far a fence may be indented (CommonMark allows 3 spaces; more inside
#: nested list items): a bound keeps a long line of backtick runs linear
_MAX_FENCE_INDENT = 40
_PARA_BREAK_RE = re.compile(r"\n[ \t]*\n")
# a line that starts an ATX heading or a list item (which interrupt a paragraph)
_BLOCK_START_RE = re.compile(r"\n {0,3}(?:#{1,6}[ \t\n]|[-*+][ \t]|1[.)][ \t])")
_QUOTE_START_RE = re.compile(r"\n {0,3}>")
_QUOTE_LINE_RE = re.compile(r" {0,3}>")
HEADING_LINE_RE = re.compile(r" {0,3}#{1,6}[ \t\n]")
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
        merged = merged_ranges(ranges)
        for m in _COMMENT_RE.finditer(body):
            if not in_ranges(merged, m.start()):
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
    fenced = merged_ranges(sorted(out))
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
        if start < last_end or in_ranges(fenced, start):
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
                or in_ranges(fenced, start):
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
        if in_ranges(fenced, pos):
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


def in_ranges(ranges, pos: int) -> bool:
    """Whether ``pos`` is in one of ``ranges`` (sorted, not overlapping)."""
    k = bisect_right(ranges, (pos, _BIG)) - 1
    return k >= 0 and ranges[k][0] <= pos < ranges[k][1]


_BIG = float("inf")


def merged_ranges(ranges) -> list:
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
    extra = [m.span() for m in _PERCENT_COMMENT_RE.finditer(body) if not (code and in_ranges(code, m.start()))]
    return merged_ranges(sorted(code + extra)) if extra else code


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

def _code_spans(body: str, ranges: list, ticks=None) -> None:
    """CommonMark code spans: a run of n backticks up to the next run of
    exactly n backticks in the same paragraph; a run with no such closer is
    literal text, and the scan goes on after it.  ``ticks``: the body's
    backtick runs, when the caller has them.

    Linear in the body: each run is looked at once as an opener, and its
    closer is found by bisection in the list of the paragraph's runs of its
    width (a scan forward from every unmatched opener would be quadratic in
    the runs of a paragraph)."""
    blocks = merged_ranges(ranges)    # fenced and indented blocks
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
    return HEADING_LINE_RE.match(body, body.rfind("\n", 0, a) + 1) is not None


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
