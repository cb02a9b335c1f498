"""A record's body as HTML: the native engine (:mod:`recordkit.markdown.native`,
pulldown-cmark's events walked once) with tables, footnotes, task lists,
heading anchors, math as MathML and code highlighted by Pygments, all at
build time; this module says what a mention, a link, an embed, an image
and a code block become on the site (:class:`_SiteHooks`).

What recordkit adds to CommonMark:

* every id mention (a bare ``KIND-NNN`` outside code, or a ``[[ID]]`` /
  ``[[ID|label]]`` wikilink) is a link to the record's page, marked with
  the target's kind (``data-id`` lets the page show a hover preview); a
  mention of an id that does not exist stays text, marked ``rk-dangling``
  with a tooltip; a mention of a record kept out of the site is plain text;
* ``[[ID#Heading]]`` and ``[[ID#^block]]`` link to that anchor of the
  page; a ``^block`` id ending a paragraph or list item (Obsidian's) is
  the block's ``id``, not text;
* an embed ``![[ID]]`` (or ``![[ID#Heading]]``, ``![[ID#^block]]``, a
  section of the body itself ``![[#Heading]]``), alone in its paragraph or
  in its flow (the paragraph closed around the box), in a list item or a
  callout, shows the embedded record's body (or that heading's section, or block) in a box
  under a link to it, when the builder gives an ``embed`` function (one
  level deep: an embed inside an embedded body is a link); inside emphasis,
  a link, a heading or a table cell, or of a record kept out, it is a
  mention like the others;
* a body's ``#tag`` (when the schema reads them: ``tags.inline``) is a link
  to the tag's page;
* a ``python check`` fenced block carries a placeholder that the page
  replaces with the check's verdict (so the body's HTML does not depend on
  check results);
* in a ``## Claims`` section, the table's strength cells are marked.

Safety: raw HTML is escaped (shown as text); only relative, ``#``,
``http(s):`` and ``mailto:`` URLs become links; a remote image is never
loaded (the site makes no request of its own) but shown as a link; an
image or file of the record is shown from the site's own copy
(:mod:`.attachments`), or named as text; the math converter's output goes
through an allow-list (:mod:`.mathml`).
"""
from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable
from urllib.parse import unquote

# the parse (what is a heading, a block id, a wikilink, an embed) is the
# corpus's, shared with the lint's RK309; the site adds how it renders
from ...markdown.anchors import BLOCK_ID_LINE as _BLOCK_ID_LINE
from ...markdown.anchors import SAFE_SCHEME as _SAFE_SCHEME
from ...markdown.anchors import WIKI_ANY as _WIKI_ANY
from ...markdown.anchors import Anchors, anchor, link_anchor, markdown_fragment, range_parts, slugify
from ...markdown.native import Hooks, Walk, block_lines
from ...markdown.native import anchors as body_anchors
from ...markdown.native import escape as escapeHtml
from ...corpus.resolve import xvault_parts
from ...markdown.links import has_extension, is_attachment, is_pattern, markdown_target, wikilink_target
from . import attachments
from .mathml import tex_to_mathml

#: the most characters of embedded text one page shows (an embed past it
#: is a link)
EMBED_BUDGET = 1_000_000
WIKI_RE = re.compile(r"\[\[([^\[\]|#\n]+?)(?:#[^\[\]|\n]*)?(?:\|([^\[\]\n]*))?\]\]")
_CHECK_INFO = re.compile(r"^python\s+check\b(.*)$")
_CHECK_ID = re.compile(r"(?:^|\s)id=([\w.:\-]+)")

#: A mention's target as the page sees it: ("link", url, kind[, id]) (``id``:
#: the record a link by title, alias or path names), ("dangling",)
#: for an id that no record has, or ("hidden",) for one kept out of the site.
Resolver = Callable[[str], tuple]


@dataclass
class Rendered:
    html: str
    headings: list = field(default_factory=list)   # (level, text, anchor)
    checks: list = field(default_factory=list)     # ids of the check blocks, in order
    diagrams: bool = False                          # a ```mermaid block (its page loads mermaid)


