"""Text positions (``common/textpos``): far into a text, ``offset_of`` and
``line_col`` use the text's line index instead of searching from its start
each time, so a rule that asks for each of a long body's mentions in turn
is linear (a 20,000-line index note took 16 s to lint).  Both ways must
give the same answers: held to the plain definitions on drawn texts, with
the index used from the first line and character."""
from __future__ import annotations

import subprocess
import sys
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recordkit.common import textpos

TEXT = st.lists(st.sampled_from(["a", "é", "\n", "\r\n", "\r", " ", "\n\n", "xyz"]), max_size=40).map("".join)


def _plain_offset(text, line, col):
    lines = text.split("\n")
    if line - 1 >= len(lines):
        return len(text)
    return min(sum(len(x) + 1 for x in lines[:line - 1]) + col - 1, len(text))


def _plain_line_col(text, offset):
    before = text[:offset]
    return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(TEXT, st.integers(1, 45), st.integers(1, 10), st.integers(0, 50), st.booleans())
def test_both_ways_give_the_plain_answers(text, line, col, offset, indexed):
    import pytest
    with pytest.MonkeyPatch.context() as mp:
        if indexed:
            mp.setattr(textpos, "_NEAR_LINES", 0)
            mp.setattr(textpos, "_NEAR_CHARS", -1)
        assert textpos.offset_of(text, line, col) == _plain_offset(text, line, col)
        if offset <= len(text):
            assert textpos.line_col(text, offset) == _plain_line_col(text, offset)


def test_a_long_index_note_lints_in_linear_time(tmp_path):
    root = tmp_path / "records"
    (root / "note").mkdir(parents=True)
    (root / "note" / "NOTE-001.md").write_text(
        "---\nid: NOTE-001\ntitle: A\nstatus: draft\n---\n\n## Body\n\nHello.\n", encoding="utf-8")
    # a note listing a record on each of 20,000 lines, and a link to a
    # heading (so each wikilink's fragment is looked at)
    (root / "note" / "NOTE-002.md").write_text(
        "---\nid: NOTE-002\ntitle: An index\nstatus: draft\n---\n" + "- [[NOTE-001]]\n" * 20_000
        + "\n[[NOTE-001#Body]] ![[NOTE-001#Nowhere]]\n", encoding="utf-8")
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "recordkit", "--root", str(root), "lint", "--no-cache"],
                         capture_output=True, text=True, cwd=tmp_path, timeout=120)
    took = time.perf_counter() - t0
    assert out.returncode == 0, out.stdout + out.stderr
    assert "NOTE-002.md:20007:20: RK309" in out.stdout, out.stdout
    assert took < 5, took          # 0.25 s; searching from the start each time took 16 s
