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
