"""What the walk (:mod:`.walk`) adds in a paragraph's flow, kept apart
from its loop: a body's ``#tags`` as the hooks render them, and an embed
shown where it stands (inside a paragraph, on a line after another, in a
list item or a callout).

Both are asked only of a body that may hold them (a ``#`` that can start
a tag, an embed): a body without costs the walk nothing more.
"""
from __future__ import annotations

from ..links import body_tags, tag_matches


def body_tag_names(body: str) -> frozenset | None:
    """The tags of ``body`` (:func:`recordkit.markdown.links.body_tags`,
    what its record's tags are made of: outside code, comments and links'
    addresses), or None when it has none.  The walk links a ``#tag`` it
    reads only when it is one of them: an escaped ``\\#tag`` or an
    entity reads as ``#tag`` in the engine's text, and is none."""
    if "#" not in body or next(tag_matches(body), None) is None:
        return None
    names = body_tags(body)
    return frozenset(names) if names else None


#: what the output ends with when the text that follows starts a line or a
#: block (a ``#`` there may start a tag): a line break, a blank, a block's
#: opening tag
_OPENERS = ("<p>", "<li>", "<li ", "<td", "<th", '<p class="rk-callout-title">', "<summary")


def _after_blank(out: list) -> bool:
    if not out:
        return True
    last = out[-1]
    if not last:
        return True
    c = last[-1]
    if c == "\n" or c == " " or c == "\t":
        return True
    return c == ">" and last.startswith(_OPENERS) and last.count("<") == 1


def tagged(text: str, out: list, names: frozenset, hooks, env: dict, escape) -> tuple | None:
    """``text`` (a text event outside code, links and headings) with its
    tags rendered: (HTML up to the last tag's end, the text after it), or
    None when it has no tag.  A tag at the text's very start counts only
    after a line's start or a blank (``**b**#x`` is none, as in the
    source)."""
    out_parts = []
    last = 0
    for start, end, tag in tag_matches(text):
        if tag not in names:
            continue
        if start == 0 and not _after_blank(out):
            continue
        if start > last:
            out_parts.append(escape(text[last:start]))
        out_parts.append(hooks.tag(tag, env))
        last = end
    if not out_parts:
        return None
    return "".join(out_parts), text[last:]


def tagged_text(text: str, out: list, names: frozenset, hooks, env: dict, escape) -> str:
    """``text`` as HTML, its tags rendered (:func:`tagged`)."""
    got = tagged(text, out, names, hooks, env, escape) if "#" in text else None
    return escape(text) if got is None else got[0] + escape(got[1])


def _open_inline(html: str) -> bool:
    """Whether an emphasis, strong, strike or mark opened in ``html`` is
    still open (a paragraph cannot close there)."""
    return any(html.count(f"<{t}>") != html.count(f"</{t}>") for t in ("em", "strong", "s", "mark"))


def embed_in_flow(w, out: list, para: list, stack: list, meta: dict, env: dict):
    """An embed read in a paragraph or a tight list item, shown where it
    stands when the hooks give a block for it (``hooks.embed_inline``):
    in a list item, the block in the item's flow; in a paragraph, the
    paragraph is closed before it and opened again after it (a ``<div>``
    cannot be inside a ``<p>``; an empty part is left out).  Returns the
    frame the text goes on in (the same, or the paragraph opened again),
    or None: then it is shown as a mention."""
    kind = para[0]
    if kind == "p":
        if not stack or stack[-1] is not para or _open_inline("".join(out[para[1] + 1:])):
            return None
    elif kind != "tight":
        return None
    shown = w.hooks.embed_inline(meta, env)
    if shown is None:
        return None
    if kind == "tight":
        out.append(shown)
        para[3] += 1
        para[4] = None
        return para
    while len(out) > para[1] + 1 and out[-1] in ("\n", "<br />\n", " ", ""):
        out.pop()           # (the line break before the embed)
    if not "".join(out[para[1] + 1:]).strip():
        del out[para[1]:]   # nothing before it: no empty paragraph
    else:
        _no_leading_blank(out, para)
        if out[-1].endswith(" "):
            out[-1] = out[-1].rstrip(" ")
        out.append("</p>\n")
    out.append(shown)
    # (a block id alone after the box, ``![[a]] ^b1``, names the box)
    again = ["p", len(out), ["embed", len(out) - 1], 0, None, None, "after-embed"]
    out.append("<p>")
    stack[-1] = again
    return again


def drop_empty_tail(out: list, frame: list) -> bool:
    """A paragraph opened again after an embed closes: left out (True)
    when nothing but blanks and line breaks came after the embed; else
    its first text loses the blank it begins with."""
    if len(frame) != 7 or frame[0] != "p":
        return False
    rest = "".join(out[frame[1] + 1:]).replace("<br />", "")
    if rest.strip():
        _no_leading_blank(out, frame)
        return False
    del out[frame[1]:]
    return True


def _no_leading_blank(out: list, frame: list) -> None:
    """The text of a paragraph opened again after an embed, without the
    blank that followed the embed."""
    if len(frame) != 7 or len(out) <= frame[1] + 1:
        return
    k = frame[1] + 1
    first = out[k]
    if first[:1] == " ":
        out[k] = first.lstrip(" ")
        last = frame[4]
        if last is not None and last[1] == k:
            frame[4] = (last[0].lstrip(" "), k)
