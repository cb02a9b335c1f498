"""The fast paths of the parse give what the code before them gave.

``mentions_before`` and ``frontmatter_before`` are the scanner and the YAML
engine as they were before (92bcc6d); each test draws messy input (unmatched
backticks, nested and unclosed fences, tabs, CRLF, wikilinks in code, ids
next to word characters and hyphens, comments, aliases, tags, merge keys,
dates, quoted and multi-line scalars) and compares the two, output for
output: code ranges and fence infos, mention targets and places, the
scanner's mentions (also with a vault's link settings), front matter values
(with their types), key and value positions, and the errors raised.
"""
from __future__ import annotations

import pytest
import re

import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

import frontmatter_before as fm_before
import mentions_before as before
from recordkit.markdown import frontmatter as fm_now
from recordkit.corpus import mentions as now
from recordkit.markdown import blocks as blocks_now
from recordkit.schema import LinkSettings
from recordkit.schema import Schema, default_schema_raw, load_schema

SCHEMA = load_schema()
NO_KINDS = Schema(dict(default_schema_raw(), kinds={}, relations={}))

# pieces of a messy body: each is glued to the next with no space, so ids
# land next to word characters, hyphens, backticks, brackets and breaks
PIECES = [
    "LIT-849", "NOTE-738", "CLAIM-1583", "THEORY-175", "QUESTION-027", "-123", "x-LIT-849", "LIT-849x",
    "LIT-849-b", "_NOTE-738", "NOTE-7381", "LIT-84", "LIT--849", "NOTE-", "-", "--", "---", "|", " | --- |",
    "[[", "]]", "[", "]", "![[", "[[LIT-849]]", "[[NOTE-738|a label]]", "[[THEORY-175#Scope|§]]",
    "[[LIT-849^b1]]", "[[ CLAIM-193 ]]", "[[x|", "[[a`b]]", "[[Note\\|l]]", "[t](a.md)", "[t](<b c.md>)",
    "`", "``", "```", "````", "~~~", "\\`", "\\\\`", "`LIT-849`", "`` a ` NOTE-738 ``", "```python",
    "~~~ info", "``` x`y", "<!--", "-->", "<!-- LIT-849 -->", "<!-- recordkit: ignore RK305 -->",
    "\n", "\n", "\n", "\n\n", "\r\n", "\r\n\r\n", "\r", "\t", "    ", "  ", " ", " ", "\n    ", "\n\t",
    "# ", "## h ", "- ", "* ", "1. ", "> ", "word", "the", "é", "—", "‖", "x", "7", "2026", "\u2028", "\x85",
]

body_st = st.lists(st.sampled_from(PIECES), min_size=0, max_size=60).map("".join)


def _code(mod, body):
    infos: list = []
    return mod.code_ranges(body, infos), infos


@pytest.mark.slow
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body_st)
def test_body_scan_is_the_scan_before(body):
    # (the code ranges themselves changed since: indented code inside list
    # items is code; they are held to markdown-it's tokens by test_mentions)
    code, infos = _code(blocks_now, body)
    assert infos == _code(before, body)[1]
    for schema in (SCHEMA, NO_KINDS):
        targets_re = schema.mention_targets_re
        assert now.mention_spots(body, targets_re, code) == before.mention_spots(body, targets_re, code)
        assert now.mention_spots(body, targets_re) == now.mention_spots(body, targets_re, code)
        assert now.mention_targets(body, targets_re, code) == before.mention_targets(body, targets_re, code)
        assert now.mention_positions(body, targets_re, 3, code) == before.mention_positions(body, targets_re, 3, code)


def _plain(ms):
    return [(m.target, m.line, m.col, m.end_col, m.form, m.label, m.text) for m in ms]


@pytest.mark.slow
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body_st, st.sampled_from([
    None, LinkSettings(resolve=("id", "path", "stem", "title", "aliases"), case_sensitive=False,
                       markdown_links=True, mentions=False),
    LinkSettings(markdown_links=True, wikilink_order="label-first"), LinkSettings(markdown_links=True)]))
def test_scanner_mentions_are_the_mentions_before(body, links):
    """scan_mentions and mention_links (which read the wikilink pattern) as before."""
    code = before.code_ranges(body)
    id_re = SCHEMA.mention_re
    assert _plain(now.scan_mentions(body, id_re, 2, code, links)) == \
        _plain(before.scan_mentions(body, id_re, 2, code, links))
    if links is not None:
        targets_re = SCHEMA.mention_targets_re if links.mentions else None
        assert now.mention_links(body, targets_re, code, links) == \
            before.mention_links(body, targets_re, code, links)


def test_the_ids_search_is_the_targets_pattern():
    """The places' id pattern (a quicker first test after the ``-``) finds
    what the schema's targets pattern finds, on a body of every kind of hyphen."""
    body = "a-b --- -1 -12 -123 LIT-123 LIT-12 LIT-1234x x-LIT-123 LIT-123- (NOTE-0001) QUESTION-999\n" * 3
    spots_re, kinds = now._spots_re(SCHEMA.mention_targets_re)
    assert spots_re.pattern.startswith("-(?=[0-9]{3})")
    assert [m.start() for m in spots_re.finditer(body)] == \
        [m.start() for m in SCHEMA.mention_targets_re.finditer(body)]


