"""Link syntax of a Markdown body and of a front-matter value: wikilinks
(target first, or Dendron's label first), embeds, Markdown links and link
reference definitions, autolinks, ``#tags``, Dendron's ``#``/``@`` sigils,
attachments and wildcard references; and a link's target as written
(:func:`wikilink_target`, :func:`value_link`, :func:`markdown_target`).
Knows nothing of records: which record a link names is
``recordkit.corpus.resolve``'s business.
"""
from __future__ import annotations

import re
import unicodedata
from urllib.parse import unquote

from .blocks import CLOSES_BLOCK_RE, HEADING_LINE_RE, code_ranges, in_ranges, merged_ranges

# ``[[target#heading|label]]``, ``[[target^block]]``: group 1 the target, 2 the label.  (The
# target's run is greedy: what may follow it, ``#^|]``, is outside its class, so it can only end
# where the greedy run ends; a lazy run tried the rest after every character: 20% slower.)
WIKI_RE = re.compile(r"\[\[([^\[\]|#^\n]+)(?:[#^][^\[\]|\n]*)?(?:\|([^\[\]\n]*))?\]\]")
# Dendron's order, ``[[label|target#heading]]``: group 1 the label, 2 the target
WIKI_LABEL_FIRST_RE = re.compile(r"\[\[(?:([^\[\]|\n]*)\|)?([^\[\]|#^\n]+?)(?:[#^][^\[\]|\n]*)?\]\]")
# the destination of a Markdown link or image, ``](dest "title")``; bounded
# lengths keep a line of unclosed ``](`` linear
MD_DEST_RE = re.compile(r"\]\([ \t]*(<[^<>\n]{0,2048}>|[^()\s]{1,2048})(?:[ \t]+(?:\"[^\"\n]{0,2048}\"|'[^'\n]{0,2048}'))?[ \t]*\)")
# a link reference definition, ``[label]: dest "title"`` (Foam writes one per
# wikilink at the end of a note; ``[text][label]`` links use them): group 1
# the label (not ``^``: a footnote), 2 the destination; a line may end in
# ``\r\n`` (a note saved on Windows)
MD_DEF_RE = re.compile(r"^ {0,3}\[([^\[\]\n^][^\[\]\n]{0,998})\]:[ \t]*(<[^<>\n]{0,2048}>|[^\s<>]{1,2048})"
                        r"(?:[ \t]+(?:\"[^\"\n]{0,2048}\"|'[^'\n]{0,2048}'|\([^()\n]{0,2048}\)))?[ \t]*\r?$", re.M)
# the same from its ``[``, group 1 the destination (what a rename rewrites)
MD_DEF_AT_RE = re.compile(r"\[(?:[^\[\]\n^][^\[\]\n]{0,998})\]:[ \t]*(<[^<>\n]{0,2048}>|[^\s<>]{1,2048})"
                           r"(?:[ \t]+(?:\"[^\"\n]{0,2048}\"|'[^'\n]{0,2048}'|\([^()\n]{0,2048}\)))?")
_SCHEME_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
MD_TEXT_BACK = 1024   # how far back the link text's ``[`` is looked for


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
        for d in MD_DEST_RE.finditer(body):
            s = d.start()
            k = body.rfind("[", max(0, s - MD_TEXT_BACK), s)
            if k < 0 or body.find("\n\n", k, s) >= 0 or (code and in_ranges(code, s)):
                continue
            out.append(d.span(1))
    if "<" in body and ":" in body:
        for m in _AUTOLINK_RE.finditer(body):
            if not (code and in_ranges(code, m.start())):
                out.append(m.span())
    if hint is not None and "]:" in body:
        for ws, we, *_ in definitions(body, md_only=False):
            if not (code and in_ranges(code, ws)):
                d = markdown_destination(body, ws, we)
                if d is not None:
                    out.append(d.span(1))
    return out


# ``#tag`` as Obsidian and Foam read one in a body: after a line's start or a
# blank (:func:`tag_matches` asks the character before: a look-behind here
# made every search try each place of the text, 5x slower), letters,
# digits, ``_``, ``-`` and ``/`` (nesting), at least one of them no digit
# (``#123`` is none), not a heading's ``# `` nor ``##``
BODY_TAG_RE = re.compile(r"#([\w/-]*[^\W\d][\w/-]*)")


