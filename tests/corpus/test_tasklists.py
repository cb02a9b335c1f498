"""Task lists are made by recordkit's own core rule, linear in the body,
in place of ``mdit_py_plugins.tasklists`` (which scans back to the body's
start for each item's list: 25,000 items took 44 s to build and 39 s to
lint).  The tokens must be the plugin's, so the rule is held to the plugin
on drawn bodies of nested lists, and a long checklist is timed through the
real CLI."""
from __future__ import annotations

import pytest
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from mdit_py_plugins.tasklists import tasklists_plugin

from recordkit.markdown import tasklists
from conftest import child_cpu


def _parsers():
    ours = MarkdownIt("commonmark").enable(["table"])
    tasklists.use(ours)
    theirs = MarkdownIt("commonmark").enable(["table"]).use(tasklists_plugin)
    return ours, theirs


OURS, THEIRS = _parsers()

ITEM = st.tuples(
    st.integers(0, 4),                                          # indent, in steps of two spaces
    st.sampled_from(["- ", "* ", "1. ", "2) ", "> - ", ""]),   # marker (or a plain line)
    st.sampled_from(["[ ] ", "[x] ", "[X] ", "[ ]\t", "[ ]", "[y] ", "[] ", "", "[ ]  ", "[x]\n  "]),
    st.sampled_from(["a", "*b*", "[x](u)", "`c`", "", "| t |", "d\n\n  e"]),
)
BODY = st.lists(ITEM, max_size=25).map(
    lambda items: "".join("  " * ind + mark + box + text + "\n" + ("\n" if ind == 3 else "")
                          for ind, mark, box, text in items))


def _tokens(md, body):
    return [(t.type, t.level, t.attrs, t.content, [(c.type, c.content) for c in t.children or ()])
            for t in md.parse(body)]


@pytest.mark.slow
@settings(max_examples=400, deadline=None)  # 1,500 took 25 s of a CI core
@given(BODY)
def test_the_rule_makes_the_plugins_tokens(body):
    assert _tokens(OURS, body) == _tokens(THEIRS, body)
    assert OURS.render(body) == THEIRS.render(body)


def test_examples():
    for body in ["- [ ] a\n- [x] b\n  - [X] c\n    1. [ ] d\n", "[x]: u\n\n- [x] a\n", "- [ ]\ta\n",
                 "> - [ ] q\n", "- a\n  - [ ] b\n- [x] c\n"]:
        assert OURS.render(body) == THEIRS.render(body), body
    html = OURS.render("- [ ] a\n- [x] b\n")
    assert '<ul class="contains-task-list">' in html
    assert '<li class="task-list-item"><input class="task-list-item-checkbox" checked="checked" ' \
           'disabled="disabled" type="checkbox"> b</li>' in html


@pytest.mark.slow
def test_a_long_checklist_builds_and_lints_in_linear_time(tmp_path):
    root = tmp_path / "records"
    (root / "note").mkdir(parents=True)
    # a fragment link makes lint parse the body for its headings
    (root / "note" / "NOTE-001.md").write_text(
        "---\nid: NOTE-001\ntitle: A checklist\nstatus: draft\n---\n\n## Reading list\n\n"
        + "- [ ] read a paper\n" * 25_000 + "\n[[NOTE-001#Reading list]]\n", encoding="utf-8")
    for args in (["lint", "--no-cache"], ["build", "-o", str(tmp_path / "site"), "-q"]):
        t0 = child_cpu()
        out = subprocess.run([sys.executable, "-m", "recordkit", "--root", str(root), *args],
                             capture_output=True, text=True, cwd=tmp_path, timeout=120)
        took = child_cpu() - t0
        assert out.returncode == 0, out.stderr
        # ~1 s each; the plugin took 39 s (lint) and 44 s (build)
        assert took < 12, (args, took)
    page = next((tmp_path / "site").rglob("NOTE-001.html")).read_text(encoding="utf-8")
    assert page.count('class="task-list-item"') == 25_000
