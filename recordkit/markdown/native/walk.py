"""One pass over pulldown-cmark's events: recordkit's syntax applied and
the body's HTML written (the HTML markdown-it-py wrote before, in its
shape: the same tags, attributes and line breaks, so pages and their tests
did not change where the two parsers agree).

The pass keeps a stack of open blocks; a block's opening tag is a piece of
the output that a later event may still change (a heading's id once its
text is known, a paragraph's block id once its last text is read, a
quote that turns out to be a callout, a claims table's strength cells).
"""
from __future__ import annotations

import re

import mdurl
import pyromark

from ..anchors import BLOCK_ID, Anchors, safe_url, slugify, wikilink_fragment
from ..blocks import without_comments
from ..links import wikilink_target
from .inline import body_tag_names, drop_empty_tail, embed_in_flow, tagged, tagged_text
from .rawhtml import Raw, clean
from .tasks import task_state

_O = pyromark.Options
#: what pulldown-cmark reads beyond CommonMark (GFM's alerts are not asked
#: for: a callout is read by the pass, with Obsidian's titles and folding)
OPTIONS = (_O.ENABLE_TABLES | _O.ENABLE_FOOTNOTES | _O.ENABLE_STRIKETHROUGH | _O.ENABLE_TASKLISTS
           | _O.ENABLE_MATH | _O.ENABLE_WIKILINKS)
_events = pyromark.events

_CALLOUT = re.compile(r"\[!([A-Za-z][\w-]*)\]([+-]?)[ \t]*")
#: Obsidian's callout types and the tone each shows in (the rest: a note's)
CALLOUT_TONES = {"tip": "ok", "hint": "ok", "important": "ok", "success": "ok", "check": "ok", "done": "ok",
                 "warning": "warn", "caution": "warn", "attention": "warn", "question": "warn", "help": "warn",
                 "faq": "warn", "failure": "bad", "fail": "bad", "missing": "bad", "danger": "bad",
                 "error": "bad", "bug": "bad"}
STRENGTHS = ("strong", "moderate", "weak")
_BOX = '<input class="task-list-item-checkbox" {}disabled="disabled" type="checkbox"> '
_BACK = "\u21a9\ufe0e"
_ALIGN = {"Left": ' style="text-align:left"', "Center": ' style="text-align:center"',
          "Right": ' style="text-align:right"'}


#: Obsidian's highlight, ``==text==`` (no blank just inside either mark)
_MARK = re.compile(r"==(?=[^\s=])([^=\n]*?[^\s=])==")


def _marked(events):
    """The events with each ``==text==`` of a text (not in code) as its
    own ``MarkStart``, text, ``MarkEnd`` (asked only of a body with "==")."""
    code = 0
    for ev in events:
        if ev.__class__ is dict:
            text = ev.get("Text")
            if text is not None and not code and "==" in text:
                last = 0
                for m in _MARK.finditer(text):
                    if m.start() > last:
                        yield {"Text": text[last:m.start()]}
                    yield "MarkStart"
                    yield {"Text": m.group(1)}
                    yield "MarkEnd"
                    last = m.end()
                if last:
                    if last < len(text):
                        yield {"Text": text[last:]}
                    continue
            else:
                s = ev.get("Start")
                if s is not None and s.__class__ is dict and ("CodeBlock" in s or "Link" in s or "Image" in s):
                    code += 1
                elif ev.get("End") in ("CodeBlock", "Link", "Image"):
                    code -= 1
        yield ev


def escape(s: str) -> str:
    """``&``, ``<``, ``>`` and ``"`` as entities (markdown-it's escapeHtml)."""
    if "&" in s:
        s = s.replace("&", "&amp;")
    if "<" in s:
        s = s.replace("<", "&lt;")
    if ">" in s:
        s = s.replace(">", "&gt;")
    if '"' in s:
        s = s.replace('"', "&quot;")
    return s


def _with_attr(tag: str, name: str, value: str) -> str:
    """An opening tag with one more attribute (a class joins the one it has)."""
    k = tag.index(">")
    if name == "class" and ' class="' in tag[:k]:
        c = tag.index(' class="') + 8
        e = tag.index('"', c)
        return tag[:e] + " " + value + tag[e:]
    return f'{tag[:k]} {name}="{value}"{tag[k:]}'


