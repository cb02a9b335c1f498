"""What a record's page shows of other records' bodies, read from its text:
the records it embeds (``![[…]]``), its links to a heading or a block
(``[[Note#Heading]]``, ``[[Note#^b1]]``, ``[text](note.md#heading)``), and
whether the target's page has that anchor.  The page keys and the records
a change reaches (:mod:`.changes`) and the renderer ask these."""
from __future__ import annotations

import re

from ...markdown.anchors import WIKI_ANY, may_name_part, wikilink_fragment
from ...markdown.links import wikilink_target
from .views import transient_body

_EMBED_RE = re.compile(r"!\[\[([^\[\]\n]+?)\]\]")


def embedded(ctx, rid: str, heading: str | None):
    """What an embed of ``rid`` shows (see :class:`.markdown.BodyRenderer`):
    its title, its body or the section under ``heading``, its path."""
    rec = ctx.site.corpus.records.get(rid)
    if rec is None or rid not in ctx.site.published:
        return None
    body = transient_body(rec)
    if heading:
        body = ctx.renderer.section(body, heading)
        if body is None:
            return None
    return rec.title, body, rec.relpath


def has_anchor(ctx, rid: str, fragment: str) -> bool:
    """Whether the page of ``rid`` has the heading (``Heading``) or the
    block (``^b1``) a link's ``fragment`` names: what the lint's RK309
    asks too (:func:`recordkit.markdown.native.anchors`, each target's
    body read once a build)."""
    got = ctx.anchors.get(rid)
    if got is None:
        rec = ctx.site.corpus.records.get(rid)
        got = False
        if rec is not None and rid in ctx.site.published:
            got = ctx.renderer.anchors(transient_body(rec))
        ctx.anchors[rid] = got
    return got is not False and got.has(fragment)


def fragment_links(ctx, rec) -> list:
    """Each (published id, fragment) of the heading and block links
    (``[[Note#Heading]]``, ``[[Note#^b1]]``, ``[text](note.md#heading)``)
    in ``rec``'s body, read from the text: the page's link goes to the
    anchor or, when the target lacks it, to the page's top."""
    if not rec.mention_targets:
        return []           # (a link to a record is a mention)
    raw = rec.source.undecoded()
    if not may_name_part(raw if raw is not None else transient_body(rec)):
        return []           # (its file's bytes when it has them, without decoding them)
    body = transient_body(rec)
    out = markdown_fragment_links(ctx, rec, body)
    if "[[" not in body:
        return out
    for m in WIKI_ANY.finditer(body):
        inner = m.group(1)
        if "#" not in inner and "^" not in inner:
            continue
        order = ctx.wikilink_order
        fragment = wikilink_fragment(inner, order)
        if not fragment:
            continue
        rid = wikilink_target(inner, order)
        if not rid:
            continue
        target = ctx.site.resolve(rid)
        if target[0] == "link":
            rid = target[3] if len(target) > 3 else rid
            out.append((rid, fragment))
    return out


def markdown_fragment_links(ctx, rec, body: str) -> list:
    """Each (published id, fragment) of the Markdown links to a record's
    file with a ``#heading`` (``[text](other.md#a-heading)``) in
    ``body``, read from the text as :func:`fragment_links` reads
    wikilinks."""
    if ("](" not in body and "]:" not in body) or \
            (".md#" not in body.lower() if not ctx.renderer.extensionless else "#" not in body):
        return []
    from ...markdown.anchors import markdown_fragment
    from ...markdown.links import MD_DEST_RE, definitions, markdown_destination, markdown_target
    out = []
    hrefs = [d.group(1) for d in MD_DEST_RE.finditer(body)]
    if "]:" in body:        # [text][label] links, by their definitions
        hrefs += [markdown_destination(body, s, e).group(1) for s, e, *_ in definitions(body)]
    for href in hrefs:
        path = markdown_target(href, ctx.renderer.extensionless)
        fragment = markdown_fragment(href) if path is not None else None
        if not fragment:
            continue
        rid = ctx.site.resolve_file(path, rec.relpath)
        target = ctx.site.resolve(rid) if rid is not None else ("dangling",)
        if target[0] == "link":
            out.append((target[3] if len(target) > 3 else rid, fragment))
    return out


def embeds(ctx, rec) -> list:
    """The published records ``rec``'s body embeds (``![[…]]``, read
    from the text: an embed inside code counts too, which at worst
    renders a page again for nothing)."""
    if not rec.mention_targets:
        return []           # (an embed is a mention)
    raw = rec.source.undecoded()
    if raw is not None and b"![[" not in raw:
        return []           # its file's bytes, without decoding them
    body = transient_body(rec)
    if "![[" not in body:
        return []
    out = []
    order = ctx.wikilink_order
    for m in _EMBED_RE.finditer(body):
        target = ctx.site.resolve(wikilink_target(m.group(1), order))
        if target[0] == "link":
            out.append(target[3] if len(target) > 3 else wikilink_target(m.group(1), order))
    return out
