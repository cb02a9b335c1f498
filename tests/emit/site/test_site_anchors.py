"""The headings and blocks a link can name (``markdown.native.anchors``)
are one answer for the site and the lint (RK309): the site's decision
(``BodyRenderer.section``, a link kept or sent to the page's top) and the
ids its pages hold agree with it on drawn messy bodies (hypothesis)."""
from __future__ import annotations

import pytest
import html
import re

from hypothesis import given, settings, strategies as st

from recordkit.markdown.anchors import anchor, slugify
from recordkit.markdown.native import anchors as body_anchors
from recordkit.emit.site.markdown import BodyRenderer

ID_RE = re.compile(r"(?:NOTE|LIT)-[0-9]{3,}(?![\w-])")

#: headings of every shape the site reads (a link, an entity in a heading:
#: the test below)
HEADINGS = ["# Results", "## Results", "## results", "### Results, in short", "## `code` heading",
            "## *Emphasis* here", "## Heading ^h", "Setext\n---", "Setext two\n===", "## Ünïcödé heading",
            "## NOTE-123 mention", "## [[NOTE-123]] link", "## [[NOTE-123#^b1|label]] link", "## $x^2$ math",
            "##", "## !!!", "#NoSpace", "    # indented code", "> ## Quoted heading", "- ## List heading",
            "## Results 1", "## Trailing hashes ##", "## snake_case_name", "## A -- B", "## ~~struck~~ out",
            "## See [the paper](https://example.org)", "## A &amp; B", "## ![a figure](f.png) shown",
            "## Noted[^1]", "## <b>raw</b> html"]
BLOCKS = ["text ^b1", "^b1", "^b2", "- item ^b2", "  - nested ^b3", "| a | b |\n|---|---|\n| 1 | 2 |",
          "> quote ^q", "```\ncode ^b1\n## Fenced\n```", "x ^2", "*em* ^b5", "$x$ ^b6", "`code` ^b7",
          "see NOTE-123 ^b8", "tail ^NOTE-123", "![[NOTE-123#^b2]]", "![[NOTE-123]] ^b9", "[^1]: foot ^b10",
          "text\n^b1", "$$\n## Math\n$$", "1. one ^b4", "^", "a^b1", "^b9 ^b10", "[[#Results]] ^b11",
          "<!-- ^b12 -->", "", "plain words", "[x](#Results)", "[y](#nope)", "[z](#^b1)", "[[#Nope]]",
          "[w](<#^b2>)", "[[#^b3|label]]", "a claim[^1]", "[f](#fn1)", "[g](#fnref1)", "[h](#fn2)"]
SEPS = ["\n", "\n\n", " ", "\r\n"]


def _renderer():
    return BodyRenderer(ID_RE, lambda rid: ("link", f"note/{rid}.html", "NOTE") if rid else ("dangling",))


@pytest.mark.slow
def test_the_site_and_the_lint_see_the_same_anchors_on_messy_bodies():
    r = _renderer()

    @settings(max_examples=400, deadline=None)
    @given(st.lists(st.tuples(st.sampled_from(HEADINGS + BLOCKS), st.sampled_from(SEPS)), max_size=14),
           st.lists(st.sampled_from(["Nope", "^nope", "section", "RESULTS", " Results ", "results-1", "^b1 "]),
                    max_size=3))
    def check(parts, extra):
        from recordkit.markdown.blocks import without_comments
        raw = "".join(p + s for p, s in parts)
        got = body_anchors(raw, ID_RE)
        assert r.anchors(raw) == got          # the site asks what the lint asks
        # the page shows the body without its comments (views.shown_body), and
        # the anchors are that body's (a heading or block id in a comment is on
        # no page; a comment line after a block id no longer hides it)
        body = without_comments(raw)
        assert body_anchors(body, ID_RE) == got
        rendered = r.render(body)
        ids = set(re.findall(r'(?<![\w-])id="([^"]+)"', rendered.html))
        # the blocks: exactly the block ids of the page
        assert got.blocks == {i for i in ids if i.startswith("^")}
        # every link to a part of the page itself lands on an id of it (but
        # the footnote plugin's own back-links: a footnote defined twice
        # whose first definition held the reference links back to nothing,
        # as in markdown-it-py itself)
        for href in re.findall(r'<a href="#([^"]*)"(?! class="footnote-backref")', rendered.html) + \
                re.findall(r'<a class="rk-ref" href="#([^"]*)"', rendered.html):
            assert html.unescape(href) in ids, (href, ids)
        assert len(got.headings) == len(rendered.headings)
        texts = [t for _, t, _ in rendered.headings]
        frags = set(extra) | set(got.headings) | {h.upper() for h in texts} | {slugify(h) for h in texts} \
            | set(re.findall(r"\^[A-Za-z0-9-]*", body)) | {s for _, _, s in rendered.headings}
        for f in frags:
            if not f.strip():
                continue
            has = got.has(f)
            # the site's decision (an embed's section, a link's anchor kept) is the same
            assert has == (r.section(body, f) is not None), f
            if has:
                assert anchor(f.strip()) in ids, (f, ids)     # a link the site keeps lands on an id
        # every heading's own id (the first of its slug) is one a link can
        # name, and so is its text (but one that starts with ``^``, which a
        # link reads as a block id)
        for _, text, slug in rendered.headings:
            if slug == slugify(text):
                assert got.has(slug) and (got.has(text) or text.strip().startswith("^")), (text, slug)
    check()


def test_a_heading_with_a_link_is_named_by_its_page_id():
    """A heading holding a link, an image or an entity is named by the text
    its id is made of (its page's text): ``[[X#See the paper]]`` lands on
    ``## See [the paper](u)`` (``id="see-the-paper"``), and ``[[X#A &amp; B]]``
    names no heading (the page's id is ``a-b``, from ``A & B``); the lint
    (RK309) and the embed of a section agree."""
    r = _renderer()
    body = "## See [the paper](https://example.org)\n\n## A &amp; B\n"
    got = body_anchors(body, ID_RE)
    ids = set(re.findall(r'(?<![\w-])id="([^"]+)"', r.render(body).html))
    assert ids == {"see-the-paper", "a-b"}
    assert got.has("See the paper") and r.section(body, "See the paper") is not None
    assert anchor("See the paper") in ids
    assert got.has("A & B") and anchor("A & B") in ids
    assert not got.has("A &amp; B") and r.section(body, "A &amp; B") is None


def test_a_tight_items_id_before_a_block_it_holds_has_its_lines():
    """``1. one ^b4`` then a block inside the item (an indented heading, a
    nested list): the walk gives the item the id, and its lines are known
    (hypothesis found the first: ``![[Note#^b4]]`` embedded nothing)."""
    from recordkit.markdown.native.walk import anchors, block_lines
    for body in ("1. one ^b4\n    # indented code\n", "- a ^b4\n  - nested\n- b\n"):
        assert "^b4" in anchors(body).blocks
        assert block_lines(body)[1]["^b4"] == (0, 2, True), body
    # a heading of a footnote no text refers to is on no page: no anchor
    # either (hypothesis again); of one referred to, it is
    assert anchors("[^1]: foot\n    # indented code\n").headings == ()
    assert anchors("x[^1]\n\n[^1]: foot\n    # indented code\n").headings == ("indented code",)
