"""The graph page's looks in a browser: light and dark (the system's
preference, the toggle, and on a built site the site's own choice), the link
back to the site's home page, and a phone's width.

One small site is built once (the example records, no checks run); each test
opens its graph.html (or the standalone page of ``recordkit graph --html``)
in Debian's chromium and checks several things at once.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent / "site"))
from browser import CHROMIUM_ARGS, CHROMIUM, small_index  # noqa: E402
from site_fixtures import copy_example  # noqa: E402

pytestmark = pytest.mark.browser

READY = "() => window.recordkitGraph && window.recordkitGraph.ready"
SETTLED = "() => window.recordkitGraph && window.recordkitGraph.ready && window.recordkitGraph.settled()"

#: the canvas's colours as drawn: how many opaque pixels are the labels' ink
#: (the stylesheet's --c-label for the theme shown), the luminance of the
#: stage's background and of that ink
CANVAS_LOOK = """() => {
  const css = getComputedStyle(document.documentElement);
  const rgb = s => { const c = document.createElement('canvas').getContext('2d'); c.fillStyle = s; c.fillRect(0, 0, 1, 1);
                     return Array.from(c.getImageData(0, 0, 1, 1).data.slice(0, 3)); };
  const lum = ([r, g, b]) => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
                               return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b); };
  const label = rgb(css.getPropertyValue('--c-label').trim() || '#1f2328');
  const bg = getComputedStyle(document.getElementById('rk-stage')).backgroundColor;
  const cv = document.getElementById('rk-canvas'), d = cv.getContext('2d').getImageData(0, 0, cv.width, cv.height).data;
  let ink = 0;
  for (let i = 0; i < d.length; i += 4)
    if (d[i + 3] >= 254 && Math.abs(d[i] - label[0]) + Math.abs(d[i + 1] - label[1]) + Math.abs(d[i + 2] - label[2]) < 20) ink++;
  const lb = lum(label), bb = lum(rgb(bg));
  return {theme: window.recordkitGraph.theme(), labelPixels: ink, label: lb, bg: bb,
          inkIsCss: rgb(window.recordkitGraph.ink().label).join() === label.join(),
          contrast: (Math.max(lb, bb) + 0.05) / (Math.min(lb, bb) + 0.05),
          bodyBg: lum(rgb(getComputedStyle(document.body).backgroundColor)),
          sideBg: lum(rgb(getComputedStyle(document.getElementById('rk-side')).backgroundColor)),
          sideInk: lum(rgb(getComputedStyle(document.getElementById('rk-side')).color))};
}"""


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    base = copy_example(tmp_path_factory.mktemp("looks"), with_results=False)
    proc = subprocess.run([sys.executable, "-m", "recordkit", "build", "-o", str(base / "out")], cwd=base,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return base / "out"


@pytest.fixture(scope="module")
def standalone(tmp_path_factory) -> Path:
    from recordkit.emit.graph_page import write_graph_html
    path = tmp_path_factory.mktemp("looks-standalone") / "graph.html"
    write_graph_html(small_index(), path, title="nucleation graph")
    return path


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


class Tab:
    """A page in a fresh context (its own localStorage), with its errors and requests."""

    def __init__(self, browser, **context):
        self.context = browser.new_context(**context)
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))

    def graph(self, path: Path):
        self.page.goto(path.as_uri())
        self.page.wait_for_function(READY, timeout=20_000)
        self.page.wait_for_function(SETTLED, timeout=20_000)
        return self.page

    def look(self):
        self.page.wait_for_function(SETTLED, timeout=20_000)
        return self.page.evaluate(CANVAS_LOOK)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        assert self.errors == [], self.errors         # a CSP refusal is a console error
        assert not [u for u in self.requests if not u.startswith(("file:", "data:", "blob:"))], self.requests
        self.context.close()


def _dark(look):
    assert look["theme"] == "dark", look
    assert look["bg"] < 0.05 and look["bodyBg"] < 0.05 and look["sideBg"] < 0.05, look
    assert look["sideInk"] > 0.5, look                # the sidebar's text is light on dark
    assert look["label"] > 0.5 and look["contrast"] > 7, look
    assert look["inkIsCss"] and look["labelPixels"] > 150, look    # the labels are drawn in that light ink


def _light(look):
    assert look["theme"] == "light", look
    assert look["bg"] > 0.8 and look["bodyBg"] > 0.8 and look["sideBg"] > 0.8, look
    assert look["label"] < 0.05 and look["contrast"] > 7, look
    assert look["inkIsCss"] and look["labelPixels"] > 150, look


def test_site_graph_page_shares_the_site_theme_and_links_home(site, browser):
    """On the built site: the graph page shows the theme chosen with the
    site's toggle (and its own toggle is the same choice), under the site's
    policy (no inline script but its own by hash); its header links back to
    the home page by a relative URL."""
    graph = site / "graph.html"
    text = graph.read_text(encoding="utf-8")
    assert 'http-equiv="Content-Security-Policy"' in text and "script-src 'sha256-" in text
    with Tab(browser, color_scheme="light", viewport={"width": 1200, "height": 800}) as t:
        p = t.graph(graph)
        _light(t.look())
        home = p.locator("#rk-head a#rk-home")
        assert home.count() == 1 and home.get_attribute("href") == "index.html"
        assert home.is_visible() and "nucleation" in home.inner_text()
        # the site's toggle, on its home page, picks dark ...
        p.goto((site / "index.html").as_uri())
        p.click("#rk-theme")
        assert p.evaluate("localStorage.getItem('rk-theme')") == "dark"
        # ... which the graph page shows, canvas included
        p = t.graph(graph)
        assert p.evaluate("document.documentElement.getAttribute('data-theme')") == "dark"
        _dark(t.look())
        # its own toggle is the site's: back to light, for every page
        p.click("#rk-theme")
        assert p.evaluate("localStorage.getItem('rk-theme')") == "light"
        _light(t.look())
        home.click()
        p.wait_for_load_state("load")
        assert p.url == (site / "index.html").as_uri()
        assert p.evaluate("document.documentElement.getAttribute('data-theme')") == "light"


def test_standalone_page_follows_the_system_theme(standalone, browser):
    """``recordkit graph --html``: no link home, the system's preference
    (live, canvas included) and a toggle of its own."""
    with Tab(browser, color_scheme="dark", viewport={"width": 1200, "height": 800}) as t:
        p = t.graph(standalone)
        assert p.locator("#rk-home").count() == 0
        assert p.evaluate("document.documentElement.hasAttribute('data-theme')") is False
        _dark(t.look())
        p.emulate_media(color_scheme="light")
        p.wait_for_function("() => recordkitGraph.theme() === 'light'")
        _light(t.look())
        p.emulate_media(color_scheme="dark")
        p.wait_for_function("() => recordkitGraph.theme() === 'dark'")
        _dark(t.look())
        p.click("#rk-theme")                          # the reader's choice beats the system's
        _light(t.look())
        assert p.evaluate("localStorage.getItem('rk-graph-theme')") == "light"
        assert p.evaluate("localStorage.getItem('rk-theme')") is None    # not the site's choice
        p.reload()
        p.wait_for_function(SETTLED, timeout=20_000)
        _light(t.look())


def test_phone_width_leaves_the_graph_most_of_the_screen(site, browser):
    """At 375 px the sidebar is a strip above the graph whose filters open on
    demand; nothing is wider than the screen, the record panel included."""
    W, H = 375, 667
    with Tab(browser, viewport={"width": W, "height": H}, has_touch=True) as t:
        p = t.graph(site / "graph.html")
        box = p.locator("#rk-canvas").bounding_box()
        assert box["x"] == 0 and box["width"] == W, box
        assert box["height"] >= 0.7 * H, box
        assert p.locator("#rk-search").is_visible() and p.locator("#rk-home").is_visible()
        assert p.locator("#rk-theme").is_visible()
        assert not p.locator("#rk-f-kind").is_visible()
        widest = """() => Math.max(document.documentElement.scrollWidth, document.body.scrollWidth,
            ...Array.from(document.querySelectorAll('#rk-app *')).filter(e => e.getClientRects().length)
               .map(e => e.getBoundingClientRect().right))"""
        assert p.evaluate(widest) <= W
        toggle = p.locator("#rk-side-toggle")
        assert toggle.is_visible() and toggle.get_attribute("aria-expanded") == "false"
        toggle.click()
        assert toggle.get_attribute("aria-expanded") == "true"
        assert p.locator("#rk-f-kind").is_visible()
        assert p.locator("#rk-canvas").bounding_box()["height"] >= 0.3 * H
        assert p.evaluate(widest) <= W
        # a kind filter works from there, and closing gives the graph its room back
        n = p.evaluate("recordkitGraph.visibleCount()")
        p.locator("#rk-f-kind input[type=checkbox]").first.click()
        assert p.evaluate("recordkitGraph.visibleCount()") < n
        toggle.click()
        p.wait_for_function(f"() => document.getElementById('rk-canvas').getBoundingClientRect().height >= {0.7 * H}")
        # a selected record's panel takes the lower part of the screen, and
        # the record stays in view above it
        p.evaluate("recordkitGraph.select('THEORY-798')")
        panel = p.locator("#rk-panel").bounding_box()
        assert panel["x"] >= 0 and panel["x"] + panel["width"] <= W and panel["y"] >= 0.35 * H, panel
        assert p.evaluate(widest) <= W
        p.wait_for_function(SETTLED, timeout=20_000)
        pos = p.evaluate("recordkitGraph.screenPosition('THEORY-798')")
        stage = p.locator("#rk-canvas").bounding_box()
        assert stage["y"] < pos["y"] < min(stage["y"] + stage["height"], panel["y"]) and 0 < pos["x"] < W, (pos, stage)
