"""The list pages: the home page, a page per kind, status and tag, the tag
index, "Ready to promote", the failing checks and the 404 page; with the
feed and the sitemap (:mod:`.feed`), which show the same rows.

What they show (every row, the failing checks, the counts and kinds, the
settings) has one signature, kept in the manifest with the files they
made: when it is the last build's and those files are there as written,
their entries are kept and nothing is rendered (after a body edit that
changes no title, status, tag, date, standing or check).
"""
from __future__ import annotations

import os

from ..context import BuildContext, template_failed
from ..home import home_id, home_signature, home_view
from ..load import check_entry
from ..urls import quartz_slug, redirect_page, root_of
from ..views import kind_url, listings, status_url
from ..writer import digest
from . import feed
from ....graph import of as graph_of

#: bumped when what the list pages show changes beyond their rows
LISTS_VERSION = "1"


def emit(ctx: BuildContext) -> None:
    w = ctx.writer
    site = ctx.site
    data = site.data
    # serve: while the graph is the last build's (no edit changed any
    # record's title, kind, status, tags, front matter or links: what
    # the rows show) and so are the standings, the dates and the
    # checks' entries, the rows are too, and so their signature
    rest = "\x00".join((ctx.changes.salt, repr(ctx.common), repr(
        [(cid, check_entry(data, cid), data.cited_by[cid], cid in data.duplicates) for cid in sorted(data.cited_by)]),
        repr((ctx.opts.recent, ctx.opts.feed_entries, ctx.opts.site_url, LISTS_VERSION))))
    graph = graph_of(site.corpus)
    home = home_id(site)
    rest += "\x00" + home_signature(site, home, graph)
    memo = ctx.state.lists.get(graph)
    # (the rows carry no tags: which records each tag page lists is signed apart)
    records = site.corpus.records
    tagged = [records[r].tags for r in site.ids]
    if memo is not None and memo[0] is data.standings and memo[1] == data.git_dates and memo[2] == rest \
            and memo[3] == site.ids and memo[5] == tagged:
        L, sig = None, memo[4]
    else:
        L = listings(site)
        sig = digest("\x00".join((rest, repr(list(L["rows"].values())), repr(L["failing"]), repr(tagged))).encode(
            "utf-8", "surrogatepass"))
        ctx.state.lists[graph] = (data.standings, dict(data.git_dates), rest, list(site.ids), sig, tagged)
    if _kept(ctx, sig):
        return
    before = dict(w.new.files)
    _lists(ctx, L, home)
    if ctx.opts.site_url:
        feed.emit(ctx)
    w.new.meta["lists"] = [sig, sorted(rel for rel, e in w.new.files.items() if before.get(rel) is not e)]


def _kept(ctx: BuildContext, sig: str) -> bool:
    """Whether the last build's list pages showed what these show (``sig``)
    and are there as written: then their entries are kept."""
    w = ctx.writer
    prev = w.old.meta.get("lists")
    if not (isinstance(prev, list) and len(prev) == 2 and prev[0] == sig and isinstance(prev[1], list)):
        return False
    out = os.fspath(w.out) + os.sep
    entries = []
    for rel in prev[1]:
        e = w.old.files.get(rel)
        try:
            if not e or os.stat(out + rel).st_size != e.get("size"):
                return False
        except OSError:
            return False
        entries.append((rel, e))
    for rel, e in entries:
        w.new.files[rel] = e
        w.kept += 1
    w.new.meta["lists"] = prev
    return True


def page(ctx: BuildContext, rel: str, template: str, **data) -> None:
    """Render a page unless the data it shows is what it showed last time."""
    key = digest((ctx.changes.salt + template + repr(ctx.common) + repr(sorted(data.items()))).encode(
        "utf-8", "surrogatepass"))
    if ctx.writer.unchanged(rel, key):
        return
    root = "../" * rel.count("/")
    try:
        html_text = ctx.env.get_template(template).render(ctx.common, root=root, **data)
    except Exception as exc:
        raise template_failed(exc, rel) from None
    ctx.writer.put(rel, html_text, key=key)


def _lists(ctx: BuildContext, L: dict | None = None, home: str | None = None) -> None:
    site = ctx.site
    if L is None:
        L = listings(site)
    ctx.rows = L["rows"]
    page(ctx, "index.html", "index.html.j2", recent=L["recent"][: ctx.opts.recent],
         ready_count=len(L["ready"]), failing_count=len(L["failing"]), tag_count=len(L["by_tag"]),
         home=home_view(ctx, home))
    for kind, rows in L["by_kind"].items():
        k = site.kinds.get(kind)
        if k is None:   # records with no kind: listed on the index, by status and by tag
            continue
        page(ctx, kind_url(kind), "list.html.j2", heading=f"{kind} records", kind=kind,
             intro=f"{k['description'].capitalize()}." if k["description"] else None,
             rows=rows, groups=None, show_standing=any(r["standing"] for r in rows), empty="")
    for status, rows in L["by_status"].items():
        groups = {}
        for r in rows:
            groups.setdefault(r["kind"], []).append(r)
        page(ctx, status_url(status), "list.html.j2", heading=f"Status: {status}", kind=None, intro=None,
             rows=rows, groups=list(groups.items()), show_standing=any(r["standing"] for r in rows),
             empty="")
    tags = []
    for tag, rows in sorted(L["by_tag"].items(), key=lambda item: (item[0].casefold(), item[0])):
        page(ctx, site.tag_url(tag), "list.html.j2", heading=f"Tag: {tag}", kind=None, intro=None, rows=rows,
             groups=None, show_standing=False, empty="")
        tags.append({"name": tag, "url": site.tag_url(tag), "count": len(rows)})
    page(ctx, "tags.html", "tags.html.j2", tags=tags)
    if site.pages is not None and site.pages.style == "quartz":
        _quartz_tag_redirects(ctx, tags)
    page(ctx, "ready.html", "list.html.j2", heading="Ready to promote", kind=None,
         intro="Proposed theories whose every promote_when requirement holds: "
               "`recordkit promote ID --apply` promotes one.",
         rows=L["ready"], groups=None, show_standing=True,
         empty="No theory is ready to promote.")
    page(ctx, "failing.html", "failing.html.j2", failing=L["failing"])
    page(ctx, "404.html", "404.html.j2")


def _quartz_tag_redirects(ctx: BuildContext, tags: list) -> None:
    """Where Quartz puts its tag pages (``tags/<tag>``, ``tags/index``): a
    redirect to this site's, so that links to a Quartz site's tags keep
    working (docs/site.md, "URLs")."""
    made = {}
    for t in tags:
        rel = "tags/" + quartz_slug(t["name"]) + ".html"
        if rel != "tags/index.html":
            made.setdefault(rel, t)
    for rel, t in made.items():
        ctx.writer.put(rel, redirect_page(root_of(rel) + t["url"], f"Tag: {t['name']}"))
    ctx.writer.put("tags/index.html", redirect_page("../tags.html", "Tags"))
