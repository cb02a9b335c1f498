"""The built example site in headless Chromium (Debian's, through
Playwright): navigation through typed links, hover previews, search from
file://, no console error on any page, injected script never runs, the
site under a sub-path of a server, screenshots for review."""
from __future__ import annotations

import functools
import http.server
import re
import threading
from collections import Counter
from pathlib import Path

import pytest

from browser import ARTIFACTS, Tab, launch_chromium
from conftest import run_cli
from site_fixtures import XSS_ID, XSS_RECORD, copy_example

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    base = copy_example(tmp_path_factory.mktemp("browser"), extra={"claim/CLAIM-666.md": XSS_RECORD})
    proc = run_cli("build", "-o", str(base / "www" / "sub" / "path"), cwd=base)
    assert proc.returncode == 0, proc.stderr
    return base / "www" / "sub" / "path"


@pytest.fixture(scope="module")
def browser():
    with launch_chromium() as b:
        yield b




def follow(page, link):
    """Click a link and wait until the page it leads to has loaded (a click
    returns once the navigation commits, before the new page is parsed)."""
    with page.expect_navigation(wait_until="load"):
        link.click()


def test_navigation_through_typed_links_and_back(site, browser):
    with Tab(browser) as t:
        p = t.page
        p.goto((site / "index.html").as_uri())
        follow(p, p.locator("nav.rk-nav a.k-THEORY"))
        assert p.url.endswith("/kind/theory.html")
        follow(p, p.locator("table.rk-list a[data-id='THEORY-798']"))
        assert p.url.endswith("/theory/THEORY-798.html")
        assert "2 min read" in p.inner_text(".rk-meta") or "min read" in p.inner_text(".rk-meta")
        # the Source property, then back through the typed backlink "Cited as "source" by"
        src = p.locator(".rk-prop", has=p.locator("dt", has_text=re.compile(r"^Source$")))
        follow(p, src.locator("a[data-id='LIT-849']"))
        assert p.url.endswith("/lit/LIT-849.html")
        back = p.locator(".rk-prop", has=p.locator("dt", has_text='Cited as "source" by'))
        assert back.count() == 1
        follow(p, back.locator("a[data-id='THEORY-798']"))
        assert p.url.endswith("/theory/THEORY-798.html")
        # the local graph drew the record and its neighbours, each a link
        assert p.locator("#rk-local-graph svg a").count() >= 5
        follow(p, p.locator("#rk-local-graph svg a[data-id='THEORY-175']"))
        assert p.url.endswith("/theory/THEORY-175.html")
        assert t.errors == []


def test_hover_preview_appears(site, browser):
    with Tab(browser) as t:
        p = t.page
        p.goto((site / "theory" / "THEORY-798.html").as_uri())
        p.hover(".rk-body a.rk-ref[data-id='QUESTION-211']")
        box = p.locator("#rk-preview")
        box.wait_for(state="visible", timeout=5000)
        text = box.inner_text()
        assert "QUESTION" in text and "QUESTION-211" in text and "held-out" in text
        p.mouse.move(5, 5)
        box.wait_for(state="hidden", timeout=5000)
        assert t.errors == []


def _word_in_one_body(records: Path) -> tuple[str, str]:
    """A long word that occurs in exactly one published record's body and
    in no title."""
    import recordkit
    from recordkit.emit.site.search import terms
    corpus = recordkit.load(records)
    seen = Counter()
    titles = set()
    owner = {}
    for rid, rec in corpus.records.items():
        if rec.get("publish") is False:
            continue
        titles |= set(terms(rec.title))
        for w in terms(rec.body):
            seen[w] += 1
            owner[w] = rid
    for w, n in sorted(seen.items()):
        if n == 1 and len(w) >= 9 and w.isalpha() and w not in titles and not any(
                w != o and o.startswith(w) for o in seen):
            return w, owner[w]
    raise AssertionError("no word unique to one body")


def _bodies_by_word(records: Path) -> tuple[Counter, dict, set, list]:
    import recordkit
    from recordkit.emit.site.search import terms
    corpus = recordkit.load(records)
    seen, owners, titles = Counter(), {}, set()
    for rid, rec in corpus.records.items():
        if rec.get("publish") is False:
            continue
        titles |= set(terms(rec.title))
        for w in set(terms(rec.body)):
            seen[w] += 1
            owners.setdefault(w, set()).add(rid)
    return seen, owners, titles, sorted(corpus.records)


