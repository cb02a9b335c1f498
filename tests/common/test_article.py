""""a" or "an" by the word's sound, wherever a message says "a KIND"."""
import json

import pytest

from conftest import run_cli, write
from recordkit.common.text import a_or_an, article


@pytest.mark.parametrize("word, want", [
    # initialisms: the first letter's name (A E F H I L M N O R S X start with a vowel sound)
    ("ADR", "an"), ("HTML", "an"), ("MVP", "an"), ("RFC", "an"), ("LLM", "an"), ("NDA", "an"), ("XML", "an"),
    ("SQL", "an"), ("FBI", "an"), ("OKR", "an"), ("AI", "an"), ("UI", "a"), ("URL", "a"), ("TLA", "a"),
    ("X", "an"), ("B", "a"),
    # words in capitals: the research kinds, Dendron's, and others
    ("LIT", "a"), ("NOTE", "a"), ("THEORY", "a"), ("CLAIM", "a"), ("QUESTION", "a"), ("JOURNAL", "a"),
    ("MEETING", "a"), ("SCRATCH", "a"), ("USER", "a"), ("TEMPLATE", "a"), ("ESSAY", "an"), ("IDEA", "an"),
    ("EPIC", "an"), ("MYTH", "a"), ("SNAPSHOT", "a"), ("FLOW", "a"),
    # words
    ("literature", "a"), ("idea", "an"), ("user", "a"), ("unit", "a"), ("update", "an"), ("unknown", "an"),
    ("hour", "an"), ("hypothesis", "a"), ("evergreen", "an"), ("", "a"), ("123", "a"),
])
def test_article(word, want):
    assert article(word) == want
    assert a_or_an(word) == f"{want} {word}"


def test_messages_say_an_adr(tmp_path):
    """RK204, RK203 and RK207 on an ADR: "for an ADR", "an ADR should have"."""
    (tmp_path / "recordkit.toml").write_text('schema = "preset:madr"\n', encoding="utf-8")
    write(tmp_path, "records/0001-use-x.md", "---\nstatus: Acepted\nowner: me\n---\n# Use X\n")
    p = run_cli("lint", "--no-cache", "--format", "json", "--exit-zero", cwd=tmp_path)
    msgs = [d["message"] for d in json.loads(p.stdout)]
    assert any("for an ADR (did you mean accepted?)" in m for m in msgs), msgs
    assert any(m.startswith("an ADR should have a section") for m in msgs), msgs
    assert any("unknown field `owner` for an ADR" in m for m in msgs), msgs
    assert not any(" a ADR" in m or m.startswith("a ADR") for m in msgs), msgs
