"""Embeds (``![[ID]]``, ``![[ID#Heading]]``) on the site: alone in its
paragraph an embed shows the embedded record's body (or that section) under
a link to it, one level deep; anywhere else, or of a record kept out or
missing, it is a mention like the others.  Pages that embed a record follow
its edits in incremental builds and serve."""
from __future__ import annotations

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

Inline, ![[LIT-849]] stays a link.

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
    assert blocks == ["LIT-849", "THEORY-798", "NOTE-902"]
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
    # inline, a missing heading, a nested embed: links
    assert 'Inline, <a class="rk-ref rk-embed k-LIT" href="../lit/LIT-849.html"' in page
    assert '<p><a class="rk-ref rk-embed k-THEORY" href="../theory/THEORY-798.html" data-id="THEORY-798">' \
           'THEORY-798</a></p>' in page
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