class Hooks:
    """What recordkit's syntax becomes on the page.  The defaults write
    plain HTML and know no record (what :func:`anchors` uses); the site
    gives its own, which resolves ids, links and embeds."""

    #: a body's ``#tags`` are rendered by :meth:`tag` (else they are text)
    tags = False

    def mention(self, rid: str, label: str | None, heading: str | None, embed: bool, raw: str,
                env: dict) -> str:
        """A wikilink, an embed shown inline or a bare id mention (``raw``:
        its source)."""
        return escape(label if label and label.strip() else rid)

    def embed(self, meta: dict, env: dict) -> str | None:
        """An embed alone in its paragraph as a block, or None (then it is
        a mention in a paragraph of its own)."""
        return None

    def embed_inline(self, meta: dict, env: dict) -> str | None:
        """An embed in a paragraph's flow, in a list item or after another
        as a block (the walk closes the paragraph around it), or None (a
        mention)."""
        return None

    def tag(self, name: str, env: dict) -> str:
        """A ``#tag`` of the body (when :attr:`tags`)."""
        return escape("#" + name)

    def link(self, href: str, title: str, env: dict) -> tuple[str, str]:
        """The opening and closing tags of a Markdown link to a safe ``href``."""
        t = f' title="{escape(title)}"' if title else ""
        return f'<a href="{escape(href)}"{t}>', "</a>"

    def image(self, src: str, alt: str, title: str, env: dict) -> str:
        return f'<a href="{escape(src)}">image: {escape(alt)}</a>'

    def fence(self, info: str, code: str, env: dict) -> str:
        lang = info.split(None, 1)[0] if info else ""
        cls = f' class="language-{escape(lang)}"' if lang else ""
        return f"<pre><code{cls}>{escape(code)}</code></pre>\n"

    def code_block(self, code: str, env: dict) -> str:
        return f"<pre><code>{escape(code)}</code></pre>\n"

    def math(self, tex: str, display: bool) -> str:
        return escape(tex)


def _normalize_link(url: str) -> str:
    """A link's URL percent-encoded where it must be (markdown-it's
    normalizeLink, which the pages had)."""
    return mdurl.encode(url)


class Walk:
    """Renders bodies: ``id_re`` (the schema's mention pattern) finds the
    bare id mentions, ``order`` is the schema's ``links.wikilink_order``,
    ``hooks`` say what they become, ``line_breaks`` makes a single line
    break a ``<br />``, ``raw_html`` shows raw HTML through the allow-list
    sanitizer (:mod:`.rawhtml`) rather than as text."""

    def __init__(self, id_re: re.Pattern | None, order: str = "target-first", hooks: Hooks | None = None,
                 line_breaks: bool = False, raw_html: bool = False):
        self.id_re = id_re
        self.order = order
        self.hooks = hooks if hooks is not None else Hooks()
        self.soft = "<br />\n" if line_breaks else "\n"
        self.raw_html = raw_html

    def wikilink(self, inner: str, embed: bool) -> dict:
        """A wikilink's parts as its inner text (``target#heading|label``)
        gives them, in the schema's order."""
        label = None
        if "|" in inner:
            a, b = inner.split("|", 1) if self.order != "label-first" else inner.rsplit("|", 1)
            label = b if self.order != "label-first" else a
        meta = {"id": wikilink_target(inner, self.order), "label": label, "embed": embed,
                "raw": ("![[" if embed else "[[") + inner + "]]"}
        frag = wikilink_fragment(inner, self.order)
        if frag:
            meta["heading"] = frag
        return meta

    def render(self, body: str, env: dict) -> str:
        """The HTML of ``body``; ``env`` receives ``rk_headings`` (level,
        text, anchor), ``rk_blocks`` (the block ids given) and
        ``rk_footnotes`` (how many), and is handed to every hook."""
        return _render(self, body, env)


