"""Helpers of the site tests: a copy of the example record (with its checks
and their results), a record whose title and body carry script payloads,
and a crawler of a built site."""
from __future__ import annotations

import html.parser
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlsplit

REPO = Path(__file__).resolve().parents[3]

#: a record whose text tries every way to run script in the page
XSS_ID = "CLAIM-666"
XSS_RECORD = """---
id: CLAIM-666
title: "</script><script>window.__xss = 'title'</script><img src=x onerror=\\"window.__xss='img-title'\\"> payload"
status: open
status_note: "<img src=x onerror=\\"window.__xss='note'\\">"
tags: [xss-test]
grounds: [LIT-849]
strength: weak
---

Raw HTML is not markup here: <script>window.__xss = 'body'</script>
<img src="x" onerror="window.__xss = 'img-body'"> and <a href="javascript:window.__xss='a'">a link</a>.

[a javascript link](javascript:window.__xss='md') and [a data link](data:text/html,<script>window.__xss='data'</script>)
and ![an image](javascript:window.__xss='imgmd') and <javascript:window.__xss='auto'>.

Math that tries markup: $\\text{<img src=x onerror=window.__xss='math'>}$ and $\\href{javascript:window.__xss='href'}{x}$.

[[LIT-849|</a><script>window.__xss='wiki'</script>]] and a mention of LIT-849.

A fenced block closes nothing:

```html
</script><script>window.__xss='fence'</script>
```
"""

PAYLOAD_MARKERS = ("window.__xss",)


def copy_example(dest: Path, *, with_results: bool = True, extra: dict | None = None) -> Path:
    """A copy of records/ and checks/ under ``dest`` with a recordkit.toml;
    the check results of the working copy (or a fresh run) when asked."""
    shutil.copytree(REPO / "records", dest / "records")
    shutil.copytree(REPO / "checks", dest / "checks")
    (dest / "recordkit.toml").write_text('root = "records"\nchecks = "checks"\nsite_title = "nucleation"\n'
                                         'site_url = "https://example.org/nucleation/"\n', encoding="utf-8")
    for rel, text in (extra or {}).items():
        p = dest / "records" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    if with_results:
        subprocess.run([sys.executable, "-m", "recordkit", "check"], cwd=dest, capture_output=True, timeout=600)
    return dest


class _Links(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links: list[tuple[str, str]] = []     # (attribute, value)
        self.ids: set[str] = set()
        self.tags: list[tuple[str, list]] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))
        for k, v in attrs:
            if k == "id" and v:
                self.ids.add(v)
            if k in ("href", "src") and v is not None:
                self.links.append((k, v))


def parse_html(path: Path) -> _Links:
    p = _Links()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def crawl(site: Path) -> dict:
    """Every internal link and asset of every HTML page of ``site``:
    returns {"pages", "broken": [(page, link)], "external": set, "tags"}."""
    broken, external = [], set()
    pages = sorted(site.rglob("*.html"))
    parsed = {p: parse_html(p) for p in pages}
    for page, links in parsed.items():
        for attr, link in links.links:
            u = urlsplit(link)
            if u.scheme in ("http", "https", "mailto"):
                external.add(link)
                continue
            if u.scheme == "data" and attr == "href" and link == "data:,":
                continue
            if u.scheme or link.startswith("//"):
                broken.append((page, link))
                continue
            target = (page.parent / unquote(u.path)).resolve() if u.path else page
            if not target.is_file() or site.resolve() not in target.parents:
                broken.append((page, link))
                continue
            if u.fragment and target.suffix == ".html" and u.fragment not in parsed[target].ids:
                broken.append((page, link))
    return {"pages": pages, "broken": broken, "external": external, "parsed": parsed}


def assert_no_injected_markup(site: Path, scripts: str = r"(\.\./)*assets/[a-z-]+\.js") -> None:
    """No page of ``site`` holds markup a record's text put there: no
    ``on…`` handler, no loading or form tag, no style but the graph page's,
    no script but JSON data and the site's own files (``scripts``: the
    pattern of their ``src``), no ``javascript:``/``vbscript:``/``data:``
    address."""
    for p in site.rglob("*.html"):
        for tag, attrs in parse_html(p).tags:
            names = {k.lower() for k, _ in attrs}
            assert not any(n.startswith("on") for n in names), (p, tag, attrs)
            assert tag not in ("img", "iframe", "object", "embed", "base", "form"), (p, tag)
            assert tag != "style" or p.name == "graph.html", p
            if tag == "script" and p.name != "graph.html":
                d = dict(attrs)
                assert d.get("type") == "application/json" or re.fullmatch(scripts, d.get("src") or ""), (p, attrs)
            for k, v in attrs:
                if k in ("href", "src", "action", "formaction", "xlink:href") and v:
                    assert not re.match(r"\s*(javascript|vbscript|data):", v, re.I) or v == "data:,", (p, v)