@lru_cache(maxsize=1)
def _builtin_aliases() -> frozenset:
    """The names of Pygments' own lexers.  A fence's language outside them
    (```` ```query ````, ```` ```dataview ````, ```` ```mermaid ````) is
    not looked for among the lexers other packages plug in: that lookup
    imports every such package (IPython, with jedi and prompt_toolkit: 0.2–0.3
    s in each process of a build), and the page would then depend on what
    else is installed where the site is built."""
    from pygments.lexers import get_all_lexers
    return frozenset(a for _, aliases, _, _ in get_all_lexers(plugins=False) for a in aliases)


@lru_cache(maxsize=256)
def _lexer(lang: str):
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound
    if lang not in _builtin_aliases():
        return None
    try:
        return get_lexer_by_name(lang, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


@lru_cache(maxsize=1)
def _formatter():
    from pygments.formatters import HtmlFormatter
    return HtmlFormatter(nowrap=True)


def highlight(code: str, lang: str) -> str:
    """Pygments HTML (no wrapper) for ``code``, or the code escaped."""
    lexer = _lexer(lang.lower()) if lang else None
    if lexer is None:
        return escapeHtml(code)
    from pygments import highlight as _hl
    return _hl(code, lexer, _formatter())


def pygments_css() -> str:
    """The highlighting rules for the site's stylesheet: light, and dark as
    the page is (site.css): under ``[data-theme=dark]`` (the toggle) and,
    unless the toggle chose light, when the system prefers dark.  The dark
    rules are for the screen only: a printed page is light."""
    from pygments.formatters import HtmlFormatter
    light = HtmlFormatter(style="default").get_style_defs(".rk-code")
    fmt = HtmlFormatter(style="monokai")
    toggled = fmt.get_style_defs(":root[data-theme=dark] .rk-code")
    system = fmt.get_style_defs(":root:not([data-theme=light]) .rk-code")
    return (light + "\n@media screen {\n" + toggled + "\n}\n"
            "@media screen and (prefers-color-scheme: dark) {\n" + system + "\n}\n")


_HEADING_ID = re.compile(r'<(h[1-6]) id="[^"<>]*">')
#: a URL with a scheme (``https:``, ``data:``): not a file of the vault
_SCHEME_RE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


class _SiteHooks(Hooks):
    """What a mention, a link, an embed, an image and a code block become
    on a page of the site (the walk asks; the renderer resolves)."""

    def __init__(self, renderer: "BodyRenderer"):
        self.r = renderer
        self.tags = renderer.tag_url is not None

    def tag(self, name, env):
        """A body's ``#tag``: a link to the tag's page (the one its
        front-matter spelling goes to: ``tag_url`` says which)."""
        return (f'<a class="rk-tag" href="{escapeHtml(self.r.prefix + self.r.tag_url(name))}">'
                f'#{escapeHtml(name)}</a>')

    def embed_inline(self, meta, env):
        """An embed of a note in a paragraph's flow (or in a list item, a
        callout, on a line after another) is shown as one alone is; an
        attachment's embed is left to :meth:`mention` and :meth:`embed`."""
        if is_attachment(meta["id"]) or is_pattern(meta["id"]):
            return None
        return self.embed(meta, env)

    def mention(self, rid, label, heading, embed, raw, env):
        r = self.r
        xvault = xvault_parts(rid)      # [[dendron://vault/note]]: shown as the note's name
        text = escapeHtml(label.strip() if label and label.strip() else xvault[1] if xvault else rid)
        if "." in rid:
            # a figure or file of the vault: copied into the site (.attachments)
            got = r.attachments.lookup(rid, env.get("rk_from"), True) if r.attachments is not None else None
            if is_attachment(rid) or (got is not None and has_extension(rid) and r.resolve(rid)[0] != "link"):
                return attachments.render_embed(got, r.prefix, rid, label, embed=embed)
        if is_pattern(rid):
            # Dendron's ![[journal.2020.*]]: every note of a level, no one page
            return f'<span class="rk-pattern" title="the notes {escapeHtml(rid)}">{text}</span>'
        fragment = heading
        if not rid and fragment:         # [[#Heading]]: on this page
            return r._same_page(fragment, label, env)
        if rid[:1] == "." and rid.startswith(("./", "../")) and r.resolve_link is not None:
            rid = r.resolve_link(rid, env.get("rk_from")) or rid     # [[../Areas/Goal]]: from this file
        target = r.resolve(rid)
        if target[0] == "link":
            rid = target[3] if len(target) > 3 else rid
            env.setdefault("rk_links", set()).add(rid)
            cls = " rk-embed" if embed else ""
            if fragment and r.has_anchor is not None and not r.has_anchor(rid, fragment):
                fragment = None
            fragment = link_anchor(fragment) if fragment else None     # (a Dendron range: its start)
            href = r.prefix + target[1] + (f"#{anchor(fragment)}" if fragment else "")
            return (f'<a class="rk-ref{cls} k-{escapeHtml(target[2] or "")}" '
                    f'href="{escapeHtml(href)}" data-id="{escapeHtml(rid)}">{text}</a>')
        if target[0] == "dangling" and xvault:
            # a note of another Dendron vault (or none of this one: RK305
            # says which): not on this site, named as text
            return (f'<span class="rk-external" title="{escapeHtml(rid)}: not on this site">'
                    f'{text}</span>')
        if target[0] == "dangling":
            return (f'<span class="rk-dangling" title="No record {escapeHtml(rid)} in this record">'
                    f'{text}</span>')
        return text   # kept out of the site: plain text, nothing more

    def embed(self, meta, env):
        """An embed alone in its paragraph: the embedded record's body (or a
        section of it) rendered in a box under a link to it; a link as
        anywhere else when there is nothing to show (no ``embed`` function,
        an embed inside an embedded body, a record kept out or missing, a
        heading it does not have): then None."""
        r = self.r
        rid = meta["id"]
        if not rid and meta.get("heading"):     # ![[#Heading]]: a part of this body
            from .own_embed import own_part
            return own_part(r, meta["heading"], env, EMBED_BUDGET)
        target = r.resolve(rid) if not is_attachment(rid) else ("attachment",)
        if r.embed is None or r._embedding or target[0] != "link":
            return None
        rid = target[3] if len(target) > 3 else rid
        shown = r.embed(rid, meta.get("heading"))
        if shown is None or shown[2] == env.get("rk_from") and not meta.get("heading"):
            return None         # (a record embedding the whole of itself: a link)
        # a page shows at most EMBED_BUDGET characters of embedded text:
        # the embeds past it are links (a note embedding a 200 KB note
        # 2,000 times made a 375 MB page)
        used = env.get("rk_embed_chars", 0)
        if used + len(shown[1]) > EMBED_BUDGET:
            return None
        env["rk_embed_chars"] = used + len(shown[1])
        title, text, path = shown
        # the embed's footnotes get ids of their own (fn-e1-1, …): the
        # page's own footnotes are fn1, …, and a second embed's fn-e2-1
        n = env["rk_embeds"] = env.get("rk_embeds", 0) + 1
        r._embedding = True
        try:
            # its links read against its own file, its [[#Heading]] links to its own page
            rendered = r.render(text, path, doc_id=f"e{n}", self_link=(rid, r.prefix + target[1]))
        finally:
            r._embedding = False
        # the embedded headings keep no ids: the page's own are unique
        inner = _HEADING_ID.sub(r"<\1>", rendered.html)
        if rendered.diagrams:
            env["rk_diagrams"] = True
        if rendered.checks:      # its check blocks get their verdicts on this page too
            env.setdefault("rk_checks", []).extend(rendered.checks)
        env.setdefault("rk_links", set()).add(rid)
        heading = meta.get("heading")
        return (f'<div class="rk-embed-block" data-id="{escapeHtml(rid)}">\n<p class="rk-embed-head">'
                f'<a class="rk-ref k-{escapeHtml(target[2] or "")}" href="{escapeHtml(r.prefix + target[1])}" '
                f'data-id="{escapeHtml(rid)}">' + (f'{escapeHtml(rid)}</a>: {escapeHtml(title)}'
                                                    if r.shows_id is None or r.shows_id(rid)
                                                    else f'{escapeHtml(title or rid)}</a>')
                + (f' § {escapeHtml(_heading_shown(heading))}' if heading and not heading.startswith("^") else "") +
                f'</p>\n<div class="rk-embed-body">\n{inner}</div>\n</div>\n')

    def fence(self, info, code, env):
        lang = info.split(None, 1)[0] if info else ""
        if lang == "mermaid":       # a diagram, drawn in the page by mermaid (docs/site.md, "Diagrams")
            env["rk_diagrams"] = True
            return f'<pre class="mermaid rk-diagram">{escapeHtml(code)}</pre>\n'
        cls = f' class="language-{escapeHtml(lang)}"' if lang else ""
        pre = f'<pre class="rk-code"><code{cls}>{highlight(code, lang)}</code></pre>\n'
        m = _CHECK_INFO.match(info)
        if m:
            idm = _CHECK_ID.search(m.group(1))
            if idm:
                cid = idm.group(1)
                env.setdefault("rk_checks", []).append(cid)
                return (f'<div class="rk-checkblock" data-check="{escapeHtml(cid)}">'
                        f'<!--rk-check:{cid}-->\n{pre}</div>\n')
        return pre

    def code_block(self, code, env):
        return f'<pre class="rk-code"><code>{escapeHtml(code)}</code></pre>\n'

    def math(self, tex, display):
        return tex_to_mathml(tex, display)

    def image(self, src, alt, title, env):
        if not _SCHEME_RE.match(src):
            # a file of the vault (attachments/figure.png): copied into the site (.attachments)
            r = self.r
            got = r.attachments.lookup(src, env.get("rk_from")) if r.attachments is not None else None
            return attachments.render_embed(got, r.prefix, src, alt or None, title)
        alt = alt or src
        return (f'<a class="rk-image" href="{escapeHtml(src)}" rel="noopener noreferrer">'
                f'image: {escapeHtml(alt)}</a>')

    def link(self, href, title, env):
        r = self.r
        t = f' title="{escapeHtml(title)}"' if title else ""
        path = None
        if r.resolve_file is not None and _FOLDER_LINK.match(href):
            # ``[decisions](decisions/)``: the folder's own note (index.md,
            # README.md), as Quartz and GitHub open a folder
            path = _folder_note(r, href, env.get("rk_from"))
        if path is None and r.resolve_file is not None and (r.extensionless or ".md" in href.lower()):
            path = markdown_target(href, r.extensionless)
        if path is not None:
            # a link to a record's file becomes a link to its page; to a file
            # that is no published record, plain text (the site has no such file)
            rid = r.resolve_file(path, env.get("rk_from"))
            target = r.resolve(rid) if rid is not None else ("dangling",)
            if target[0] == "link":
                rid = target[3] if len(target) > 3 else rid
                env.setdefault("rk_links", set()).add(rid)
                # ``other.md#a-heading``: to that heading when the page has it
                fragment = markdown_fragment(href)
                if fragment and r.has_anchor is not None and not r.has_anchor(rid, fragment):
                    fragment = None
                url = r.prefix + target[1] + (f"#{anchor(fragment)}" if fragment else "")
                return (f'<a class="rk-ref k-{escapeHtml(target[2] or "")}" href="{escapeHtml(url)}" '
                        f'data-id="{escapeHtml(rid)}">', "</a>")
            if target[0] == "dangling":
                return f'<span class="rk-dangling" title="{escapeHtml(f"No record at {path}")}">', "</span>"
            return "<span>", "</span>"
        fragment = markdown_fragment(href) if href.startswith("#") else None
        if fragment:
            # ``[text](#a-heading)``: this body's heading, as ``[[#…]]`` is
            to, other = r._same_page_target(fragment, env)
            if to is None:          # (other: why not)
                return f'<span class="rk-dangling" title="{escapeHtml(other)}">', "</span>"
            data = f' data-id="{escapeHtml(other)}"' if other else ""
            return f'<a class="rk-ref" href="{escapeHtml(to)}"{data}>', "</a>"
        if _SAFE_SCHEME.match(href):
            return f'<a href="{escapeHtml(href)}"{t} rel="noopener noreferrer" class="rk-external">', "</a>"
        if r.attachments is not None and not href.startswith("#") and not _SCHEME_RE.match(href):
            # a file of the vault ([license](LICENSE.txt)): copied into the site, or text
            return attachments.render_link(r.attachments.lookup(href, env.get("rk_from")), r.prefix, href, title)
        return f'<a href="{escapeHtml(href)}"{t}>', "</a>"


#: a relative link to a folder: ``decisions/``, ``./features/``, ``../``
_FOLDER_LINK = re.compile(r"(?![a-zA-Z][a-zA-Z0-9+.-]*:|/)[^?#]*/(?:[?#].*)?$")


def _folder_note(r, href: str, from_path) -> str | None:
    """The path of the note that stands for the folder ``href`` names (its
    ``index.md``, else ``README.md``), when the record has one; else None."""
    plan = r.attachments
    if plan is None:
        return None
    folder = unquote(href.split("#", 1)[0].split("?", 1)[0])
    here = (from_path or "").split("/")[:-1]
    parts = []
    for p in here + folder.split("/"):
        if p == "..":
            if not parts:
                return None        # (out of the record root)
            parts.pop()
        elif p not in ("", "."):
            parts.append(p)
    at = plan.finder.root.joinpath(*parts)
    for name in ("index.md", "README.md", "readme.md"):
        # (the file there, not one of that name elsewhere: resolve_file
        # would find any index.md by its name)
        if (at / name).is_file() and r.resolve_file(folder + name, from_path) is not None:
            return folder + name
    return None


class BodyRenderer:
    """Renders bodies for one site build.  ``resolve(id)`` says what a
    mention of ``id`` becomes (see :data:`Resolver`); ``prefix`` is the
    relative path from a record page to the site's root."""

    def __init__(self, id_re: re.Pattern, resolve: Resolver, prefix: str = "../", *,
                 wikilink_order: str = "target-first", resolve_file: Callable | None = None,
                 resolve_link: Callable | None = None, extensionless: bool = False,
                 embed: Callable | None = None, has_anchor: Callable | None = None, line_breaks: bool = False,
                 tag_url: Callable | None = None, raw_html: bool = False, shows_id: Callable | None = None):
        self.resolve = resolve
        #: ``shows_id(id)``: whether pages name the record ``ID: title``
        #: (an id its author wrote) or by its title alone (a path or file
        #: name: titles.shows_id); None: ``ID: title`` everywhere
        self.shows_id = shows_id
        #: ``tag_url(tag)``: the root-relative URL of a tag's page; given,
        #: a body's ``#tags`` link there (the schema's ``tags.inline``)
        self.tag_url = tag_url
        #: ``has_anchor(id, fragment)``: whether the page of ``id`` has the
        #: heading or block ``fragment`` names; a link to one it lacks goes
        #: to the page's top (as Obsidian opens the note), never to a broken
        #: anchor.  None: every fragment is kept
        self.has_anchor = has_anchor
        self.prefix = prefix
        #: ``embed(id, heading)``: (title, body text, its file's root-relative
        #: path) of the record an embed shows (the section under ``heading``
        #: when given, else the whole body), or None to show it as a link;
        #: None: embeds are links
        self.embed = embed
        self._embedding = False
        #: ``resolve_file(path, from_path)``: the record id a Markdown link to
        #: a ``.md`` file names (None: none), read against the linking file
        self.resolve_file = resolve_file
        #: a Markdown link's path without an extension names a note's file
        #: (the schema's ``links.markdown_extensionless``)
        self.extensionless = extensionless
        #: ``resolve_link(text, from_path)``: the record id a wikilink's
        #: target names, read from the linking file (a relative path,
        #: ``[[../Areas/Goal]]``); None: such links are not resolved
        self.resolve_link = resolve_link
        #: the build's attachments (:class:`.attachments.Plan`): what a link to a file found
        self.attachments = None
        # the native engine's one pass (recordkit.markdown.native), with
        # the site's answers to what a mention, link or embed becomes
        self.walk = Walk(id_re, wikilink_order, _SiteHooks(self), line_breaks=line_breaks, raw_html=raw_html)

    def anchors(self, body: str) -> Anchors:
        """The headings and blocks of ``body`` a link can name (what the
        lint's RK309 asks too: :func:`recordkit.markdown.anchors.body_anchors`)."""
        return body_anchors(body, self.walk.id_re)

    def section(self, body: str, heading: str) -> str | None:
        """The part of ``body`` under the first heading whose id is
        ``heading``'s slug (what :meth:`markdown.anchors.Anchors.has` finds),
        down to the next heading of its level or above (None when it has
        no such heading).  A Dendron range (:func:`range_parts`): from the
        heading ``h1`` up to the heading ``h2`` (``h1:#h2``), or to the next
        heading (``h1:#*``); ``*``: the whole body; a range with a block end
        (``^b1``): None (a link)."""
        parts = range_parts(heading)
        if parts is not None and self.anchors(body)._has(heading):
            parts = None        # a heading that reads as a range (``## Part: #2``) is itself
        if parts is not None:
            start, end = parts
            if start == "*":
                return body
            if start.startswith("^") or end is not None and end.startswith("^"):
                return None
            heading = start
        elif heading.strip().startswith("^"):
            return self._block(body, heading.strip())
        else:
            end = None
        want = slugify(heading)
        heads, _ = block_lines(body, self.walk.id_re)
        lines = body.split("\n")
        for i, (level, text, first) in enumerate(heads):
            if slugify(text) != want:
                continue
            stop = len(lines)
            for later_level, later_text, later_first in heads[i + 1:]:
                if end is None and later_level <= level or end == "*" or \
                        end is not None and slugify(later_text) == slugify(end):
                    stop = later_first
                    break
            else:
                if end is not None and end != "*":
                    return None         # no heading h2 after h1
            return "\n".join(lines[first:stop])
        return None

    def _block(self, body: str, bid: str) -> str | None:
        """The lines of the block ``bid`` (``^b1``) names in ``body``: the
        paragraph (or list item, with what it holds) whose text ends with
        it, or the block before a paragraph of the id alone; None when no
        block has that id."""
        if bid not in body or bid not in self.anchors(body).blocks:
            return None         # (the walk's answer: an id it gives; its lines below)
        got = block_lines(body, self.walk.id_re)[1].get(bid)
        if got is None:
            return None
        first, stop, is_item = got
        part = body.split("\n")[first:stop]
        if is_item:        # the item alone, as the text of its own
            indent = len(part[0]) - len(part[0].lstrip(" "))
            part = [ln[indent:] if ln[:indent].strip() == "" else ln for ln in part]
        text = "\n".join(part)
        return _BLOCK_ID_LINE.sub("", text).rstrip() + "\n"

    def _same_page_target(self, fragment: str, env: dict) -> tuple:
        """Where a link to a heading or block of the body itself goes
        (``[[#Heading]]``, ``[text](#heading)``): ``(href, id or None)``
        when the body has it, else ``(None, why)``.  In an embedded body, to
        that anchor of the embedded note's page (the box's headings have no
        ids)."""
        own = env.get("rk_self")
        if own is not None:
            rid, url = own
            if self.has_anchor is None or self.has_anchor(rid, fragment):
                return f"{url}#{anchor(fragment)}", rid
            where = f"in {rid}"
        else:
            anchors = env.get("rk_anchors")
            if anchors is None:     # the body parsed again, for a page that has such a link
                anchors = env["rk_anchors"] = self.anchors(env.get("rk_body", ""))
            if anchors.has(fragment):
                return f"#{anchor(fragment)}", None
            where = "on this page"
        what = "block" if fragment.startswith("^") else "heading"
        return None, f"No {what} {fragment} {where}"

    def _same_page(self, fragment: str, label: str | None, env: dict) -> str:
        """``[[#Heading]]``: a link to that anchor when the body has it, else
        plain text marked as dangling (RK309 reports it)."""
        text = escapeHtml(label.strip() if label and label.strip() else fragment)
        href, other = self._same_page_target(fragment, env)
        if href is None:        # (other: why not)
            return f'<span class="rk-dangling" title="{escapeHtml(other)}">{text}</span>'
        data = f' data-id="{escapeHtml(other)}"' if other else ""
        return f'<a class="rk-ref" href="{escapeHtml(href)}"{data}>{text}</a>'

    def render(self, body: str, from_path: str | None = None, doc_id: str | None = None,
               self_link: tuple | None = None) -> Rendered:
        """``from_path``: the root-relative path of the record's file, against
        which its Markdown links are read; ``doc_id``: a word in its
        footnotes' ids (``fn-<doc_id>-1``), for a body shown inside another;
        ``self_link``: ``(id, URL)`` of that body's own page, where its
        links to its own headings go."""
        env: dict = {"rk_from": from_path, "rk_body": body}
        if doc_id is not None:
            env["docId"] = doc_id
        if self_link is not None:
            env["rk_self"] = self_link
        out = self.walk.render(body, env)
        return Rendered(out, env.get("rk_headings", []), env.get("rk_checks", []), env.get("rk_diagrams", False))



_PT_MARK = re.compile(r"^[ \t]*(?:#{1,6}[ \t]+|[-*+][ \t]+|\d+[.)][ \t]+|>[ \t]?|\|)", re.M)
#: a line of a table's rule or a thematic break: only ``[ \t|:-]``, with a
#: "---" in it.  (``^[ \t|:-]*-{3,}[ \t|:-]*$`` says the same, but tries
#: each way of cutting a long run of dashes in three: a line of 4,000
#: dashes and a letter took 54 s; this is linear)
_PT_RULE = re.compile(r"^(?=[ \t|:-]*-{3})[ \t|:-]*$", re.M)
#: a raw HTML tag (``<kbd>``, ``</details>``, ``<br/>``): no word of the text
#: (an autolink, ``<https://…>``, is none: no ":" in a tag's name); its
#: attributes at most 300 characters on its line, so a line of unclosed
#: "<a " is read in linear time
_PT_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:[ \t/][^<>\n]{0,300})?>")

