"""A vault's site as its owner expects to read it (issue 34, "Presentation
for vaults"), through the real CLI (in process) on a small Obsidian vault
built once for the module:

- the title alone as a page's heading where the id is the file's path
  (``LIT-001: title`` kept where the author wrote the id), and a body's
  opening ``# Title`` not shown a second time;
- no Properties box on a note with no properties, no empty Status row;
- the site's title from the folder when none is set, ``init`` writing it;
- the vault's ``index.md``/``Home.md``/``README.md`` as the home page;
- statuses as written, inline Markdown of titles rendered (plain text in
  ``<title>`` and the search index);
- backlink snippets as plain text (no callout marker, no math source);
- local-graph labels: titles, short, never a path.
"""
from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from recordkit.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parent))
from site_fixtures import crawl  # noqa: E402

LIMITS = """\
---
title: "Limits of `f(x, y)` and *paths*"
status: "accepted; supersedes ADR-0045"
tags: [analysis]
---
Some text.

> [!tip] Read [[Functions of Several Variables]] first
> It defines $f(x, y)$ for every point.
"""

VAULT = {
    "Home.md": "# Welcome\n\nStart at [[Limits]]. HOMEWORD.\n",
    "README.md": "# About\n\nREADMEWORD, a readme the home note wins over.\n",
    "Notes/Functions of Several Variables.md":
        "# Functions of Several Variables\n\nA function of two variables, see [[Limits]].\n\n"
        "## Domains\n\nWhere it is defined.\n",
    "Notes/Limits.md": LIMITS,
    "Notes/Plain.md": "The limit $$\\lim_{(x,y)\\to(0,0)} f(x,y)$$ along [[Functions of Several Variables]] "
                      "differs, as [[A rather long title for a note about continuity]] says.\n",
    "Notes/A rather long title for a note about continuity.md":
        "Continuity: see [[Functions of Several Variables]] and [[Limits]].\n",
    # marks that never close, in a long title and a long first paragraph
    # (the preview's): read in linear time, or the build takes hours
    "Notes/Marks.md": "---\ntitle: '" + " *a*b" * 2000 + "'\n---\n" + "==a $$x \\frac{ <a [!b " * 12000
                      + "[[Plain]]\n",
}


def _cli(cwd: Path, *args) -> str:
    here = os.getcwd()
    os.chdir(cwd)
    try:
        res = CliRunner().invoke(main, list(args), catch_exceptions=False, env={"RECORDKIT_CLEAN_EXIT": "1"})
    finally:
        os.chdir(here)
    assert res.exit_code == 0, res.output
    return res.output


def _write(root: Path, files: dict) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    vault = tmp_path_factory.mktemp("pres") / "Calculus notes"
    _write(vault, VAULT)
    (vault / "recordkit.toml").write_text('root = "."\nschema = "preset:obsidian"\n', encoding="utf-8")
    out = vault.parent / "site"
    t = time.perf_counter()
    _cli(vault, "build", "-o", str(out))
    assert time.perf_counter() - t < 30      # (about a second; hours when a pattern is quadratic)
    return out


def _page(site: Path, stem: str) -> str:
    found = [p for p in (site / "note").glob("*.html") if p.name.startswith(stem)]
    assert len(found) == 1, (stem, sorted(p.name for p in (site / "note").iterdir()))
    return found[0].read_text(encoding="utf-8")


def _h1(page: str) -> str:
    return re.search(r'<header class="rk-head">.*?(<h1[^>]*>.*?</h1>)', page, re.S).group(1)


def _main(page: str) -> str:
    return page[page.index("<main"):page.index("</main>")]


def test_the_title_alone_is_the_heading_and_said_once(site):
    page = _page(site, "notes-functions-of-several-variables")
    # the page's heading is the title, not "Notes/Functions of Several Variables: Functions of ..."
    assert _h1(page) == '<h1 id="functions-of-several-variables">Functions of Several Variables</h1>'
    assert "<title>Functions of Several Variables · Calculus notes</title>" in page
    # the body's "# Functions of Several Variables" is not shown again; its anchor is the page heading's
    assert _main(page).count("<h1") == 1
    assert 'id="domains"' in page
    # other pages name it by its title too
    assert ">Functions of Several Variables</a>" in _page(site, "notes-limits")
    assert "Notes/Functions of Several Variables</a>" not in (site / "kind" / "note.html").read_text()


def test_research_ids_stay_before_the_title(tmp_path):
    from conftest import MINI_RECORD, write
    for rel, text in MINI_RECORD.items():
        write(tmp_path, rel, text)
    _cli(tmp_path, "build", "-o", str(tmp_path / "site"))
    lit = next((tmp_path / "site" / "lit").glob("LIT-001.html")).read_text()
    assert re.search(r'<h1><span class="rk-id">LIT-001</span>: \S', _h1(lit)), _h1(lit)
    assert "<title>LIT-001: " in lit


