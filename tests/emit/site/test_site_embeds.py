"""Embeds (``![[ID]]``, ``![[ID#Heading]]``) on the site: alone in its
paragraph an embed shows the embedded record's body (or that section) under
a link to it, one level deep; anywhere else, or of a record kept out or
missing, it is a mention like the others.  Pages that embed a record follow
its edits in incremental builds and serve."""
from __future__ import annotations

import pytest
import re
from pathlib import Path

from site_fixtures import copy_example

HOST = """---
id: NOTE-901
title: A note that embeds others
status: draft
---

## Embedded

![[LIT-849]]

Inline, ![[LIT-849]] is shown in the flow too.

![[THEORY-798#What is asserted]]

![[THEORY-798#No such heading]]

![[NOTE-902]]

![[NOTE-903]]

![[NOPE-404]]

![[NOTE-901]]
"""

NESTED = """---
id: NOTE-902
title: Embedded, and embedding in turn
status: draft
---

## A heading of its own

Nested words here <script>window.pwned = 1</script> and a link to [[LIT-849]].

![[LIT-874]]
"""

HIDDEN = """---
id: NOTE-903
title: Kept out of the site
status: draft
publish: false
---

Quixotic phrase only the hidden note holds.
"""


def _built(tmp_path: Path, extra: dict) -> Path:
    """The example record with the records ``extra`` added, built in one
    process: the site's folder."""
    from recordkit.config import load_config
    from recordkit.emit.site import build_site
    base = copy_example(tmp_path, with_results=False, extra=extra)
    build_site(load_config(base), base / "out", jobs=1)
    return base / "out"


def _build(base: Path, out: Path) -> str:
    from recordkit.config import load_config
    from recordkit.emit.site import build_site
    build_site(load_config(base), out, jobs=1)
    return (out / "note" / "NOTE-901.html").read_text(encoding="utf-8")


def test_an_embed_alone_in_its_paragraph_shows_the_record(tmp_path):
    base = copy_example(tmp_path, with_results=False,
                        extra={"note/NOTE-901.md": HOST, "note/NOTE-902.md": NESTED, "note/NOTE-903.md": HIDDEN})
    page = _build(base, base / "out")
    blocks = re.findall(r'<div class="rk-embed-block" data-id="([^"]+)">', page)
    assert blocks == ["LIT-849", "LIT-849", "THEORY-798", "NOTE-902"]
    lit = (base / "records" / "lit" / "LIT-849.md").read_text(encoding="utf-8")
    assert "OpenReview forum SrC-nwieGJ" in lit and "OpenReview forum SrC-nwieGJ" in page
    # the section only: the heading asked for, not the one after it
    i = page.index('data-id="THEORY-798">\n')
    box = page[i:page.index('<div class="rk-embed-block" data-id="NOTE-902">')]
    assert "§ What is asserted" in box and "<h2>What is asserted</h2>" in box
    assert "What the record holds toward it" not in box
    # embedded headings keep no ids, and are not in the page's contents
    assert '<h2 id="embedded">Embedded</h2>' in page
    assert "<h2>A heading of its own</h2>" in page and 'href="#a-heading-of-its-own"' not in page
    # inline, as Obsidian shows it: the paragraph closed around the box (a
    # <div> cannot be in a <p>)
    assert '<p>Inline,</p>\n<div class="rk-embed-block" data-id="LIT-849">' in page
    assert "<p>is shown in the flow too.</p>" in page
    # a missing heading, a nested embed: links
    # (to the page's top: the page has no such heading to land on)
    assert '<p><a class="rk-ref rk-embed k-THEORY" href="../theory/THEORY-798.html" ' \
           'data-id="THEORY-798">THEORY-798</a></p>' in page
    assert '<p><a class="rk-ref rk-embed k-LIT" href="../lit/LIT-874.html" data-id="LIT-874">LIT-874</a></p>' in page
    # the embedded text is rendered as safely as any body
    assert "<script>window.pwned" not in page and "&lt;script&gt;window.pwned" in page
    # a record kept out: plain text, nothing of it; a missing one: dangling
    assert "Quixotic" not in page and "Kept out of the site" not in page
    assert "<p>NOTE-903</p>" in page
    assert '<span class="rk-dangling" title="No record NOPE-404 in this record">NOPE-404</span>' in page
    # itself: a link
    assert '<p><a class="rk-ref rk-embed k-NOTE" href="../note/NOTE-901.html" data-id="NOTE-901">NOTE-901</a></p>' \
        in page