def _render(w: Walk, body: str, env: dict) -> str:   # noqa: C901 (one pass, one loop: its speed is the point)
    hooks = w.hooks
    id_re = w.id_re
    soft = w.soft
    keep_ids = not env.get("docId")
    raw = w.raw_html and "<" in body    # raw HTML kept as Raw pieces, sanitized with the body at its end
    out: list = []
    ap = out.append
    stack: list = []            # open blocks and inlines: [kind, index of the opening tag, ...]
    heads = env.setdefault("rk_headings", [])
    blocks = env.setdefault("rk_blocks", [])
    seen_slugs: dict = {}
    seen_ids: set = set()
    htext = None                # a heading's text as its anchor is made of, while in one
    para = None                 # the open paragraph's frame (or a tight item's text)
    capture = None              # the frame whose children are read as text (a wikilink, an image)
    depth = 0                   # links open: no mention in a link's text
    after = None                # the block that closed right before (a block id alone names it)
    claims_level = 0            # under a "Claims" heading: the heading's level
    table = None
    fn_order: dict = {}         # footnote label -> [number, references]
    fn_defs: dict = {}
    saved = None                # the body's output while a footnote definition is written
    tag_names = body_tag_names(body) if hooks.tags else None
    events = _events(body, options=OPTIONS)
    for ev in (events if "==" not in body else _marked(events)):
        if ev.__class__ is str:
            if ev == "MarkStart" or ev == "MarkEnd":
                if capture is None:
                    if para is None and stack and stack[-1][0] == "li":
                        para = ["tight", len(out), stack[-1], 0, None, None]
                        stack.append(para)
                    ap("<mark>" if ev == "MarkStart" else "</mark>")
                    if para is not None:
                        para[4] = None
                continue
            if ev == "SoftBreak" or ev == "HardBreak":
                if capture is not None:
                    capture[3].append(" " if ev == "SoftBreak" else "\n")
                    continue
                if para is not None and para[0] == "callout":
                    para = _end_callout_title(out, para, stack)
                    ap = out.append
                    continue
                if para is not None:
                    para[4] = None
                ap(soft if ev == "SoftBreak" else "<br />\n")
            else:       # Rule
                if para is not None and para[0] == "tight":
                    _end_tight(w, out, para, stack, env, keep_ids, seen_ids, blocks)
                    para = None
                if out and out[-1][-1:] != "\n":
                    ap("\n")
                ap("<hr />\n")
                after = None
            continue
        text = ev.get("Text")
        if text is None:
            text = ev.get("InlineHtml")
            if text is None:
                text = ev.get("Html")       # (a block of raw HTML: escaped, as text)
                if raw and text is not None:
                    ap(Raw(text))
                    continue
            elif raw and capture is None:
                if para is None and stack and stack[-1][0] == "li":
                    para = ["tight", len(out), stack[-1], 0, None, None]
                    stack.append(para)
                if htext is not None:
                    htext.append(text)
                elif table is not None and table[0] is not None:
                    table[0].append(text)
                if para is not None:
                    para[3] += 1
                    para[4] = None
                ap(Raw(text))
                continue
        if text is not None:
            if capture is not None:
                capture[3].append(text)
                continue
            if para is None and stack and stack[-1][0] == "li":
                para = ["tight", len(out), stack[-1], 0, None, None]
                stack.append(para)
            if para is not None and para[3] == 0 and text[:1] == "[":
                # ``- [?] text``: a task of a state of its own (Obsidian's themes)
                got = task_state(out, stack, para, text)
                if got is not None:
                    para[3] += 1
                    text = got
                    if not text:
                        continue
            if htext is not None:
                htext.append(text)
            elif table is not None and table[0] is not None:
                table[0].append(text)
            if id_re is not None and not depth and "-" in text:
                last = 0
                for m in id_re.finditer(text):
                    s = m.start()
                    if s and (text[s - 1].isalnum() or text[s - 1] in "_-"):
                        continue
                    if s > last:
                        ap(escape(text[last:s]) if tag_names is None else
                           tagged_text(text[last:s], out, tag_names, hooks, env, escape))
                    rid = m.group()
                    ap(hooks.mention(rid, None, None, False, rid, env))
                    last = m.end()
                if last:
                    if tag_names is not None and last < len(text) and "#" in text:
                        got = tagged(text[last:], out, tag_names, hooks, env, escape)
                        if got is not None:
                            ap(got[0])
                            text, last = got[1], 0
                    if para is not None:
                        para[3] += 2
                        if last < len(text):
                            para[4] = (text[last:], len(out))
                            ap(escape(text[last:]))
                        else:
                            para[4] = None
                    elif last < len(text):
                        ap(escape(text[last:]))
                    continue
            if para is not None:
                if para[3] == 0 and para[0] == "p" and para[5] is not None:
                    m = _CALLOUT.match(text)
                    if m is not None:
                        para = _start_callout(out, para, stack, m)
                        text = text[m.end():]
                        if not text:
                            continue
                if text.strip():
                    para[3] += 1
                para[4] = (text, len(out))
            if tag_names is not None and not depth and htext is None and "#" in text:
                got = tagged(text, out, tag_names, hooks, env, escape)
                if got is not None:
                    ap(got[0])
                    text = got[1]
                    if para is not None:
                        para[4] = (text, len(out))
            ap(escape(text))
            continue
        start = ev.get("Start")
        if start is not None:
            if start.__class__ is str:
                kind = start
                arg = None
            else:
                kind, arg = next(iter(start.items()))
            if kind in ("Emphasis", "Strong", "Strikethrough"):
                if capture is not None:
                    continue
                if para is None and stack and stack[-1][0] == "li":
                    para = ["tight", len(out), stack[-1], 0, None, None]
                    stack.append(para)
                ap("<em>" if kind == "Emphasis" else "<strong>" if kind == "Strong" else "<s>")
                if para is not None:
                    para[4] = None
                continue
            if kind == "Link" or kind == "Image":
                if capture is not None:
                    capture[1] += 1
                    continue
                if para is None and stack and stack[-1][0] == "li":
                    para = ["tight", len(out), stack[-1], 0, None, None]
                    stack.append(para)
                lt = arg["link_type"]
                if lt.__class__ is dict or kind == "Image":
                    # a wikilink, an embed, an image: its text read, then written at its end
                    capture = [kind, 0, arg, [], capture]
                    continue
                href = arg["dest_url"]
                if lt == "Email":
                    href = "mailto:" + href
                if not safe_url(href):
                    # no link: its source as text, as markdown-it leaves it
                    auto = lt in ("Autolink", "Email")
                    ap("&lt;" if auto else "[")
                    stack.append(["nolink", len(out) - 1, "&gt;" if auto else escape(f"]({href})")])
                else:
                    open_, close = hooks.link(_normalize_link(href), arg["title"], env)
                    ap(open_)
                    stack.append(["a", len(out) - 1, close])
                depth += 1
                if para is not None:
                    para[3] += 1
                    para[4] = None
                continue
            # a block begins: a tight item's text ends, a line break before it
            if para is not None and para[0] == "tight":
                _end_tight(w, out, para, stack, env, keep_ids, seen_ids, blocks)
                para = None
            if out and out[-1][-1:] != "\n":
                ap("\n")
            prev, after = after, None
            if kind == "Paragraph":
                first_in_quote = stack and stack[-1][0] == "bq" and stack[-1][1] == len(out) - 1
                para = ["p", len(out), prev, 0, None, stack[-1] if first_in_quote else None]
                ap("<p>")
                stack.append(para)
            elif kind == "Heading":
                level = int(arg["level"][1])
                if claims_level and level <= claims_level:
                    claims_level = 0
                stack.append(["h", len(out), level])
                ap("")
                htext = []
            elif kind == "Item":
                stack.append(["li", len(out), stack[-1] if stack else None])
                ap("<li>")
            elif kind == "List":
                stack.append(["list", len(out), "ul" if arg is None else "ol"])
                ap("<ul>\n" if arg is None else "<ol>\n" if arg == 1 else f'<ol start="{arg}">\n')
            elif kind == "BlockQuote":
                stack.append(["bq", len(out), "blockquote"])
                ap("<blockquote>\n")
            elif kind == "CodeBlock":
                info = arg.get("Fenced") if arg.__class__ is dict else None
                capture = ["code", 0, info, [], capture]
            elif kind == "HtmlBlock":
                if not raw:
                    capture = ["html", 0, None, [], capture]
            elif kind == "Table":
                table = [None, arg, 0, -1, claims_level > 0, None, False]   # cell text, aligns, col, head?...
                claims_level = 0
                stack.append(["table", len(out)])
                ap("<table>\n")
            elif kind == "TableHead":
                table[6] = True
                ap("<thead>\n<tr>\n")
                table[2] = 0
            elif kind == "TableRow":
                if table[6] is not None:
                    table[6] = None
                    ap("<tbody>\n")
                ap("<tr>\n")
                table[2] = 0
            elif kind == "TableCell":
                align = table[1][table[2]] if table[2] < len(table[1]) else "None"
                tag = "th" if table[6] else "td"
                stack.append(["cell", len(out), tag])
                ap(f"<{tag}{_ALIGN.get(align, '')}>")
                table[0] = []
                para = ["cell", len(out), None, 0, None, None]
            elif kind == "FootnoteDefinition":
                saved = (out, stack, after, blocks, heads)
                blocks = []             # (the ids of a footnote shown only: see _footnotes)
                heads = []              # (its headings too: a footnote no text refers to is on no page)
                out = []
                ap = out.append
                stack = [["fn", 0, arg]]
            continue
        end = ev.get("End")
        if end is not None:
            kind = end if end.__class__ is str else next(iter(end))
            if kind in ("Emphasis", "Strong", "Strikethrough"):
                if capture is None:
                    ap("</em>" if kind == "Emphasis" else "</strong>" if kind == "Strong" else "</s>")
                    if para is not None:
                        para[4] = None
                continue
            if kind == "Link" or kind == "Image":
                if capture is not None and capture[1]:
                    capture[1] -= 1
                    continue
                if capture is not None:
                    frame, capture = capture, capture[4]
                    piece = _inline_capture(w, frame, env)
                    if capture is not None:
                        capture[3].append(piece[1])
                        continue
                    if htext is not None and piece[1] is not None:
                        htext.append(piece[1])
                    elif piece[2] is not None and para is not None and not depth:
                        got = embed_in_flow(w, out, para, stack, piece[2], env)
                        if got is not None:
                            para = got
                            continue
                    if para is not None:
                        para[3] += 1
                        para[4] = None
                        if piece[2] is not None and para[3] == 1:
                            para[5] = ("embed", piece[2], len(out))
                    ap(piece[0])
                    continue
                frame = stack.pop()
                depth -= 1
                ap(frame[2]) if frame[2] else None
                if para is not None:
                    para[4] = None
                continue
            if kind == "Paragraph":
                frame = stack.pop()
                para = None
                if frame[0] == "callout":
                    _end_callout_title(out, frame, stack, closing=True)
                    after = frame
                    continue
                if len(frame) == 7 and drop_empty_tail(out, frame):
                    after = None
                    continue
                ap("</p>\n")
                after = _end_para(w, out, frame, stack, env, keep_ids, seen_ids, blocks)
                continue
            if para is not None and para[0] == "tight":
                _end_tight(w, out, para, stack, env, keep_ids, seen_ids, blocks)
                para = None
            if kind == "Heading":
                frame = stack.pop()
                text = "".join(htext)
                htext = None
                base = slugify(text)
                slug = base
                n = seen_slugs.get(base, 0)
                while slug in seen_slugs:
                    n += 1
                    slug = f"{base}-{n}"
                seen_slugs[base] = n
                seen_slugs[slug] = 0
                level = frame[2]
                out[frame[1]] = f'<h{level} id="{slug}">'
                ap(f"</h{level}>\n")
                heads.append((level, text, slug))
                if text.strip().lower() == "claims":
                    claims_level = level
                after = frame
            elif kind == "Item":
                frame = stack.pop()
                ap("</li>\n")
                after = frame
            elif kind == "List":
                frame = stack.pop()
                ap(f"</{frame[2]}>\n")
                after = frame
            elif kind == "BlockQuote":
                frame = stack.pop()
                ap(f"</{frame[2]}>\n")
                after = frame
            elif kind == "HtmlBlock" and raw:
                after = None
            elif kind == "CodeBlock" or kind == "HtmlBlock":
                frame, capture = capture, capture[4]
                code = "".join(frame[3])
                if frame[0] == "html":
                    # raw HTML is text: the block read again with its tags
                    # as text (``&lt;``), its Markdown read as Markdown
                    ap(_render(w, code.replace("<", "&lt;"), env))
                    after = None
                    continue
                if code and code[-1] != "\n":
                    code += "\n"           # (the last line of a body that ends without one)
                if frame[2] is None:
                    ap(hooks.code_block(code, env))
                else:
                    ap(hooks.fence(frame[2].strip(), code, env))
            elif kind == "TableCell":
                frame = stack.pop()
                para = None
                if table[4]:
                    _mark_cell(out, frame, table)
                table[0] = None
                ap(f"</{frame[2]}>\n")
                table[2] += 1
            elif kind == "TableHead":
                ap("</tr>\n</thead>\n")
                table[6] = False
            elif kind == "TableRow":
                ap("</tr>\n")
            elif kind == "Table":
                frame = stack.pop()
                if table[6] is None:
                    ap("</tbody>\n")
                ap("</table>\n")
                if table[4]:
                    out[frame[1]] = _with_attr(out[frame[1]], "class", "rk-claims")
                table = None
                after = frame
            elif kind == "FootnoteDefinition":
                label = stack[0][2]
                fn_defs[label] = (clean(out) if raw else "".join(out), blocks, heads)   # (defined twice: the last)
                out, stack, after, blocks, heads = saved
                ap = out.append
                saved = None
            continue
        v = ev.get("Code")
        if v is not None:
            if capture is not None:
                capture[3].append(v)
                continue
            if para is None and stack and stack[-1][0] == "li":
                para = ["tight", len(out), stack[-1], 0, None, None]
                stack.append(para)
            if htext is not None:
                htext.append(v)
            elif table is not None and table[0] is not None:
                table[0].append(v)
            ap("<code>" + escape(v) + "</code>")
            if para is not None:
                para[3] += 1
                para[4] = None
            continue
        v = ev.get("InlineMath")
        display = False
        if v is None:
            v = ev.get("DisplayMath")
            display = True
        if v is not None:
            if capture is not None:
                capture[3].append(v)
                continue
            if para is None and stack and stack[-1][0] == "li":
                para = ["tight", len(out), stack[-1], 0, None, None]
                stack.append(para)
            if htext is not None and not display:
                htext.append(v)
            if para is not None:
                para[3] += 1
                para[4] = None
                if display and para[3] == 1:
                    para[5] = ("math", v, len(out))
            ap(f'<span class="math {"display" if display else "inline"}">{hooks.math(v, display)}</span>')
            continue
        v = ev.get("FootnoteReference")
        if v is not None:
            if capture is not None:
                continue
            got = fn_order.get(v)
            if got is None:
                got = fn_order[v] = [len(fn_order) + 1, 0]
            else:
                got[1] += 1
            n = got[0]
            name = _fn_name(n, env)
            sub = f":{got[1]}" if got[1] else ""
            ap(f'<sup class="footnote-ref"><a href="#fn{name}" id="fnref{name}{sub}">[{n}{sub}]</a></sup>')
            if para is not None:
                para[3] += 1
                para[4] = None
            continue
        v = ev.get("TaskListMarker")
        if v is not None:
            for k in range(len(stack) - 1, -1, -1):
                if stack[k][0] == "li":
                    item = stack[k]
                    out[item[1]] = _with_attr(out[item[1]], "class", "task-list-item")
                    lst = item[2]
                    if lst is not None and "contains-task-list" not in out[lst[1]]:
                        out[lst[1]] = _with_attr(out[lst[1]], "class", "contains-task-list")
                    break
            if para is None and stack and stack[-1][0] == "li":
                para = ["tight", len(out), stack[-1], 0, None, None]
                stack.append(para)
            ap(_BOX.format('checked="checked" ' if v else ""))
            if para is not None:
                para[3] += 1
            continue
    if fn_order:
        _footnotes(out, fn_order, fn_defs, env, blocks)
    env["rk_footnotes"] = sum(1 for label in fn_order if label in fn_defs)
    return clean(out) if raw else "".join(out)


