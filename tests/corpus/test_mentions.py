"""The hand-written mention scanner agrees with markdown-it-py's parse and
with the site's engine (recordkit.markdown.native):
ids in code (fenced, indented, spans) and HTML comments do not count, ids in
text, lists and headings do."""
import re
from collections import Counter

import pytest
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
        kind = draw(st.sampled_from(["word", "id", "wiki", "code", "code2", "link"]))
        if kind == "word":
            parts.append(draw(words))
        elif kind == "id":
            parts.append(draw(ids))
        elif kind == "link":
            # an id in a link's address is no mention (in its text it is)
            i = draw(ids)
            parts.append(draw(st.sampled_from([
                f"[see {i}](../figures/{i}.png)", f"[a]({i}.md#x)", f"![fig](../f/{i}.svg)", f"<https://e.org/{i}>",
                f"[t](<a {i}.png> 'T')", f"[t](http://e.org/?q={i})"])))
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
    """Ids markdown-it sees in text (not code, not HTML, not the address an
    autolink shows as its text)."""
    out = Counter()
    for tok in MD.parse(body):
        if tok.type == "inline":
            auto = False
            for child in tok.children or []:
                if child.type == "link_open":
                    auto = child.markup == "autolink"
                elif child.type == "link_close":
                    auto = False
                elif child.type == "text" and not auto:
                    out.update(ID_RE.findall(child.content))
    return out


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(block(), min_size=1, max_size=8))
def test_scanner_agrees_with_markdown_it(blocks):
    body = "\n\n".join(blocks) + "\n"
    got = Counter(m.target for m in scan_mentions(body, SCHEMA.mention_re))
    assert got == reference(body), body


def engine_reference(body: str) -> Counter:
    """Ids the site's engine (pulldown-cmark's events, as recordkit.markdown.native
    reads them) sees in text: not in code nor raw HTML (a comment), not the
    address an autolink shows; a wikilink's target."""
    import pyromark
    from recordkit.markdown.native import OPTIONS
    out = Counter()
    code = auto = wiki = 0
    for ev in pyromark.events(body, options=OPTIONS):
        if ev.__class__ is not dict:
            continue
        start, end = ev.get("Start"), ev.get("End")
        if start is not None and start.__class__ is dict:
            if "CodeBlock" in start:
                code += 1
            for k in ("Link", "Image"):
                if k in start:
                    lt = start[k]["link_type"]
                    if lt.__class__ is dict:            # a wikilink: its target
                        wiki += 1
                        out.update(ID_RE.findall(start[k]["dest_url"]))
                    elif lt in ("Autolink", "Email"):
                        auto += 1
        elif end in ("CodeBlock",):
            code -= 1
        elif end in ("Link", "Image"):
            if wiki:
                wiki -= 1
            elif auto:
                auto -= 1
        elif ev.get("Text") is not None and not (code or auto or wiki):
            out.update(ID_RE.findall(ev["Text"]))
    return out


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(block(), min_size=1, max_size=8))
def test_scanner_agrees_with_the_sites_engine(blocks):
    """What the lint reads as a mention (the hand-written scanner: code and
    comments left out) is what the site's engine reads as text: the two
    never disagree on what is code."""
    body = "\n\n".join(blocks) + "\n"
    got = Counter(m.target for m in scan_mentions(body, SCHEMA.mention_re))
    assert got == engine_reference(body), body


def test_positions_are_those_of_the_token():
    body = "intro\n\n- item with [[LIT-849|the paper]] and NOTE-738\n"
    ms = scan_mentions(body, SCHEMA.mention_re, first_line=10)
    assert [(m.target, m.line, m.col, m.end_col, m.form, m.label) for m in ms] == [
        ("LIT-849", 12, 13, 34, "wikilink", "the paper"),
        ("NOTE-738", 12, 39, 47, "bare", None),
    ]


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(block(), min_size=1, max_size=8))
def test_mention_targets_are_the_scanners_targets(blocks):
    """The loader keeps only mention_targets (a regular-expression pass per
    stretch between code ranges and wikilinks); the positions come later from
    scan_mentions.  Both must name the same ids in the same order."""
    from recordkit.corpus.mentions import mention_targets
    from recordkit.markdown.blocks import code_ranges
    body = "\n\n".join(blocks) + "\nX-LIT-849 LIT-849-b (THEORY-175) [[LIT-849|the paper]] `[[NOTE-738` LIT-849"
    code = code_ranges(body)
    assert mention_targets(body, SCHEMA.mention_targets_re, code) == \
        [m.target for m in scan_mentions(body, SCHEMA.mention_re, 1, code)]


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(block(), min_size=1, max_size=8), st.integers(1, 40),
       st.sampled_from(["", "\n", "LIT-849", "[[NOTE-738|a label]]", "x\n\n    LIT-849\n"]))