@pytest.mark.slow
def test_a_page_that_embeds_a_record_follows_its_edits(tmp_path):
    """serve's rebuilds and fresh builds re-render the page that embeds a
    record when the record's body changes (and only its text), as a cold
    build does."""
    from test_site_incremental import _cold, _files, _Sites
    base = copy_example(tmp_path, with_results=False,
                        extra={"note/NOTE-901.md": HOST, "note/NOTE-902.md": NESTED, "note/NOTE-903.md": HIDDEN})
    sites = _Sites(base)
    sites.fresh()
    for n, (rid, words) in enumerate((("NOTE-902", "Zygomorphic words."), ("LIT-849", "Numbat words."))):
        p = sites.path(rid)
        p.write_text(p.read_text(encoding="utf-8") + f"\n{words}\n", encoding="utf-8")
        assert sites.server.build_once({str(p)})["ok"]
        sites.fresh()
        cold = _cold(base, tmp_path / f"cold-{n}")
        assert words.encode() in cold["note/NOTE-901.html"]
        assert _files(base / "served") == cold
        assert _files(base / "built") == cold


FOOTED = """---
id: NOTE-904
title: A note with footnotes of its own
status: draft
---

A claim with a source.[^1] And another.[^2]

[^1]: The embedded note's first footnote, Pangolin.
[^2]: Its second.
"""

HOST_FOOTNOTES = """---
id: NOTE-905
title: A note that embeds footnotes and a check
status: draft
---

The host's own remark.[^1]

![[NOTE-904]]

![[NOTE-738#Key results]]

![[NOTE-904]]

[^1]: The host's footnote, Aardvark.
"""


def _ids_and_fragments(page: str) -> tuple[list, list]:
    ids = re.findall(r'(?<![\w-])id="([^"]+)"', page)
    frags = re.findall(r'href="#([^"]+)"', page)
    return ids, frags


@pytest.mark.slow
def test_embedded_footnotes_and_checks_keep_to_their_box(tmp_path):
    """An embedded body's footnotes get ids of their own (two embeds of the
    same note too), so every footnote link on the page lands on its own
    note; an embedded check block shows its verdict as on its own page."""
    base = copy_example(tmp_path, with_results=True,
                        extra={"note/NOTE-904.md": FOOTED, "note/NOTE-905.md": HOST_FOOTNOTES})
    from recordkit.config import load_config
    from recordkit.emit.site import build_site
    build_site(load_config(base), base / "out", jobs=1)
    page = (base / "out" / "note" / "NOTE-905.html").read_text(encoding="utf-8")
    ids, frags = _ids_and_fragments(page)
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    fn_ids = [i for i in ids if i.startswith("fn")]
    assert len(fn_ids) == 2 * (1 + 2 + 2)         # the host's one, each embed's two: notes and references
    assert all(f in ids for f in frags if f.startswith("fn")), [f for f in frags if f not in ids]
    # each footnote reference points at the note holding the text it belongs to
    for ref, text in (("fn1", "Aardvark"), ("fn-e1-1", "Pangolin"), ("fn-e3-1", "Pangolin")):
        i = page.index(f'id="{ref}"')
        assert text in page[i:page.index("</li>", i)], ref
    # the check block of NOTE-738 embedded by its section: its verdict, as on its own page
    own = (base / "out" / "note" / "NOTE-738.html").read_text(encoding="utf-8")
    box = re.search(r'<div class="rk-verdict-box v-\w+">.*?check <code>var-diff-identity</code>.*?</div>', own).group()
    assert "v-pass" in box
    assert box in page
    assert "<!--rk-check:" not in page