def _fn_name(n: int, env: dict) -> str:
    doc = env.get("docId")
    return f"-{doc}-{n}" if doc else str(n)


def _footnotes(out: list, order: dict, defs: dict, env: dict, blocks: list) -> None:
    """The footnotes a body refers to, in the order of their first reference
    (as markdown-it's footnotes write them), each with its way back."""
    items = []
    for label, (n, more) in order.items():
        got = defs.get(label)
        if got is None:
            continue
        content, ids, fn_heads = got
        blocks.extend(ids)
        env["rk_headings"].extend(fn_heads)
        name = _fn_name(n, env)
        back = "".join(f' <a href="#fnref{name}{f":{k}" if k else ""}" class="footnote-backref">{_BACK}</a>'
                       for k in range(more + 1))
        if content.endswith("</p>\n"):
            content = content[:-5] + back + "</p>\n"
        else:
            content += back
        items.append(f'<li id="fn{name}" class="footnote-item">{content}</li>\n')
    if items:
        out.append('<hr class="footnotes-sep" />\n<section class="footnotes">\n<ol class="footnotes-list">\n')
        out.extend(items)
        out.append("</ol>\n</section>\n")


def _inline_capture(w: Walk, frame: list, env: dict) -> tuple:
    """A wikilink, an embed or an image whose text was read: (its HTML,
    its text for a heading's anchor or None, its embed's parts or None)."""
    kind, _, arg, texts, _ = frame
    lt = arg["link_type"]
    label = "".join(texts)
    if lt.__class__ is dict:        # [[target|label]], ![[target]]
        inner = arg["dest_url"] + ("|" + label if lt["WikiLink"]["has_pothole"] else "")
        meta = w.wikilink(inner, kind == "Image")
        html = w.hooks.mention(meta["id"], meta["label"], meta.get("heading"), meta["embed"], meta["raw"], env)
        return html, meta["raw"], meta if meta["embed"] else None
    src = arg["dest_url"]
    if not safe_url(src):
        return escape(f"![{label}]({src})"), None, None
    return w.hooks.image(_normalize_link(src), label, arg["title"], env), None, None