def tag_matches(text: str):
    """``(start, end, tag)`` of each ``#tag`` of ``text`` (``start`` at its
    ``#``, after the text's start or a blank; ``end`` after the tag, which
    leaves out a ``/`` or ``-`` it ends with): the one grammar the record's
    tags (:func:`body_tags`, the lint) and the site's tag links share.  A
    place not to look in (code, a link's address) is the caller's to skip."""
    for m in BODY_TAG_RE.finditer(text):
        start = m.start()
        if start and not text[start - 1].isspace():
            continue            # (a#b, **b**#c, [#x], \#y: no tag)
        tag = m.group(1)
        if tag[-1] in "/-":
            tag = tag.rstrip("/-")      # (what is left holds the pattern's letter: never empty, never digits only)
        yield start, start + 1 + len(tag), tag


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
    seen: set = set()           # (a list's `in` made a note of 12,000 tags take 0.7 s)
    for start, _, tag in tag_matches(body):
        if skips and in_ranges(skips, start):
            continue
        if tag not in seen:
            seen.add(tag)
            out.append(tag)
    return out


def with_addresses(body: str, code: list) -> list:
    """``code`` (:func:`code_ranges`) and :func:`address_ranges`, joined:
    where no mention is looked for."""
    extra = address_ranges(body, code)
    return merged_ranges(sorted(code + extra)) if extra else code

def link_spans(body: str, links) -> list[tuple]:
    """(start, end, target, label, form) of every wikilink, embed and (when
    ``links.markdown_links``) Markdown link to a ``.md`` file in ``body``,
    code or not, in order of their start."""
    out: list[tuple] = []
    if "[[" in body:
        label_first = links is not None and links.wikilink_order == "label-first"
        if label_first:
            for w in WIKI_LABEL_FIRST_RE.finditer(body):
                ws = w.start()
                form = "wikilink"
                if ws and body[ws - 1] == "!":
                    ws -= 1
                    form = "embed"
                label = w.group(1)
                target = w.group(2).strip()
                if label and label[-1] == "\\":    # ``\|`` in a table
                    label = label[:-1]
                if is_attachment(target) or is_pattern(target):
                    continue
                out.append((ws, w.end(), target, label, form))
        else:
            for w in WIKI_RE.finditer(body):
                ws = w.start()
                form = "wikilink"
                target = w.group(1).strip()
                if links is not None:
                    if ws and body[ws - 1] == "!":
                        ws -= 1
                        form = "embed"
                    if target[-1:] == "\\":     # ``[[Note\|label]]``: Obsidian's bar escaped in a table
                        target = target[:-1].rstrip()
                    if is_attachment(target) or is_pattern(target):
                        continue
                out.append((ws, w.end(), target, w.group(2), form))
    if links is not None and links.sigils:
        tags = sigil_links(body, links.sigils)
        if tags:
            out = sorted(out + tags) if out else tags
    if links is not None and links.markdown_links and "](" in body:
        md = []
        bare = links.markdown_extensionless
        for d in MD_DEST_RE.finditer(body):
            target = markdown_target(d.group(1), bare)
            if target is None:
                continue
            s = d.start()
            k = body.rfind("[", max(0, s - MD_TEXT_BACK), s)
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
SIGIL_RE = re.compile(r"(?:(?<=\s)|^)([#@])([\w-]+(?:\.[\w-]+)*)", re.M)
# (a name of digits alone is no tag: told after the match, as a look-ahead
# for a letter ran on past the name's end: ``#123..abc``)
_LETTER_RE = re.compile(r"[^\W\d]")


