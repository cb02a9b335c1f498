"""The site's plain text of a body (search, previews, mention sentences) is
made without a parse, by patterns; those that would take time growing with
the square (or the cube) of a long line are written as a linear function
or a pattern that begins with what it consumes.  These tests hold each to
the plain pattern it stands for, on drawn text and on the text that
catches a careless rewrite (the first character, a run of markers, a word
character before the marker), and give each a long line of what made the
plain patterns slow."""
from __future__ import annotations

import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recordkit.emit.site import markdown as md

#: the plain patterns, each with what the site uses instead
LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)")
EMPH = re.compile(r"(?<![\w*])[*_]{1,2}(?=\S)(.+?)(?<=\S)[*_]{1,2}(?![\w*])")
RULE = re.compile(r"^[ \t|:-]*-{3,}[ \t|:-]*$", re.M)
PLAIN = {
    "links": (lambda t: LINK.sub(r"\1", t), md._strip_links),
    "emphasis": (lambda t: EMPH.sub(r"\1", t), md._strip_emphasis),
    "rule": (lambda t: RULE.sub("", t), lambda t: md._PT_RULE.sub("", t)),
}

# the characters the patterns care about, and a few that they do not
TEXT = st.lists(st.sampled_from(list("*_![]()\n \ta1é-|:") + ["**", "__", "![", "](", "x_y", "---"]),
                max_size=40).map("".join)

CASES = [
    "*a*", "_a_", "**a**", "__a__", "x*a*", "x_a_", "**a*", "*a**", "***a***", "* a*", "*a *", "a_b_c",
    "![i](u)", "[l](u)", "!x[l](u)", "!![l](u)", "[a]![b](c)", "[a](b", "[a\n](b)", "_", "*", "", "é*a*",
    "(*a*)", "1_a_", "-*a*-", "*a*b", "**a**b", "\\*a*", "[x[y](u)", "![a](b)![c](d)", "[a](b)(c)", "*a\nb*",
    "_a_\n_b_", "**a_", "__a**", "---", "| --- | :-: |", "- - -", "--- x", " ---\n---", "*a*_b_", "_*a*_",
]


@pytest.mark.parametrize("name", sorted(PLAIN))
@pytest.mark.parametrize("text", CASES)
def test_each_matches_the_plain_pattern_on_edge_cases(name, text):
    plain, ours = PLAIN[name]
    assert ours(text) == plain(text)


@pytest.mark.slow
@settings(max_examples=1000, deadline=None)
@given(TEXT)
def test_each_matches_the_plain_pattern(text):
    for name, (plain, ours) in PLAIN.items():
        assert ours(text) == plain(text), name


#: lines that made the plain patterns slow (seconds for tens of thousands
#: of characters, hours for the 4 MB a file may hold), 300,000 characters each
SLOW_LINES = [" _x" * 100_000, " *x" * 100_000, "[" * 300_000 + "](", "-" * 300_000 + "x",
              "**a" * 100_000, "![" * 150_000 + "](x", " " * 300_000 + "^x"]


@pytest.mark.parametrize("line", SLOW_LINES, ids=[l[:4].strip() or "spaces" for l in SLOW_LINES])
def test_a_long_line_takes_linear_time(line):
    # each is over in a few hundredths of a second; the plain patterns took
    # minutes to hours on these (the bound is for a loaded machine)
    t0 = time.perf_counter()
    md.plain_text(line + "\n" + line + " ---\n")
    assert time.perf_counter() - t0 < 3.0


def test_plain_text_of_a_body():
    body = "# Title\n\nSee [the paper](p.md) and ![fig](f.png); *this* and __that__ x_y_z **a*b**.\n"
    assert md.plain_text(body) == "Title\n\nSee the paper and fig; this and that x_y_z a*b.\n"


# -- where a backlink's sentence ends (views.mention_sentence) -------------------

from recordkit.emit.site import views  # noqa: E402

#: the look-behind form the sentence pattern stands for: a match begins
#: right after the mark, where the fast one begins at the mark
SENTENCE_END = re.compile(r"(?<=[.!?])[\"”’)]*\s+(?=[A-Z\[(*_\"“‘0-9])")
SENTENCE_TEXT = st.lists(st.sampled_from(list(".!?\"”’) \n\tAa1[(*_“‘-") + [". ", "? A", ".) B", "!\n"]),
                         max_size=40).map("".join)


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(SENTENCE_TEXT)
def test_sentence_ends_are_the_look_behind_form(text):
    fast = views._SENTENCE_END
    assert [(m.start() + 1, m.end()) for m in fast.finditer(text)] == \
        [(m.start(), m.end()) for m in SENTENCE_END.finditer(text)]
    for pos in range(len(text) + 1):      # the search mention_sentence makes from a position
        got = fast.search(text, max(pos, 1) - 1)
        want = SENTENCE_END.search(text, pos)
        assert (got.start() + 1, got.end()) == (want.start(), want.end()) if want else got is None


class _Rec:
    """A record as mention_sentence reads it."""
    def __init__(self, rid, body):
        from recordkit.corpus.source import Source
        self.id, self.source, self.body_offset, self.body_line = rid, Source(body), 0, 1
        self.code = []
        self.mention_re = re.compile(r"(?<![\w-])[A-Z]+-\d+\b")

    @property
    def text(self):
        return self.source.text()

    def known_mentions(self):
        return None


@pytest.mark.parametrize("body, sentence", [
    ("First one. Then NOTE-2 is named here. And more.\n", "Then NOTE-2 is named here."),
    ("NOTE-2 opens it. Next.\n", "NOTE-2 opens it."),
    ("One! Two? (NOTE-2) three.\" Four.\n", "(NOTE-2) three."),   # the quote goes with the break
    ("A. B.C NOTE-2 d.\n", "B.C NOTE-2 d."),
])
def test_a_backlink_sentence_is_the_one_holding_the_mention(body, sentence):
    assert views.mention_sentence(_Rec("NOTE-1", body), "NOTE-2") == sentence