def test_mention_positions_are_the_scanners_mentions(blocks, first_line, lead):
    """The rows of the ``mentions`` table (``mention_positions``: a search
    per stretch between code and wikilinks, as mention_targets) are
    scan_mentions's mentions: target, line, column, form and label, in order."""
    from recordkit.corpus.mentions import mention_positions
    from recordkit.markdown.blocks import code_ranges
    body = lead + "\n\n".join(blocks) + "\nX-LIT-849 LIT-849-b (THEORY-175)\t[[LIT-849|the paper]] `[[NOTE-738` " \
        "[[ CLAIM-193 ]]LIT-849 é NOTE-738 [[THEORY-175#Scope|§]]"
    code = code_ranges(body)
    want = [(m.target, m.line, m.col, m.form, m.label) for m in scan_mentions(body, SCHEMA.mention_re, first_line, code)]
    assert mention_positions(body, SCHEMA.mention_targets_re, first_line, code) == want
    assert mention_positions(body, SCHEMA.mention_targets_re, first_line) == want
    # what the loader keeps (targets, and where each is, packed) gives the same
    from recordkit.corpus.mentions import mention_spots, mention_targets, spot_rows
    targets, spots = mention_spots(body, SCHEMA.mention_targets_re, code)
    assert targets == mention_targets(body, SCHEMA.mention_targets_re, code) == [w[0] for w in want]
    assert spot_rows(targets, spots, first_line) == want


def test_mention_positions_of_a_known_body():
    from recordkit.corpus.mentions import mention_positions
    body = "intro\n\n- item with [[LIT-849|the paper]] and NOTE-738\n`LIT-001` x-NOTE-002 NOTE-003\n"
    assert mention_positions(body, SCHEMA.mention_targets_re, 10) == [
        ("LIT-849", 12, 13, "wikilink", "the paper"), ("NOTE-738", 12, 39, "bare", None),
        ("NOTE-003", 13, 22, "bare", None)]
    assert mention_positions("", SCHEMA.mention_targets_re) == []


def test_the_loader_keeps_where_each_mention_is(tmp_path):
    """A parsed record holds its mentions' places (``mention_places()``) with
    the research defaults, so the ``mentions`` rows need no second look at
    the body; setting ``mentions`` drops them (they would be stale)."""
    from recordkit.corpus.mentions import Mention
    from recordkit.corpus.parse import parse_text
    text = "---\nid: NOTE-001\ntitle: t\n---\nSee [[LIT-849|the paper]],\n\n`NOTE-002` and THEORY-175.\n"
    rec, _ = parse_text(text, tmp_path / "NOTE-001.md", "NOTE-001.md", SCHEMA)
    assert rec.mention_targets == ["LIT-849", "THEORY-175"]
    lines, cols, wikilinks = rec.mention_places()
    places = [(t, rec.body_line + n, c) for t, n, c in zip(rec.mention_targets, lines, cols)]
    assert places == [("LIT-849", 5, 5), ("THEORY-175", 7, 16)] and list(wikilinks) == [(0, "the paper")]
    assert [(m.target, m.line, m.col) for m in rec.mentions] == places
    rec.mentions = [Mention("NOTE-003", 5, 1, 9)]
    assert rec.mention_places() is None and rec.mention_targets == ["NOTE-003"]


# -- backtick runs without a closer (issue 10) --------------------------------