# Links and emphasis are taken out by hand, not by ``re.sub``: the patterns
# that say what is taken out (tests/emit/site/test_plain_text.py holds the
# functions to them on drawn text),
#     ``!?\[([^\]\n]*)\]\([^)\n]*\)`` and
#     ``(?<![\w*])[*_]{1,2}(?=\S)(.+?)(?<=\S)[*_]{1,2}(?![\w*])``,
# search on from every "[" (every "*" or "_") to the end of the line when
# nothing closes it there: time that grows with the square of a long line
# (a line of 24,000 characters " _x _x …" took 2 s, 4 MB would take hours).
# The functions take the openers left to right and look for the next closer
# and line end again only once passed: linear in the text.

#: where an emphasis may begin: "*" or "_" after no word character or "*"
_EMPH_OPEN = re.compile(r"[*_](?<![\w*][*_])")
#: where an emphasis may end: "*" or "_" after a non-space, then (one more
#: "*" or "_" and) no word character or "*"
_EMPH_CLOSE = re.compile(r"[*_](?<=\S[*_])(?=[*_](?![\w*])|(?![\w*]))")


def _heading_shown(heading: str) -> str:
    """An embed's heading as its box names it: a Dendron range
    ``h1:#h2`` as "h1 – h2"."""
    parts = range_parts(heading)
    if parts is None or parts[1] is None:
        return heading if parts is None else parts[0]
    return f"{parts[0]} – {'…' if parts[1] == '*' else parts[1]}"


