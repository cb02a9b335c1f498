"""Raw HTML in a body, shown as Obsidian and GitHub show it: through an
allow-list sanitizer (nh3, the Python binding of Rust's ammonia), never
as written.

The walk writes each raw HTML piece (a block's lines, an inline tag) as a
:class:`Raw` string among its own output.  Inline tags arrive one by one
(``<kbd>``, text, ``</kbd>``), and a ``<details>`` block may open before a
paragraph and close after it, so no piece can be sanitized alone: the
body's output is sanitized once, whole, with every piece the walk wrote
itself (its paragraphs, links, mentions, escaped text) stood in for by a
placeholder, which the sanitizer sees as text and leaves be, and put back
after.  The sanitizer balances the raw tags among themselves: a raw
``</div>`` closes nothing of the page, an unclosed ``<b>`` ends with the
body.

What is kept (:data:`TAGS`, :data:`ATTRIBUTES`): the formatting and
structure tags both tools render (``<kbd>``, ``<br>``, ``<details>``,
``<summary>``, ``<sup>``, ``<mark>``, ``<u>``, tables, ...); links to
``http(s):``, ``mailto:`` and relative URLs.  What is taken out: every
other tag (``<script>``, ``<style>``, ``<iframe>``, ``<object>``,
``<form>``, ``<img>``, which would load a file the site does not have or
one from the network), every ``on*`` handler, ``style`` (the pages' CSP
allows no inline style), ``class`` and ``id`` (a raw tag cannot pass for
the page's own parts, nor shadow an element its script looks up), and
every other URL scheme (``javascript:``, ``data:``).  When the sanitizer
would drop or move a piece of the walk's own (a raw ``<mi>`` whose content
it drops, text a raw ``<table>`` cannot hold), the body's raw HTML is
shown as text instead, as it was before.
"""
from __future__ import annotations

import re


class Raw(str):
    """A piece of the walk's output that is raw HTML, as the body has it."""

    __slots__ = ()


TAGS = frozenset({
    "a", "abbr", "b", "bdi", "bdo", "blockquote", "br", "caption", "center", "cite", "code", "col",
    "colgroup", "dd", "del", "details", "dfn", "div", "dl", "dt", "em", "figcaption", "figure", "h1", "h2",
    "h3", "h4", "h5", "h6", "hr", "i", "ins", "kbd", "li", "mark", "ol", "p", "pre", "q", "rp", "rt", "ruby",
    "s", "samp", "small", "span", "strike", "strong", "sub", "summary", "sup", "table", "tbody", "td",
    "tfoot", "th", "thead", "time", "tr", "tt", "u", "ul", "var", "wbr"})
ATTRIBUTES = {
    "*": {"title", "lang", "dir"},
    "a": {"href"}, "blockquote": {"cite"}, "q": {"cite"}, "del": {"cite", "datetime"},
    "ins": {"cite", "datetime"}, "details": {"open"}, "ol": {"start", "reversed", "type"}, "li": {"value"},
    "td": {"colspan", "rowspan", "align"}, "th": {"colspan", "rowspan", "align", "scope"},
    "col": {"span"}, "colgroup": {"span"}, "time": {"datetime"}}
SCHEMES = {"http", "https", "mailto"}

#: the placeholder of a piece the walk wrote: characters of Unicode's
#: private use area, which no raw piece keeps (:func:`_own_marks`)
_OPEN, _CLOSE = "\ue000", "\ue001"
_PLACEHOLDER = re.compile("\ue000([0-9]+)\ue001")
#: an opening tag whose content the HTML parser reads as text to its end
#: tag (and the sanitizer drops with it): a raw ``<script>`` opened in a
#: paragraph would swallow the body's own pieces after it.  It is shown
#: as text instead (what the site showed of every raw tag before)
_SWALLOWERS = (r"(?:script|style|template|textarea|title|xmp|iframe|noembed|noframes|noscript|plaintext|"
               r"object|select|svg|math)(?![\w-])")
_SWALLOWS = re.compile(r"<(?=" + _SWALLOWERS + ")", re.I)
#: such an element whole within one stretch of raw HTML: taken out, content and all
_SWALLOWED = re.compile(r"<(" + _SWALLOWERS + r")[^>]*>.*?</\1\s*>", re.I | re.S)


def _own_marks(piece: str) -> str:
    """A raw piece without the placeholders' characters (a body cannot
    write a placeholder of its own into an attribute)."""
    if _OPEN in piece or _CLOSE in piece:
        piece = piece.replace(_OPEN, "\ufffd").replace(_CLOSE, "\ufffd")
    return piece


def _attribute(tag: str, name: str, value: str) -> str:
    """Every kept attribute's value, without placeholder characters."""
    return _own_marks(value)


def _stretch(pieces: list) -> str:
    """Raw pieces that follow one another, as one text for the sanitizer:
    an element that would swallow the body after it taken out whole (or
    its opening tag shown as text when it does not end in the stretch)."""
    p = _own_marks("".join(pieces))
    if "<" not in p:
        return p
    return _SWALLOWS.sub("&lt;", _SWALLOWED.sub("", p))


def clean(out: list) -> str:
    """The walk's output ``out`` joined, its :class:`Raw` pieces sanitized
    as one fragment (the other pieces kept as they are)."""
    if not any(p.__class__ is Raw for p in out):
        return "".join(out)
    import nh3
    ours: list = []
    parts: list = []
    run: list = []
    raw: list = []
    for p in out:
        if p.__class__ is Raw:
            if run:
                parts.append(f"{_OPEN}{len(ours)}{_CLOSE}")
                ours.append("".join(run))
                run = []
            raw.append(p)
        else:
            if raw:
                parts.append(_stretch(raw))
                raw = []
            run.append(p)
    if raw:
        parts.append(_stretch(raw))
    if run:
        parts.append(f"{_OPEN}{len(ours)}{_CLOSE}")
        ours.append("".join(run))
    cleaned = nh3.clean("".join(parts), tags=set(TAGS), attributes=ATTRIBUTES, url_schemes=SCHEMES,
                        attribute_filter=_attribute, strip_comments=True, link_rel="noopener noreferrer")
    found = [int(k) for k in _PLACEHOLDER.findall(cleaned)]
    if found != list(range(len(ours))):
        # a raw tag took some of the walk's own pieces with it (an element
        # whose content the sanitizer drops) or moved them (text a raw
        # table cannot hold goes before it): the raw HTML as text, as it
        # was shown before, rather than a page with a part missing
        return "".join(_escape(p) if p.__class__ is Raw else p for p in out)
    return _PLACEHOLDER.sub(lambda m: ours[int(m.group(1))], cleaned)


def _escape(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


__all__ = ["ATTRIBUTES", "Raw", "SCHEMES", "TAGS", "clean"]
