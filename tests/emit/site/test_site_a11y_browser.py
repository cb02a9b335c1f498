"""Accessibility of the built example site in headless Chromium (Debian's,
through Playwright).

1. axe-core finds no violation of impact "serious" or "critical" on the
   pages a reader meets (home, a kind, a status, a tag, the tag list, ready,
   failing, a record of each kind, the search with its results open, a hover
   preview open, the 404 page, the whole graph and its search), in the light and the dark
   theme, at a phone's width (390 px) and a desktop's.  axe-core comes from
   the ``axe-playwright-python`` package (the test extra; it ships axe.min.js,
   MPL-2.0), or from ``RECORDKIT_AXE_JS``; the test skips when neither is
   there.  The pages keep their Content-Security-Policy: axe is evaluated
   through the DevTools protocol, which the policy does not govern.
2. What axe does not judge, asserted directly: landmarks, one h1, the
   language, the skip link; the Tab order (skip link, site, nav, search,
   theme toggle, then the page); a visible focus ring; the theme toggle's
   name and aria-pressed; the search as a combobox (arrow keys, Enter,
   Escape, Tab out); the preview opened from the keyboard and closed with
   Escape; the local graph's text alternative; a table wider than a phone
   reachable by keyboard.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from browser import launch_chromium
from conftest import run_cli
from site_fixtures import copy_example

pytestmark = pytest.mark.browser


def _axe_source() -> str | None:
    """axe-core's axe.min.js: $RECORDKIT_AXE_JS, else the copy that the
    axe-playwright-python package ships."""
    env = os.environ.get("RECORDKIT_AXE_JS")
    if env and Path(env).is_file():
        return Path(env).read_text(encoding="utf-8")
    try:
        import axe_playwright_python
    except ImportError:
        return None
    path = Path(axe_playwright_python.__file__).parent / "axe.min.js"
    return path.read_text(encoding="utf-8") if path.is_file() else None


AXE = _axe_source()
needs_axe = pytest.mark.skipif(
    AXE is None, reason="axe-core not available: install the test extra (axe-playwright-python) "
                        "or set RECORDKIT_AXE_JS to an axe.min.js")

#: the pages audited; "#state" after a path opens the search or a preview first
PAGES = ["index.html", "kind/theory.html", "status/open.html", "tag/identifiability.html", "tags.html",
         "ready.html", "failing.html", "theory/THEORY-798.html", "lit/LIT-849.html", "note/NOTE-302.html",
         "claim/CLAIM-082.html", "question/QUESTION-211.html", "404.html", "graph.html",
         "index.html#search", "theory/THEORY-798.html#preview", "graph.html#search"]
#: the site's own pages (graph.html is the graph tool's page, with its own layout)
SITE_PAGES = [p for p in PAGES if "#" not in p and p != "graph.html"]
PHONE, DESKTOP = 390, 1280


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    base = copy_example(tmp_path_factory.mktemp("a11y"))
    proc = run_cli("build", "-o", str(base / "site"), cwd=base)
    assert proc.returncode == 0, proc.stderr
    return base / "site"


@pytest.fixture(scope="module")
def browser():
    with launch_chromium() as b:
        yield b


def _context(browser, width=DESKTOP, dark=False):
    return browser.new_context(viewport={"width": width, "height": 860},
                               color_scheme="dark" if dark else "light")


def _open(page, site: Path, rel: str) -> None:
    path, _, state = rel.partition("#")
    page.goto((site / path).as_uri())
    page.wait_for_load_state("load")
    if path == "graph.html":
        page.wait_for_function("window.recordkitGraph && window.recordkitGraph.ready", timeout=20000)
    if state == "search" and path == "graph.html":
        page.fill("#rk-search", "stitch")
        page.locator("#rk-results li[role=option]").first.wait_for(timeout=5000)
    elif state == "search":
        page.fill("#rk-q", "stitching")
        page.locator("#rk-hits li[role=option]").first.wait_for(timeout=5000)
        page.locator("#rk-hits .rk-hit-snip mark").first.wait_for(timeout=5000)
    elif state == "preview":
        page.hover(".rk-body a.rk-ref[data-id='QUESTION-211']")
        page.locator("#rk-preview").wait_for(state="visible", timeout=5000)


def _axe(page) -> list[dict]:
    if page.evaluate("typeof window.axe") == "undefined":
        page.evaluate(AXE)
    res = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    return res["violations"]


@needs_axe
# each theme once and each width once (colours follow the theme, layout the
# width): the four combinations cost CI 33 s of a core for the same findings
@pytest.mark.parametrize("width,dark", [(PHONE, True), (DESKTOP, False)], ids=["phone-dark", "desktop-light"])
def test_axe_finds_no_serious_violation(site, browser, width, dark):
    ctx = _context(browser, width, dark)
    try:
        page = ctx.new_page()
        found = []
        for rel in PAGES:
            _open(page, site, rel)
            for v in _axe(page):
                if v["impact"] in ("serious", "critical"):
                    targets = "; ".join(" ".join(map(str, n["target"])) for n in v["nodes"][:4])
                    found.append(f"{rel}: {v['id']} ({v['impact']}, {len(v['nodes'])}) {targets}")
        assert found == [], "\n".join(found)
    finally:
        ctx.close()


def test_landmarks_heading_language_and_skip_link(site, browser):
    ctx = _context(browser)
    try:
        page = ctx.new_page()
        for rel in SITE_PAGES:
            _open(page, site, rel)
            got = page.evaluate("""() => ({
                lang: document.documentElement.lang,
                h1: document.querySelectorAll('h1').length,
                banner: document.querySelectorAll('body > header').length,
                nav: document.querySelectorAll('header nav[aria-label]').length,
                search: document.querySelectorAll('header [role=search]').length,
                main: document.querySelectorAll('main#rk-main').length,
                footer: document.querySelectorAll('body > footer').length,
                outside: Array.from(document.body.children).filter(e =>
                    !/^(HEADER|MAIN|FOOTER|SCRIPT)$/.test(e.tagName) && !e.matches('a.rk-skip')).map(e => e.outerHTML.slice(0, 80)),
                skip: (document.querySelector('body > a.rk-skip') || {}).hash || null,
            })""")
            assert got == {"lang": "en", "h1": 1, "banner": 1, "nav": 1, "search": 1, "main": 1, "footer": 1,
                           "outside": [], "skip": "#rk-main"}, rel
        # the preview (a tooltip) sits inside a landmark, not loose in <body>
        assert page.locator("main #rk-preview[role=tooltip]").count() == 1
    finally:
        ctx.close()


def _focused(page) -> dict:
    return page.evaluate("""() => { const e = document.activeElement, cs = getComputedStyle(e);
        return {id: e.id, cls: e.getAttribute('class') || '', tag: e.tagName, text: e.textContent.trim(),
                outline: cs.outlineStyle, width: parseFloat(cs.outlineWidth)}; }""")


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_tab_order_and_visible_focus(site, browser, dark):
    ctx = _context(browser, dark=dark)
    try:
        page = ctx.new_page()
        _open(page, site, "theory/THEORY-798.html")
        seen = []
        for _ in range(12):
            page.keyboard.press("Tab")
            f = _focused(page)
            seen.append(f)
            # every stop shows a ring of the theme's accent, 2 px wide
            assert f["outline"] == "solid" and f["width"] >= 2, f
        names = [f["id"] or f["cls"] or f["tag"] for f in seen]
        assert seen[0]["cls"] == "rk-skip" and seen[0]["text"] == "Skip to content"
        assert seen[1]["cls"] == "rk-site"
        kinds = [f["cls"] for f in seen if f["cls"].startswith("k-")]
        assert kinds == ["k-LIT", "k-NOTE", "k-THEORY", "k-CLAIM", "k-QUESTION"]
        at_q = names.index("rk-q")
        assert names[at_q + 1] == "rk-theme"                  # the toggle straight after the search
        assert seen[at_q - 1]["text"] == "Graph"              # the nav's last link before the search
        assert seen[at_q + 2]["tag"] == "A"                   # then the page's own links
        # the skip link is on screen while focused, and takes the reader to <main>
        page.keyboard.press("Shift+Tab")
        while _focused(page)["cls"] != "rk-skip":
            page.keyboard.press("Shift+Tab")
        box = page.locator("a.rk-skip").bounding_box()
        assert box and box["x"] >= 0 and box["y"] >= 0
        page.keyboard.press("Enter")
        assert page.evaluate("location.hash") == "#rk-main"
    finally:
        ctx.close()


def test_theme_toggle_name_and_state(site, browser):
    ctx = _context(browser)
    try:
        page = ctx.new_page()
        _open(page, site, "index.html")
        toggle = page.get_by_role("button", name="Dark theme")
        assert toggle.count() == 1
        assert toggle.get_attribute("aria-pressed") == "false"           # the system is light
        toggle.focus()
        page.keyboard.press("Enter")
        assert page.evaluate("document.documentElement.getAttribute('data-theme')") == "dark"
        assert toggle.get_attribute("aria-pressed") == "true"
        page.keyboard.press("Space")
        assert toggle.get_attribute("aria-pressed") == "false"
    finally:
        ctx.close()
    ctx = _context(browser, dark=True)        # a dark system: pressed from the start
    try:
        page = ctx.new_page()
        _open(page, site, "index.html")
        assert page.locator("#rk-theme").get_attribute("aria-pressed") == "true"
    finally:
        ctx.close()


def test_search_is_a_keyboard_combobox(site, browser):
    ctx = _context(browser)
    try:
        page = ctx.new_page()
        _open(page, site, "index.html")
        q = page.get_by_role("combobox", name="Search the record")
        assert q.count() == 1 and q.get_attribute("aria-controls") == "rk-hits"
        q.focus()
        page.keyboard.type("stitching")
        page.locator("#rk-hits li[role=option]").first.wait_for(timeout=5000)
        assert q.get_attribute("aria-expanded") == "true"
        listbox = page.get_by_role("listbox", name="Records found")
        assert listbox.is_visible()
        # each option is named by its id and title, and holds no tab stop
        options = page.get_by_role("option")
        assert options.count() >= 2
        assert re.match(r"^[A-Z]+-\d+: .+", options.first.get_attribute("aria-label"))
        assert page.evaluate("Array.from(document.querySelectorAll('#rk-hits a')).every(a => a.inert)")
        # the arrow keys move the active option; the focus stays in the field
        page.keyboard.press("ArrowDown")
        page.keyboard.press("ArrowDown")
        assert q.get_attribute("aria-activedescendant") == "rk-hit-1"
        assert page.locator("#rk-hit-1").get_attribute("aria-selected") == "true"
        assert _focused(page)["id"] == "rk-q"
        # Escape closes the list and keeps the focus; a second empties the field
        page.keyboard.press("Escape")
        assert listbox.is_hidden() and q.get_attribute("aria-expanded") == "false"
        assert q.get_attribute("aria-activedescendant") is None
        assert _focused(page)["id"] == "rk-q" and q.input_value() == "stitching"
        # a closed list is not acted on unseen: Enter opens it again, it does not leave the page
        url = page.url
        page.keyboard.press("Enter")
        page.locator("#rk-hits li[role=option]").first.wait_for(timeout=5000)
        assert page.url == url and listbox.is_visible()
        page.keyboard.press("Escape")
        page.keyboard.press("Escape")
        assert q.input_value() == ""
        # an emptied field: Enter and the arrows open nothing, select nothing
        page.keyboard.press("Enter")
        page.keyboard.press("ArrowDown")
        page.wait_for_timeout(150)
        assert page.url == url and listbox.is_hidden() and q.get_attribute("aria-activedescendant") is None
        # Tab out of the field closes the list
        page.keyboard.type("stitching")
        page.locator("#rk-hits li[role=option]").first.wait_for(timeout=5000)
        page.keyboard.press("Tab")
        assert _focused(page)["id"] == "rk-theme"
        assert listbox.is_hidden() and q.get_attribute("aria-expanded") == "false"
        # Enter opens the active option; a click on an option follows its link
        q.focus()
        page.keyboard.press("ArrowDown")
        want = page.locator("#rk-hits li[role=option] a").first.evaluate("a => a.href")
        with page.expect_navigation(wait_until="load"):
            page.keyboard.press("Enter")
        assert page.url == want
        _open(page, site, "index.html")
        page.fill("#rk-q", "LIT-849")
        first = page.locator("#rk-hits li[role=option]").first
        first.wait_for(timeout=5000)
        with page.expect_navigation(wait_until="load"):
            first.click()
        assert page.url.endswith("/lit/LIT-849.html")
    finally:
        ctx.close()


def test_preview_from_the_keyboard_closes_on_escape(site, browser):
    ctx = _context(browser)
    try:
        page = ctx.new_page()
        _open(page, site, "theory/THEORY-798.html")
        link = page.locator(".rk-body a.rk-ref[data-id='QUESTION-211']").first
        link.focus()
        box = page.locator("#rk-preview")
        box.wait_for(state="visible", timeout=5000)
        assert "QUESTION-211" in box.inner_text()
        assert link.get_attribute("aria-describedby") == "rk-preview"
        page.keyboard.press("Escape")
        box.wait_for(state="hidden", timeout=5000)
        assert link.get_attribute("aria-describedby") is None
    finally:
        ctx.close()


def test_local_graph_has_a_text_alternative(site, browser):
    ctx = _context(browser)
    try:
        page = ctx.new_page()
        _open(page, site, "theory/THEORY-798.html")
        graph = page.locator("#rk-local-graph svg")
        assert graph.get_attribute("role") == "group"
        assert re.match(r"^Graph of THEORY-798 and its \d+ neighbours?$", graph.get_attribute("aria-label"))
        # each node is a link named by its id and title, reachable by Tab
        node = page.get_by_role("link", name=re.compile(r"^LIT-849: "))
        assert node.count() >= 1
        names = graph.locator("a").evaluate_all("as => as.map(a => a.querySelector('title').textContent)")
        assert all(re.match(r"^[A-Z]+-\d+: .+", n) for n in names) and len(names) >= 5
    finally:
        ctx.close()


def test_wide_tables_scroll_by_keyboard_on_a_phone(site, browser):
    ctx = _context(browser, width=PHONE)
    try:
        page = ctx.new_page()
        _open(page, site, "note/NOTE-302.html")
        wide = page.evaluate("""() => Array.from(document.querySelectorAll('table.rk-list, .rk-body table'))
            .filter(t => t.scrollWidth > t.clientWidth + 1).map(t => t.getAttribute('tabindex'))""")
        assert wide and all(t == "0" for t in wide), wide
    finally:
        ctx.close()
    ctx = _context(browser, width=DESKTOP)      # wide enough: no tab stop left on them
    try:
        page = ctx.new_page()
        _open(page, site, "note/NOTE-302.html")
        assert page.locator("table[data-rk-scroll]").count() == 0
    finally:
        ctx.close()
