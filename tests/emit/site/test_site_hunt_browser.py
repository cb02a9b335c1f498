"""Defects a hunt found in the site's pages, in headless Chromium (Debian's,
through Playwright), on one built site: kind dots on a record page, Enter
in the search, words with combining marks or decomposed letters, long
hyphenated words, dark code colours and print, a long table of contents,
anchor jumps under the sticky header, the preview near the bottom edge,
long ids on a phone, the 404 page at any depth (``recordkit serve``)."""
from __future__ import annotations

import http.server
import random
import threading
import types
import unicodedata

import pytest

from browser import Tab, launch_chromium
from conftest import run_cli
from site_fixtures import copy_example

from recordkit.emit.site import search
from recordkit.emit.site.serve import SiteServer, Status

pytestmark = pytest.mark.browser

LONG_ID = "NOTE-" + "0" * 50 + "903"
LONG_WORD = "supercalifragilistic-expialidocious-hyphenated-zebrafinch"
LONG_TAG = "a-tag-that-is-much-longer-than-forty-characters-quokka"
HEADINGS = 40
LONG_RECORD = f"""---
id: {LONG_ID}
title: Record with a very long id
status: final
paper: LIT-849
tags: [{LONG_TAG}]
---

Mentions LIT-849 and [[THEORY-798]], and {unicodedata.normalize("NFD", "résumé")} written decomposed,
and a {LONG_WORD} word.[^1]

```python
def f(x):
    return x
```

""" + "".join(f"## Section {k}\n\nText of section {k}.\n\n" for k in range(1, HEADINGS + 1)) + """
The last mention of LIT-849 here.

[^1]: A footnote at the very end.
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    base = copy_example(tmp_path_factory.mktemp("hunt"), with_results=False,
                        extra={f"note/{LONG_ID}.md": LONG_RECORD})
    proc = run_cli("build", "-o", str(base / "site"), cwd=base)
    assert proc.returncode == 0, proc.stderr
    return base / "site"


@pytest.fixture(scope="module")
def browser():
    with launch_chromium() as b:
        yield b




def _colour(page, value: str) -> str:
    """A CSS colour (a variable's value) as getComputedStyle writes it."""
    return page.evaluate("""v => { const e = document.createElement('i'); e.style.color = v;
        document.body.appendChild(e); const c = getComputedStyle(e).color; e.remove(); return c; }""", value)


def _var(page, name: str) -> str:
    return page.evaluate(f"getComputedStyle(document.documentElement).getPropertyValue('{name}').trim()")


def test_record_page_dots_search_and_anchors(site, browser):
    with Tab(browser) as t:
        p = t.page
        p.goto((site / "theory" / "THEORY-798.html").as_uri())
        assert "k-THEORY" in p.get_attribute("body", "class")
        lit = _colour(p, _var(p, "--k-LIT"))
        assert lit != _colour(p, _var(p, "--k-THEORY"))
        # 1. a search hit's dot has its own kind's colour, not the page's
        p.fill("#rk-q", "LIT-849")
        hit = p.locator("#rk-hits li[role=option] .rk-hit-title").first
        hit.wait_for(timeout=5000)
        assert "k-LIT" in hit.get_attribute("class")
        assert hit.locator(".rk-dot").evaluate("e => getComputedStyle(e).backgroundColor") == lit
        p.keyboard.press("Escape")
        # ... and so does a preview's
        p.locator(".rk-body a[data-id='LIT-849']").first.hover()
        p.locator("#rk-preview").wait_for(state="visible", timeout=5000)
        assert p.locator("#rk-preview .rk-dot").evaluate("e => getComputedStyle(e).backgroundColor") == lit
        p.mouse.move(5, 5)
        # 3. Enter acts on what is typed now, not on the list of the query before
        p.fill("#rk-q", "stitch")
        p.locator("#rk-hits li[role=option]").first.wait_for(timeout=5000)
        p.keyboard.press("ArrowDown")
        # an IME's Enter (composing) never opens a hit
        p.evaluate("""document.getElementById('rk-q').dispatchEvent(new KeyboardEvent('keydown',
            {key: 'Enter', keyCode: 229, isComposing: true, bubbles: true, cancelable: true}))""")
        p.wait_for_timeout(200)
        assert p.url.endswith("/theory/THEORY-798.html")
        p.fill("#rk-q", "LIT-849")
        with p.expect_navigation(wait_until="load"):
            p.keyboard.press("Enter")
        assert p.url.endswith("/lit/LIT-849.html"), p.url
        assert t.errors == [], t.errors


def test_search_words(site, browser):
    with Tab(browser) as t:
        p = t.page
        p.goto((site / "index.html").as_uri())

        def first_hit(q):
            p.fill("#rk-q", q)
            p.locator("#rk-hits li").first.wait_for(timeout=5000)
            p.wait_for_timeout(150)
            a = p.locator("#rk-hits li[role=option] a")
            return a.first.get_attribute("data-id") if a.count() else None

        # 4. a decomposed word in a body is found by the composed query (and the other way)
        assert first_hit("résumé") == LONG_ID
        assert first_hit(unicodedata.normalize("NFD", "Résumé")) == LONG_ID
        # the snippet marks the whole word
        p.locator("#rk-hits .rk-hit-snip mark").first.wait_for(timeout=5000)
        assert p.locator("#rk-hits .rk-hit-snip mark").first.inner_text() == "résumé"
        # 5. a long hyphenated word: its parts, and the word itself, find it; a long tag's part too
        assert first_hit("zebrafinch") == LONG_ID
        assert first_hit(LONG_WORD) == LONG_ID
        assert first_hit("quokka") == LONG_ID
        # 4. the page's tokenizer takes the words search.py takes, on drawn text
        rng = random.Random(4)
        alphabet = list("aZé9_-' .,!") + ["\u0301", "\u0308", "ß", "İ", "Σ", "ς", "ﬁ", "हि", "न्", "दी",
                                          "가", "\u1100\u1161", "𝐀", "٣", "Ⅻ", "½", "\u200d", "😀", "ǅ"]
        drawn = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 30))) for _ in range(400)]
        drawn += ["हिन्दी भाषा", unicodedata.normalize("NFD", "Résumé café"), "don't re-use x_y", "ΟΔΟΣ"]
        page_words = p.evaluate("xs => xs.map(x => RK.words(x))", drawn)
        for text, got in zip(drawn, page_words):
            assert got == search.TOKEN_RE.findall(search.normalize(text)), text
        assert t.errors == [], t.errors