def _start_callout(out: list, para: list, stack: list, m) -> list:
    """The quote ``para`` opens is a callout (``[!type]`` began it): its
    tag and classes, and its first paragraph's first line is the title."""
    quote = para[5]
    kind = m.group(1).lower()
    fold = m.group(2)
    tag = out[quote[1]]
    if fold:
        tag = tag.replace("<blockquote", "<details", 1)
        quote[2] = "details"
    tag = _with_attr(tag, "class", f"rk-callout rk-callout-{CALLOUT_TONES.get(kind, 'note')}")
    tag = _with_attr(tag, "data-callout", kind)
    if fold == "+":
        tag = _with_attr(tag, "open", "")
    out[quote[1]] = tag
    name = "summary" if fold else "p"
    out[para[1]] = f'<{name} class="rk-callout-title">'
    title = ["callout", para[1], name, 0, None, m.group(1).capitalize(), len(out)]
    stack[-1] = title
    return title


def _end_callout_title(out: list, frame: list, stack: list, closing: bool = False):
    """A callout's title line ends (a line break, or its paragraph's end)."""
    if not "".join(out[frame[6]:]).strip():
        del out[frame[6]:]
        out.append(frame[5])        # (as Obsidian titles a callout without one)
    out.append(f"</{frame[2]}>\n")
    if closing:
        return None
    para = ["p", len(out), None, 0, None, None]
    out.append("<p>")
    stack[-1] = para
    return para