@pytest.mark.slow
def test_a_page_that_embeds_a_check_follows_its_verdict(tmp_path):
    """When a check of an embedded body gets another result, serve's
    rebuild and a fresh build re-render the embedding page, as a cold build
    would."""
    import json
    from test_site_incremental import _files, _Sites
    base = copy_example(tmp_path, with_results=True,
                        extra={"note/NOTE-904.md": FOOTED, "note/NOTE-905.md": HOST_FOOTNOTES})
    sites = _Sites(base)
    sites.fresh()
    results = base / ".recordkit" / "checks.json"
    data = json.loads(results.read_text(encoding="utf-8"))
    text = json.dumps(data)
    assert '"var-diff-identity"' in text and '"pass"' in text
    entry = data["results"]["var-diff-identity"]
    entry["verdict"], entry["discrepancy"] = "fail", 0.5
    results.write_text(json.dumps(data), encoding="utf-8")
    assert sites.server.build_once({str(results)})["ok"]
    sites.fresh()
    cold = _cold_with_results(base, tmp_path / "cold")
    assert b"check <code>var-diff-identity</code>: <b>fail</b>" in cold["note/NOTE-905.html"]
    assert _files(base / "served") == cold
    assert _files(base / "built") == cold


def _cold_with_results(base: Path, out: Path) -> dict:
    """A cold build of ``base`` (a cache folder of its own, records loaded
    without the store) that reads the check results ``base``'s cache holds."""
    import shutil
    from recordkit.config import load_config
    from recordkit.corpus import load
    from recordkit.emit.site import build_site
    from test_site_incremental import _files
    cfg = load_config(base)
    results = Path(cfg.cache_dir) / "checks.json"
    cfg.cache_dir = out.parent / (out.name + "-cache")
    cfg.cache_dir.mkdir()
    shutil.copy(results, cfg.cache_dir / "checks.json")
    build_site(cfg, out, corpus=load(cfg.root, config=cfg), jobs=1)
    return _files(out)


BLOCKS = """---
id: NOTE-906
title: A note with block ids
status: draft
---

## Findings

The first finding, Okapi. ^first-finding

- a listed point, Quokka ^point
- another point
  over two lines

| a | b |
|---|---|
| 1 | 2 |

^table-one

The area grows as r ^2

# Heading ^kept
"""

HOST_BLOCKS = """---
id: NOTE-907
title: A note that links and embeds blocks
status: draft
---

## Links

See [[NOTE-906#^first-finding|the finding]], [[NOTE-906#Findings]], [[NOTE-906^point]] and [[#Links]].

![[NOTE-906#^point]]

![[NOTE-906#^table-one]]

![[NOTE-906^first-finding]]

![[NOTE-906#^no-such-block]]
"""


