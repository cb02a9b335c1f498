"""The hand-written mention scanner agrees with markdown-it-py's parse:
ids in code (fenced, indented, spans) and HTML comments do not count, ids in
text, lists and headings do."""
import re
from collections import Counter

from hypothesis import given, settings, strategies as st
from markdown_it import MarkdownIt

from recordkit.corpus.mentions import scan_mentions
from recordkit.schema import load_schema

SCHEMA = load_schema()
ID_RE = re.compile(r"(?<![\w-])(?:THEORY|QUESTION|CLAIM|NOTE|LIT)-[0-9]{3,}(?![\w-])")
MD = MarkdownIt("commonmark")

ids = st.sampled_from(["THEORY-175", "LIT-849", "NOTE-738", "CLAIM-193", "QUESTION-027"])
words = st.sampled_from(["the", "map", "is", "angle-preserving", "see", "and", "(a", "note)", "x", "—"])


@st.composite
def inline(draw):
    parts = []
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["word", "id", "wiki", "code", "code2"]))
        if kind == "word":
            parts.append(draw(words))
        elif kind == "id":
            parts.append(draw(ids))
        elif kind == "wiki":
            parts.append(f"[[{draw(ids)}]]")
        elif kind == "code":
            parts.append(f"`{draw(ids)}`")
        else:
            parts.append(f"`` a ` {draw(ids)} ``")
    return " ".join(parts)


@st.composite
def block(draw):
    kind = draw(st.sampled_from(["para", "list", "fence", "tilde", "indented", "comment", "heading"]))
    if kind == "para":
        return draw(inline())
    if kind == "list":
        items = draw(st.lists(inline(), min_size=1, max_size=3))
        return "\n".join(f"- {i}" for i in items)
    if kind == "fence":
        return f"```python\nx = '{draw(ids)}'\n```"
    if kind == "tilde":
        return f"~~~\n{draw(ids)}\n~~~"
    if kind == "indented":
        return f"    code {draw(ids)}"
    if kind == "comment":
        return f"<!-- {draw(ids)} -->"
    return f"## About {draw(ids)}"


def reference(body: str) -> Counter:
    """Ids markdown-it sees in text (not code, not HTML)."""
    out = Counter()
    for tok in MD.parse(body):
        if tok.type == "inline":
            for child in tok.children or []:
                if child.type == "text":
                    out.update(ID_RE.findall(child.content))
    return out


@settings(max_examples=300, deadline=None)
@given(st.lists(block(), min_size=1, max_size=8))
def test_scanner_agrees_with_markdown_it(blocks):
    body = "\n\n".join(blocks) + "\n"
    got = Counter(m.target for m in scan_mentions(body, SCHEMA.mention_re))
    assert got == reference(body), body


def test_positions_are_those_of_the_token():
    body = "intro\n\n- item with [[LIT-849|the paper]] and NOTE-738\n"
    ms = scan_mentions(body, SCHEMA.mention_re, first_line=10)
    assert [(m.target, m.line, m.col, m.end_col, m.form, m.label) for m in ms] == [
        ("LIT-849", 12, 13, 34, "wikilink", "the paper"),
        ("NOTE-738", 12, 39, 47, "bare", None),
    ]


@settings(max_examples=300, deadline=None)
@given(st.lists(block(), min_size=1, max_size=8))
def test_mention_targets_are_the_scanners_targets(blocks):
    """The loader keeps only mention_targets (a regular-expression pass per
    stretch between code ranges and wikilinks); the positions come later from
    scan_mentions.  Both must name the same ids in the same order."""
    from recordkit.corpus.mentions import code_ranges, mention_targets
    body = "\n\n".join(blocks) + "\nX-LIT-849 LIT-849-b (THEORY-175) [[LIT-849|the paper]] `[[NOTE-738` LIT-849"
    code = code_ranges(body)
    assert mention_targets(body, SCHEMA.mention_targets_re, code) == \
        [m.target for m in scan_mentions(body, SCHEMA.mention_re, 1, code)]


# -- backtick runs without a closer (issue 10) --------------------------------