def _word_or_star(c: str) -> bool:
    r"""Whether ``c`` is what ``[\w*]`` matches."""
    return c == "*" or c == "_" or c.isalnum()


def _strip_links(t: str) -> str:
    r"""``[text](dest)`` and ``![alt](dest)`` as their text: what
    ``re.sub(r"!?\[([^\]\n]*)\]\([^)\n]*\)", r"\1", t)`` gives.  The "["
    are taken left to right, so the next "]", ")" and line end are only
    looked for again once passed: each character is read a few times."""
    find = t.find
    n = len(t)
    out = []
    last = 0
    close = nl = paren = nl2 = -1        # the last found of each, or -1 (none yet / none left: n)
    b = find("[")
    while b >= 0:
        x = b + 1
        if close < x:
            close = find("]", x)
            if close < 0:
                break                    # no "]" after this "[" (nor after any later one)
        if nl < x:
            nl = find("\n", x)
            if nl < 0:
                nl = n
        j = close                        # the text runs to the first "]" or line end
        if j < nl and j + 1 < n and t[j + 1] == "(":
            y = j + 2
            if paren < y:
                paren = find(")", y)
                if paren < 0:
                    paren = n
            if nl2 < y:
                nl2 = find("\n", y)
                if nl2 < 0:
                    nl2 = n
            if paren < nl2:
                # a "!" before the "[" (and after the last link) is part of it
                start = b - 1 if b - 1 >= last and b and t[b - 1] == "!" else b
                out.append(t[last:start])
                out.append(t[x:j])
                last = paren + 1
                b = find("[", last)
                continue
        b = find("[", x)
    if not out:
        return t
    out.append(t[last:])
    return "".join(out)


