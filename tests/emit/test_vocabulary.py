"""The record's vocabulary comes from its schema everywhere the graph is
drawn: the graph page (its embedded index, its legend, its faint and
lighter statuses) and the DOT export, for a vault whose kinds, statuses and
relations are not the research ones.  Run through the real CLI."""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest

from browser import PageProbe, require_chromium, launch_chromium
from conftest import run_cli, write
from recordkit.views.index import PALETTE

#: a log of decisions: ADR (no colour in the schema), PERSON (a colour, but
#: no record uses it); superseded and deprecated are broken; proposed is
#: drawn lighter; one relation, coloured by the schema
SCHEMA = """\
replace: true
id_pattern: '^(?P<kind>[A-Z]+)-(?P<number>[0-9]{3,})$'
fields:
  id: {type: string, required: true}
  title: {type: string, required: true}
  status: {type: string, required: true}
  tags: {type: array, items: {type: string}, list: true}
kinds:
  ADR:
    statuses: [proposed, accepted, superseded, deprecated]
  PERSON:
    statuses: [active]
    color: '#123456'
broken_statuses: [deprecated, superseded]
graph:
  tentative_statuses: [proposed]
relations:
  supersedes:
    from: [ADR]
    to: [ADR]
    color: '#aa3300'
  decided_by:
    from: [ADR]
    to: [PERSON]
"""


def vault(tmp_path: Path) -> Path:
    write(tmp_path, "recordkit.toml", 'root = "decisions"\nschema = "schema.yaml"\n')
    write(tmp_path, "schema.yaml", SCHEMA)
    write(tmp_path, "decisions/ADR-001.md", "---\nid: ADR-001\ntitle: Use Markdown\nstatus: superseded\n---\n")
    write(tmp_path, "decisions/ADR-002.md", "---\nid: ADR-002\ntitle: Use MADR\nstatus: accepted\n"
                                            "supersedes: [ADR-001]\n---\n")
    write(tmp_path, "decisions/ADR-003.md", "---\nid: ADR-003\ntitle: Use a database\nstatus: proposed\n---\n")
    # a file whose id gives no kind: drawn as "(no kind)", never as a kind "readme"
    write(tmp_path, "decisions/readme.md", "---\nid: readme-notes\ntitle: About this log\nstatus: active\n---\n")
    return tmp_path


def embedded_index(html: str) -> dict:
    m = re.search(r'<script type="application/json" id="rk-data">(.*?)</script>', html, re.S)
    assert m, "no rk-data element"
    return json.loads(m.group(1))


def palette_color(name: str) -> str:
    return PALETTE[int(hashlib.sha1(name.encode()).hexdigest()[:8], 16) % len(PALETTE)]


def test_page_index_takes_colours_and_statuses_from_the_schema(tmp_path):
    root = vault(tmp_path)
    proc = run_cli("graph", "--html", "g.html", cwd=root)
    assert proc.returncode == 0, proc.stderr
    data = embedded_index((root / "g.html").read_text(encoding="utf-8"))
    meta = data["meta"]
    # every kind of the schema, and nothing else: no kind made from an id prefix
    assert set(meta["kinds"]) == {"ADR", "PERSON"}
    assert meta["kinds"]["ADR"]["color"] == palette_color("ADR")       # no colour: the palette, by name
    assert meta["kinds"]["PERSON"]["color"] == "#123456"
    # faint: the broken statuses, in the order the schema's kinds list them; lighter: the graph's
    assert meta["faded_statuses"] == ["superseded", "deprecated"]
    assert meta["tentative_statuses"] == ["proposed"]
    assert meta["relations"]["supersedes"]["color"] == "#aa3300"
    assert "color" not in meta["relations"]["decided_by"]
    kinds = {n["id"]: n["kind"] for n in data["nodes"]}
    assert kinds["readme-notes"] is None and kinds["ADR-001"] == "ADR"


def test_research_schema_fades_what_the_page_faded_before(tmp_path):
    write(tmp_path, "recordkit.toml", 'root = "records"\n')
    write(tmp_path, "records/LIT-001.md", "---\nid: LIT-001\ntitle: t\nstatus: set-aside\nauthors: [a]\nyear: 1\n---\n")
    proc = run_cli("graph", "--html", "g.html", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    meta = embedded_index((tmp_path / "g.html").read_text(encoding="utf-8"))["meta"]
    assert meta["faded_statuses"] == ["set-aside", "retired", "rejected", "refuted", "dropped"]
    assert meta["tentative_statuses"] == ["queued", "draft"]


def test_dot_fills_every_kind_with_its_colour(tmp_path):
    root = vault(tmp_path)
    proc = run_cli("graph", "--format", "dot", "-o", "g.dot", cwd=root)
    assert proc.returncode == 0, proc.stderr
    dot = (root / "g.dot").read_text(encoding="utf-8")
    fills = dict(re.findall(r'^"?([\w-]+)"? \[.*?fillcolor="([^"]+)"', dot, re.M))
    assert fills["ADR-001"] == fills["ADR-002"] == palette_color("ADR")
    assert fills["readme-notes"] == "#dddddd"      # no kind: the one grey


@pytest.fixture(scope="module")
def browser():
    require_chromium()
    with launch_chromium() as b:
        yield b


def test_legend_lists_only_what_the_record_uses(tmp_path, browser):
    root = vault(tmp_path)
    assert run_cli("graph", "--html", "g.html", cwd=root).returncode == 0
    probe = PageProbe(browser)
    try:
        page = probe.open(root / "g.html")
        kinds = page.eval_on_selector_all("#rk-f-kind label", "ls => ls.map(l => l.dataset.kind)")
        assert kinds == ["ADR", "(no kind)"]                 # PERSON has no record: not listed
        rels = page.eval_on_selector_all("#rk-f-rel label", "ls => ls.map(l => l.dataset.rel)")
        assert rels == ["supersedes"]                        # decided_by and mentions are unused
        swatch = page.evaluate("getComputedStyle(document.querySelector("
                               "'#rk-f-kind [data-kind=\"ADR\"] .rk-dot')).backgroundColor")
        r, g, b = (int(palette_color("ADR")[i:i + 2], 16) for i in (1, 3, 5))
        assert swatch == f"rgb({r}, {g}, {b})"
        assert page.inner_text("#rk-status-note") == "Faint: superseded; lighter: proposed."
        looks = page.evaluate("['ADR-001', 'ADR-002', 'ADR-003'].map(recordkitGraph.statusLook)")
        assert looks == ["faded", "normal", "tentative"]
        assert page.evaluate("recordkitGraph.kindOf('readme-notes')") == "(no kind)"
        # no record has a standing (no lifecycle kind): only the status note is there
        assert page.eval_on_selector_all("#rk-legend-standing > div:not(.rk-note)", "ds => ds.length") == 0
        assert probe.errors == [], probe.errors
    finally:
        probe.close()
