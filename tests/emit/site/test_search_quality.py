"""Search quality, held in Python (the page's side is in
test_search_quality_browser.py): a body word's count saturates (BM25-like,
below a title word's weight); Chinese, Japanese and Korean runs are indexed
as pairs of characters, and site.js knows the same CJK ranges; the record
page's body blocks take their own direction (right-to-left text)."""
from __future__ import annotations

import pytest
import json
import re
from pathlib import Path

from conftest import run_cli
from site_fixtures import copy_example

import recordkit
from recordkit.emit.site import search

SITE_JS = Path(recordkit.__file__).parent / "templates" / "site" / "assets" / "site.js"
SITE_CSS = Path(recordkit.__file__).parent / "templates" / "site" / "assets" / "site.css"


def test_a_body_word_count_saturates_below_a_title_word():
    huge = search.doc_terms("NOTE-1", "A working log", [], "stitch " * 5000 + "once")
    titled = search.doc_terms("LIT-2", "Model stitch", [], "A short body about a stitch.")
    assert 1 <= huge["stitch"] <= search.BODY_MAX < search.TITLE_WEIGHT
    assert titled["stitch"] >= search.TITLE_WEIGHT + 1 > huge["stitch"]
    assert huge["once"] == 1
    # one mention in a body of the reference length weighs 1 (no weight written in the index)
    assert search.body_weight(1, search.AVG_LENGTH) == 1
    # more mentions weigh more, up to the cap; the same count weighs less in a longer body
    ws = [search.body_weight(tf, 400) for tf in range(1, 200)]
    assert ws == sorted(ws) and ws[0] == 1 and ws[-1] == search.BODY_MAX
    assert search.body_weight(3, 50) > search.body_weight(3, 5000)
    # doc_terms' thresholds are body_weight's, for short and long bodies
    for body in ("stitch", "stitch stitch", "stitch " * 3 + "x " * 40, "stitch " * 12 + "x " * 2000,
                 "stitch " * 30 + "x " * 2000, "stitch " * 40):
        length = sum(search.terms(body).values())
        assert search.doc_terms("A-1", "", [], body)["stitch"] == search.body_weight(body.count("stitch"), length)
    # ids and titles as before
    assert titled["lit-2"] >= search.ID_WEIGHT and titled["lit"] == search.ID_WEIGHT
    assert search.doc_terms("NOTE-1", "Model stitch", ["stitch"], "")["stitch"] == 2 * search.TITLE_WEIGHT


def test_cjk_runs_are_indexed_as_pairs():
    t = search.terms("東京大学の研究では")
    assert "大学" in t and "東京" in t and "では" in t and "東京大学の研究では" not in t
    assert sum(t.values()) == len("東京大学の研究では") - 1
    # a run of one character is that character; Latin next to CJK is its own word
    assert search.terms("大 x") == {"大": 1, "x": 1}
    assert search.terms("Unicode対応") == {"unicode": 1, "対応": 1}
    assert search.terms("서울대학교에서") == {p: 1 for p in ("서울", "울대", "대학", "학교", "교에", "에서")}
    # a run longer than a word may be is still indexed (it used to be left out whole)
    long_run = "東京大学の研究ではニューラルネットワークの表現を比較しそれらの違いを詳しく調べた結果を報告する"
    assert len(long_run) > search.MAX_TERM and "比較" in search.terms(long_run)
    # punctuation splits runs; halfwidth katakana, iteration marks and ideographs beyond the BMP are CJK
    assert search.terms("研究、表現") == {"研究": 1, "表現": 1}
    assert "人々" in search.terms("人々") and "ｶﾀ" in search.terms("ｶﾀｶﾅ") and "𠀋𠀋" in search.terms("𠀋𠀋")
    # a query: its pairs, in order
    assert search.query_terms("東京大学") == ["東京", "京大", "大学"]
    assert search.query_terms("大学 Stitching") == ["大学", "stitching"]
    assert search.query_terms("大") == ["大"]
    # a mark stays on its character
    assert search.cjk_terms("가\u0301나다") == ["가\u0301나", "나다"]


