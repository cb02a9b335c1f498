"""The site's bodies on the native engine (recordkit/markdown/native): what
recordkit's own syntax becomes, written over pulldown-cmark's events in one
pass, and the HTML it keeps from the engine before (markdown-it-py's shape).
"""
from __future__ import annotations

import re
import time

from recordkit.emit.site.markdown import BodyRenderer
from recordkit.markdown.native import Walk, anchors

ID_RE = re.compile(r"(?:NOTE|LIT)-[0-9]{3,}(?![\w-])")


def _resolve(rid):
    if rid == "NOTE-404":
        return ("dangling",)
    return ("link", f"note/{rid}.html", "note")


def render(body, **kw):
    return BodyRenderer(ID_RE, _resolve, **kw).render(body)


def test_mentions_wikilinks_and_labels_in_the_presets_order():
    html = render("See NOTE-001, [[NOTE-002|the second]] and NOTE-404.").html
    assert '<a class="rk-ref k-note" href="../note/NOTE-001.html" data-id="NOTE-001">NOTE-001</a>' in html
    assert '<a class="rk-ref k-note" href="../note/NOTE-002.html" data-id="NOTE-002">the second</a>' in html
    assert '<span class="rk-dangling" title="No record NOTE-404 in this record">NOTE-404</span>' in html
    # Dendron's order: [[label|target]]
    html = render("[[the second|NOTE-002]]", wikilink_order="label-first").html
    assert 'data-id="NOTE-002">the second</a>' in html
    # no mention inside a link's text or code
    html = render("[about NOTE-001](https://example.org) `NOTE-003`").html
    assert "NOTE-001.html" not in html and "NOTE-003.html" not in html


def test_raw_html_is_escaped_and_unsafe_urls_are_no_links():
    html = render('<script>alert(1)</script>\n\nx <b onclick="y">b</b> [a](javascript:alert(1)) '
                  '![i](javascript:x) <javascript:alert(1)>').html
    assert "<script" not in html and "<b " not in html and "javascript:alert(1)\"" not in html
    assert "&lt;script&gt;" in html and "&lt;b onclick=&quot;y&quot;&gt;" in html
    assert "href=\"javascript" not in html
    assert "[a](javascript:alert(1))" in html       # the link's source, as text


def test_callouts_github_and_obsidian_with_folding():
    html = render("> [!NOTE]\n> Body.\n").html
    assert html == ('<blockquote class="rk-callout rk-callout-note" data-callout="note">\n'
                    '<p class="rk-callout-title">Note</p>\n<p>Body.</p>\n</blockquote>\n')
    html = render("> [!faq]- Why *this*?\n> Because.\n").html
    assert html == ('<details class="rk-callout rk-callout-warn" data-callout="faq">\n'
                    '<summary class="rk-callout-title">Why <em>this</em>?</summary>\n<p>Because.</p>\n</details>\n')
    assert '<details class="rk-callout rk-callout-ok" data-callout="tip" open="">' in render("> [!tip]+ Open\n").html


def test_highlight():
    assert render("a ==marked NOTE-001== b").html == (
        '<p>a <mark>marked <a class="rk-ref k-note" href="../note/NOTE-001.html" data-id="NOTE-001">NOTE-001</a>'
        '</mark> b</p>\n')
    # not in code, not across blanks
    assert render("`==x==` a == b == c\n\n```\n==y==\n```\n").html.count("<mark>") == 0


def test_block_ids_headings_footnotes_tasks_and_claims():
    body = ("## Results\n\n## Results\n\nA finding. ^f1\n\n- [ ] to do\n- [x] done ^t1\n\n"
            "| a |\n|---|\n| 1 |\n\n^tab\n\nNote[^1] again[^1].\n\n[^1]: The note.\n\n## Claims\n\n"
            "| claim | strength |\n|---|---|\n| x | **weak** |\n")
    r = render(body)
    h = r.html
    assert [s for _, _, s in r.headings] == ["results", "results-1", "claims"]
    assert '<p id="^f1">A finding.</p>' in h
    assert '<ul class="contains-task-list">' in h
    assert ('<li class="task-list-item" id="^t1"><input class="task-list-item-checkbox" checked="checked" '
            'disabled="disabled" type="checkbox"> done</li>') in h
    assert '<table id="^tab">' in h
    assert '<sup class="footnote-ref"><a href="#fn1" id="fnref1:1">[1:1]</a></sup>' in h
    assert ('<li id="fn1" class="footnote-item"><p>The note. <a href="#fnref1" class="footnote-backref">↩︎</a> '
            '<a href="#fnref1:1" class="footnote-backref">↩︎</a></p>\n</li>') in h
    assert '<table class="rk-claims">' in h and '<td class="rk-strength rk-s-weak"><strong>weak</strong></td>' in h
    got = anchors(body, ID_RE)
    assert got.blocks == {"^f1", "^t1", "^tab"} and got.has("Results") and got.footnotes == 1


def test_math_and_code():
    h = render("$x^2$ and\n\n$$\ny\n$$\n\n```python\nprint(1)\n```\n\n```python check id=c1\nx\n```\n").html
    assert '<span class="math inline"><math' in h and '<div class="math block">\n<math' in h
    assert '<pre class="rk-code"><code class="language-python"><span class="nb">print</span>' in h
    assert '<div class="rk-checkblock" data-check="c1"><!--rk-check:c1-->' in h


def test_line_breaks():
    assert render("a\nb", line_breaks=True).html == "<p>a<br />\nb</p>\n"
    assert render("a\nb").html == "<p>a\nb</p>\n"


def test_the_pass_is_linear_in_the_body():
    """A checklist of 25,000 items and a paragraph of 20,000 mentions take
    time in proportion to their size (no scan back over what was written)."""
    walk = Walk(ID_RE)

    def took(body):         # the best of three (a busy machine slows one run, not all)
        best = None
        for _ in range(3):
            t = time.perf_counter()
            walk.render(body, {})
            t = time.perf_counter() - t
            best = t if best is None else min(best, t)
        return best

    for unit in ("- [ ] item NOTE-001 ^b1\n", "NOTE-001 "):
        small, big = took(unit * 2_500), took(unit * 25_000)
        assert big < 30 * small + 0.05, (unit, small, big)