def test_unclosed_backtick_run_then_a_later_run_does_not_hang():
    """A run with no closer in its paragraph, then any later run, looped
    forever: the opener's search stopped at the paragraph's end without
    moving on."""
    import subprocess
    import sys
    code = ("from recordkit.markdown.blocks import code_ranges\n"
            "b = 'a ` b\\n\\n`c` NOTE-738\\n'\n"
            "r = code_ranges(b)\n"
            "print([b[s:e] for s, e in r])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=20)
    assert out.stdout.strip() == "['`c`']", out.stderr
    body = "a ` b LIT-849\n\n`c` NOTE-738\n"
    assert [m.target for m in scan_mentions(body, SCHEMA.mention_re)] == ["LIT-849", "NOTE-738"]


@pytest.mark.slow
def test_long_lines_of_backtick_runs_end_quickly():
    """Inputs that were quadratic (or endless): a 1.6 MB line of
    fence-length runs (each searched back to the body's start for its line),
    and a paragraph of unmatched runs then runs of other widths.  Linear,
    each takes well under a second; quadratic, minutes.  (A subprocess with
    a generous limit: this is a hang test, not a speed test.)"""
    import subprocess
    import sys
    code = ("from recordkit.markdown.blocks import code_ranges\n"
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


@pytest.mark.slow
@settings(max_examples=600, deadline=None)
@given(st.lists(block_ticks(), min_size=1, max_size=6), st.sampled_from(["\n\n", "\n"]))
def test_unmatched_backticks_agree_with_markdown_it(blocks, joiner):
    """Backtick runs with and without closers, escaped ones, runs across
    lines, paragraphs interrupted by headings and list items: the scanner
    finds the ids markdown-it finds in text, and the same code spans."""
    from recordkit.markdown.blocks import code_ranges
    body = joiner.join(blocks) + "\n"
    got = Counter(m.target for m in scan_mentions(body, SCHEMA.mention_re))
    assert got == reference(body), body
    from recordkit.markdown.blocks import _fenced, _indented
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


# -- the link syntaxes of vaults (links: settings) ---------------------------------------
from urllib.parse import unquote  # noqa: E402

from recordkit.schema import LinkSettings  # noqa: E402

VAULT = LinkSettings(resolve=("id", "path", "stem", "title", "aliases"), case_sensitive=False,
                     markdown_links=True, mentions=False)
names = st.sampled_from(["Note", "My Note", "sub/Note", "0038-use-x", "a.b.c", "Ünïcode"])


@st.composite
def vault_inline(draw):
    """Inline text of a vault and the link targets it holds (outside code), in order."""
    parts, want = [], []
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["word", "wiki", "heading", "block", "label", "embed", "md", "md_enc",
                                     "md_angle", "md_ext", "code"]))
        n = draw(names)
        if kind == "word":
            parts.append(draw(words))
            continue
        if kind == "code":
            parts.append(f"`[[{n}]] [x]({n}.md)`")
            continue
        if kind == "md_ext":
            parts.append(f"[site](https://example.com/{n.replace(' ', '%20')}.md)")
            continue
        if kind == "wiki":
            parts.append(f"[[{n}]]")
        elif kind == "heading":
            parts.append(f"[[{n}#Part two|shown]]")
        elif kind == "block":
            parts.append(f"[[{n}^a1b2]]")
        elif kind == "label":
            parts.append(f"[[{n}|a label]]")
        elif kind == "embed":
            parts.append(f"![[{n}]]")
        elif kind == "md":
            if " " in n:
                parts.append(f"[t]({n.replace(' ', '%20')}.md#sec)")
            else:
                parts.append(f"[t]({n}.md)")
            want.append(f"{n}.md")
            continue
        elif kind == "md_enc":
            parts.append(f"[t]({n.replace(' ', '%20')}.md)")
            want.append(f"{n}.md")
            continue
        else:
            parts.append(f"[t](<{n}.md>)")
            want.append(f"{n}.md")
            continue
        want.append(n)
    return " ".join(parts), want


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(vault_inline(), min_size=1, max_size=6))
def test_vault_link_syntaxes_give_their_targets(paras):
    """Wikilinks with headings, blocks, labels; embeds; Markdown links
    (encoded, in angle brackets, with anchors): each names its target,
    in order; none in code; external links are not links."""
    body = "\n\n".join(p for p, _ in paras)
    want = [t for _, ts in paras for t in ts]
    got = scan_mentions(body, None, 1, None, VAULT)
    assert [m.target for m in got] == want
    for m in got:   # positions are those of the link's text
        line = body.split("\n")[m.line - 1]
        assert line[m.col - 1] in "[!"


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(vault_inline(), min_size=1, max_size=6))
def test_markdown_links_agree_with_markdown_it(paras):
    """The Markdown links to .md files the scanner finds are those
    markdown-it-py parses (link and image tokens outside code), decoded."""
    body = "\n\n".join(p for p, _ in paras)
    ref = Counter()
    for tok in MD.parse(body):
        for child in tok.children or []:
            href = child.attrs.get("href") if child.type == "link_open" else \
                child.attrs.get("src") if child.type == "image" else None
            if href and "://" not in href:
                href = unquote(href.split("#")[0])
                if href.endswith(".md"):
                    ref[href] += 1
    got = Counter(m.target for m in scan_mentions(body, None, 1, None, VAULT) if m.form == "markdown")
    assert got == ref


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["", "a label|", "x|"]), names,
                          st.sampled_from(["", "#h", "^b1", "#h#i"])), min_size=1, max_size=8))
