"""``![[#Heading]]`` and ``![[#^block]]``: a note embedding a section or
a block of its own body, as Obsidian shows it: the part rendered in a box
under a link to it on the same page (one level deep, as every embed: an
embed inside the box is a link).
"""
from __future__ import annotations

import re

from ...markdown.anchors import anchor
from ...markdown.native import escape

_HEADING_ID = re.compile(r'<(h[1-6]) id="[^"<>]*">')


def own_part(r, heading: str, env: dict, budget: int) -> str | None:
    """The box of the part of the body being rendered (``env["rk_body"]``)
    that ``heading`` names, or None (no such part, an embed inside an
    embed, past the page's budget of embedded text: then a link)."""
    body = env.get("rk_body")
    if r.embed is None or r._embedding or env.get("rk_self") is not None or not body:
        return None
    text = r.section(body, heading)
    if text is None or not text.strip():
        return None
    used = env.get("rk_embed_chars", 0)
    if used + len(text) > budget:
        return None
    env["rk_embed_chars"] = used + len(text)
    n = env["rk_embeds"] = env.get("rk_embeds", 0) + 1
    r._embedding = True
    try:
        rendered = r.render(text, env.get("rk_from"), doc_id=f"e{n}")
    finally:
        r._embedding = False
    if rendered.checks:
        env.setdefault("rk_checks", []).extend(rendered.checks)
    inner = _HEADING_ID.sub(r"<\1>", rendered.html)
    shown = heading if not heading.startswith("^") else "block " + heading
    return (f'<div class="rk-embed-block rk-embed-own">\n<p class="rk-embed-head">'
            f'<a class="rk-ref" href="#{escape(anchor(heading))}">§ {escape(shown)}</a></p>\n'
            f'<div class="rk-embed-body">\n{inner}</div>\n</div>\n')