@pytest.mark.slow
def test_blocks_are_anchors_links_and_embeds(tmp_path):
    """Obsidian's block ids: a paragraph's (or list item's) trailing
    ``^name``, or a paragraph of the id alone after a table, leaves the text
    and becomes the block's id; ``[[Note#^name]]`` and ``[[Note#Heading]]``
    link to the block or heading on the note's page (every fragment lands on
    an id); ``![[Note#^name]]`` shows that block alone."""
    from site_fixtures import crawl
    out = _built(tmp_path, {"note/NOTE-906.md": BLOCKS, "note/NOTE-907.md": HOST_BLOCKS})
    own = (out / "note" / "NOTE-906.html").read_text(encoding="utf-8")
    assert '<p id="^first-finding">The first finding, Okapi.</p>' in own
    assert '<li id="^point">a listed point, Quokka</li>' in own
    assert '<table id="^table-one">' in own and "^table-one" not in own.replace('id="^table-one"', "")
    assert "The area grows as r ^2" in own                 # a number is no block id
    assert "Heading ^kept</h1>" in own                      # nor is a heading's end
    page = (out / "note" / "NOTE-907.html").read_text(encoding="utf-8")
    assert 'href="../note/NOTE-906.html#^first-finding" data-id="NOTE-906">the finding</a>' in page
    assert 'href="../note/NOTE-906.html#findings"' in page
    assert 'href="../note/NOTE-906.html#^point"' in page
    assert '<a class="rk-ref" href="#links">Links</a>' in page
    boxes = re.findall(r'<div class="rk-embed-block" data-id="NOTE-906">.*?</div>\n</div>', page, re.S)
    assert len(boxes) == 3
    assert "Quokka" in boxes[0] and "another point" not in boxes[0] and "<li>" in boxes[0]
    assert "<table>" in boxes[1] and "^table-one" not in boxes[1]
    assert "Okapi" in boxes[2] and "Quokka" not in boxes[2] and "^first-finding" not in boxes[2]
    # an embed of a block the note does not have: a link to the page's top
    # (as Obsidian opens the note), never to an anchor the page lacks
    assert '<p><a class="rk-ref rk-embed k-NOTE" href="../note/NOTE-906.html" data-id="NOTE-906">' in page
    # the embedded blocks keep no ids (the page would hold them twice)
    assert page.count('id="^') == 0
    # every fragment lands on an id
    res = crawl(out)
    assert res["broken"] == []


@pytest.mark.slow
def test_block_ids_and_sections_never_fail_on_messy_bodies():
    """Random bodies built of block ids, tables, lists, quotes, fences,
    headings and embeds: rendering never raises, ids stay unique, a block
    id found by its embed is a section of the body, and an embedded
    render sets no block ids (hypothesis)."""
    from hypothesis import given, settings, strategies as st
    from recordkit.emit.site.markdown import BodyRenderer
    r = BodyRenderer(re.compile(r"[A-Z]+-\d+"), lambda rid: ("link", f"note/{rid}.html", "NOTE")
                     if rid else ("dangling",))
    pieces = st.sampled_from([
        "text ^b1", "^b1", "^b2", "- item ^b2", "  - nested ^b3", "| a | b |\n|---|---|\n| 1 | ^b1 |",
        "> quote ^q", "```\ncode ^b1\n```", "# Heading ^h", "x ^2", "[[NOTE-1#^b1]]", "![[NOTE-1#^b2]]",
        "[[#Heading]]", "[[^b1]]", "![[NOTE-1^b1|x]]", "1. one ^b4", "", "^", "a^b1", "*em* ^b5", "$x$ ^b6",
        "`code` ^b7", "\t^b8", "^b9 ^b10", "text\n^b1"])
    seps = st.sampled_from(["\n", "\n\n", " ", "\r\n"])

    @settings(max_examples=300, deadline=None)
    @given(st.lists(st.tuples(pieces, seps), max_size=12))
    def check(parts):
        body = "".join(p + s for p, s in parts)
        out = r.render(body).html
        ids = re.findall(r'(?<![\w-])id="([^"]+)"', out)
        assert len(ids) == len(set(ids))
        inner = r.render(body, doc_id="e1").html
        assert 'id="^' not in inner
        for bid in set(re.findall(r"\^[A-Za-z0-9-]+", body)):
            part = r.section(body, bid)
            if part is not None:
                r.render(part)
    check()