def _mark_cell(out: list, frame: list, table: list) -> None:
    """A cell of the table under a ``Claims`` heading: the strength column's."""
    content = "".join(table[0]).strip().lower()
    if frame[2] == "th":
        if content == "strength":
            table[3] = table[2]
            out[frame[1]] = _with_attr(out[frame[1]], "class", "rk-strength-col")
    elif table[2] == table[3]:
        word = content.strip("* _")
        cls = "rk-strength" + (f" rk-s-{word}" if word in STRENGTHS else "")
        out[frame[1]] = _with_attr(out[frame[1]], "class", cls)


def _block_id(out: list, frame: list, keep_ids: bool, seen: set, blocks: list):
    """The block id (``^b1``) ending the text of ``frame``'s paragraph: taken
    out of the text; returns it (or None)."""
    last = frame[4]
    if last is None or "^" not in last[0]:
        return None
    m = BLOCK_ID.search(last[0])
    if m is None:
        return None
    text = last[0][:m.start()].rstrip(" \t")
    out[last[1]] = escape(text)
    if not text.strip():
        frame[3] -= 1
    return "^" + m.group(1)


def _give_id(out: list, at: int, bid: str, keep_ids: bool, seen: set, blocks: list) -> None:
    if keep_ids and bid not in seen:
        seen.add(bid)
        blocks.append(bid)
        out[at] = _with_attr(out[at], "id", bid)


