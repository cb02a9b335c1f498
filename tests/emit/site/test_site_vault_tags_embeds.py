"""An Obsidian vault's tags and embeds on the site, through the CLI (`init
--preset obsidian`, `build`): a body's ``#tags`` link to the tag's page
(not in code, links, headings, URLs, words, nor ``#123``); ``#Tag`` and
``#tag`` are one tag (one page, listed and counted once), ``a/b`` is listed
under ``a``; an embed shows where Obsidian shows one (in a paragraph, on
consecutive lines, a section of the note itself, in a list item and a
callout), a cycle of embeds stays a link; previews show a tag as text.

One small vault, built once for the module (in this process)."""
from __future__ import annotations

import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

ALPHA = """---
tags: [Project]
---
# Alpha

Plain #project and #nested/tag, #tag-with_dash- end; #Project again.
Not a#word, not #123, not `#incode`, not [a link #inlink](https://example.org), not
https://example.org/page#frag, not \\#escaped, not **b**#glued.

## Method

Step one of the method.

## Embeds

Inline ![[Beta]] in the flow.
![[Beta#Sec]]
![[Gamma]]

- an item ![[Gamma]] after
- #listtag

> [!note] Called out
> ![[Beta]]

![[#Method]]

![[figure.png]] stays as it was.
"""

BETA = """Beta's body, tagged #Nested/Other.

## Sec

Section words, and back: ![[Alpha]]
"""

GAMMA = "Gamma's body with #PROJECT in capitals, beside [[Beta]].\n"


def _invoke(args, cwd: Path):
    from recordkit.cli import main
    here = os.getcwd()
    os.chdir(cwd)
    try:
        res = CliRunner().invoke(main, args, catch_exceptions=False, env={"RECORDKIT_CLEAN_EXIT": "1"})
    finally:
        os.chdir(here)
    return res


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    vault = tmp_path_factory.mktemp("vault")
    (vault / ".obsidian").mkdir()
    for name, text in (("Alpha.md", ALPHA), ("Beta.md", BETA), ("Gamma.md", GAMMA)):
        (vault / name).write_text(text, encoding="utf-8")
    res = _invoke(["init", "--preset", "obsidian", "."], vault)
    assert res.exit_code == 0, res.output
    res = _invoke(["build", "-q", "-o", "out"], vault)
    assert res.exit_code == 0, res.output
    return vault / "out"


def _body(page: str) -> str:
    """The page's rendered body (without the properties box, the aside)."""
    start = page.index('<div class="rk-body">')
    return page[start:page.index('<aside class="rk-aside">', start)]


def _read(site: Path, rel: str) -> str:
    return (site / rel).read_text(encoding="utf-8")


def test_inline_tags_link_to_the_tag_page(site):
    body = _body(_read(site, "note/Alpha.html"))
    links = re.findall(r'<a class="rk-tag" href="\.\./(tag/[^"]+)">#([^<]+)</a>', body)
    names = [n for _, n in links]
    assert names[:4] == ["project", "nested/tag", "tag-with_dash", "Project"]
    assert "listtag" in names
    # the same page the front-matter tag goes to, and the page is there
    urls = dict((n, u) for u, n in links)
    assert urls["project"] == urls["Project"] == "tag/project.html"
    for u, _ in links:
        assert (site / u).is_file(), u
    # what is no tag stays text
    for text in ("a#word", "#123", "<code>#incode</code>", "https://example.org/page#frag", "#escaped",
                 "</strong>#glued", ">a link #inlink</a>"):
        assert text in body, text
    for name in ("word", "123", "incode", "frag", "escaped", "glued", "inlink"):
        assert f">#{name}</a>" not in body, name
    # a heading is no tag, and keeps its id (the body's "# Alpha" repeats the
    # title: the page's own heading says it once and takes its id)
    assert '<h2 id="method">Method</h2>' in body
    assert re.search(r'<h1[^>]* id="alpha"', _read(site, "note/Alpha.html"))
    # a trailing "-" is not part of the tag
    assert 'tag-with_dash</a>- end' in body


def test_one_tag_whatever_its_case(site):
    """``Project`` (front matter), ``#project``, ``#Project``, ``#PROJECT``:
    one page, listed once in the index with both notes, spelt as most use it."""
    pages = sorted(p.name for p in (site / "tag").iterdir())
    assert [p for p in pages if p.startswith("project")] == ["project.html"]
    index = _read(site, "tags.html")
    listed = re.findall(r'<li><a class="rk-tag" href="(tag/[^"]+)">([^<]+)</a> <span class="rk-count">(\d+)</span>',
                        index)
    project = [x for x in listed if x[1].casefold() == "project"]
    assert project == [("tag/project.html", "Project", "2")]
    page = _read(site, "tag/project.html")
    assert 'href="../note/Alpha.html"' in page and 'href="../note/Gamma.html"' in page
    # the page's own Tags row names it once
    props = _read(site, "note/Alpha.html")
    row = props[props.index('<div class="rk-prop rk-prop-tags">'):]
    row = row[:row.index("</div>")]
    assert len(re.findall(r">project<", row, re.I)) == 1


def test_a_nested_tag_is_listed_under_its_parent(site):
    index = _read(site, "tags.html")
    assert re.search(r'href="tag/nested\.html">nested</a> <span class="rk-count">2</span>', index)
    page = _read(site, "tag/nested.html")
    assert 'href="../note/Alpha.html"' in page and 'href="../note/Beta.html"' in page