@pytest.mark.slow
def test_a_link_to_a_heading_follows_the_target_gaining_it(tmp_path):
    """A link to a heading or block the target lacks goes to its page's
    top; when an edit gives the target that heading and block, serve's
    rebuild and a fresh build re-render the linking page with the anchors,
    as a cold build does (and drop them again when they go)."""
    from test_site_incremental import _cold, _files, _Sites
    host = ("---\nid: NOTE-908\ntitle: Links ahead of their targets\nstatus: draft\n---\n\n"
            "See [[NOTE-906#^later]] and [[NOTE-906#A later heading|the heading]], "
            "or [its file's heading](NOTE-906.md#a-later-heading).\n")
    base = copy_example(tmp_path, with_results=False,
                        extra={"note/NOTE-906.md": BLOCKS, "note/NOTE-908.md": host})
    sites = _Sites(base)
    sites.fresh()
    page = (base / "built" / "note" / "NOTE-908.html").read_text(encoding="utf-8")
    assert page.count('href="../note/NOTE-906.html" data-id="NOTE-906">') == 3
    p = sites.path("NOTE-906")
    original = p.read_text(encoding="utf-8")
    for n, text in enumerate((original + "\nNow it has one. ^later\n\n## A later heading\n", original)):
        p.write_text(text, encoding="utf-8")
        assert sites.server.build_once({str(p)})["ok"]
        sites.fresh()
        cold = _cold(base, tmp_path / f"cold-{n}")
        page = cold["note/NOTE-908.html"]
        assert (b'href="../note/NOTE-906.html#^later"' in page) == (n == 0)
        assert page.count(b'href="../note/NOTE-906.html#a-later-heading"') == (2 if n == 0 else 0)
        assert _files(base / "served") == cold
        assert _files(base / "built") == cold


@pytest.mark.slow
def test_links_to_the_page_itself_land_or_are_marked(tmp_path):
    """``[[#Heading]]`` and ``[[#^b1]]`` link to the page's own anchor when
    the body has it, and are plain text marked as dangling when it has not
    (every fragment on the site lands on an id); inside an embed they go
    to the embedded note's page, where its headings have their ids (and
    are marked as dangling when the note lacks them)."""
    from site_fixtures import crawl
    own = ("---\nid: NOTE-910\ntitle: Links to itself\nstatus: draft\n---\n\n## Method\n\nA step. ^step\n\n"
           "Back to [[#Method]], [[#^step|the step]], [[#No such part]] and [[#^gone]].\n\n"
           "In Markdown: [the method](#Method), [the gap](#not-there).\n")
    host = "---\nid: NOTE-911\ntitle: Embeds the note that links to itself\nstatus: draft\n---\n\n![[NOTE-910]]\n"
    out = _built(tmp_path, {"note/NOTE-910.md": own, "note/NOTE-911.md": host})
    page = (out / "note" / "NOTE-910.html").read_text(encoding="utf-8")
    assert '<a class="rk-ref" href="#method">Method</a>' in page
    assert '<a class="rk-ref" href="#^step">the step</a>' in page
    assert '<span class="rk-dangling" title="No heading No such part on this page">No such part</span>' in page
    assert '<span class="rk-dangling" title="No block ^gone on this page">^gone</span>' in page
    assert '<a class="rk-ref" href="#method">the method</a>' in page       # (the heading's own id)
    assert '<span class="rk-dangling" title="No heading not-there on this page">the gap</span>' in page
    hosted = (out / "note" / "NOTE-911.html").read_text(encoding="utf-8")
    box = hosted[hosted.index('<div class="rk-embed-block"'):]
    assert '<a class="rk-ref" href="../note/NOTE-910.html#method" data-id="NOTE-910">Method</a>' in box
    assert '<a class="rk-ref" href="../note/NOTE-910.html#^step" data-id="NOTE-910">the step</a>' in box
    assert '<span class="rk-dangling" title="No heading No such part in NOTE-910">No such part</span>' in box
    assert '<a class="rk-ref" href="../note/NOTE-910.html#method" data-id="NOTE-910">the method</a>' in box
    assert crawl(out)["broken"] == []