def test_search_across_shards(tmp_path, browser, monkeypatch):
    """With runs of 4 documents the index joins dozens of runs per term
    (the '=' marks of merge_postings): every hit is still found."""
    import recordkit.emit.site.build as site_build
    from recordkit.config import load_config
    from recordkit.emit.site.emitters import search as search_emitter
    base = copy_example(tmp_path)
    monkeypatch.setattr(search_emitter, "SHARD", 4)
    cfg = load_config(base / "records")
    site_build.build_site(cfg, base / "site", jobs=1, progress=False)
    seen, owners, titles, _ = _bodies_by_word(base / "records")
    vocabulary = set(seen) | titles      # a query is also a prefix: no other word may start with it

    def alone(w):
        return not any(w != o and o.startswith(w) for o in vocabulary)
    unique = [w for w, n in sorted(seen.items()) if n == 1 and len(w) >= 9 and w.isalpha() and w not in titles
              and alone(w)]
    picked = unique[:: max(1, len(unique) // 5)][:5]
    shared = [w for w, n in sorted(seen.items(), key=lambda x: (-x[1], x[0]))
              if 3 <= n <= 9 and len(w) >= 7 and w.isalpha() and w not in titles and alone(w)][:2]
    assert len(picked) >= 3 and shared
    with Tab(browser) as t:
        p = t.page
        p.goto((base / "site" / "index.html").as_uri())
        for w in picked + shared:
            p.fill("#rk-q", w)
            # the hits settle once the index has loaded: wait for them, then compare
            want = sorted(owners[w])
            try:
                p.wait_for_function(
                    """want => JSON.stringify(Array.from(document.querySelectorAll('#rk-hits li[role=option] a'))
                        .map(a => a.getAttribute('data-id')).sort()) === JSON.stringify(want)""",
                    arg=want, timeout=5000)
            except Exception:
                pass
            got = {a.get_attribute("data-id") for a in p.locator("#rk-hits li[role=option] a").all()}
            assert got == owners[w], w
        assert t.errors == []


def test_search_from_file_url(site, browser):
    word, rid = _word_in_one_body(site.parents[2] / "records")
    with Tab(browser) as t:
        p = t.page
        p.goto((site / "index.html").as_uri())
        p.fill("#rk-q", word[:-2])          # a prefix is enough
        first = p.locator("#rk-hits li[role=option] a").first
        first.wait_for(timeout=5000)
        assert first.get_attribute("data-id") == rid
        assert p.locator("#rk-hits li[role=option]").count() == 1
        # the snippet is highlighted
        p.locator("#rk-hits .rk-hit-snip mark").first.wait_for(timeout=5000)
        assert word in p.locator("#rk-hits .rk-hit-snip").first.inner_text().lower()
        p.press("#rk-q", "Enter")
        p.wait_for_url(re.compile(rf"/{rid}\.html$"))
        # an id finds its record first
        p.fill("#rk-q", "LIT-849")
        p.locator("#rk-hits li[role=option] a").first.wait_for()
        assert p.locator("#rk-hits li[role=option] a").first.get_attribute("data-id") == "LIT-849"
        assert t.errors == []


def test_no_console_error_on_any_page(site, browser):
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 60
    with Tab(browser) as t:
        for path in pages:
            t.page.goto(path.as_uri())
            if path.name == "graph.html":
                t.page.wait_for_function("window.recordkitGraph && window.recordkitGraph.ready", timeout=20000)
            else:
                t.page.wait_for_load_state("load")
        assert t.errors == [], t.errors[:10]


def test_injected_script_never_runs(site, browser):
    with Tab(browser) as t:
        p = t.page
        for rel in (f"claim/{XSS_ID}.html", "lit/LIT-849.html", "claim/index.html", "kind/claim.html",
                    "status/open.html", "graph.html"):
            target = site / rel
            if not target.exists():
                continue
            p.goto(target.as_uri())
            p.wait_for_load_state("load")
            if rel == "lit/LIT-849.html":
                p.hover(f"a[data-id='{XSS_ID}']")
                p.locator("#rk-preview").wait_for(state="visible", timeout=5000)
                assert "payload" in p.locator("#rk-preview").inner_text()
            if rel.startswith("claim/"):
                p.fill("#rk-q", "payload")
                p.locator("#rk-hits li[role=option]").first.wait_for(timeout=5000)
            p.wait_for_timeout(300)
            assert p.evaluate("typeof window.__xss") == "undefined", rel
        # a CSP violation is reported as a console error: expected on the
        # payload page only if the markup got through, which it must not
        assert not [e for e in t.errors if "xss" in e.lower()], t.errors


def test_site_under_a_sub_path_of_a_server(site, browser):
    root = site.parents[1]           # .../www, the site is at /sub/path/
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}/sub/path/"
        with Tab(browser) as t:
            p = t.page
            p.goto(base + "index.html")
            assert p.evaluate("getComputedStyle(document.querySelector('.rk-top')).position") == "sticky"
            p.click("nav.rk-nav a.k-LIT")
            assert p.url == base + "kind/lit.html"
            p.click("a[data-id='LIT-849']")
            assert p.url == base + "lit/LIT-849.html"
            p.fill("#rk-q", "relative representations")
            p.locator("#rk-hits li[role=option] a").first.wait_for(timeout=5000)
            p.goto(base + "graph.html")
            p.wait_for_function("window.recordkitGraph && window.recordkitGraph.ready", timeout=20000)
            assert t.errors == [], t.errors
            assert all(u.startswith(base) or u.startswith(("data:", "blob:")) for u in _requests(p))
    finally:
        server.shutdown()
        server.server_close()


def _requests(page) -> list[str]:
    return page.evaluate("performance.getEntriesByType('resource').map(function (e) { return e.name; })")


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.mark.parametrize("rid", ["theory/THEORY-798", "lit/LIT-849"])
def test_screenshots(site, browser, rid):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for dark in (False, True):
        for name, width in (("desktop", 1280), ("phone", 390)):
            with Tab(browser, width=width, height=900, dark=dark) as t:
                t.page.goto((site / f"{rid}.html").as_uri())
                t.page.wait_for_load_state("load")
                bg = t.page.evaluate("getComputedStyle(document.body).backgroundColor")
                assert (bg != "rgb(255, 255, 255)") == dark, bg
                # nothing wider than the phone's screen
                assert t.page.evaluate("document.documentElement.scrollWidth") <= width + 1
                out = ARTIFACTS / f"site-{rid.split('/')[1]}-{'dark' if dark else 'light'}-{name}.png"
                t.page.screenshot(path=str(out), full_page=True)
                assert out.stat().st_size > 10_000
                assert t.errors == []


def test_theme_toggle_is_kept(site, browser):
    with Tab(browser) as t:
        p = t.page
        p.goto((site / "index.html").as_uri())
        p.click("#rk-theme")
        assert p.evaluate("document.documentElement.getAttribute('data-theme')") == "dark"
        p.goto((site / "theory" / "THEORY-798.html").as_uri())
        assert p.evaluate("document.documentElement.getAttribute('data-theme')") == "dark"
        assert t.errors == []


def test_query_block_shows_its_rows_as_links(site, browser):
    """QUESTION-211's ```query block lists the proposed theories: on its page
    a table of exactly those (read from the record's files here), each id a
    link that leads to the theory's page."""
    import yaml
    records = Path(__file__).resolve().parents[3] / "records"
    proposed = sorted(p.stem for p in (records / "theory").glob("THEORY-*.md")
                      if yaml.safe_load(p.read_text(encoding="utf-8").split("---")[1]).get("status") == "proposed")
    assert proposed
    with Tab(browser) as t:
        t.page.goto((site / "question" / "QUESTION-211.html").as_uri())
        table = t.page.locator(".rk-query table")
        assert table.count() == 1
        ids = [x.strip() for x in table.locator("tbody tr td:first-child").all_inner_texts()]
        assert ids == proposed
        assert t.page.locator(".rk-query-count").inner_text().strip() == f"{len(proposed)} rows"
        follow(t.page, table.locator(f'a[data-id="{proposed[-1]}"]'))
        assert t.page.url.endswith(f"theory/{proposed[-1]}.html")
        assert proposed[-1] in t.page.locator("h1").inner_text()
        assert t.errors == []
