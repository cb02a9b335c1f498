"""``feed.xml`` (Atom) and ``sitemap.xml``, when the site has an address
(``site_url``): made with the list pages (:mod:`.lists`), from their rows."""
from __future__ import annotations

from ..context import BuildContext
from ..feeds import atom_feed, sitemap


def emit(ctx: BuildContext) -> None:
    base = ctx.opts.site_url
    rows = ctx.rows
    ctx.writer.put("feed.xml", atom_feed(ctx.site, rows, base, ctx.opts.feed_entries))
    pages = ["index.html"] + [rows[r]["url"] for r in ctx.site.ids]
    ctx.writer.put("sitemap.xml", sitemap(base, pages, {rows[r]["url"]: rows[r]["date"] for r in ctx.site.ids}))