def test_no_empty_properties_box_or_row(site):
    page = _page(site, "notes-functions-of-several-variables")
    assert "rk-props" not in page and "<dt>Status</dt>" not in page
    limits = _page(site, "notes-limits")
    status = re.search(r"<dt>Status</dt>\s*<dd>(.*?)</dd>", limits, re.S).group(1)
    assert "accepted; supersedes ADR-0045</a>" in status     # the status as written, not "Accepted; ... adr-0045"


def test_site_title_defaults_to_the_folder(site):
    index = (site / "index.html").read_text()
    assert '<a class="rk-site" href="index.html">Calculus notes</a>' in index
    assert ">recordkit<" not in index


def test_init_writes_the_site_title_and_index_md_is_preferred(tmp_path):
    folder = tmp_path / "Field journal"
    _write(folder, {"index.md": "INDEXWORD: the garden's front page, see [[b]].\n",
                    "Home.md": "HOMEWORD\n", "readme.md": "READMEWORD\n", "b.md": "# b\n\nA note, ^b1\n"})
    said = _cli(folder, "init", "--infer", ".")
    assert "note(s)" not in said and re.search(r"\b1 note\b|\b\d+ notes\b", said), said
    toml = (folder / "recordkit.toml").read_text()
    assert '[site]' in toml and 'title = "Field journal"' in toml
    (folder / "recordkit.toml").write_text(toml.replace('"Field journal"', '"My \\"garden\\""'))
    _cli(folder, "build", "-o", str(tmp_path / "site"))
    index = (tmp_path / "site" / "index.html").read_text()
    assert "<title>My &#34;garden&#34;</title>" in index or "<title>My &quot;garden&quot;</title>" in index
    body = _main(index)
    assert "INDEXWORD" in body and "HOMEWORD" not in body and "READMEWORD" not in body
    assert "4 notes" in body and "(s)" not in body


def test_the_home_note_is_the_home_page(site):
    index = (site / "index.html").read_text()
    main = _main(index)
    # Home.md (over README.md), headed by its own "# Welcome", its links from the site's root
    assert "HOMEWORD" in main and "READMEWORD" not in main
    assert main.count("<h1") == 1 and '<h1 id="welcome">Welcome</h1>' in main
    assert re.search(r'<a class="rk-ref k-NOTE" href="note/notes-limits-[0-9a-f]+\.html"', main)
    assert 'href="note/Home.html"' in main              # the note's own page, still there
    assert "HOMEWORD" in (site / "note" / "Home.html").read_text()
    # then the site's lists, counted in notes
    assert "7 notes," in main and "(s)" not in main and "Notes by kind" in main
    assert crawl(site)["broken"] == []


def test_titles_render_their_inline_markdown(site):
    limits = _page(site, "notes-limits")
    assert _h1(limits) == "<h1>Limits of <code>f(x, y)</code> and <em>paths</em></h1>"
    assert "<title>Limits of f(x, y) and paths · Calculus notes</title>" in limits
    for page in ((site / "kind" / "note.html").read_text(), (site / "tag" / "analysis.html").read_text(),
                 _page(site, "notes-functions-of-several-variables")):
        assert "Limits of <code>f(x, y)</code> and <em>paths</em>" in page
        assert "`f(x, y)`" not in page
    index = (site / "assets" / "search-index.js").read_text()
    assert "Limits of f(x, y) and paths" in index and "`f(x, y)`" not in index


def test_backlink_snippets_are_plain_text(site):
    page = _page(site, "notes-functions-of-several-variables")
    snippets = re.findall(r'<blockquote class="rk-sentence">(.*?)</blockquote>', page, re.S)
    assert len(snippets) == 3, snippets
    text = " ".join(snippets)
    for raw in ("[!tip]", "[!", "$", "\\lim", "\\to", "[[", "]]", "{"):
        assert raw not in text, (raw, snippets)
    assert any(s.startswith("Read Functions of Several Variables first") for s in snippets), snippets
    assert any("lim_(x,y)→(0,0) f(x,y)" in s for s in snippets), snippets


def test_local_graph_labels_are_short_titles(site):
    page = _page(site, "notes-functions-of-several-variables")
    data = json.loads(re.search(r'<script type="application/json" id="rk-graph-data">(.*?)</script>',
                                page, re.S).group(1))
    labels = {n["id"]: n["label"] for n in data["nodes"]}
    assert labels["Notes/Functions of Several Variables"] == "Functions of Several…"
    assert labels["Notes/A rather long title for a note about continuity"] == "A rather long title…"
    assert labels["Notes/Plain"] == "Plain"
    for n in data["nodes"]:
        assert "/" not in n["label"] and len(n["label"]) <= 22
        assert n["title"] and "`" not in n["title"]          # the whole title: the tooltip