def _strip_emphasis(t: str) -> str:
    r"""``*text*``, ``__text__`` … as their text: what
    ``re.sub(r"(?<![\w*])[*_]{1,2}(?=\S)(.+?)(?<=\S)[*_]{1,2}(?![\w*])", r"\1", t)``
    gives: for each opener (left to right, after the last emphasis taken
    out), two markers tried before one; the text is at least a character,
    on one line, up to the first place that can close it.

    The openers come in order, two characters apart at least, so the first
    closer after the text's first character is looked for from a later
    place each time (one opener's two tries aside: with one marker, the
    place right after it is asked on its own) and the line's end likewise:
    a search is only made again once the last one's answer is passed."""
    closer = _EMPH_CLOSE.search
    c = closer(t)
    if c is None:
        return t
    k_at = c.start()                 # the first closer at or after where it was last looked for
    n = len(t)
    find = t.find
    nl = -1                          # the first line end at or after where it was last looked for
    out = []
    last = 0
    for m in _EMPH_OPEN.finditer(t):
        p = m.start()
        if p < last:
            continue
        two = p + 1 < n and t[p + 1] in "*_"
        found = -1
        for g in ((p + 2, p + 1) if two else (p + 1,)):    # where the text begins
            if g >= n or t[g].isspace():
                continue
            if two and g == p + 1 and _EMPH_CLOSE.match(t, p + 2):
                k = p + 2                # (asked on its own: the search below began at p + 3)
            else:
                if k_at <= g:
                    c = closer(t, g + 1)
                    k_at = n + 1 if c is None else c.start()
                k = k_at
            if k > n:
                continue                 # no closer after here (one marker may still close at p + 2)
            if nl < g:
                nl = find("\n", g)
                if nl < 0:
                    nl = n
            if nl < k:
                continue                 # the text would run past its line's end
            found = k
            out.append(t[last:p])
            out.append(t[g:k])
            break
        if found < 0:
            if k_at > n:
                break                    # no closer left for any later opener
            continue
        k = found
        last = k + 2 if (k + 1 < n and t[k + 1] in "*_" and not (k + 2 < n and _word_or_star(t[k + 2]))) else k + 1
    if not out:
        return t
    out.append(t[last:])
    return "".join(out)