# -- front matter -----------------------------------------------------------------------
SCALARS = [
    "x", "NOTE-001", "'quoted'", '"dq \\u00e9"', "''", '""', "null", "~", "true", "False", "yes", "off", "0",
    "-1", "+7", "0x1F", "0o17", "1_000", "1e3", ".inf", "-.inf", ".nan", "3.14", "2026-01-01",
    "2026-13-45", "2026-01-01T10:00:00Z", "2026-01-01 10:00:00.5 +02:00", "2001-12-14t21:59:43.10-05:00",
    "<<", "=", "!!str 12", "!!int '7'", "!!float x", "!!timestamp 2026-01-01", "!!timestamp 2026-99-99",
    "!!binary aGVsbG8=", "!custom x", "!!set {a, b}", "!!omap [a: 1]", "&a [1, 2]", "*a", "&b x", "*b",
    "[]", "{}", "[a, [b, c]]", "{k: v, n: 1}", "[[LIT-001]]", "[LIT-001, 3, null]", "`code`", "a: b",
    "|\n  block\n  text", ">-\n  folded\n  more", "é — ‖", "x\ty", "a #comment",
]
KEYS = ["id", "title", "tags", "created", "k", "1", "true", "null", "2026-01-01", "'q k'", '"d k"', "<<",
        "? [a, b]", "? complex\n  key", "!!str 5", "&k key", "ünï"]


@st.composite
def front_matter(draw):
    lines = []
    for _ in range(draw(st.integers(0, 8))):
        key = draw(st.sampled_from(KEYS))
        form = draw(st.sampled_from(["scalar", "scalar", "block list", "nested", "merge"]))
        if form == "scalar":
            value = draw(st.sampled_from(SCALARS))
            if "\n" in value:
                lines.append(f"{key}: {value}")
            else:
                lines.append(f"{key}: {value}")
        elif form == "block list":
            lines.append(f"{key}:")
            for _ in range(draw(st.integers(0, 3))):
                lines.append(f"  - {draw(st.sampled_from(SCALARS)).splitlines()[0]}")
        elif form == "nested":
            lines.append(f"{key}:")
            for _ in range(draw(st.integers(1, 3))):
                lines.append(f"  {draw(st.sampled_from(KEYS[:6]))}: {draw(st.sampled_from(SCALARS)).splitlines()[0]}")
        else:
            lines.append(f"base: &m {{a: 1, b: [x, y]}}")
            lines.append(f"{key}:\n  <<: *m\n  c: 2")
        if draw(st.integers(0, 9)) == 0:
            lines.append("# a comment")
    eol = draw(st.sampled_from(["\n", "\n", "\r\n", "\r", "\u2028"]))
    return eol.join(lines) + (eol if lines and draw(st.booleans()) else "")


def _read(mod, text):
    try:
        return "ok", repr(mod.read_front_matter(text, 2))
    except yaml.MarkedYAMLError as exc:
        return "yaml", type(exc).__name__, exc.problem, str(exc.problem_mark)
    except Exception as exc:   # the other errors parse_text turns into diagnostics
        return "error", type(exc).__name__, str(exc)


@pytest.mark.slow
@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(front_matter())
def test_front_matter_is_the_front_matter_before(text):
    """Values (with their types, and dates as dates), the positions of
    every key and value, exactness, and the errors raised (but one: a
    scalar its explicit tag cannot read, ``!!float x``, raised the
    constructor's own error, and is now a marked YAML error at the value)."""
    now, before = _read(fm_now, text), _read(fm_before, text)
    if before[0] == "error" and now[0] == "yaml" and "is not a valid !!" in now[2]:
        return
    assert now == before, text


def test_equal_timestamps_give_equal_values_of_the_same_type():
    """A timestamp's value is kept by its text (dates recur in every record)."""
    a = fm_now.read_front_matter("d: 2026-01-02\nt: 2026-01-02 10:00:00+02:00\n", 2)[0]
    b = fm_now.read_front_matter("e: 2026-01-02\nt: 2026-01-02 10:00:00+02:00\nx: 2026-02-30\n", 2)[0]
    assert a["d"] == b["e"] and type(a["d"]) is type(b["e"])
    assert a["t"] == b["t"] and a["t"].utcoffset() == b["t"].utcoffset()
    assert b["x"] == "2026-02-30"
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", str(a["d"]))


LINES = ["---", "...", "--- ", "---\t", "---\r", "... x", "----", " ---", "a: b", "", "x---", "- a", "\u2028---"]


@pytest.mark.slow
@settings(max_examples=800, deadline=None)
@given(st.lists(st.sampled_from(LINES), max_size=8), st.sampled_from(["\n", "\r\n"]), st.booleans())
def test_the_closing_line_is_found_where_the_pattern_finds_it(lines, eol, bom):
    """find_close (a search a line break leads) is CLOSE_RE's search from
    the front matter's first line."""
    text = ("\ufeff" if bom else "") + "---" + eol + eol.join(lines)
    pos = fm_now.OPEN_RE.match(text).end()
    want = fm_now.CLOSE_RE.search(text, pos)
    got = fm_now.find_close(text, pos)
    assert (got and got.span()) == (want and want.span())
