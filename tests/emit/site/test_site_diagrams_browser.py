"""A ```mermaid block drawn in headless Chromium from file:// (the copy of
mermaid the site ships, under the page's CSP): a flowchart becomes an SVG,
with no console error (a CSP refusal is one), in the page's theme and
again when the toggle changes it; and the record of every script payload
runs none with raw HTML rendered through the allow-list."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from browser import Tab, launch_chromium, require_chromium
from site_fixtures import XSS_RECORD

pytestmark = pytest.mark.browser

DIAGRAM = """A flowchart:

```mermaid
flowchart LR
  A[Start] --> B{Is it?}
  B -->|Yes| C[Done]
```
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    from click.testing import CliRunner
    from recordkit.cli import main
    base = tmp_path_factory.mktemp("diagrams") / "vault"
    (base / ".obsidian").mkdir(parents=True)
    (base / "recordkit.toml").write_text('root = "."\nschema = "preset:obsidian"\n')
    (base / "Flow.md").write_text(DIAGRAM)
    (base / "CLAIM-666.md").write_text(XSS_RECORD)     # every payload, with raw HTML rendered
    here = os.getcwd()
    os.chdir(base)
    try:
        res = CliRunner().invoke(main, ["build", "-o", "site", "-q", "-j", "1"], env={"RECORDKIT_CLEAN_EXIT": "1"})
    finally:
        os.chdir(here)
    assert res.exit_code == 0, res.output
    return base / "site"


def _fill(page) -> str:
    """The fill of the flowchart's first node, as the browser paints it."""
    return page.evaluate("getComputedStyle(document.querySelector('pre.mermaid svg .node rect, "
                         "pre.mermaid svg .node polygon')).fill")


def test_a_flowchart_becomes_an_svg_in_the_pages_theme(site):
    require_chromium()
    page_path = next(Path(site).rglob("Flow.html"))
    with launch_chromium() as browser:
        fills = {}
        for dark in (False, True):
            with Tab(browser, dark=dark) as t:
                p = t.page
                p.goto(page_path.as_uri())
                p.wait_for_selector("pre.mermaid svg", timeout=30_000)
                text = p.inner_text("pre.mermaid")
                assert "Start" in text and "Done" in text and "flowchart" not in text
                fills[dark] = _fill(p)
                if not dark:
                    # the toggle draws it again in the other theme
                    p.click("#rk-theme")
                    p.wait_for_function("f => getComputedStyle(document.querySelector("
                                        "'pre.mermaid svg .node rect, pre.mermaid svg .node polygon')).fill !== f",
                                        arg=fills[False], timeout=30_000)
                assert t.errors == [], t.errors
        assert fills[False] != fills[True]
        with Tab(browser) as t:
            t.page.goto(next(Path(site).rglob("CLAIM-666.html")).as_uri())
            t.page.wait_for_load_state("load")
            assert t.page.evaluate("typeof window.__xss") == "undefined"
            assert t.page.locator("a", has_text="a link").count() == 1
