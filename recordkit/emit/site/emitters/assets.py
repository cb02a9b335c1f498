"""``assets/``: the site's scripts, styles and fonts (the user's templates
folder first), with the kinds' colours and the code highlighting appended
to ``site.css``."""
from __future__ import annotations

import re

from ...templates import site_assets
from ..context import BuildContext
from ..markdown import pygments_css
from ..syntax import mermaid_files, pages_with_diagrams
from ..views import transient_body


def emit(ctx: BuildContext) -> None:
    for rel, data in site_assets(ctx.opts.templates, ctx.user_templates).items():
        if rel == "assets/site.css":
            data = (data + b"\n/* kind colours, from the schema */\n" + kind_css(ctx.site.kinds).encode()
                    + b"\n/* code highlighting (Pygments) */\n" + pygments_css().encode())
        ctx.writer.put(rel, data)
    if pages_with_diagrams(ctx, transient_body):      # mermaid, only for a site with a diagram
        for rel, data in mermaid_files().items():
            ctx.writer.put(rel, data)


def kind_css(kinds: dict) -> str:
    out = []
    for name, k in kinds.items():
        color = k.get("color") or ""
        if re.fullmatch(r"[A-Z][A-Z0-9_]*", name) and re.fullmatch(r"#[0-9a-fA-F]{3,8}", color):
            out.append(f":root {{ --k-{name}: {color}; }}\n"
                       f".rk-dot.k-{name}, .k-{name} > .rk-dot {{ background: var(--k-{name}); }}")
    return "\n".join(out) + "\n"