class _Nesting(HTMLParser):
    """Where a block element opens inside a paragraph (invalid HTML)."""

    BLOCKS = {"div", "p", "ul", "ol", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "details", "table", "pre"}

    def __init__(self):
        super().__init__()
        self.stack: list = []
        self.bad: list = []

    def handle_starttag(self, tag, attrs):
        if tag in self.BLOCKS and "p" in self.stack:
            self.bad.append((tag, list(self.stack)))
        if tag not in ("input", "br", "hr", "img", "meta", "link"):
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if tag in self.stack:
            while self.stack and self.stack.pop() != tag:
                pass


def test_embeds_show_where_obsidian_shows_them(site):
    page = _read(site, "note/Alpha.html")
    body = _body(page)
    boxes = re.findall(r'<div class="rk-embed-block( rk-embed-own)?"(?: data-id="([^"]+)")?>', body)
    # inline, the next two lines, the list item, the callout, the note's own section
    assert [b[1] or "own" for b in boxes] == ["Beta", "Beta", "Gamma", "Gamma", "Beta", "own"]
    assert "<p>Inline</p>\n<div" in body and "<p>in the flow.</p>" in body
    assert '<li>an item <div class="rk-embed-block" data-id="Gamma">' in body
    callout = body[body.index('data-callout="note"'):]
    assert callout.index('<div class="rk-embed-block" data-id="Beta">') < callout.index("</blockquote>")
    own = body[body.index("rk-embed-own"):]
    assert '<a class="rk-ref" href="#method">§ Method</a>' in own and "Step one of the method." in own
    # a cycle (Alpha embeds Beta, which embeds Alpha): one level, then a link
    assert body.count("Step one of the method.") == 2
    assert '<a class="rk-ref rk-embed k-NOTE" href="../note/Alpha.html" data-id="Alpha">Alpha</a>' in body
    # an attachment's embed is as before (another part of the site's work)
    assert "figure.png" in body and '<div class="rk-embed-block" data-id="figure.png"' not in body
    # valid: no block inside a paragraph
    checker = _Nesting()
    checker.feed(body)
    assert checker.bad == []


def test_previews_and_backlinks_show_a_tag_as_text(site):
    """The hover previews and the backlink sentences hold the body's
    words: a tag as ``#tag``, no link."""
    previews = "\n".join(p.read_text(encoding="utf-8") for p in (site / "assets" / "preview").glob("*.js"))
    assert "Gamma's body with #PROJECT in capitals" in previews and "rk-tag" not in previews
    beta = _read(site, "note/Beta.html")
    back = beta[beta.index('<section class="rk-backlinks"'):]
    back = back[:back.index("</section>")]
    assert "#PROJECT in capitals" in back and "rk-tag" not in back


def test_init_infer_counts_a_tag_once_whatever_its_case(tmp_path):
    """``init --infer`` on an Obsidian vault: ``Maths``, ``#maths`` and
    ``#MATHS`` are one distinct tag (three uses)."""
    (tmp_path / ".obsidian").mkdir()
    (tmp_path / "One.md").write_text("---\ntags: [Maths]\n---\nAbout #maths, see [[Two]].\n", encoding="utf-8")
    (tmp_path / "Two.md").write_text("Shouting #MATHS here.\n", encoding="utf-8")
    res = _invoke(["init", "--infer", "--dry-run", "."], tmp_path)
    assert res.exit_code == 0, res.output
    assert "preset:obsidian" in res.output, res.output
    assert "1 distinct tag (3 uses, 2 in the text)" in res.output, res.output


def test_a_tag_beside_an_id_mention_is_a_link_too(tmp_path):
    """A research record whose schema reads inline tags: in a run of text
    that holds a bare id mention, the tags before and after it link to
    their page as elsewhere (``LIT-001#x`` is no tag)."""
    from conftest import write_mini_record
    base = write_mini_record(tmp_path)
    (base / "schema.yaml").write_text("tags:\n  inline: true\n", encoding="utf-8")
    (base / "recordkit.toml").write_text('root = "records"\nchecks = "checks"\nschema = "schema.yaml"\n')
    (base / "records" / "note" / "NOTE-009.md").write_text("---\nid: NOTE-009\ntitle: Tags and mentions\nstatus: draft\n---\n\n"
                     "Before #alpha then LIT-001 and #beta, not LIT-001#gamma.\n", encoding="utf-8")
    res = _invoke(["build", "-q", "-o", "out"], base)
    assert res.exit_code == 0, res.output
    body = _body(_read(base / "out", "note/NOTE-009.html"))
    assert '<a class="rk-tag" href="../tag/alpha.html">#alpha</a> then <a class="rk-ref' in body
    assert 'and <a class="rk-tag" href="../tag/beta.html">#beta</a>, not' in body
    assert "#gamma." in body and ">#gamma<" not in body


def test_an_embeds_head_names_a_note_by_its_title_alone(site):
    """Where ids are file names, an embed's head is the note's title (a
    link), not "Beta: Beta" (the id, then the title again)."""
    body = _body(_read(site, "note/Alpha.html"))
    heads = re.findall(r'<p class="rk-embed-head">(.*?)</p>', body)
    assert heads and all("</a>: " not in h for h in heads), heads
    assert any(re.search(r'data-id="Beta">Beta</a>', h) for h in heads), heads
