"""An Atom feed of the most recently changed records and ``sitemap.xml``,
written when ``site_url`` is configured (both need absolute URLs)."""
from __future__ import annotations

from xml.sax.saxutils import escape as _escape, quoteattr as _quoteattr

from ...common.text import xml_safe
from .titles import title_text


def escape(text: str) -> str:
    """XML text, a character XML cannot hold (a title's control character)
    written as a visible escape first (:func:`xml_safe`)."""
    return _escape(xml_safe(text))


def quoteattr(text: str) -> str:
    return _quoteattr(xml_safe(text))


def _stamp(date: str | None) -> str:
    return f"{date[:10]}T00:00:00Z" if date else "1970-01-01T00:00:00Z"


def atom_feed(site, views: dict, base: str, limit: int = 50) -> str:
    dated = sorted((views[r] for r in site.ids if views[r]["date"]), key=lambda v: (v["date"], v["id"]),
                   reverse=True)[:limit]
    updated = _stamp(dated[0]["date"] if dated else None)
    out = ['<?xml version="1.0" encoding="utf-8"?>',
           '<feed xmlns="http://www.w3.org/2005/Atom">',
           f"<title>{escape(site.title)}</title>",
           f"<id>{escape(base)}</id>",
           f'<link rel="alternate" href={quoteattr(base)}/>',
           f'<link rel="self" href={quoteattr(base + "feed.xml")}/>',
           f"<updated>{updated}</updated>",
           f"<author><name>{escape(site.title)}</name></author>"]
    for v in dated:
        url = base + v["url"]
        out += ["<entry>",
                f"<title>{escape((v['id'] + ': ' if v.get('show_id', True) else '') + title_text(v['title']))}</title>",
                f"<id>{escape(url)}</id>",
                f'<link rel="alternate" href={quoteattr(url)}/>',
                f"<updated>{_stamp(v['date'])}</updated>",
                f"<category term={quoteattr(v['kind'] or '')}/>",
                f"<summary>{escape((v['status'] or '').capitalize())}</summary>",
                "</entry>"]
    out.append("</feed>")
    return "\n".join(out) + "\n"


def sitemap(base: str, pages: list[str], dates: dict) -> str:
    out = ['<?xml version="1.0" encoding="utf-8"?>',
           '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">']
    for p in pages:
        d = dates.get(p)
        out.append(f"<url><loc>{escape(base + p)}</loc>" + (f"<lastmod>{escape(d)}</lastmod>" if d else "")
                   + "</url>")
    out.append("</urlset>")
    return "\n".join(out) + "\n"
