"""Defects a hunt found in the site, held in Python (the page's side is in
test_site_hunt_browser.py): search words with combining marks and in any
Unicode form, long hyphenated words, an embed's "!", the dark code colours
(system preference, print), kind dots scoped to their own element, the 404
page at any depth (recordkit serve)."""
from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

from conftest import run_cli
from site_fixtures import copy_example

import recordkit
from recordkit.emit.site import search
from recordkit.emit.site.emitters.assets import kind_css as _kind_css
from recordkit.emit.site.markdown import plain_text, pygments_css


def test_search_words_keep_combining_marks():
    # Devanagari's vowel signs and virama are marks (Mc, Mn): one word, not letters
    assert search.terms("हिन्दी भाषा") == {"हिन्दी": 1, "भाषा": 1}
    assert search.TOKEN_RE.findall("naïve cafe\u0301 x_y") == ["naïve", "cafe\u0301", "x", "y"]


def test_search_words_are_nfc():
    nfd = unicodedata.normalize("NFD", "Résumé")
    assert nfd != "Résumé"
    assert search.terms(nfd) == {"résumé": 1}
    assert search.terms("RÉSUMÉ") == {"résumé": 1}
    assert search.normalize(nfd) == "résumé"
    # an id with a decomposed letter is its exact term in NFC
    assert "note-é1" in search.doc_terms(unicodedata.normalize("NFD", "NOTE-é1"), "", [], "")


def test_long_hyphenated_words_keep_their_parts():
    long = "supercalifragilistic-expialidocious-hyphenated-zebrafinch"
    assert len(long) > search.MAX_TERM
    t = search.terms(f"a {long} b")
    assert long not in t
    for part in ("supercalifragilistic", "expialidocious", "hyphenated", "zebrafinch", "a", "b"):
        assert t[part] == 1, part
    # a part over the limit is left out, the others kept; a long plain word is left out
    t = search.terms("x" * 41 + "-quokka " + "y" * 41)
    assert dict(t) == {"quokka": 1}
    # a tag over 40 characters: searchable by its parts
    tag = "a-tag-that-is-much-longer-than-forty-characters-quokka"
    d = search.doc_terms("NOTE-1", "title", [tag], "")
    assert d["quokka"] == search.TITLE_WEIGHT and tag not in d


def test_an_embed_leaves_no_exclamation_mark_in_the_text():
    assert plain_text("See ![[LIT-849]] and ![[NOTE-652|the note]].") == "See LIT-849 and the note."
    assert plain_text("![[LIT-849]]", label_first=True) == "LIT-849"
    assert plain_text("Wow! [[LIT-849]]") == "Wow! LIT-849"


def test_code_colours_follow_the_system_dark_mode_and_print_light():
    css = pygments_css()
    # the dark rules: under the toggle and under the system preference, screen only
    assert "@media screen and (prefers-color-scheme: dark) {" in css
    assert re.search(r":root:not\(\[data-theme=light\]\) \.rk-code \.k \{", css)
    screen, rest = css.split("@media screen {", 1)
    assert "data-theme" not in screen               # the light rules hold for print too
    assert ".rk-code .k {" in screen


def test_kind_dots_are_scoped_to_their_own_element():
    css = _kind_css({"LIT": {"color": "#4e79a7"}, "DATASET": {"color": "#123456"}})
    assert ".rk-dot.k-DATASET, .k-DATASET > .rk-dot {" in css
    # no descendant rule: a k-X on <body> (the record page) would colour every dot
    assert not re.search(r"\.k-[A-Z]+ \.rk-dot", css)
    site_css = (Path(recordkit.__file__).parent / "templates" / "site" / "assets" / "site.css").read_text()
    assert not re.search(r"\.k-[A-Z]+ \.rk-dot", site_css)


@pytest.mark.slow
def test_serve_answers_a_missing_page_with_the_404_page_for_its_depth(tmp_path):
    from recordkit.emit.site.serve import rebase_page
    base = copy_example(tmp_path, with_results=False)
    proc = run_cli("build", "-o", str(base / "site"), cwd=base)
    assert proc.returncode == 0, proc.stderr
    page = (base / "site" / "404.html").read_text()
    # written for the site's top: works from file:// and for a missing page at the top
    assert 'data-root=""' in page and 'href="assets/site.css"' in page
    assert rebase_page(page, 0) == page
    deep = rebase_page(page, 2)
    assert 'data-root="../../"' in deep and 'href="../../assets/site.css"' in deep
    assert 'src="../../assets/site.js"' in deep and 'href="../../index.html"' in deep
    assert 'href="data:,"' in deep and 'href="#rk-main"' in deep     # not site URLs: kept
    assert not re.search(r'(?:href|src)="(?!\.\./\.\./|#|data:|https?:)', deep)
