"""The vault's own home page: when the record root holds ``index.md``,
``Home.md`` or ``README.md`` (any case; the first of these, in this
order: ``index.md`` is what Quartz, Jekyll and MkDocs publish as a site's
home, ``Home.md`` is Obsidian's usual start note, ``README.md`` is what a
repository shows first) and that note is published, the site's
``index.html`` shows it: its title and its body, followed by the site's
own lists.  The note keeps its page (``note/…html``), with its
properties, backlinks and graph, and the home page links to it.

Also the words the site counts its records in: "notes" where they are
named by their file (a vault), "records" where by ids their authors
wrote, each count with its noun in the singular or the plural.
"""
from __future__ import annotations

from contextlib import contextmanager

from .titles import without_repeated_h1

#: the file names of a home note, in the order they are preferred
HOME_NAMES = ("index.md", "home.md", "readme.md")


def home_id(site) -> str | None:
    """The id of the published note at the record root that is the
    site's home page, or None."""
    records = site.corpus.records
    best, rank = None, len(HOME_NAMES)
    for rid in site.ids:
        rel = records[rid].relpath
        if "/" in rel or len(rel) > 9:
            continue
        name = rel.lower()
        if name in HOME_NAMES and HOME_NAMES.index(name) < rank:
            best, rank = rid, HOME_NAMES.index(name)
    return best


def home_signature(site, rid: str | None, graph) -> str:
    """What the home page shows of the record beyond the list pages'
    rows: the home note's file and those of the notes it links to and
    embeds (their titles and sections show in it)."""
    if rid is None:
        return ""
    records = site.corpus.records
    parts = [rid, records[rid].digest]
    if rid in graph:
        parts += sorted(f"{dst}:{records[dst].digest}" for dst in graph.successors(rid) if dst in records)
    return repr(parts)


@contextmanager
def _at_root(renderer):
    """The renderer writing links from the site's root (the home page)
    rather than from a record page one folder down."""
    prefix = renderer.prefix
    renderer.prefix = ""
    try:
        yield renderer
    finally:
        renderer.prefix = prefix


def home_view(ctx, rid: str | None) -> dict | None:
    """What the home page shows of the home note ``rid``: its title, its
    body rendered for a page at the site's root (without an opening
    heading that repeats the title), its page's URL; no title when the
    body opens with a heading of its own."""
    if rid is None:
        return None
    from .views import transient_body
    rec = ctx.site.corpus.records[rid]
    with _at_root(ctx.renderer) as renderer:
        html = renderer.render(transient_body(rec), rec.relpath).html
    body, heading_id = without_repeated_h1(html, rec.title)
    # a home note that opens with a heading of its own ("# Welcome" in Home.md)
    # is headed by it, not by its file's name as well
    title = None if heading_id is None and body.lstrip().startswith("<h1") else rec.title or rid
    return {"id": rid, "title": title, "body": body, "heading_id": heading_id,
            "url": ctx.site.url(rid)}


def count_noun(site) -> str:
    """"record" where some published record is named by an id its author
    wrote (``LIT-001``), else "note" (a vault's notes, named by their files)."""
    from .titles import shows_id
    records = site.corpus.records
    if site.only_id_fields and site.id_fields:
        return "record"
    return "record" if any(shows_id(site.id_fields, site.only_id_fields, records[r]) for r in site.ids) else "note"


def counted(n: int, noun: str) -> str:
    """``1 note``, ``10 notes``, ``1,200 records``."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}s"