def test_label_first_order(links):
    """Dendron's ``[[label|target]]``: the target is after the bar."""
    body = " and ".join(f"[[{label}{target}{anchor}]]" for label, target, anchor in links)
    got = scan_mentions(body, None, 1, None, LinkSettings(wikilink_order="label-first", mentions=False))
    assert [(m.target, m.label) for m in got] == [(t, lbl[:-1] or None) for lbl, t, _ in links]


@pytest.mark.slow
def test_vault_link_syntaxes_stay_linear():
    """Inputs made to be quadratic in a link scanner: unclosed ``](``,
    ``[[`` and ``|`` runs, destinations without an end.  (A subprocess with
    a generous limit: this is a hang test, not a speed test.)"""
    import subprocess
    import sys
    code = ("from recordkit.corpus.mentions import scan_mentions\n"
            "from recordkit.schema import LinkSettings\n"
            "s = LinkSettings(markdown_links=True, wikilink_order='label-first')\n"
            "t = LinkSettings(markdown_links=True)\n"
            "for body in ['](' * 200000, '[a](' * 200000, '[a](b' + 'c' * 400000, '[[a|' * 200000,\n"
            "             '![[' * 200000, '[[' + 'a#' * 200000, '[x](<' + 'a' * 400000, '[' * 400000 + '](x.md)',\n"
            "             '[[a|b' * 200000 + ']]', '[a](x.md \"' * 100000]:\n"
            "    scan_mentions(body, None, 1, None, s)\n"
            "    scan_mentions(body, None, 1, None, t)\n"
            "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "ok", out.stderr


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(vault_inline().map(lambda p: p[0]), block()), min_size=1, max_size=8),
       st.sampled_from([VAULT, LinkSettings(markdown_links=True, wikilink_order="label-first"),
                        LinkSettings(resolve=("id", "stem"), case_sensitive=False)]))
def test_mention_links_are_the_scanners_links(blocks, links):
    """``mention_links`` (what a vault's records are loaded with, no
    positions) names the same targets, in the same order, as scan_mentions
    with the same settings (what ``rec.mentions`` gives)."""
    from recordkit.corpus.mentions import mention_links
    from recordkit.markdown.blocks import code_ranges
    body = "\n\n".join(blocks)
    code = code_ranges(body)
    targets_re = SCHEMA.mention_targets_re if links.mentions else None
    id_re = SCHEMA.mention_re if links.mentions else None
    assert [t for t, _ in mention_links(body, targets_re, code, links)] == \
        [m.target for m in scan_mentions(body, id_re, 1, code, links)]


def test_a_schema_without_kinds_gives_the_scanners_targets():
    """With no kinds, the targets pattern has one group (the number), which
    findall gives as a string: it was unpacked digit by digit ("-123" came
    out as "12-3").  The loader's targets and places are the scanner's."""
    from recordkit.corpus.mentions import mention_spots, mention_targets
    from recordkit.markdown.blocks import code_ranges
    from recordkit.schema import default_schema_raw
    from recordkit.schema import Schema
    schema = Schema(dict(default_schema_raw(), kinds={}, relations={}))
    body = "see -123 and x-456, `-789` and -1011.\n"
    code = code_ranges(body)
    want = [m.target for m in scan_mentions(body, schema.mention_re, 1, code)]
    assert want == ["-123", "-1011"]
    assert mention_targets(body, schema.mention_targets_re, code) == want
    assert mention_spots(body, schema.mention_targets_re, code)[0] == want


@st.composite
def definition_blocks(draw):
    """Lines of link reference definitions, paragraphs, headings and
    fences, with or without blank lines between."""
    lines = []
    for _ in range(draw(st.integers(1, 10))):
        kind = draw(st.sampled_from(["def", "def", "def", "para", "heading", "fence", "blank", "foot"]))
        if kind == "def":
            label = draw(st.sampled_from(["a", "A", "note-b", "x y", "  a  ", "n#Sec", "//begin"]))
            dest = draw(st.sampled_from(["x.md", "sub/y.md#h", "<a b.md>", "c%20d.md", "noext", "#top",
                                         "http://e.org/z.md", "../up.md?q=1"]))
            title = draw(st.sampled_from(["", ' "T"', " 'T'", " (T)", ' "T" junk']))
            lines.append(f"{draw(st.sampled_from(['', ' ', '   ']))}[{label}]: {dest}{title}")
        elif kind == "para":
            lines.append(draw(words) + " " + draw(words))
        elif kind == "heading":
            lines.append("## " + draw(words))
        elif kind == "fence":
            lines += ["```", "[f]: in-code.md", "```"]
        elif kind == "foot":
            lines.append("[^1]: foot.md")
        else:
            lines.append("")
    return "\n".join(lines) + "\n"


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(definition_blocks())
def test_link_reference_definitions_agree_with_markdown_it(body):
    """The definitions to .md files the scanner reads as links (outside
    code, one per label) are those markdown-it-py keeps as references."""
    from urllib.parse import unquote
    from mdit_py_plugins.footnote import footnote_plugin
    env: dict = {}
    MarkdownIt("commonmark").use(footnote_plugin).parse(body, env)     # ([^1]: is a footnote, as on the site's engine too)
    want = Counter()
    for ref in env.get("references", {}).values():
        href = unquote(ref["href"]).split("#")[0].split("?")[0]
        if href.endswith(".md") and "://" not in href:
            want[href] += 1
    got = Counter(m.target for m in scan_mentions(body, None, 1, None, VAULT) if m.form == "markdown")
    assert got == want