def test_unclosed_backtick_run_then_a_later_run_does_not_hang():
    """A run with no closer in its paragraph, then any later run, looped
    forever: the opener's search stopped at the paragraph's end without
    moving on."""
    import subprocess
    import sys
    code = ("from recordkit.corpus.mentions import code_ranges\n"
            "b = 'a ` b\\n\\n`c` NOTE-738\\n'\n"
            "r = code_ranges(b)\n"
            "print([b[s:e] for s, e in r])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=20)
    assert out.stdout.strip() == "['`c`']", out.stderr
    body = "a ` b LIT-849\n\n`c` NOTE-738\n"
    assert [m.target for m in scan_mentions(body, SCHEMA.mention_re)] == ["LIT-849", "NOTE-738"]


def test_long_lines_of_backtick_runs_end_quickly():
    """Inputs that were quadratic (or endless): a 1.6 MB line of
    fence-length runs (each searched back to the body's start for its line),
    and a paragraph of unmatched runs then runs of other widths.  Linear,
    each takes well under a second; quadratic, minutes.  (A subprocess with
    a generous limit: this is a hang test, not a speed test.)"""
    import subprocess
    import sys
    code = ("from recordkit.corpus.mentions import code_ranges\n"
            "code_ranges('x ``` y ' * 200000)\n"
            "code_ranges('` a ' * 200000 + ''.join('`' * k + ' ' for k in range(2, 300)))\n"
            "code_ranges('- a\\n' + '\\n    b\\n' * 200000)\n"
            "code_ranges('<!-- a -->`x`\\n' * 100000)\n"
            "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "ok", out.stderr


ticky = st.sampled_from(["`", "``", "```", "\\`", "\\\\`", "a`b", "`x``", "x`` y", "` LIT-849 `"])


@st.composite
def inline_ticks(draw):
    parts = []
    for _ in range(draw(st.integers(1, 10))):
        kind = draw(st.sampled_from(["word", "id", "ticks", "ticks", "code", "wiki"]))
        if kind == "word":
            parts.append(draw(words))
        elif kind == "id":
            parts.append(draw(ids))
        elif kind == "wiki":
            parts.append(f"[[{draw(ids)}]]")
        elif kind == "code":
            parts.append(f"`{draw(ids)}`")
        else:
            parts.append(draw(ticky))
    sep = draw(st.sampled_from([" ", " ", "\n"]))
    return sep.join(parts)


@st.composite
def block_ticks(draw):
    # (indented code blocks are left to the fuzz above: which paragraph a
    # blank line and an indented line continue is not what this one tests)
    kind = draw(st.sampled_from(["para", "para", "list", "heading", "fence", "quote"]))
    if kind == "para":
        return draw(inline_ticks())
    if kind == "list":
        items = draw(st.lists(inline_ticks(), min_size=1, max_size=3))
        # (a word first: the scanner knows no fence that opens a list item)
        return "\n".join(f"- x {i}".replace("\n", "\n  x ") for i in items)
    if kind == "heading":
        return "## " + draw(inline_ticks()).replace("\n", " ")
    if kind == "fence":
        return f"```\nx ` {draw(ids)}\n```"
    # (nor fences in quotes, nor lazy continuation lines of a quote)
    return "\n> x " + draw(inline_ticks()).replace("\n", "\n> x ") + "\n"


def code_reference(body: str) -> list[str]:
    """The contents of markdown-it's code spans, in order."""
    out = []
    for tok in MD.parse(body):
        if tok.type == "inline":
            out += [c.content for c in tok.children or [] if c.type == "code_inline"]
    return out


@settings(max_examples=600, deadline=None)
@given(st.lists(block_ticks(), min_size=1, max_size=6), st.sampled_from(["\n\n", "\n"]))
def test_unmatched_backticks_agree_with_markdown_it(blocks, joiner):
    """Backtick runs with and without closers, escaped ones, runs across
    lines, paragraphs interrupted by headings and list items: the scanner
    finds the ids markdown-it finds in text, and the same code spans."""
    from recordkit.corpus.mentions import code_ranges
    body = joiner.join(blocks) + "\n"
    got = Counter(m.target for m in scan_mentions(body, SCHEMA.mention_re))
    assert got == reference(body), body
    from recordkit.corpus.mentions import _fenced, _indented
    blocks: list = []
    _fenced(body, blocks)
    _indented(body, blocks)
    spans = []
    for s, e in code_ranges(body):
        if (s, e) not in blocks and body[s] == "`":
            run = len(body[s:]) - len(body[s:].lstrip("`"))
            # (whitespace compared loosely: markdown-it drops a list item's
            # or a quote's indentation from a span that crosses lines)
            spans.append(" ".join(body[s + run:e - run].replace(">", " ").split()))
    want = [" ".join(c.replace(">", " ").split()) for c in code_reference(body)]
    assert spans == want, body
