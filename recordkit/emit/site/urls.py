"""Where each page of the site is: the one place a record's page, a
folder's page and an alias's redirect get their path (docs/site.md,
"URLs").

``site.urls`` chooses the style:

* ``recordkit`` (the research record's default): ``KIND/ID.html``, every
  record page one folder down (:func:`recordkit_path`);
* ``quartz``: the page of ``notes/Spaced repetition.md`` at
  ``notes/Spaced-repetition.html``, as Quartz 4 names it, so that a link to
  ``https://garden.example.org/notes/Spaced-repetition`` (Quartz's
  extensionless URL: the host serves the ``.html`` file) keeps working
  (:func:`quartz_slug`);
* ``obsidian-publish``: at ``notes/Spaced+repetition.html``, as Obsidian
  Publish writes a note's URL (:func:`publish_slug`); ``permalink:`` in a
  note's front matter is its URL, as on Publish;
* ``auto`` (the default): ``quartz`` in a vault Quartz publishes (a
  ``quartz.config.ts`` in the root or the folder above it), else
  ``obsidian-publish`` in a vault with Obsidian Publish's ``publish.css``,
  else ``recordkit``.

A path here is the page's file, relative to the site's root; the link to
it (:func:`href`) is that path with what a URL cannot hold as it is
percent-encoded.  Two notes whose paths are the same (or differ only in
case, one file on macOS and Windows), or a note whose path is one of the
site's own pages, get ``-2``, ``-3``, ... after the name, and a warning.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from .views import record_url, slug

STYLES = ("recordkit", "quartz", "obsidian-publish")
SETTINGS = ("auto",) + STYLES

#: the site's own pages and folders at its top (a note may not take them)
RESERVED_FILES = frozenset({"index.html", "graph.html", "404.html", "tags.html", "ready.html", "failing.html",
                            "folders.html", "feed.xml", "sitemap.xml"})
RESERVED_DIRS = frozenset({"assets", "files", "kind", "status", "tag", "tags"})   # files/: attachments; tags/: Quartz's tag URLs
#: the page of a vault's whole tree (the explorer's top), in the
#: styles whose top-level ``index.html`` is the home page
ROOT_FOLDER_PAGE = "folders.html"

_SPACE_RE = re.compile(r"\s")
#: what a link's path must encode: the rest of a file's name is kept
_SAFE = "/!$&'()*+,;=:@~-._"
#: a file name's length limit (bytes) on common file systems, less room for a suffix
_NAME_BYTES = 240


def resolve_style(setting: str, root) -> tuple[str, str]:
    """(style, why) for the ``site.urls`` ``setting`` of the record at ``root``."""
    if setting != "auto":
        return setting, f"site.urls = \"{setting}\""
    from ...corpus.toolsettings import quartz_config_file
    found = quartz_config_file(root)
    if found:
        return "quartz", f"{found} (Quartz)"
    if (Path(root) / "publish.css").is_file():
        return "obsidian-publish", "publish.css (Obsidian Publish)"
    return "recordkit", "the default"


def site_pages(corpus, ids: list, opts) -> "PageUrls":
    """The pages of a build: ``opts.urls`` resolved for the record, the
    folder pages where the explorer is on (``opts.explorer``; by default
    where ids are paths, as in the vault presets)."""
    style, why = resolve_style(opts.urls, corpus.root)
    on = opts.explorer
    if on is None:
        on = corpus.schema.id_from[:1] == (("path", None),)
    return page_urls(corpus, ids, style, why, folders=on)


def quartz_slug(path: str) -> str:
    """A note's path without its ``.md`` as Quartz 4 makes its slug: in
    each segment white space becomes ``-``, ``&`` ``-and-``, ``%``
    ``-percent``; ``?`` and ``#`` are dropped; the case is kept; a last
    segment ``_index`` is ``index``."""
    segs = []
    for seg in path.split("/"):
        seg = _SPACE_RE.sub("-", seg).replace("&", "-and-").replace("%", "-percent")
        segs.append(seg.replace("?", "").replace("#", ""))
    if segs[-1] == "_index":
        segs[-1] = "index"
    return "/".join(segs)


def publish_slug(path: str) -> str:
    """A note's path without its ``.md`` as Obsidian Publish writes its
    URL: each space a ``+``, the case and everything else kept."""
    return path.replace(" ", "+")


def href(path: str) -> str:
    """The link to the page at ``path``: what a URL cannot hold as it is
    (a space, ``%``, ``#``, ``?``, other scripts) percent-encoded."""
    return quote(path, safe=_SAFE, errors="surrogateescape")


def root_of(path: str) -> str:
    """The relative path from the page at ``path`` to the site's root."""
    return "../" * path.count("/")


def _stem_path(relpath: str) -> str:
    return relpath[:-len(Path(relpath).suffix)] if Path(relpath).suffix else relpath


def _safe_segments(path: str) -> str:
    """``path`` with segments that are no file name made one: empty, ``.``,
    ``..``, hidden, or longer than a file name may be."""
    out = []
    for seg in path.split("/"):
        if seg in ("", ".", "..") or seg.startswith("."):
            seg = "-" + seg.lstrip(".") if seg.strip(".") else "-"
        if len(seg.encode("utf-8", "surrogateescape")) > _NAME_BYTES:
            seg = slug(seg)
        out.append(seg)
    return "/".join(out)


@dataclass
class PageUrls:
    """Every published record's page, alias redirect and folder page."""
    style: str
    why: str = ""
    #: id -> its page's path (relative to the site's root)
    paths: dict = field(default_factory=dict)
    #: (path of a redirect page, id it leads to)
    redirects: list = field(default_factory=list)
    #: folder (root-relative, "" for the top) -> its page's path
    folders: dict = field(default_factory=dict)
    #: folder -> the id of the note that is its page (``index.md`` in Quartz)
    folder_notes: dict = field(default_factory=dict)
    #: whether the pages show the explorer (then ``folders`` has every folder)
    explorer: bool = False
    warnings: list = field(default_factory=list)

    def path(self, rid: str) -> str:
        return self.paths[rid]

    def url(self, rid: str) -> str:
        p = self.paths[rid]
        return p if self.style == "recordkit" else href(p)


def page_urls(corpus, ids: list, style: str, why: str = "", folders: bool = False) -> PageUrls:
    """The pages of the records ``ids`` (published, in id order) in
    ``style``; ``folders``: the folder pages too (the explorer's)."""
    records = corpus.records
    out = PageUrls(style, why)
    paths = out.paths
    if style == "recordkit":
        for rid in ids:
            paths[rid] = record_url(rid, records[rid].kind)
        taken = {p.casefold(): rid for rid, p in paths.items()}
    else:
        taken: dict = {}
        for rid in ids:
            rec = records[rid]
            want = _note_path(rec, style)
            # the top's index.md is Quartz's home page: the site's home page
            # is at its URL (index.html), its own page beside it, unsaid
            said = out.warnings if want != "index.html" else []
            paths[rid] = _claim(want, rid, taken, said, f"the page of {rid}")
    if folders:
        out.explorer = True
        _folder_pages(out, corpus, ids, taken)
    _aliases(out, corpus, ids, taken)
    return out


def _note_path(rec, style: str) -> str:
    if style == "obsidian-publish":
        link = rec.get("permalink")
        if isinstance(link, str) and link.strip("/ "):
            return _safe_segments(link.strip().strip("/")) + ".html"
        return _safe_segments(publish_slug(_stem_path(rec.relpath))) + ".html"
    return _safe_segments(quartz_slug(_stem_path(rec.relpath))) + ".html"


def _reserved(path: str) -> bool:
    """Whether ``path`` is one of the site's own pages, or in one of its folders."""
    top = path.split("/", 1)
    return path.casefold() in RESERVED_FILES if len(top) == 1 else top[0].casefold() in RESERVED_DIRS


def _claim(want: str, owner: str, taken: dict, warnings: list, what: str) -> str:
    """``want``, or ``want`` with ``-2``, ``-3``, ... before ``.html`` when
    another page (or one of the site's own) has it (in any case)."""
    if not _reserved(want) and want.casefold() not in taken:
        taken[want.casefold()] = owner
        return want
    stem = want[:-len(".html")]
    n = 2
    if _reserved(want) and "/" in want:
        stem, n = "_" + stem, 1      # a note under a folder of the site's own (tag/, assets/)
    while True:
        got = f"{stem}-{n}.html" if n > 1 else f"{stem}.html"
        if not _reserved(got) and got.casefold() not in taken:
            break
        n += 1
    other = taken.get(want.casefold())
    holder = "one of the site's own pages" if other is None else \
        f"the page of folder {other[7:]}/" if other.startswith("folder:") else f"the page of {other}"
    warnings.append(f"{what} would be {want}, where {holder} is: it is at {got}")
    taken[got.casefold()] = owner
    return got


def _folder_pages(out: PageUrls, corpus, ids: list, taken: dict) -> None:
    """A page for each folder holding a published note (and the top): at
    ``folder/index.html`` in the vault styles (unless a note is there:
    Quartz's ``folder/index.md`` is the folder's page), at
    ``folder/SLUG.html`` in the research style."""
    records = corpus.records
    names = set()
    for rid in ids:
        parts = records[rid].relpath.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            names.add("/".join(parts[:i]))
    by_path = {p.casefold(): rid for rid, p in out.paths.items()}
    out.folders[""] = ROOT_FOLDER_PAGE
    for name in sorted(names):
        if out.style == "recordkit":
            want = f"folder/{slug(name)}.html"
        else:
            conv = quartz_slug if out.style == "quartz" else publish_slug
            want = _safe_segments(conv(name)) + "/index.html"
        owner = by_path.get(want.casefold())
        if owner is not None and out.style != "recordkit":
            out.folders[name] = want
            out.folder_notes[name] = owner
            continue
        out.folders[name] = _claim(want, "folder:" + name, taken, out.warnings, f"the page of folder {name}/")


def _aliases(out: PageUrls, corpus, ids: list, taken: dict) -> None:
    """A redirect page at each alias of each note (``aliases:``, Quartz's
    ``alias:``; and Quartz's ``permalink:``), unless a page is there."""
    records = corpus.records
    style = out.style
    for rid in ids:
        rec = records[rid]
        own = out.paths[rid]
        names = list(rec.aliases) if hasattr(rec, "aliases") else []
        one = rec.get("alias")
        names += [one] if isinstance(one, str) else [a for a in one if isinstance(a, str)] if isinstance(one, list) else []
        if style == "quartz" and isinstance(rec.get("permalink"), str):
            names.append(rec.get("permalink"))
        for name in dict.fromkeys(n.strip() for n in names if isinstance(n, str) and n.strip()):
            want = _alias_path(name, rec, style)
            if want is None or want.casefold() == own.casefold():
                continue
            holder = taken.get(want.casefold())
            if holder is not None or _reserved(want):
                if holder != rid:
                    what = f"the page of {holder}" if holder and not holder.startswith("folder:") else \
                        f"the page of folder {holder[7:]}/" if holder else "one of the site's own pages"
                    out.warnings.append(f"alias \"{name}\" of {rid}: {want} is {what}: no redirect written")
                continue
            taken[want.casefold()] = rid
            out.redirects.append((want, rid))


def _alias_path(name: str, rec, style: str) -> str | None:
    if style == "recordkit":
        # an old id (a plain file name) had a page, which now leads to the
        # record's; a name a page was never at (a title) has none
        got = record_url(name, rec.kind)
        return got if got.endswith("/" + name + ".html") else None
    if name.startswith(("./", "../")):       # Quartz: relative to the note's folder
        base = rec.relpath.split("/")[:-1]
        for part in name.split("/"):
            if part == "..":
                if not base:
                    return None
                base.pop()
            elif part not in ("", "."):
                base.append(part)
        name = "/".join(base)
    name = name.strip("/")
    if name.lower().endswith(".md"):
        name = name[:-3]
    if not name:
        return None
    conv = quartz_slug if style == "quartz" else publish_slug
    return _safe_segments(conv(name)) + ".html"


def redirect_page(target_href: str, title: str) -> str:
    """A page that sends its reader to ``target_href`` (relative to it):
    at once (``refresh``), for search engines (``canonical``), and by a
    plain link where neither works."""
    from html import escape
    t, h = escape(title), escape(target_href, quote=True)
    return (f'<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>{t}</title>\n'
            f'<link rel="canonical" href="{h}">\n<meta name="robots" content="noindex">\n'
            f'<meta http-equiv="refresh" content="0; url={h}">\n</head>\n<body>\n'
            f'<p>This page has moved to <a href="{h}">{t}</a>.</p>\n</body>\n</html>\n')
