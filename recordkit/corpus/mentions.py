"""Find the records a Markdown body names, outside code: the mention scan.

A mention is a bare ``KIND-NNN`` token, an ``[[ID]]`` / ``[[ID|label]]``
wikilink and, with a vault's link settings, an embed, a Markdown link to a
``.md`` file or a Dendron sigil.  Mentions inside fenced code blocks,
indented code blocks, code spans, HTML comments and links' addresses do not
count.  The syntax is :mod:`recordkit.markdown`'s (``blocks``: where code
is; ``links``: the links); this module finds the mentions, their places, and
packs them for the store (:func:`mention_spots`).
``tests/corpus/test_mentions.py`` checks it against markdown-it-py's token
stream on generated documents.
"""
from __future__ import annotations

import re
from array import array
from dataclasses import dataclass
from itertools import chain

from ..markdown.blocks import code_ranges
from ..markdown.links import link_spans, wikilinks_outside, with_addresses


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


def scan_mentions(body: str, id_re: "re.Pattern | LinkScan | None", first_line: int = 1, code: list | None = None,
                  links=None) -> list[Mention]:
    """Every mention in ``body``; lines are counted from ``first_line``.
    ``code`` is :func:`code_ranges` of the body, when the caller has it.
    ``id_re``: the bare ``KIND-NNN`` tokens to find, or None for none, or
    a record's :class:`LinkScan` (which then says how to scan).
    ``links``: the schema's link settings
    (:class:`recordkit.schema.LinkSettings`), or None for the
    research defaults (wikilinks target first, no Markdown links)."""
    if isinstance(id_re, LinkScan):
        return id_re.scan(body, first_line, code)
    # Two searches, each with a pattern a literal leads, merged in order: an
    # alternation of both is 5x slower than the two together.  The loop is
    # written out flat because it runs once per mention of the whole record.
    wikis = link_spans(body, links)
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
        wikis = [(w.start(), w.end(), w.group(1).strip()) for w in wikilinks_outside(body, code)]
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
    wikis = wikilinks_outside(body, code)
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
    end = len(body) + 1
    for m in chain(spots_re.finditer(body), (None,)):
        x = end if m is None else m.start()     # (None: the wikilinks after the last id)
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
        if m is None:
            break
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
    for ws, we, target, _label, form in link_spans(body, links):
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


