"""Property tests: --fix edits only its spans and is idempotent; no input
makes the loader or the linter raise."""
import pytest
import difflib
import re
import string
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings, strategies as st

import recordkit
from recordkit.lint.engine import lint
from recordkit.lint.fix import fix_corpus
from recordkit.markdown.frontmatter import Loader as _Loader
from recordkit.corpus.parse import parse_text
from recordkit.schema import load_schema

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

STATUSES = ["proposed", "Proposed", "PROPOSED", "propsed", "active", "Activ", "retired", "rejected", "bogus"]
word = st.text(alphabet=string.ascii_letters + "_ ", min_size=1, max_size=12).map(str.strip).filter(bool)
tag = st.one_of(word, st.sampled_from(["Representation_Learning", "camelCase", "ok-tag", "UPPER", "a b"]))
quote = st.sampled_from(["", "'", '"'])
comment = st.sampled_from(["", "  # a comment", " #x"])


@st.composite
def theory(draw):
    q = draw(quote)
    lines = ["---", f"id: THEORY-001{draw(comment)}", f"title: {q}A theory: of things{q}"]
    lines.append(f"status: {draw(quote)}{draw(st.sampled_from(STATUSES))}".rstrip() + draw(comment))
    if draw(st.booleans()):
        q2 = draw(quote)
        tags = draw(st.lists(tag, max_size=4))
        if draw(st.booleans()):
            lines.append("tags: [" + ", ".join(f"{q2}{t}{q2}" for t in tags) + "]")
        else:
            lines.append("tags:")
            lines += [f"  - {q2}{t}{q2}{draw(comment)}" for t in tags]
    lines.append(f"source: {draw(st.sampled_from(['LIT-001', '[LIT-001]', 'LIT-002']))}")
    if draw(st.booleans()):
        lines += ["promote_when:", f"  summary: {draw(word)}"]
    lines.append("---")
    body = draw(st.text(alphabet=string.printable + "éß→", max_size=200))
    text = "\n".join(lines) + "\n" + body
    if draw(st.booleans()):
        text = text.rstrip("\n")
    return text


LIT = "---\nid: LIT-001\ntitle: t\nstatus: {status}\nauthors: {authors}\nyear: 2020\n---\n"


def _lint(corpus):
    return lint(corpus).diagnostics


def _changed_ranges(before: str, after: str):
    sm = difflib.SequenceMatcher(None, before, after, autojunk=False)
    return [(i1, i2) for tag, i1, i2, j1, j2 in sm.get_opcodes() if tag != "equal"]


@pytest.mark.slow
@SETTINGS
@given(text=theory(), status=st.sampled_from(["queued", "Queued", "qeued"]),
       authors=st.sampled_from(["[A]", "Ada Lovelace", "'Single Quoted'", "[A, B]"]))
def test_fix_changes_only_its_spans_and_is_idempotent(tmp_path_factory, text, status, authors):
    root = tmp_path_factory.mktemp("rec")
    files = {root / "THEORY-001.md": text, root / "LIT-001.md": LIT.format(status=status, authors=authors)}
    for p, t in files.items():
        with open(p, "w", encoding="utf-8", newline="") as fh:
            fh.write(t)
    corpus = recordkit.load(root)
    report, corpus2 = fix_corpus(corpus, _lint, write=True)
    for path, before in files.items():
        with open(path, encoding="utf-8", newline="") as fh:
            after = fh.read()
        if path not in report.texts:
            assert after == before
            continue
        assert after == report.texts[path]
        # replay the passes: every change falls inside a fix's span
        current = before
        for applied in report.spans[path]:
            changed = _changed_ranges(current, _apply(current, applied))
            for i1, i2 in changed:
                assert any(s <= i1 and i2 <= max(e, s + 1) or (s == e == i1 == i2) for s, e, _ in applied), \
                    (current[max(0, i1 - 20):i2 + 20], applied)
            current = _apply(current, applied)
        assert current == after
        # values other than the fixed ones are unchanged
        b = _front_matter(before)
        a = _front_matter(after)
        if b is not None:
            assert a is not None and set(a) == set(b)
            for k in set(b) - {"status", "tags", "authors"}:
                assert a[k] == b[k]
    # idempotent: a second run changes nothing
    again, _ = fix_corpus(recordkit.load(root), _lint, write=True)
    assert again.fixed == 0 and not again.texts


def _apply(text, applied):
    out, pos = [], 0
    for s, e, c in sorted(applied):
        out.append(text[pos:s])
        out.append(c)
        pos = e
    out.append(text[pos:])
    return "".join(out)


def _front_matter(text):
    m = re.match(r"---\n(.*?)\n---", text, re.S)
    if not m:
        return None
    try:
        return yaml.load(m.group(1), Loader=_Loader)
    except yaml.YAMLError:
        return None


@pytest.mark.slow
@SETTINGS
@given(data=st.one_of(
    st.binary(max_size=300),
    st.text(max_size=300).map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.builds(lambda fm, body: ("---\n" + fm + "\n---\n" + body).encode("utf-8", "surrogatepass"),
              st.text(alphabet=string.printable + "[]{}:-&*!|>'\"#%@`", max_size=200), st.text(max_size=100)),
))
def test_no_input_makes_load_or_lint_raise(tmp_path_factory, data):
    root = tmp_path_factory.mktemp("rec")
    (root / "THEORY-001.md").write_bytes(data)
    (root / "LIT-001.md").write_text(LIT.format(status="queued", authors="[A]"))
    corpus = recordkit.load(root)
    diags = lint(corpus).diagnostics
    for d in diags:
        assert d.line >= 1 and d.col >= 1
        assert d.code.startswith("RK")


@SETTINGS
@given(st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20),
              st.dates()),
    lambda children: st.one_of(st.lists(children, max_size=4),
                               st.dictionaries(st.text(min_size=1, max_size=8), children, max_size=4)),
    max_leaves=20))
def test_positioned_construction_equals_safe_load(value):
    """The loader's one-pass construction gives what yaml.safe_load gives."""
    doc = {"id": "THEORY-001", "value": value}
    text = yaml.safe_dump(doc, allow_unicode=True, default_flow_style=False, sort_keys=False)
    rec, diags = parse_text("---\n" + text + "---\n", Path("THEORY-001.md"), "THEORY-001.md", load_schema())
    assert not diags
    assert rec.meta == yaml.load(text, Loader=_Loader)