def test_site_js_knows_the_cjk_ranges_of_search_py():
    js = SITE_JS.read_text(encoding="utf-8")
    m = re.search(r'var CJK = ((?:"[^"]*"\s*\+?\s*)+);', js)
    assert m, "site.js's CJK"
    cls = "".join(re.findall(r'"([^"]*)"', m.group(1)))
    pairs = re.findall(r"\\\\u\{?([0-9a-f]+)\}?-\\\\u\{?([0-9a-f]+)\}?", cls)
    assert [(int(a, 16), int(b, 16)) for a, b in pairs] == list(search.CJK_RANGES)
    # the page scores a weight as it is (linear: a title word's 5 against a body word's 3 at most)
    assert "factor * idf * p[j + 1]" in js


@pytest.mark.slow
def test_the_built_index_holds_saturated_weights_and_cjk_pairs(tmp_path):
    huge = "---\nid: NOTE-990\ntitle: A long working log\nstatus: draft\n---\n\n" + "stitch " * 3000 + "\n"
    ja = "---\nid: NOTE-991\ntitle: Notes\nstatus: draft\n---\n\n東京大学の研究では、表現を比較した。\n"
    base = copy_example(tmp_path, with_results=False, extra={"note/NOTE-990.md": huge, "note/NOTE-991.md": ja})
    proc = run_cli("build", "-o", str(base / "site"), cwd=base)
    assert proc.returncode == 0, proc.stderr
    text = (base / "site" / "assets" / "search-index.js").read_text(encoding="utf-8")
    data = json.loads(text[len("RK.searchIndex("):-3])
    ids = [d[0] for d in data["docs"]]

    def weights(term):
        flat = search.decode_postings(data["postings"][data["terms"].index(term)])
        return {ids[flat[k]]: flat[k + 1] for k in range(0, len(flat), 2)}
    stitch = weights("stitch")
    assert stitch["NOTE-990"] <= search.BODY_MAX
    assert max(weights("stitching").values()) >= search.TITLE_WEIGHT       # a title word
    assert set(weights("大学")) == {"NOTE-991"} and set(weights("比較")) == {"NOTE-991"}
    assert "東京大学の研究では" not in data["terms"]


def test_record_body_blocks_take_their_own_direction():
    css = SITE_CSS.read_text(encoding="utf-8")
    m = re.search(r"\.rk-body :is\(([^)]*)\)\s*\{([^}]*)\}", css)
    assert m, "the body blocks' direction rule"
    blocks = {b.strip() for b in m.group(1).split(",")}
    assert {"p", "li", "h2", "td", "th", "blockquote"} <= blocks
    assert "unicode-bidi: plaintext" in m.group(2) and "text-align: start" in m.group(2)
    # and it comes after the rule that aligns cells left
    assert css.index(m.group(0)) > css.index(".rk-body th, .rk-body td")


@pytest.mark.slow
def test_the_fast_tokenizer_is_the_full_one_where_it_is_used():
    """search.words takes [^\\W_] runs for text without marks or CJK
    characters (TOKEN_RE's class of 12,000 characters made the index 5x
    slower to build: 17 s of CPU at 10,000 records): every other character
    is a word character for both or for neither, and the two agree on
    drawn text."""
    import random
    import re
    import sys
    import unicodedata
    from recordkit.emit.site import search
    one, other = re.compile(r"[^\W_]"), re.compile(search._OTHER)
    for cp in range(sys.maxunicode + 1):
        c = chr(cp)
        if unicodedata.category(c)[0] == "M" or search._CJK_START_RE.match(c):
            continue
        assert bool(one.match(c)) == bool(other.match(c)), hex(cp)
    rng = random.Random(7)
    alphabet = list("abcXYZ019-'_ éüßçΣωж—①Ⅳ") + ["\u0301", "\u093f", "हि", "大学", "ひら", "한국", "\U0001D400"]
    for _ in range(20000):
        t = search.normalize("".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))))
        assert search.words(t) == search.TOKEN_RE.findall(t), repr(t)
