"""Search quality and right-to-left text on a built site, in headless
Chromium (Debian's, through Playwright): a body that repeats a word
thousands of times does not outrank a record with the word in its title;
Chinese, Japanese and Korean text is found by any two characters of it,
and the match is highlighted; the page's tokenizer and query terms are
search.py's, CJK included, on drawn text; each Arabic or Hebrew block of a
record's body takes its own direction (the Python side is in
test_search_quality.py)."""
from __future__ import annotations

import random
import unicodedata

import pytest

from browser import Tab, launch_chromium
from conftest import run_cli
from site_fixtures import copy_example

from recordkit.emit.site import search

pytestmark = pytest.mark.browser

HUGE_ID = "NOTE-990"
HUGE = f"""---
id: {HUGE_ID}
title: A long working log
status: draft
---

{"stitch " * 4000}
"""
JA_ID, ZH_ID, KO_ID = "NOTE-991", "NOTE-992", "NOTE-993"
JA_TEXT = "東京大学の研究では、ニューラルネットワークの表現を比較した。"
ZH_TEXT = "北京大学的研究人员比较了神经网络的表示。"
KO_TEXT = "서울대학교에서 신경망의 표현을 비교했다."
RTL_ID = "NOTE-994"
AR_TEXT = "هذه فقرة قصيرة بالعربية."
HE_TEXT = "זוהי פסקה קצרה בעברית."
RTL = f"""---
id: {RTL_ID}
title: A record in three directions
status: draft
---

This paragraph is in English.

{AR_TEXT}

- {HE_TEXT}
- An English item.

| {AR_TEXT} | Column |
|---|---|
| {HE_TEXT} | Text |

## {AR_TEXT}

> {HE_TEXT}
"""


def _note(rid, text):
    return f"---\nid: {rid}\ntitle: Notes {rid[-1]}\nstatus: draft\n---\n\n{text}\n"


EXTRA = {f"note/{HUGE_ID}.md": HUGE, f"note/{JA_ID}.md": _note(JA_ID, JA_TEXT),
         f"note/{ZH_ID}.md": _note(ZH_ID, ZH_TEXT), f"note/{KO_ID}.md": _note(KO_ID, KO_TEXT),
         f"note/{RTL_ID}.md": RTL}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    base = copy_example(tmp_path_factory.mktemp("quality"), with_results=False, extra=EXTRA)
    proc = run_cli("build", "-o", str(base / "site"), cwd=base)
    assert proc.returncode == 0, proc.stderr
    return base / "site"


@pytest.fixture(scope="module")
def browser():
    with launch_chromium() as b:
        yield b




def _hits(p, q):
    """The ids of the results of ``q``, in order (waiting for the snippets)."""
    p.fill("#rk-q", q)
    # the list of this query, not the last one's still shown (the list says which it shows)
    p.wait_for_function("q => document.getElementById('rk-hits').getAttribute('data-q') === q", arg=q,
                        timeout=5000)
    p.locator("#rk-hits li").first.wait_for(timeout=5000)
    p.wait_for_timeout(200)
    return [a.get_attribute("data-id") for a in p.locator("#rk-hits li[role=option] a").all()]


def test_a_repeated_body_word_does_not_outrank_a_title(site, browser):
    with Tab(browser) as t:
        p = t.page
        p.goto((site / "index.html").as_uri())
        hits = _hits(p, "stitch")
        assert HUGE_ID in hits                        # found, ...
        first = p.locator("#rk-hits li[role=option] .rk-hit-title").first.inner_text()
        # ... but after every record with the word (or a word it begins) in its title
        assert "stitch" in first.split(":", 1)[1].lower(), (first, hits)
        heads = [h.split(":", 1)[1].lower() for h in p.locator("#rk-hits li[role=option] .rk-hit-title").all_inner_texts()]
        titled = [k for k, h in enumerate(heads) if "stitch" in h]
        assert titled and max(titled) < hits.index(HUGE_ID), (hits, heads)
        # an exact id still comes first
        assert _hits(p, HUGE_ID)[0] == HUGE_ID
        assert t.errors == [], t.errors