def sigil_links(body: str, sigils: tuple) -> list[tuple]:
    """(start, end, target, None, "tag") of each ``#name`` and ``@name``
    of ``body`` (code or not) whose sigil ``sigils`` maps to a prefix: a
    link to the note ``prefix + name`` (Dendron's ``#tag`` is
    ``[[tags.tag]]``, ``@ana`` ``[[user.ana]]``)."""
    prefixes = dict(sigils)
    if not any(k in body for k in prefixes):
        return []
    return [(m.start(), m.end(), prefixes[m.group(1)] + m.group(2), None, "tag")
            for m in SIGIL_RE.finditer(body) if m.group(1) in prefixes and _LETTER_RE.search(m.group(2))]


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
    for d in MD_DEF_RE.finditer(body):
        s = d.start()
        if s:
            p = body.rfind("\n", 0, s - 1) + 1       # the line before
            line = body[p:s - 1].rstrip("\r")
            if line.strip() and prev_end != s - 1 and not HEADING_LINE_RE.match(line + "\n") \
                    and not CLOSES_BLOCK_RE.match(line):
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
    link reference definition at ``text[start:end]`` (as :func:`link_spans`
    gives them), or None."""
    if text.startswith("[", start):
        d = MD_DEF_AT_RE.match(text, start, end)
        if d is not None and d.end() == end and text.rfind("\n", 0, start) + 1 >= start - 3:
            return d
    d = None
    for m in MD_DEST_RE.finditer(text, start, end):
        if m.end() == end:          # (the link's own destination: its text may hold another)
            d = m
    return d

def wikilinks_outside(body: str, code: list) -> list:
    """The ``WIKI_RE`` matches of ``body`` that do not start inside one of
    the ``code`` ranges (sorted ``(start, end)`` pairs)."""
    out = []
    nc = len(code)
    ci = 0
    for w in WIKI_RE.finditer(body):
        ws = w.start()
        while ci < nc and code[ci][1] <= ws:
            ci += 1
        if ci < nc and code[ci][0] <= ws:
            continue
        out.append(w)
    return out


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
        if extensionless and name.strip(". ") and not has_extension(name):
            return href + ".md"
        return None
    return href


#: what ends a file name that has an extension: a dot, then up to 8 letters
#: and digits with a letter among them (``.png``, ``.py``, ``.tar.gz``, ``.mp4``)
_EXTENSION_RE = re.compile(r"\.(?=[0-9]{0,7}[A-Za-z])[A-Za-z0-9]{1,8}\Z")


def has_extension(name: str) -> bool:
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


def is_attachment(target: str) -> bool:
    k = target.rfind(".")
    return k > 0 and target[k + 1:].lower() in ATTACHMENT_SUFFIXES


def is_pattern(target: str) -> bool:
    """Whether a link's target is a pattern over note names, not a name:
    Dendron's wildcard note reference ``![[journal.2020.*]]`` (every note
    of that level).  It names no one record, so it is no record link (and
    not missing); no note's name holds a ``*`` (Windows forbids it, and
    Obsidian and Dendron with it)."""
    return "*" in target


# -- link text ----------------------------------------------------------------
_FM_WIKI_RE = re.compile(r"\s*!?\[\[([^\[\]\n]*)\]\]\s*")
_MD_LINK_RE = re.compile(r"\s*!?\[[^\]\n]*\]\(\s*(<[^>\n]*>|[^)\s]*)(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'))?\s*\)\s*")


def wikilink_target(inner: str, order: str = "target-first") -> str:
    """The target of a wikilink's inner text (``target#heading|label``,
    ``target^block``; ``label|target`` when ``order`` is ``label-first``)."""
    if "|" in inner:
        if order == "label-first":
            inner = inner.rsplit("|", 1)[1]
        else:
            inner = inner.split("|", 1)[0]
    for sep in ("#", "^"):
        k = inner.find(sep)
        if k >= 0:
            inner = inner[:k]
    return inner.strip()


def value_link(text: str, settings=None) -> tuple[str, str]:
    """A front-matter value as a link: (target text, form).  ``"[[Note]]"``,
    ``"[[Note|alias]]"`` and ``"![[Note]]"`` are wikilinks, ``"[t](a.md)"`` a
    Markdown link when ``markdown_links`` is on; anything else is the text
    itself (form ``"value"``).  ``settings``: the schema's link settings
    (their ``wikilink_order`` and ``markdown_links``), or None for the
    research defaults (target first, no Markdown links)."""
    if "[[" in text:
        m = _FM_WIKI_RE.fullmatch(text)
        if m:
            order = settings.wikilink_order if settings is not None else "target-first"
            return wikilink_target(m.group(1), order), "wikilink"
    if settings is not None and settings.markdown_links and "](" in text:
        m = _MD_LINK_RE.fullmatch(text)
        if m:
            href = markdown_target(m.group(1))
            if href is not None:
                return href, "markdown"
    return text.strip(), "value"


def link_form(text: str) -> str:
    """How a link target as written is read: a path ending in ``.md`` (a
    Markdown link's, or a wikilink naming the file) relative to the linking
    file first, anything else as any link."""
    return "markdown" if text[-3:].lower() == ".md" else "value"


def fold_key(text: str) -> str:
    """A key compared case- and space-insensitively: Unicode NFC (a name
    written by macOS is decomposed), case-folded, blank runs made one space."""
    return " ".join(unicodedata.normalize("NFC", text).casefold().split())


def strip_md(path: str) -> str:
    """A path without its ``.md`` (any case)."""
    return path[:-3] if path.lower().endswith(".md") else path
