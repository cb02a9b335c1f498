"""The explorer (a vault's folder tree, as Quartz's Explorer shows it), the
folder pages and the alias redirects (docs/site.md, "The explorer" and
"URLs"), from where :mod:`..urls` put every page.

Every page would be O(n) bytes longer with the whole tree in it (a
10,000-note vault: 10,000 pages of 10,000 links), so the tree is one data
file, ``assets/explorer.js``, that ``site.js`` loads once (it is cached by
the browser) and shows as folders that open and close (``<details>``), the
page's own folder open and the page marked ``aria-current="page"``.  A
page itself holds only its folders' path (O(depth)): each folder a link to
that folder's page, which lists its notes and subfolders, so the whole
vault is reachable without script.
"""
from __future__ import annotations

import re

from ..context import BuildContext
from ..search import json_js
from ..urls import href, redirect_page, root_of
from . import lists

_NUM_RE = re.compile(r"(\d+)")


def natural_key(name: str) -> tuple:
    """A name's place in the explorer: case-insensitive, numbers by value
    (``Note 2`` before ``Note 10``), as Quartz's Explorer sorts names."""
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in _NUM_RE.split(name.casefold()) if p)


def explorer_of(ctx: BuildContext, rec) -> dict | None:
    """What a record's page shows of the explorer (its folders, each a link
    to the folder's page, and what site.js marks as the page), or None
    when the explorer is off."""
    pages = ctx.site.pages
    if pages is None or not pages.explorer:
        return None
    return {"crumbs": crumbs(pages, rec.relpath.split("/")[:-1]), "page": ctx.site.url(rec.id)}


def crumbs(pages, parts: list) -> list:
    out = [{"name": "All notes", "url": href(pages.folders[""])}]
    for i in range(len(parts)):
        out.append({"name": parts[i], "url": href(pages.folders["/".join(parts[:i + 1])])})
    return out


def emit(ctx: BuildContext) -> None:
    """``assets/explorer.js``, the folder pages and the redirects."""
    pages = ctx.site.pages
    if pages is None:
        return
    _redirects(ctx)
    if not pages.explorer:
        return
    tree = _tree(ctx)
    ctx.writer.put("assets/explorer.js", "RK.explorer(" + json_js(_json(ctx, tree)) + ");\n")
    _folder_pages(ctx, tree)


def _tree(ctx: BuildContext) -> dict:
    """The folders of the published notes, nested: each {"path", "notes":
    [(title, id)], "dirs": {name: folder}}, and "title" when a note is
    the folder's page (Quartz's ``folder/index.md``)."""
    site = ctx.site
    records = site.corpus.records
    pages = site.pages
    root: dict = {"path": "", "notes": [], "dirs": {}}
    for rid in site.ids:
        rec = records[rid]
        parts = rec.relpath.split("/")
        node = root
        for i, part in enumerate(parts[:-1]):
            node = node["dirs"].setdefault(part, {"path": "/".join(parts[:i + 1]), "notes": [], "dirs": {}})
        if node["path"] and pages.folder_notes.get(node["path"]) == rid:
            node["title"] = rec.title or parts[-2]
            continue
        node["notes"].append((rec.title or rid, rid))
    return root


def _sorted(node: dict) -> tuple:
    """A folder's subfolders and notes as Quartz's Explorer orders them:
    by the name shown, case-insensitive, numbers by value."""
    dirs = sorted(node["dirs"].items(), key=lambda kv: (natural_key(kv[1].get("title") or kv[0]), kv[0]))
    notes = sorted(node["notes"], key=lambda n: (natural_key(n[0]), n[1]))
    return dirs, notes


def _json(ctx: BuildContext, node: dict) -> list:
    """A folder's entries: ``[name, url, [entries]]`` for a subfolder
    (first), ``[title, url]`` for a note."""
    site = ctx.site
    folders = site.pages.folders
    dirs, notes = _sorted(node)
    out: list = [[d.get("title") or name, href(folders[d["path"]]), _json(ctx, d)] for name, d in dirs]
    out += [[title, site.url(rid)] for title, rid in notes]
    return out


def _folder_pages(ctx: BuildContext, tree: dict) -> None:
    """A page per folder (and ``folders.html`` for the top) listing its
    subfolders and notes, unless a note is the folder's page."""
    site = ctx.site
    pages = site.pages
    stack = [tree]
    while stack:
        node = stack.pop()
        stack.extend(node["dirs"].values())
        folder = node["path"]
        if folder in pages.folder_notes:
            continue
        dirs, notes = _sorted(node)
        parts = folder.split("/") if folder else []
        lists.page(ctx, pages.folders[folder], "folder.html.j2",
                   heading=parts[-1] if parts else "All notes",
                   explorer={"crumbs": crumbs(pages, parts), "page": href(pages.folders[folder])},
                   folders=[{"name": d.get("title") or name, "url": href(pages.folders[d["path"]]),
                             "count": len(d["notes"]) + len(d["dirs"])} for name, d in dirs],
                   notes=[site.ref(rid) for _, rid in notes])


def _redirects(ctx: BuildContext) -> None:
    """A page at each alias that sends its reader to the note's page."""
    site = ctx.site
    records = site.corpus.records
    for path, rid in site.pages.redirects:
        target = root_of(path) + site.url(rid)
        ctx.writer.put(path, redirect_page(target, records[rid].title or rid))