def test_cjk_text_is_found_by_any_two_characters(site, browser):
    with Tab(browser) as t:
        p = t.page
        p.goto((site / "index.html").as_uri())
        for q, rid, text in (("大学", JA_ID, JA_TEXT), ("研究", JA_ID, JA_TEXT), ("東京大学", JA_ID, JA_TEXT),
                             ("表現を比較", JA_ID, JA_TEXT), ("北京大学", ZH_ID, ZH_TEXT),
                             ("神经网络", ZH_ID, ZH_TEXT), ("대학교", KO_ID, KO_TEXT), ("표현", KO_ID, KO_TEXT)):
            hits = _hits(p, q)
            assert rid in hits, (q, hits)
            # the snippet marks what was searched for, as one mark
            li = p.locator("#rk-hits li[role=option]").nth(hits.index(rid))
            li.locator(".rk-hit-snip mark").first.wait_for(timeout=5000)
            marks = li.locator(".rk-hit-snip mark").all_inner_texts()
            assert q in marks, (q, marks)
            assert li.locator(".rk-hit-snip").inner_text().replace("…", "") in text
        # "大学" is in the Japanese and the Chinese note; "東京大学" only in the Japanese
        assert {JA_ID, ZH_ID} <= set(_hits(p, "大学"))
        assert ZH_ID not in _hits(p, "東京大学")
        # CJK and Latin in one query: both must match
        assert _hits(p, "大学 nonexistentword") == []
        assert t.errors == [], t.errors


def test_the_page_tokenizes_as_search_py_does(site, browser):
    with Tab(browser) as t:
        p = t.page
        p.goto((site / "index.html").as_uri())
        rng = random.Random(7)
        alphabet = list("aZé9_-' .,") + ["\u0301", "\u3099", "\ufe00", "\U000e0100", "ß", "İ", "हि", "न्",
                                         "東", "京", "大", "学", "の", "は", "カ", "ー", "々", "〇", "가", "나",
                                         "\u1100\u1161", "ｶ", "ﾞ", "𠀋", "𪚲", "、", "。", "・", "「", "Ⅻ", "٣",
                                         "\u3000", "😀"]
        drawn = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24))) for _ in range(600)]
        drawn += [JA_TEXT, ZH_TEXT, KO_TEXT, "Unicode対応のテスト", "abc-東京 x'大学", "大", "東京",
                  unicodedata.normalize("NFD", "がぎぐ Résumé"), "a" * 45 + "-大学-" + "b" * 5]
        got = p.evaluate("xs => xs.map(x => [RK.words(x), RK.terms(x)])", drawn)
        for text, (words, terms) in zip(drawn, got):
            assert words == search.TOKEN_RE.findall(search.normalize(text)), text
            assert terms == search.query_terms(text), text
        # every character of the CJK ranges (and around them) is taken alike,
        # as far as both know it (Chromium's Unicode is newer than Python's)
        cps = sorted({cp for a, b in search.CJK_RANGES for cp in range(max(0, a - 16), min(b + 17, 0x323b0))
                      if unicodedata.category(chr(cp)) not in ("Cn", "Cs", "Co")})
        texts = [chr(cp) * 2 + "a" + chr(cp) for cp in cps]
        got = p.evaluate("xs => xs.map(x => RK.words(x).join('|'))", texts)
        diff = [hex(cp) for cp, text, g in zip(cps, texts, got)
                if g != "|".join(search.TOKEN_RE.findall(search.normalize(text)))]
        assert diff == [], diff[:20]
        assert t.errors == [], t.errors


def test_each_rtl_block_takes_its_own_direction(site, browser):
    with Tab(browser) as t:
        p = t.page
        p.goto((site / "note" / f"{RTL_ID}.html").as_uri())
        sides = p.evaluate("""() => [...document.querySelectorAll('.rk-body p, .rk-body li, .rk-body th, .rk-body td, .rk-body h2')]
            .map(e => {
              const r = document.createRange(); r.selectNodeContents(e);
              const t = r.getBoundingClientRect(), b = e.getBoundingClientRect();
              const cs = getComputedStyle(e);
              const left = b.left + parseFloat(cs.paddingLeft), right = b.right - parseFloat(cs.paddingRight);
              return [e.textContent.trim(), Math.round(t.left - left), Math.round(right - t.right)];
            })""")
        rtl = ltr = 0
        for text, gap_left, gap_right in sides:
            if gap_left <= 2 and gap_right <= 2:
                continue                            # as wide as its text (a header cell): either way
            if text in (AR_TEXT, HE_TEXT):          # right to left: against the right edge
                assert gap_right <= 2 < gap_left, (text, gap_left, gap_right)
                rtl += 1
            elif text.startswith(("This paragraph", "An English", "Column", "Text")):
                assert gap_left <= 2 < gap_right, (text, gap_left, gap_right)
                ltr += 1
        # a paragraph, an item, a cell, a heading, a quoted paragraph; a
        # paragraph, an item, a cell
        assert (rtl, ltr) == (5, 3), sides
        assert t.errors == [], t.errors