def test_long_record_page(site, browser):
    url = (site / "note" / f"{LONG_ID}.html").as_uri()
    with Tab(browser, width=1280, height=700) as t:
        p = t.page
        p.goto(url)
        # 8. a long table of contents scrolls within the sticky aside
        aside = p.locator(".rk-aside")
        assert aside.evaluate("e => e.scrollHeight > e.clientHeight")
        p.evaluate("window.scrollTo(0, document.querySelector('.rk-body').offsetTop + 600)")
        aside.evaluate("e => { e.scrollTop = e.scrollHeight; }")
        last = p.locator(".rk-toc li a").last
        box = last.bounding_box()
        assert box["y"] + box["height"] <= 700, box
        # 9. a jump to a heading or a footnote lands below the sticky header
        header = p.locator(".rk-top").bounding_box()
        assert header["height"] > 30
        p.locator(".rk-toc li a[href='#section-10']").click()
        p.wait_for_timeout(200)
        target = p.locator("#section-10").bounding_box()
        assert header["y"] + header["height"] - 1 <= target["y"] < 150, (target, header)
        # a footnote's way back to its mention (near the top, so it can reach the page's top)
        p.evaluate("window.scrollTo(0, document.body.scrollHeight)")
        p.locator("a.footnote-backref").first.click()
        p.wait_for_timeout(200)
        ref = p.locator("[id='fnref1']").bounding_box()
        assert header["height"] - 1 <= ref["y"] < 150, ref
        # 10. a preview near the bottom edge opens above its link, on screen
        link = p.locator(".rk-body a[data-id='LIT-849']").last
        link.evaluate("e => e.scrollIntoView({block: 'end'})")
        p.evaluate("window.scrollBy(0, -4)")
        link.hover()
        p.locator("#rk-preview").wait_for(state="visible", timeout=5000)
        pv, lk = p.locator("#rk-preview").bounding_box(), link.bounding_box()
        assert pv["y"] >= 0 and pv["y"] + pv["height"] <= 700, (pv, lk)
        assert pv["y"] + pv["height"] <= lk["y"]
        assert t.errors == [], t.errors
    # 11. a long id wraps at a phone's width
    with Tab(browser, width=360, height=740) as t:
        t.page.goto(url)
        right = t.page.locator("h1 .rk-id").evaluate("e => e.getBoundingClientRect().right")
        assert right <= 360, right
        assert t.page.evaluate("document.documentElement.scrollWidth") <= 360
    # 6. system dark mode (no toggle): code in the dark palette; 7. printed: all light
    with Tab(browser, dark=True) as t:
        p = t.page
        p.goto(url)
        kw = p.locator(".rk-code .k").first
        assert kw.evaluate("e => getComputedStyle(e).color") == "rgb(102, 217, 239)"     # monokai
        p.emulate_media(media="print", color_scheme="dark")
        assert kw.evaluate("e => getComputedStyle(e).color") == "rgb(0, 128, 0)"        # default
        assert p.locator(".rk-meta").evaluate("e => getComputedStyle(e).color") == "rgb(91, 100, 116)"
        assert p.locator("body").evaluate("e => getComputedStyle(e).backgroundColor") == "rgb(255, 255, 255)"
        # the toggle's dark prints light as well
        p.emulate_media(media="screen")
        p.click("#rk-theme")
        p.click("#rk-theme")
        assert p.get_attribute("html", "data-theme") == "dark"
        assert kw.evaluate("e => getComputedStyle(e).color") == "rgb(102, 217, 239)"
        p.emulate_media(media="print")
        assert kw.evaluate("e => getComputedStyle(e).color") == "rgb(0, 128, 0)"
        assert p.locator(".rk-meta").evaluate("e => getComputedStyle(e).color") == "rgb(91, 100, 116)"