def _wiki_text(m) -> str:
    return m.group(2) or m.group(1)


def _wiki_text_label_first(m) -> str:
    """``[[label|target]]`` (Dendron's order) as its label, as the page shows it."""
    inner = m.group(1)
    if "|" in inner:
        label = inner.rsplit("|", 1)[0]
        if label.strip():
            return label
    return wikilink_target(inner, "label-first")


def plain_text(body: str, label_first: bool = False) -> str:
    """A body's words without Markdown syntax, for search and previews
    (fast and approximate: no parse).  ``label_first``: wikilinks are
    written ``[[label|target]]`` (the schema's ``links.wikilink_order``)."""
    if "![[" in body:     # an embed's "!" is no word: its text is the link's, as a wikilink's
        body = body.replace("![[", "[[")
    if "[[" not in body:
        t = body
    elif label_first:
        t = _WIKI_ANY.sub(_wiki_text_label_first, body)
    else:
        t = WIKI_RE.sub(_wiki_text, body)
    if "](" in t:
        t = _strip_links(t)
    t = _PT_MARK.sub("", t)
    if "<" in t:
        t = _PT_TAG.sub("", t)
    if "^" in t:        # block ids (``^b1`` ending a paragraph) are no words
        t = _BLOCK_ID_LINE.sub("", t)
    if "---" in t:
        t = _PT_RULE.sub("", t)
    if "*" in t or "_" in t:
        t = _strip_emphasis(t)
    t = t.replace("|", " ").replace("**", "").replace("`", "").replace("$", "")
    return html.unescape(t) if "&" in t else t
