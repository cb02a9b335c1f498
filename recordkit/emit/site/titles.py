"""How the site shows a record's name: its title with the inline Markdown
a title may hold (`` `code` ``, ``*em*``, ``**strong**``, ``~~strike~~``)
rendered, or as plain text where no markup may go (``<title>``, the
graph's labels, search data); the id before it only where the id is one
the author wrote (``LIT-001: title``), not where it is the file's path or
name (a vault's ``Notes/Limits``: the title alone); and a body's opening
``# heading`` that says the title again left to the page's own heading.

Everything here is cheap on a title with no ``` ` * _ ~ ```: the research
record's titles take the first branch of each function.
"""
from __future__ import annotations

import html
import re

from markupsafe import Markup

#: an inline code span (one run of backticks, closed by a run as long)
_CODE = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)", re.S)
#: emphasis, as CommonMark reads it in a title: ``**strong**``/``__strong__``,
#: ``*em*``/``_em_`` (``_`` not inside a word: ``snake_case`` stays),
#: ``~~strike~~``; the text inside neither begins nor ends with a space
_EMPH = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1|(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])|"
                   r"(?<![\w_])_(?=[^\s_])(.+?)(?<=[^\s_])_(?![\w_])|~~(?=\S)(.+?)(?<=\S)~~")
_MARKS = frozenset("`*_~")
#: a title longer than this is shown as written (escaped), its marks not
#: read: no title is, and each pattern's cost grows with the square of it
INLINE_MAX = 300
_TAG = re.compile(r"<[^>]*>")


def _marked(text: str) -> bool:
    return len(text) <= INLINE_MAX and not _MARKS.isdisjoint(text)


def _emphasis(text: str) -> str:
    """Escaped ``text`` (no code in it) with its emphasis as elements."""
    out, last = [], 0
    for m in _EMPH.finditer(text):
        out.append(html.escape(text[last:m.start()], quote=False))
        if m.group(1):
            tag, inner = ("strong", m.group(2))
        elif m.group(5) is not None:
            tag, inner = ("del", m.group(5))
        else:
            tag, inner = ("em", m.group(3) if m.group(3) is not None else m.group(4))
        out.append(f"<{tag}>{_emphasis(inner)}</{tag}>")
        last = m.end()
    out.append(html.escape(text[last:], quote=False))
    return "".join(out)


def title_html(title) -> Markup:
    """``title`` as markup: escaped, its code spans ``<code>``, its
    emphasis ``<em>``/``<strong>``/``<del>``; no other element, whatever
    the title holds (a ``<script>`` in a title is text)."""
    if not isinstance(title, str):
        title = "" if title is None else str(title)
    if not _marked(title):
        return Markup(html.escape(title, quote=False))
    out, last = [], 0
    for m in _CODE.finditer(title):
        out.append(_emphasis(title[last:m.start()]))
        code = m.group(2)
        if code.strip() and code[:1] == " " and code[-1:] == " ":
            code = code[1:-1]         # (CommonMark: one space each side is padding)
        out.append(f"<code>{html.escape(code, quote=False)}</code>")
        last = m.end()
    out.append(_emphasis(title[last:]))
    return Markup("".join(out))


def title_text(title) -> str:
    """``title`` as plain text: its inline Markdown's marks taken out
    (``Limits of `f` and *paths*`` -> ``Limits of f and paths``)."""
    if not isinstance(title, str):
        return "" if title is None else str(title)
    if not _marked(title):
        return title
    return html.unescape(_TAG.sub("", str(title_html(title))))


def id_fields(schema) -> tuple:
    """The front-matter fields the schema reads ids from (``id_from``)."""
    return tuple(arg for src, arg in schema.id_from if src == "field")


def shows_id(fields: tuple, only_fields: bool, rec) -> bool:
    """Whether ``rec``'s pages name it ``ID: title``: its id is one the
    author wrote in the front matter (``id: LIT-001``: ``fields``, the
    schema's :func:`id_fields`; ``only_fields``: the schema reads ids from
    nothing else), not its file's path or name, and not its title again."""
    rid = rec.id
    if not fields or rid == rec.title:
        return False
    if only_fields:
        return True
    for f in fields:
        v = rec.get(f)
        if v is not None and str(v) == rid:
            return True
    return False


_OPENING_H1 = re.compile(r"\s*<h1(?: id=\"([^\"]*)\")?>(.*?)</h1>\s*", re.S)


def without_repeated_h1(body_html: str, title: str) -> tuple[str, str | None]:
    """``body_html`` without its opening ``<h1>`` when that heading says
    ``title`` again (many notes open with their title as a ``#`` heading,
    and Foam and MADR take the title from it), and the heading's anchor
    (for the page's own heading, so that links to ``#that-heading`` and
    the table of contents still land); else ``(body_html, None)``."""
    if not body_html.lstrip().startswith("<h1"):
        return body_html, None
    m = _OPENING_H1.match(body_html)
    if m is None:
        return body_html, None
    said = " ".join(html.unescape(_TAG.sub("", m.group(2))).split())
    if said.casefold() != " ".join(title_text(title).split()).casefold():
        return body_html, None
    return body_html[m.end():], m.group(1) or ""


#: the characters of a local graph's label (10 px type: about 90 px of a
#: 300 px drawing); the whole title is the node's tooltip
LABEL_CHARS = 22


def graph_label(rid: str, title: str, show_id: bool) -> str:
    """A local graph node's label: the id where the pages name the record
    by it (``LIT-001``), else its title (plain), else the file's name (the
    last part of a path id); cut at :data:`LABEL_CHARS` with an ellipsis."""
    text = rid if show_id else (title or rid.rsplit("/", 1)[-1])
    text = " ".join(text.split())
    if len(text) <= LABEL_CHARS:
        return text
    cut = text[:LABEL_CHARS - 1]
    space = cut.rfind(" ")
    if space >= LABEL_CHARS // 2:       # (at a word's end, when one is not too far back)
        cut = cut[:space]
    return cut.rstrip(" ,;:-") + "…"
