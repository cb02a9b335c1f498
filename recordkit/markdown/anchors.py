"""Which headings and blocks a body has, as the site sees them: what a
link's ``#Heading`` or ``#^block`` can land on.

A link names a part of a record: ``[[Note#Some heading]]``,
``[[Note#^b1]]``, ``[[Note^b1]]``, ``[[#Heading]]`` on the same page,
``![[Note#^b1]]``.  The site renders a heading with ``id="<slug>"`` and an
Obsidian block id (a trailing ``^b1`` ending a paragraph or a list item's
text, or a paragraph of the id alone after a table, a quote or a list) as
``id="^b1"``; it links to that anchor when the target has it, else to the
page's top.  The lint's RK309 (missing-anchor) reports the links whose
target has no such part.  Both ask :func:`recordkit.markdown.native.anchors`
(the engine the site renders with, in the same pass), so they cannot
disagree; this module holds the pieces of that syntax the engine and the
link readers share (slugs, fragments, Dendron's ranges, block ids, safe
URLs) and :class:`Anchors`, the answer.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from .blocks import code_ranges, in_ranges
from .links import MD_DEST_RE, MD_TEXT_BACK, wikilink_target

SAFE_SCHEME = re.compile(r"^(https?:|mailto:)", re.I)
_SCHEME = re.compile(r"^[a-z][a-z0-9+.\-]*:", re.I)


def safe_url(url: str) -> bool:
    """Whether ``url`` may become a link: relative, a fragment, http(s) or mailto."""
    u = "".join(ch for ch in url.strip() if ch >= " " and ch != "\x7f")
    if not u:
        return False
    if SAFE_SCHEME.match(u):
        return True
    return not _SCHEME.match(u) and not u.startswith("//")


def slugify(text: str) -> str:
    t = unicodedata.normalize("NFKD", text).lower()
    t = re.sub(r"[^\w\s-]", "", t, flags=re.U)
    t = re.sub(r"[\s_-]+", "-", t).strip("-")
    return t or "section"


def fragment(target: str) -> str | None:
    """The heading (``Heading``) or block (``^b1``) a wikilink's target
    (``Note#Heading``, ``Note#^b1``, ``Note^b1``) names, or None.  A
    subheading path (``Note#Part#Section``, Obsidian's) names its last
    heading; a Dendron range (``Note#h1:#h2``) is kept whole
    (:func:`range_parts`)."""
    k = target.find("#")
    b = target.find("^")
    if k >= 0 and (b < 0 or k < b):
        frag = target[k + 1:]
        if "#" in frag and not frag.lstrip().startswith("^") and ":#" not in frag:
            frag = frag.rsplit("#", 1)[1] or frag.rstrip("#").rsplit("#", 1)[-1]
        return frag.strip() or None
    if b >= 0:
        return "^" + target[b + 1:].strip() if target[b + 1:].strip() else None
    return None


#: a Dendron note reference's offset, ``#heading,1`` (lines skipped)
_OFFSET = re.compile(r",[0-9]+\Z")


def range_parts(frag: str) -> tuple[str, str | None] | None:
    """``(start, end)`` of a fragment that is a Dendron note reference's
    range, wildcard or offset, None for any other: ``h1:#h2`` (from heading
    ``h1`` to heading ``h2``; ``^b1:#^b2`` from block to block), ``h1:#*``
    (from ``h1`` to the next heading), ``*`` alone (the whole note: start
    ``*``, end None), ``h1,1`` (``h1``, its first line skipped: end None),
    each part without its offset.  A ``*`` part names no anchor."""
    f = frag.strip()
    if f == "*":
        return "*", None
    if ":#" not in f:
        return (_OFFSET.sub("", f).strip(), None) if _OFFSET.search(f) else None
    start, end = f.split(":#", 1)
    start, end = _OFFSET.sub("", start.strip()), _OFFSET.sub("", end.strip())
    return (start, end) if start and end else None


def link_anchor(frag: str) -> str | None:
    """The anchor a link with ``frag`` goes to on its target's page: the
    start of a Dendron range (none for ``*``), else ``frag`` itself."""
    parts = range_parts(frag)
    if parts is None:
        return frag
    return None if parts[0] == "*" else parts[0]


def wikilink_fragment(inner: str, order: str = "target-first") -> str | None:
    """The heading or block a wikilink's inner text (``Note#Heading|label``;
    ``label|Note#Heading`` when ``order`` is ``label-first``) names, or
    None: what the site's link goes to."""
    name = inner.rsplit("|", 1)[-1] if order == "label-first" else inner.split("|", 1)[0]
    return fragment(name)


def markdown_fragment(href: str) -> str | None:
    """The heading (or ``^block``) a Markdown link's destination names after
    its ``#`` (``other.md#a-heading``, URL-decoded), or None."""
    k = href.find("#")
    if k < 0:
        return None
    from urllib.parse import unquote
    frag = unquote(href[k + 1:].strip().rstrip(">")).strip()
    return frag or None


#: a footnote's id on its page (``fn1``) and its reference's (``fnref1``,
#: ``fnref1:1`` for the second reference to it), as markdown-it's footnotes
#: name them
FOOTNOTE_ID = re.compile(r"fn(?:ref)?([0-9]+)(?::[0-9]+)?")


def anchor(fragment: str) -> str:
    """The id a heading's text (or a block's ``^b1``) has on its page: the
    first heading of that text gets its slug (see the engine's walk,
    :mod:`recordkit.markdown.native`); a block keeps its ``^`` name, and a
    footnote's id (``fn1``, ``fnref1:1``) is itself."""
    fragment = fragment.strip()
    if fragment.startswith("^") or FOOTNOTE_ID.fullmatch(fragment):
        return fragment
    return slugify(fragment)


#: a block id at the end of a paragraph or list item (Obsidian's ``^b1``;
#: one letter at least: ``r ^2`` at a sentence's end stays text).  The id
#: is a run of ``[A-Za-z0-9-]`` with a letter in it, said with a look-ahead:
#: ``[A-Za-z0-9-]*[A-Za-z][A-Za-z0-9-]*`` says the same but tries every
#: way of cutting a long run in two before giving up (``^`` and 4,000
#: letters, then more text: 0.3 s; tests/corpus/test_linear_patterns.py)
BLOCK_ID = re.compile(r"(?:^|[ \t])\^((?=[0-9-]*[A-Za-z])[A-Za-z0-9-]+)[ \t]*$")
#: the same at the end of a line of a block's source (an embed's text),
#: with the spaces before it; only from the first of those spaces (each
#: later one would start the same failed try over again)
BLOCK_ID_LINE = re.compile(r"(?:^|(?<![ \t])[ \t]+)\^(?=[0-9-]*[A-Za-z])[A-Za-z0-9-]+[ \t]*$", re.M)

#: a wikilink or embed as the link readers read it (the inner text is
#: group 1)
WIKI_ANY = re.compile(r"\[\[([^\[\]\n]+?)\]\]")


# -- what a body has -------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Anchors:
    """The headings and blocks of a body a link can name.  ``headings``:
    each heading's text as its id is made of (its text, code, math and
    wikilinks' source, as the engine's walk reads it), in
    order; ``blocks``: the block ids (``^b1``)."""
    headings: tuple[str, ...]
    blocks: frozenset[str]
    _slugs: frozenset[str]
    #: how many footnotes the body has (``fn1`` … and ``fnref1`` …)
    footnotes: int = 0

    def has(self, fragment: str) -> bool:
        """Whether a link's ``fragment`` (``Heading`` or ``^b1``) names a
        heading or block of the body: a heading whose id is the fragment's
        slug (the id the link goes to: ``Results``, ``results`` and
        ``RESULTS`` name ``## Results``), a block of exactly that id; for a
        Dendron range, both its ends (:meth:`lacks`)."""
        return self.lacks(fragment) is None

    def lacks(self, fragment: str) -> str | None:
        """The part of ``fragment`` the body does not have, or None when
        it has them all: the fragment itself, or for a Dendron range
        (``h1:#h2``, ``h1:#*``, ``*``: :func:`range_parts`) the first of its
        ends that is missing (a ``*`` end names none).  A heading whose
        text is the whole fragment counts as it is."""
        if self._has(fragment):
            return None
        parts = range_parts(fragment)
        if parts is None:
            return fragment
        for part in parts:
            if part is not None and part != "*" and not self._has(part):
                return part
        return None

    def _has(self, fragment: str) -> bool:
        want = fragment.strip()
        if want.startswith("^"):
            return want in self.blocks
        m = FOOTNOTE_ID.fullmatch(want)
        if m and 1 <= int(m.group(1)) <= self.footnotes:
            return True         # a footnote (a hand-written link to it)
        return slugify(fragment) in self._slugs


def same_page_links(body: str, code: list | None, order: str = "target-first") -> list[tuple[int, int, str]]:
    """``(start, end, fragment)`` of each link of ``body`` outside code that
    names a part of the body itself: a wikilink or embed (``[[#Heading]]``,
    ``[[#^b1]]``, ``![[#Heading|label]]``; ``[[label|#Heading]]`` when
    ``order`` is ``label-first``) or a Markdown link (``[text](#heading)``),
    what the site links to ``#anchor`` on the same page, in order of their
    start.  (The mentions hold no such link: it names no record.)
    ``code``: :func:`recordkit.markdown.blocks.code_ranges` of the body, or
    None to find them; ``start`` is the ``!`` of an embed, the ``[`` of a
    Markdown link's text."""
    out = []
    for m in WIKI_ANY.finditer(body) if "[[" in body else ():
        inner = m.group(1)
        if "#" not in inner and "^" not in inner or wikilink_target(inner, order):
            continue
        frag = wikilink_fragment(inner, order)
        if not frag:
            continue
        if code is None:
            code = code_ranges(body)
        s = m.start()
        if code and in_ranges(code, s):
            continue
        out.append((s - 1 if s and body[s - 1] == "!" else s, m.end(), frag))
    if "](#" in body or "](<#" in body:
        md = []
        for d in MD_DEST_RE.finditer(body):
            dest = d.group(1)
            if not dest.lstrip("<").startswith("#"):
                continue
            frag = markdown_fragment(dest)
            if not frag:
                continue
            s = d.start()
            k = body.rfind("[", max(0, s - MD_TEXT_BACK), s)
            if k < 0 or body.find("\n\n", k, s) >= 0:
                continue     # no link text: not a link
            if code is None:
                code = code_ranges(body)
            if code and in_ranges(code, k):
                continue
            md.append((k, d.end(), frag))
        if md:
            out = sorted(out + md)
    return out


#: a wikilink whose target may name a heading or block (``[[Note#…``,
#: ``[[Note^…``, ``[[#…``, ``[[label|Note#…``), and a Markdown link whose
#: destination has a ``#`` (``](other.md#heading)``), each in a file's
#: bytes (a record a helper process read arrives undecoded) and in text
_MAY_NAME_PART = (re.compile(rb"\[\[[^\[\]\n]*[#^]"), re.compile(r"\[\[[^\[\]\n]*[#^]"))
# (a destination as mentions.MD_DEST_RE reads one: no parenthesis or blank,
# or in angle brackets, each bounded: ``[^)\n]*`` ran to the line's end from
# every ``](``, a line of 80,000 unclosed ones took 40 s)
_MD_PART = r"\]\([ \t]*(?:<[^<>\n]{0,2048}#|[^()\s]{0,2048}#)"
_MAY_NAME_PART_MD = (re.compile(_MD_PART.encode()), re.compile(_MD_PART))


def may_name_part(content: bytes | str, markdown_links: bool = True) -> bool:
    """Whether a file's ``content`` (its bytes or its text) may hold a link
    to a heading or block: one search of it, False meaning it holds none
    (``markdown_links``: count Markdown links too)."""
    k = 0 if isinstance(content, bytes) else 1
    return _MAY_NAME_PART[k].search(content) is not None or (
        markdown_links and _MAY_NAME_PART_MD[k].search(content) is not None)
