"""``feed.xml`` (Atom) and ``sitemap.xml``, when the site has an address
(``site_url``): made with the list pages (:mod:`.lists`), from their rows."""
from __future__ import annotations

from ..context import BuildContext


def emit(ctx: BuildContext) -> None:
    # imported here: the feed's modules bring urllib and xml (ssl, email,
    # http) into every build's process, and into every helper it forks
    from ..feeds import atom_feed, sitemap
    base = ctx.opts.site_url
    rows = ctx.rows
    ctx.writer.put("feed.xml", atom_feed(ctx.site, rows, base, ctx.opts.feed_entries))
    pages = ["index.html"] + [rows[r]["url"] for r in ctx.site.ids]
    ctx.writer.put("sitemap.xml", sitemap(base, pages, {rows[r]["url"]: rows[r]["date"] for r in ctx.site.ids}))
