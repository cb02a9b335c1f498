"""Where a vault's pages are (``site.urls``: Quartz's and Obsidian Publish's
URLs, so that links to a site those tools made keep working), the alias
redirects, and the explorer (a vault's folders on every page, one data file
for the whole tree, a page per folder): built through the CLI, read from
the files written (docs/site.md, "URLs", "The explorer")."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path
from urllib.parse import unquote

import pytest
from click.testing import CliRunner

from site_fixtures import crawl

#: a small vault written for these tests: names with spaces, "&", "%",
#: "#", a folder's index.md, aliases (one of them the path of another
#: note: no redirect may replace a page), numbers that sort by value
VAULT = {
    "Home.md": "---\naliases: [Notes/Zettelkasten, Start here]\n---\nSee [[Spaced repetition]] and [[Note 10]].\n",
    "Notes/Spaced repetition.md": "---\naliases: [SRS]\ntags: [memory]\n---\n# Spaced repetition\n\n"
                                  "Pairs well with [[Zettelkasten]] and [[R&D 100% plan]].\n",
    "Notes/Zettelkasten.md": "Slip boxes. Back to [[Home]].\n",
    "Notes/Numbers/Note 10.md": "ten\n",
    "Notes/Numbers/Note 2.md": "two\n",
    "Notes/Numbers/note 1.md": "one\n",
    "Projects/index.md": "---\ntitle: All projects\n---\nThe projects. [[R&D 100% plan]]\n",
    "Projects/R&D 100% plan.md": "---\npermalink: rnd\n---\nThe plan, linked from [[Spaced repetition#Spaced repetition]].\n",
    "archive/Zebra.md": "z\n",
}


def _vault(base: Path, urls: str | None, site_url: bool = False) -> Path:
    for rel, text in VAULT.items():
        p = base / "vault" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    toml = 'root = "."\nschema = "preset:obsidian"\n'
    if site_url:
        toml += 'site_url = "https://garden.example.org/"\n'
    if urls:
        toml += f'\n[site]\nurls = "{urls}"\n'
    (base / "vault" / "recordkit.toml").write_text(toml, encoding="utf-8")
    return base / "vault"


def cli(folder: Path, *args) -> tuple[int, str]:
    """``recordkit ARGS`` run in ``folder``, in this process."""
    from recordkit.cli import main
    here = os.getcwd()
    os.chdir(folder)
    try:
        res = CliRunner().invoke(main, list(args), catch_exceptions=False, env={"RECORDKIT_CLEAN_EXIT": "1"})
    finally:
        os.chdir(here)
    return res.exit_code, res.output


def _build(base: Path, urls: str | None, site_url: bool = False) -> tuple[Path, str]:
    folder = _vault(base, urls, site_url)
    code, out = cli(folder, "build", "-o", str(base / "site"))
    assert code == 0, out
    return base / "site", out


@pytest.fixture(scope="module")
def quartz(tmp_path_factory):
    return _build(tmp_path_factory.mktemp("quartz"), "quartz", site_url=True)


def _body(page: Path) -> str:
    text = page.read_text(encoding="utf-8")
    return text[text.find('class="rk-body"'):text.find('class="rk-aside"')]


def test_quartz_slugs_of_paths_as_quartz_makes_them():
    from recordkit.emit.site.urls import quartz_slug
    # examples worked out from Quartz 4's rules (spaces "-", "&" "-and-",
    # "%" "-percent", "?" and "#" dropped, case kept, "_index" is "index")
    assert quartz_slug("note with spaces") == "note-with-spaces"
    assert quartz_slug("Notes/Big Idea") == "Notes/Big-Idea"
    assert quartz_slug("test/special chars?") == "test/special-chars"
    assert quartz_slug("test/special chars #3") == "test/special-chars-3"
    assert quartz_slug("cool/what about r&d?") == "cool/what-about-r-and-d"
    assert quartz_slug("growth 100%") == "growth-100-percent"
    assert quartz_slug("notes.with.dots") == "notes.with.dots"
    assert quartz_slug("docs/_index") == "docs/index"
    assert quartz_slug("tab\there") == "tab-here"
    from recordkit.emit.site.urls import href, publish_slug
    assert publish_slug("Getting started/Create a vault") == "Getting+started/Create+a+vault"
    # a link holds a file's name with what a URL cannot hold encoded
    assert href("R&D+100%+plan #2.html") == "R&D+100%25+plan%20%232.html"


def test_quartz_pages_are_where_quartz_puts_them(quartz):
    site, out = quartz
    assert (site / "Notes" / "Spaced-repetition.html").is_file()
    assert (site / "Notes" / "Numbers" / "Note-10.html").is_file()
    assert (site / "Projects" / "R-and-D-100-percent-plan.html").is_file()
    # a folder's index.md is the folder's page (Quartz's /Projects/)
    assert "The projects." in (site / "Projects" / "index.html").read_text(encoding="utf-8")
    # links between pages are relative to each page's own folder
    body = _body(site / "Notes" / "Spaced-repetition.html")
    assert 'href="../Notes/Zettelkasten.html"' in body
    assert 'href="../Projects/R-and-D-100-percent-plan.html"' in body
    assert 'href="../Home.html"' in _body(site / "Notes" / "Zettelkasten.html")
    # a link to a heading of another page keeps its anchor
    assert re.search(r'href="\.\./Notes/Spaced-repetition\.html#[^"]+"',
                     _body(site / "Projects" / "R-and-D-100-percent-plan.html"))
    # the head's links (styles, scripts, the home page) reach the top from any depth
    deep = (site / "Notes" / "Numbers" / "Note-2.html").read_text(encoding="utf-8")
    assert 'href="../../assets/site.css"' in deep and 'data-root="../../"' in deep


def test_alias_redirects_lead_to_the_page_and_never_replace_one(quartz):
    site, out = quartz
    page = (site / "SRS.html").read_text(encoding="utf-8")
    assert '<meta http-equiv="refresh" content="0; url=Notes/Spaced-repetition.html">' in page
    assert '<link rel="canonical" href="Notes/Spaced-repetition.html">' in page
    assert '<a href="Notes/Spaced-repetition.html">' in page
    assert (site / "Start-here.html").is_file()
    # Quartz's permalink is one more redirect
    assert "url=Projects/R-and-D-100-percent-plan.html" in (site / "rnd.html").read_text(encoding="utf-8")
    # Home's alias "Notes/Zettelkasten" is a real page: kept, and said
    assert "Slip boxes" in (site / "Notes" / "Zettelkasten.html").read_text(encoding="utf-8")
    assert re.search(r'warning: alias "Notes/Zettelkasten" of Home: Notes/Zettelkasten\.html is the page of '
                     r'Notes/Zettelkasten', out), out


def test_quartzs_tag_urls_lead_to_the_tag_pages(quartz):
    """``tags/memory`` and ``tags/index`` (where Quartz puts its tag pages and
    their index) redirect to this site's, so links to a Quartz site's tags
    keep working."""
    site, _ = quartz
    page = (site / "tags" / "memory.html").read_text(encoding="utf-8")
    target = re.search(r'url=([^"]+)"', page).group(1)
    assert target.startswith("../tag/") and (site / "tags" / target).resolve().is_file(), target
    assert 'url=../tags.html"' in (site / "tags" / "index.html").read_text(encoding="utf-8")


def test_search_graph_sitemap_and_feed_use_the_pages_urls(quartz):
    site, _ = quartz
    files = {p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file()}
    search = (site / "assets" / "search-index.js").read_text(encoding="utf-8")
    docs = json.loads(search[search.find("{"):search.rfind("}") + 1])["docs"]
    urls = {d[4] for d in docs}
    assert "Notes/Spaced-repetition.html" in urls
    assert all(unquote(u) in files for u in urls), urls - files
    graph = (site / "graph.html").read_text(encoding="utf-8")
    assert "Notes/Spaced-repetition.html" in graph
    sitemap = (site / "sitemap.xml").read_text(encoding="utf-8")
    locs = re.findall(r"<loc>https://garden\.example\.org/([^<]*)</loc>", sitemap)
    assert "Notes/Spaced-repetition.html" in locs
    assert all(unquote(u) in files for u in locs)
    feed = (site / "feed.xml").read_text(encoding="utf-8")
    assert all(unquote(u) in files for u in re.findall(r'href="https://garden\.example\.org/([^"]+)"', feed))


@pytest.mark.parametrize("urls", ["recordkit", "quartz", "obsidian-publish"])
def test_no_broken_link_in_any_url_style(tmp_path, urls):
    site, _ = _build(tmp_path, urls)
    found = crawl(site)
    assert found["broken"] == [], found["broken"][:10]
    assert len(found["pages"]) > 10


def test_obsidian_publish_urls_keep_case_and_write_spaces_as_plus(tmp_path):
    site, _ = _build(tmp_path, "obsidian-publish")
    assert (site / "Notes" / "Spaced+repetition.html").is_file()
    # permalink: is the note's URL on Publish
    assert (site / "rnd.html").is_file() and not (site / "Projects" / "R&D+100%+plan.html").exists()
    body = _body(site / "Notes" / "Spaced+repetition.html")
    assert 'href="../rnd.html"' in body
    assert 'href="../Notes/Zettelkasten.html"' in body


def test_a_quartz_vault_gets_quartz_urls_and_init_writes_the_setting(tmp_path):
    folder = _vault(tmp_path, None)
    (tmp_path / "quartz.config.ts").write_text("const config = { configuration: {} }\nexport default config\n",
                                               encoding="utf-8")
    code, out = cli(folder, "build", "-o", str(tmp_path / "site"))
    assert code == 0, out
    assert (tmp_path / "site" / "Notes" / "Spaced-repetition.html").is_file()
    (folder / "recordkit.toml").unlink()
    code, out = cli(folder, "init", "--infer", ".")
    assert code == 0, out
    assert 'urls = "quartz"' in (folder / "recordkit.toml").read_text(encoding="utf-8")


def test_explorer_is_one_file_and_each_page_holds_only_its_folders(quartz):
    site, _ = quartz
    page = (site / "Notes" / "Numbers" / "Note-2.html").read_text(encoding="utf-8")
    nav = page[page.find('<nav class="rk-explorer"'):]
    nav = nav[:nav.find("</nav>")]
    assert 'data-page="Notes/Numbers/Note-2.html"' in nav
    assert re.findall(r'href="([^"]+)"', nav) == ["../../folders.html", "../../Notes/index.html",
                                                  "../../Notes/Numbers/index.html"]
    # no other note's name on the page: the tree is not copied into each one
    assert "Zebra" not in page and "Note-10" not in page
    js = (site / "assets" / "explorer.js").read_text(encoding="utf-8")
    tree = json.loads(js[len("RK.explorer("):-len(");\n")])
    # folders first, then notes; by name, case-insensitive, numbers by value
    # (a folder with its own note is named by that note's title, as in Quartz)
    assert [e[0] for e in tree] == ["All projects", "archive", "Notes", "Home"]
    notes = tree[2][2]
    assert [e[0] for e in notes] == ["Numbers", "Spaced repetition", "Zettelkasten"]
    assert [e[0] for e in notes[0][2]] == ["note 1", "Note 2", "Note 10"]
    assert notes[0][2][2][1] == "Notes/Numbers/Note-10.html"
    assert tree[0][1] == "Projects/index.html"      # the folder's own note is its page


def test_folder_pages_list_notes_and_subfolders(quartz):
    site, _ = quartz
    notes = (site / "Notes" / "index.html").read_text(encoding="utf-8")
    main = notes[notes.find("<h1>"):notes.find('<aside')]
    assert re.findall(r'href="([^"]+)"', main) == ["../Notes/Numbers/index.html", "../Notes/Spaced-repetition.html",
                                                   "../Notes/Zettelkasten.html"]
    top = (site / "folders.html").read_text(encoding="utf-8")
    assert 'href="archive/index.html"' in top and 'href="Home.html"' in top


def test_a_research_record_has_no_explorer_unless_asked(tmp_path):
    (tmp_path / "records" / "lit").mkdir(parents=True)
    (tmp_path / "records" / "lit" / "LIT-001.md").write_text(
        "---\nid: LIT-001\ntitle: A paper\nstatus: queued\n---\nBody.\n", encoding="utf-8")
    (tmp_path / "recordkit.toml").write_text('root = "records"\n', encoding="utf-8")
    code, out = cli(tmp_path, "build", "-o", str(tmp_path / "site"))
    assert code == 0, out
    page = (tmp_path / "site" / "lit" / "LIT-001.html").read_text(encoding="utf-8")
    assert "rk-explorer" not in page
    assert not (tmp_path / "site" / "assets" / "explorer.js").exists()
    # unless asked for; a record moved to another folder shows its new folders
    (tmp_path / "recordkit.toml").write_text('root = "records"\n[site]\nexplorer = true\n', encoding="utf-8")
    code, out = cli(tmp_path, "build", "-o", str(tmp_path / "site"))
    assert code == 0, out
    page = (tmp_path / "site" / "lit" / "LIT-001.html").read_text(encoding="utf-8")
    assert 'href="../folder/lit.html">lit</a>' in page
    (tmp_path / "records" / "lit" / "old").mkdir()
    (tmp_path / "records" / "lit" / "LIT-001.md").rename(tmp_path / "records" / "lit" / "old" / "LIT-001.md")
    code, out = cli(tmp_path, "build", "-o", str(tmp_path / "site"))
    assert code == 0, out
    page = (tmp_path / "site" / "lit" / "LIT-001.html").read_text(encoding="utf-8")
    assert 'href="../folder/lit-old-' in page
    assert crawl(tmp_path / "site")["broken"] == []


def test_switching_styles_and_editing_rebuild_every_link(tmp_path):
    site, _ = _build(tmp_path, "recordkit")
    assert (site / "note").is_dir()
    folder = tmp_path / "vault"
    toml = (folder / "recordkit.toml").read_text(encoding="utf-8").replace('"recordkit"', '"quartz"')
    (folder / "recordkit.toml").write_text(toml, encoding="utf-8")
    code, out = cli(folder, "build", "-o", str(site))
    assert code == 0, out
    assert not (site / "note").exists()                 # the old style's pages are gone
    assert crawl(site)["broken"] == []
    # an incremental build after a rename: the linking pages follow the page
    (folder / "Notes" / "Zettelkasten.md").rename(folder / "Notes" / "Slip box.md")
    text = (folder / "Notes" / "Spaced repetition.md").read_text(encoding="utf-8")
    (folder / "Notes" / "Spaced repetition.md").write_text(text.replace("[[Zettelkasten]]", "[[Slip box]]"),
                                                            encoding="utf-8")
    code, out = cli(folder, "build", "-o", str(site))
    assert code == 0, out
    assert 'href="../Notes/Slip-box.html"' in _body(site / "Notes" / "Spaced-repetition.html")
    # the old page is gone: Home's alias "Notes/Zettelkasten" is a redirect there now
    assert "url=../Home.html" in (site / "Notes" / "Zettelkasten.html").read_text(encoding="utf-8")
    assert "Slip box" in (site / "assets" / "explorer.js").read_text(encoding="utf-8")
    assert crawl(site)["broken"] == []


def test_bad_settings_are_said_with_their_place(tmp_path):
    folder = _vault(tmp_path, "wordpress")
    code, out = cli(folder, "build", "-o", str(tmp_path / "site"))
    assert code != 0 and "site.urls must be one of" in out and "recordkit.toml" in out
    assert "Traceback" not in out


@pytest.mark.browser
def test_the_explorer_in_a_browser_opens_the_pages_folders_and_marks_the_page(quartz):
    from browser import Tab, launch_chromium
    site, _ = quartz
    with launch_chromium() as b, Tab(b) as t:
        p = t.page
        p.goto((site / "Notes" / "Numbers" / "Note-2.html").as_uri())
        p.wait_for_selector("#rk-explorer .rk-tree")
        current = p.locator("#rk-explorer a[aria-current='page']")
        assert current.count() == 1 and current.inner_text() == "Note 2"
        opened = p.eval_on_selector_all("#rk-explorer details[open] > summary", "els => els.map(e => e.innerText)")
        assert opened == ["Notes", "Numbers"]
        assert p.locator("#rk-explorer details:not([open]) > summary", has_text="archive").count() == 1
        # a folder opens and closes with a click on its summary (not on its link)
        p.locator("#rk-explorer details > summary", has_text="archive").click(position={"x": 2, "y": 5})
        assert p.locator("#rk-explorer details[open] > summary", has_text="archive").count() == 1
        p.locator("#rk-explorer a", has_text="Zebra").click()
        p.wait_for_url("**/archive/Zebra.html")
        assert t.errors == []


def test_two_notes_at_one_url_both_get_a_page_and_a_warning(tmp_path):
    for rel, text in {"a b.md": "one [[a-b]]\n", "a-b.md": "two [[a b]]\n", "A B.md": "three\n",
                      "tag/x.md": "under the site's tag folder\n", "graph.md": "a note called graph\n"}.items():
        (tmp_path / "v" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "v" / rel).write_text(text, encoding="utf-8")
    (tmp_path / "v" / "recordkit.toml").write_text('root = "."\nschema = "preset:obsidian"\n[site]\nurls = "quartz"\n',
                                                   encoding="utf-8")
    code, out = cli(tmp_path / "v", "build", "-o", str(tmp_path / "site"))
    assert code == 0, out
    site = tmp_path / "site"
    texts = sorted((site / n).read_text(encoding="utf-8").count(w) > 0 and w
                   for n, w in (("A-B.html", "three"), ("a-b-2.html", "one"), ("a-b-3.html", "two")))
    assert texts == ["one", "three", "two"]
    assert "under the site" in (site / "_tag" / "x.html").read_text(encoding="utf-8")
    assert "a note called graph" in (site / "graph-2.html").read_text(encoding="utf-8")
    assert "warning: the page of a b would be a-b.html, where the page of A B is: it is at a-b-2.html" in out
    assert crawl(site)["broken"] == []