def _end_para(w: Walk, out: list, frame: list, stack: list, env: dict, keep_ids: bool, seen: set,
              blocks: list):
    """A paragraph closed (its ``</p>`` written): its block id, an embed or
    display math alone in it as a block.  Returns the block a following
    block id alone names."""
    bid = _block_id(out, frame, keep_ids, seen, blocks)
    alone = frame[5]
    if frame[3] == 0 and bid is not None and frame[2] is not None:
        # a paragraph of the id alone right after a block: that block's id
        # (a heading keeps its anchor), and the paragraph is no more
        prev = frame[2]
        del out[frame[1]:]
        if prev[0] != "h":
            _give_id(out, prev[1], bid, keep_ids, seen, blocks)
        return prev
    if frame[3] == 1 and alone is not None and alone.__class__ is tuple:
        if alone[0] == "embed":
            shown = w.hooks.embed(alone[1], env)
            if shown is not None:
                del out[frame[1]:]
                out.append(shown)
                return None
        elif alone[0] == "math":
            del out[frame[1]:]
            out.append(f'<div class="math block">\n{w.hooks.math(alone[1], True)}\n</div>\n')
            return None
    if bid is not None:
        _give_id(out, frame[1], bid, keep_ids, seen, blocks)
    return frame


def _end_tight(w: Walk, out: list, frame: list, stack: list, env: dict, keep_ids: bool, seen: set,
               blocks: list) -> None:
    """A tight list item's text ends: its block id goes on the item, an
    embed alone in it is shown as a block."""
    stack.pop()
    bid = _block_id(out, frame, keep_ids, seen, blocks)
    alone = frame[5]
    if frame[3] == 1 and alone is not None and alone[0] == "embed":
        shown = w.hooks.embed(alone[1], env)
        if shown is not None:
            del out[frame[1]:]
            out.append(shown)
            return
    if bid is not None:
        _give_id(out, frame[2][1], bid, keep_ids, seen, blocks)


def anchors(body: str, id_re: re.Pattern | None = None) -> Anchors:
    """The headings and block ids of ``body`` a link can name (and how many
    footnotes it has), as :class:`Walk` renders it: what the site's links
    and the lint's RK309 both ask.  Its HTML comments are left out, as the
    site leaves them out (a heading in one is on no page).  ``id_re``: the
    schema's mention pattern (an id is a mention, not a block id: ``^NOTE-1``)."""
    if "<!--" in body:
        body = without_comments(body)
    env: dict = {}
    Walk(id_re).render(body, env)
    heads = tuple(h[1] for h in env["rk_headings"])
    bl = frozenset(b for b in env["rk_blocks"] if b in body)
    return Anchors(heads, bl, frozenset(slugify(h) for h in heads), env["rk_footnotes"])


