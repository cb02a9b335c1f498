"""Patterns run over a body's text whose plain form would take time growing
with the square of a long line: each is held to the plain form on drawn
text, and given a long line of what made the plain form slow."""
from __future__ import annotations

import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recordkit.markdown import anchors

#: the plain forms of the block-id patterns
BLOCK_ID = re.compile(r"(?:^|[ \t])\^([A-Za-z0-9-]*[A-Za-z][A-Za-z0-9-]*)[ \t]*$")
BLOCK_ID_LINE = re.compile(r"(?:^|[ \t]+)\^[A-Za-z0-9-]*[A-Za-z][A-Za-z0-9-]*[ \t]*$", re.M)

TEXT = st.lists(st.sampled_from(list("^ \t\na1-Zé.") + ["^a", " ^", "^1", "\t^b-2"]), max_size=30).map("".join)


def _same(fast: re.Pattern, plain: re.Pattern, text: str) -> None:
    assert [(m.span(), m.groups()) for m in fast.finditer(text)] == \
        [(m.span(), m.groups()) for m in plain.finditer(text)]
    assert fast.sub("", text) == plain.sub("", text)
    # (searched from the text's start, as they are used: a search begun
    # inside a run of spaces is not the same, as the fast form starts only
    # from a run's first space)
    got, want = fast.search(text), plain.search(text)
    assert (got and (got.span(), got.groups())) == (want and (want.span(), want.groups()))


@pytest.mark.slow
@settings(max_examples=1000, deadline=None)
@given(TEXT)
def test_block_id_patterns_match_as_their_plain_forms(text):
    _same(anchors.BLOCK_ID, BLOCK_ID, text)
    _same(anchors.BLOCK_ID_LINE, BLOCK_ID_LINE, text)


@pytest.mark.parametrize("text", ["^a", "x ^a", "x ^1", "x ^1a-2 ", "x^a", "  ^a\n ^b", "^-", "a ^a b", "\t\t^Z\t"])
def test_block_id_patterns_on_examples(text):
    _same(anchors.BLOCK_ID, BLOCK_ID, text)
    _same(anchors.BLOCK_ID_LINE, BLOCK_ID_LINE, text)


SLOW = ["^" + "a" * 300_000 + " x", " ^" + "1" * 300_000 + " x", " " * 300_000 + "^x y", "\t" * 300_000 + "^a x"]


@pytest.mark.parametrize("text", SLOW, ids=["letters", "digits", "spaces", "tabs"])
def test_a_long_line_takes_linear_time(text):
    # a few hundredths of a second each; the plain forms took many minutes
    t0 = time.perf_counter()
    for pattern in (anchors.BLOCK_ID, anchors.BLOCK_ID_LINE):
        pattern.search(text)
        pattern.sub("", text)
    assert time.perf_counter() - t0 < 3.0


# -- a table's delimiter row (corpus/sections.py) -------------------------------

from recordkit.markdown import sections  # noqa: E402

DELIM = re.compile(r"^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$")
ROW = st.lists(st.sampled_from(list(" |:-x\t") + ["---", "| ", " |", ":-:"]), max_size=24).map("".join)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None)
@given(ROW)
def test_the_delimiter_row_pattern_matches_as_its_plain_form(line):
    got, want = sections._DELIM_RE.match(line), DELIM.match(line)
    assert (got and got.span()) == (want and want.span())


@pytest.mark.parametrize("line", [" " * 300_000 + "x", "|---" + " " * 300_000 + "x", "| -" + " |" * 150_000 + "x",
                                  "-" * 300_000 + "x", "|" + " :-: |" * 60_000 + "x"])
def test_a_long_row_takes_linear_time(line):
    t0 = time.perf_counter()
    sections._DELIM_RE.match(line)
    assert time.perf_counter() - t0 < 3.0


# -- the pre-filter for links to a heading (corpus/anchors.may_name_part) ---------

MD_TEXT = st.lists(st.sampled_from(["](", "[a", "#", "<", ">", " ", "(", ")", "x", "\n", "\t", ".md", "]"]),
                   max_size=30).map("".join)


@pytest.mark.slow
@settings(max_examples=1000, deadline=None)
@given(MD_TEXT)
def test_the_heading_link_prefilter_misses_no_markdown_link(text):
    """False means no Markdown link of the text (as the link scanner reads
    one) has a ``#`` in its destination."""
    from recordkit.markdown.links import MD_DEST_RE
    if any("#" in m.group(1) for m in MD_DEST_RE.finditer(text)):
        assert anchors.may_name_part(text) and anchors.may_name_part(text.encode())


@pytest.mark.parametrize("text", ["](x " * 100_000, "[a](x " * 100_000, "](<x " * 100_000],
                         ids=["unclosed", "unclosed-with-text", "unclosed-angle"])
def test_the_heading_link_prefilter_is_linear(text):
    # (a line of 80,000 unclosed "](" took 40 s: each scanned to the line's end)
    t0 = time.perf_counter()
    anchors.may_name_part(text)
    anchors.may_name_part(text.encode())
    assert time.perf_counter() - t0 < 3.0