def test_404_page_at_any_depth_under_serve(site, browser):
    """recordkit serve's handler on the built folder answers a missing URL
    at any depth with the 404 page made for that depth."""
    fake = types.SimpleNamespace(out=site, loopback_only=True, status=Status())
    handler = SiteServer.handler(fake)
    prefix = "/"
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}{prefix}"
    try:
        with Tab(browser) as t:
            p = t.page
            for missing in ("theory/THEORY-999.html", "a/b/c/", "nope.html"):
                resp = p.goto(base + missing)
                assert resp.status == 404
                assert p.locator("h1").inner_text() == "Not found"
                # styled, the links lead into the site, the search loads
                assert p.evaluate("getComputedStyle(document.querySelector('.rk-top')).position") == "sticky"
                assert p.locator("nav.rk-nav a.k-LIT").evaluate("e => e.href") == base + "kind/lit.html"
                p.fill("#rk-q", "LIT-849")
                p.locator("#rk-hits li[role=option] a").first.wait_for(timeout=5000)
                assert p.locator("#rk-hits li[role=option] a").first.evaluate("e => e.href") == base + "lit/LIT-849.html"
            with p.expect_navigation(wait_until="load"):
                p.click("nav.rk-nav a.k-LIT")
            assert p.url == base + "kind/lit.html"
            errors = [e for e in t.errors if "404" not in e and "CSP" not in e.upper()]
            csp = [e for e in t.errors if "Content Security Policy" in e]
            assert errors == [] and csp == [], t.errors
    finally:
        server.shutdown()
        server.server_close()