def test_definitions_stay_linear():
    """Lines made to be slow for the definition pattern (a subprocess with
    a generous limit: a hang test, not a speed test)."""
    import subprocess
    import sys
    code = ("from recordkit.corpus.mentions import scan_mentions\n"
            "from recordkit.schema import LinkSettings\n"
            "t = LinkSettings(markdown_links=True)\n"
            "for body in ['[a]: ' * 200000, '[a]: ' + 'b' * 400000 + ' \"', '\\n[' + 'a' * 400000,\n"
            "             '[a]: b.md\\n' * 100000, '[a]:\\n' * 200000, '[' * 400000 + ']: x.md']:\n"
            "    scan_mentions(body, None, 1, None, t)\n"
            "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "ok", out.stderr


@st.composite
def list_block(draw):
    """A list whose items hold paragraphs, nested items and indented code:
    code inside an item is indented four past the item's content (``-``
    then 6 spaces, ``1.`` then 7), less is a paragraph of the item."""
    lines = []
    for _ in range(draw(st.integers(1, 3))):
        marker = draw(st.sampled_from(["-", "*", "1.", "10)", "-   "]))
        lead = draw(st.sampled_from(["", " ", "  "]))
        lines.append(f"{lead}{marker} {draw(inline())}")
        col = len(lead) + len(marker) + 1
        for _ in range(draw(st.integers(0, 3))):
            kind = draw(st.sampled_from(["code", "para", "nested", "nested-code", "shallow", "lazy", "tab"]))
            if kind == "code":
                lines += ["", " " * (col + draw(st.integers(4, 6))) + f"code {draw(ids)}"]
            elif kind == "para":
                lines += ["", " " * (col + draw(st.integers(0, 3))) + draw(inline())]
            elif kind == "nested":
                lines += [" " * col + f"- {draw(inline())}"]
            elif kind == "nested-code":
                lines += [" " * col + f"- {draw(inline())}", "", " " * (col + 2 + draw(st.integers(4, 5)))
                          + f"code {draw(ids)}"]
            elif kind == "shallow":      # after the list: top-level text or code
                lines += ["", " " * draw(st.integers(0, 5)) + draw(inline())]
            elif kind == "lazy":
                lines += [draw(inline())]
            else:
                lines += ["", " " * col + "\t" + f"code {draw(ids)}"]
    return "\n".join(lines)


@pytest.mark.slow
@settings(max_examples=500, deadline=None)
@given(st.lists(st.one_of(list_block(), block()), min_size=1, max_size=5))
def test_code_inside_list_items_agrees_with_markdown_it(blocks):
    """An indented code block inside a list item (indented four past the
    item's content) is code, as markdown-it reads it; a paragraph of the
    item indented less is text."""
    body = "\n\n".join(blocks) + "\n"
    got = Counter(m.target for m in scan_mentions(body, SCHEMA.mention_re))
    assert got == reference(body), body


import pytest  # noqa: E402


@pytest.mark.parametrize("body", [
    "- - nested item\n\n      see NOTE-404 here\n",       # two markers on a line: the inner item's column
    "-\ttab item\n\n      see NOTE-405 here\n",           # a tab after the marker goes to column 4
    "1. - item\n\n        see NOTE-406\n",
    "1.\titem\n\n       see NOTE-407\n",
    " - \n   \n\t-     NOTE-185\n",                        # an item that begins empty ends at a blank line
    "-\n\n  foo NOTE-111\n",
    "- a\n\n      code NOTE-112\n",
    "- - a\n\n          code NOTE-113\n",
    "* * *word\n\n        text NOTE-114\n",
])
def test_list_item_columns_as_markdown_it_reads_them(body):
    got = Counter(m.target for m in scan_mentions(body, SCHEMA.mention_re))
    assert got == reference(body), body
