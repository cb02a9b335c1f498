"""A vault's pages in headless Chromium at a phone's width (390 px) and at
a desktop's: no two of the header's controls (the site's name, each kind's
link, "Graph", the search field, the theme toggle) overlap, and every
label of the local graph is inside its drawing."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from browser import ARTIFACTS, Tab, launch_chromium
from recordkit.cli import main

pytestmark = pytest.mark.browser

#: a vault with several kinds (each a link of the header) and a note with
#: neighbours of long titles all round it
SCHEMA = """\
extends: preset:obsidian
kinds:
  concept: {statuses: [draft, done]}
  literature: {statuses: [to-read, read]}
  project: {statuses: [active, done]}
"""


def _vault(root: Path, title: str, kinds: int) -> None:
    """A hub note and twelve neighbours of ``kinds`` kinds (1: all NOTE),
    the site named ``title``: the header's first row fills up to where
    the theme toggle sits at a phone's width."""
    names = ("concept", "literature", "project")[:kinds] if kinds > 1 else ()

    def typed(i):
        return f"---\ntype: {names[i % len(names)]}\n---\n" if names else ""
    notes = {"Hub.md": typed(0) + " ".join(f"[[Neighbour number {i} with a long title]]" for i in range(12)) + "\n"}
    for i in range(12):
        notes[f"Deep/Folder/Neighbour number {i} with a long title.md"] = typed(i) + "See [[Hub]].\n"
    for rel, text in notes.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    schema = SCHEMA if names else "extends: preset:obsidian\n"
    (root / "schema.yaml").write_text(schema, encoding="utf-8")
    (root / "recordkit.toml").write_text(f'root = "."\nschema = "schema.yaml"\n[site]\ntitle = "{title}"\n',
                                         encoding="utf-8")


#: (site title, kinds): the header's first row short, full to the toggle, wrapping
HEADERS = [("notes", 1), ("My notes", 2), ("A garden with a long name", 3)]


@pytest.fixture(scope="module", params=HEADERS, ids=lambda h: f"{h[1]}-kinds")
def site(tmp_path_factory, request):
    vault = tmp_path_factory.mktemp("phone") / "vault"
    _vault(vault, *request.param)
    out = vault.parent / "site"
    here = os.getcwd()
    os.chdir(vault)
    try:
        res = CliRunner().invoke(main, ["build", "-o", str(out)], env={"RECORDKIT_CLEAN_EXIT": "1"})
    finally:
        os.chdir(here)
    assert res.exit_code == 0, res.output
    return out


@pytest.fixture(scope="module")
def browser():
    with launch_chromium() as b:
        yield b


def _hub(site: Path) -> Path:
    return next(p for p in (site / "concept" / "Hub.html", site / "note" / "Hub.html") if p.exists())


def _overlaps(boxes: list) -> list:
    out = []
    for i, (a, ra) in enumerate(boxes):
        for b, rb in boxes[i + 1:]:
            if ra["x"] < rb["x"] + rb["width"] - 0.5 and rb["x"] < ra["x"] + ra["width"] - 0.5 and \
                    ra["y"] < rb["y"] + rb["height"] - 0.5 and rb["y"] < ra["y"] + ra["height"] - 0.5:
                out.append((a, b))
    return out


@pytest.mark.parametrize("width", [390, 1280])
def test_no_two_header_controls_overlap(site, browser, width):
    with Tab(browser, width=width, height=844) as t:
        p = t.page
        p.goto(_hub(site).as_uri())
        controls = p.locator(".rk-top a:not(.rk-skip), .rk-top input, .rk-top button")
        boxes = []
        for k in range(controls.count()):
            c = controls.nth(k)
            box = c.bounding_box()
            assert box is not None and box["width"] > 0, c.inner_text()
            boxes.append((c.get_attribute("href") or c.get_attribute("id") or "?", box))
        assert len(boxes) >= 5                   # the name, the kinds, Graph, the search, the toggle
        assert _overlaps(boxes) == []
        # all of it within the screen's width
        assert max(b["x"] + b["width"] for _, b in boxes) <= width + 0.5
        assert p.evaluate("document.documentElement.scrollWidth") <= width + 1
        ARTIFACTS.mkdir(parents=True, exist_ok=True)      # (for review: tests/artifacts/, not kept in git)
        p.screenshot(path=str(ARTIFACTS / f"vault-hub-{len(boxes) - 4}-kinds-{width}.png"), full_page=True)
        assert t.errors == []


@pytest.mark.parametrize("site", [HEADERS[2]], indirect=True, ids=["3-kinds"])
def test_local_graph_labels_stay_inside_the_drawing(site, browser):
    with Tab(browser, width=1280, height=900) as t:
        p = t.page
        p.goto(_hub(site).as_uri())
        p.locator("#rk-local-graph svg text").first.wait_for()
        svg = p.locator("#rk-local-graph svg").bounding_box()
        texts = p.locator("#rk-local-graph svg text")
        assert texts.count() == 13
        for k in range(texts.count()):
            label = texts.nth(k)
            box = label.bounding_box()
            assert box["x"] >= svg["x"] - 0.5 and box["x"] + box["width"] <= svg["x"] + svg["width"] + 0.5, \
                (label.text_content(), box, svg)
            assert "/" not in label.text_content()
        # the whole title is each node's tooltip
        tips = p.locator("#rk-local-graph svg a > title").all_text_contents()
        assert "Neighbour number 3 with a long title" in tips
        assert t.errors == []


def test_a_hover_preview_names_a_note_by_its_title_not_its_path(site, browser):
    """The preview of a note whose id is its path ("Deep/Folder/Neighbour
    number 0 ...") heads it with its kind and its title, not the path (nor
    a "no status" it never had)."""
    with Tab(browser) as t:
        t.page.goto(_hub(site).resolve().as_uri(), wait_until="load")
        t.page.hover(".rk-body a.rk-ref >> nth=0")
        box = t.page.locator("#rk-preview")
        box.wait_for(state="visible", timeout=5000)
        head = box.locator(".pv-kind").text_content().casefold()     # (shown in capitals)
        assert "deep/folder" not in head and "no status" not in head, head
        assert "Neighbour number" in box.locator(".pv-title").inner_text()
        assert t.errors == [], t.errors