def _after_mentions(text: str, id_re: re.Pattern | None) -> str | None:
    """The text after the last id mention in ``text`` (as the walk splits
    it), None when a mention ends it."""
    if id_re is None or "-" not in text:
        return text
    last = 0
    for m in id_re.finditer(text):
        s = m.start()
        if s and (text[s - 1].isalnum() or text[s - 1] in "_-"):
            continue
        last = m.end()
    return text[last:] if last < len(text) else None


def block_lines(body: str, id_re: re.Pattern | None = None) -> tuple[list, dict]:
    """Where a body's headings and blocks are: ``[(level, text, first
    line)]`` and ``{block id: (first line, end line, is a list item)}``
    (lines counted from 0, the end excluded), from the engine's byte ranges."""
    data = body.encode("utf-8")
    lines_at = [0]
    k = data.find(b"\n")
    while k >= 0:
        lines_at.append(k + 1)
        k = data.find(b"\n", k + 1)
    from bisect import bisect_right

    def line(offset: int) -> int:
        return bisect_right(lines_at, offset) - 1

    heads = []
    found: dict = {}
    stack: list = []
    htext = None
    last_text = None
    prev = None
    wl = None
    image = 0
    pieces = 0          # what the open paragraph holds (a block id alone in it names the block before)
    for ev, rng in pyromark.events_with_range(body, options=OPTIONS, merge_text=True):
        if ev.__class__ is str:
            last_text = None
            continue
        start = ev.get("Start")
        if start is not None:
            kind = start if start.__class__ is str else next(iter(start))
            if kind in ("Link", "Image") and start[kind]["link_type"].__class__ is dict:
                wl = (rng, kind)
                pieces += 1
                continue
            if kind == "Image":
                image += 1          # (its alt text is no heading's text)
                pieces += 1
                continue
            if kind in ("Paragraph", "Item"):
                pieces = 0
            if kind in ("Paragraph", "Heading", "Item", "List", "BlockQuote", "Table", "CodeBlock",
                        "HtmlBlock"):
                if stack and stack[-1][0] == "Item" and len(stack[-1]) == 3 and last_text is not None:
                    # a tight item's own text ends before a block it holds
                    # (``1. one ^b4`` then an indented heading): its id, as the walk gives it
                    m = BLOCK_ID.search(last_text)
                    if m is not None:
                        stack[-1].append("^" + m.group(1))
                stack.append([kind, rng, prev])
                prev = None
                if kind == "Heading":
                    htext = []
            last_text = None
            continue
        end = ev.get("End")
        if end is not None:
            kind = end if end.__class__ is str else next(iter(end))
            if wl is not None and kind in ("Link", "Image"):
                raw = data[wl[0]["start"]:wl[0]["end"]].decode("utf-8", "replace")
                if htext is not None:
                    htext.append(raw)
                wl = None
                last_text = None
                continue
            if kind == "Image":
                image -= 1
                last_text = None
                continue
            if kind in ("Paragraph", "Heading", "Item", "List", "BlockQuote", "Table", "CodeBlock",
                        "HtmlBlock"):
                frame = stack.pop()
                span = (line(frame[1]["start"]), line(max(frame[1]["end"] - 1, frame[1]["start"])) + 1)
                if len(frame) > 3:          # (an item's id read before a block it holds)
                    found.setdefault(frame.pop(), (span[0], span[1], True))
                if kind == "Heading":
                    heads.append((int(next(iter(ev["End"].values()))[1]), "".join(htext), span[0]))
                    htext = None
                elif kind in ("Paragraph", "Item") and last_text is not None:
                    m = BLOCK_ID.search(last_text)
                    if m is not None:
                        bid = "^" + m.group(1)
                        alone = pieces == 1 and not last_text[:m.start()].strip() and kind == "Paragraph"
                        target = frame[2] if alone and frame[2] is not None else frame
                        if target[0] != "Heading" and bid not in found:
                            tspan = span if target is frame else target[3]
                            found[bid] = (tspan[0], tspan[1], target[0] == "Item")
                frame.append(span)
                prev = frame
            last_text = None
            continue
        if wl is not None or image:
            continue
        text = ev.get("Text")
        if text is None:
            text = ev.get("InlineHtml")
        if text is not None:
            if htext is not None:
                htext.append(text)
            last_text = _after_mentions(text, id_re)
            pieces += bool(text.strip()) + (last_text is None or len(last_text) < len(text))
            continue
        for key in ("Code", "InlineMath"):
            v = ev.get(key)
            if v is not None and htext is not None:
                htext.append(v)
        last_text = None
        pieces += 1
    return heads, found


__all__ = ["OPTIONS", "Hooks", "Walk", "anchors", "block_lines", "escape"]
