"""`plan_rename(..., records=...)`: a rename planned from files parsed
already (what a language server's snapshot holds) is the very plan the
command makes from the files on disk — the same changes, summary, notes and
references, the same refusals — whether the records hold their texts (parsed
in this process) or read them on demand (restored from the store of parsed
records); and a record holding an editor's unsaved text is planned from it."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from recordkit.author.plan import AuthorError
from recordkit.author.rename import plan_rename
from recordkit.config import load_config
from recordkit.corpus.loader import load, with_texts

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    """``records/`` with LIT-849 named where only a byte search finds it:
    a YAML comment, an HTML comment, a code span (left, and noted), a
    ``query`` block, a file that does not parse."""
    dest = tmp_path_factory.mktemp("rn") / "r"
    shutil.copytree(REPO / "records", dest / "records")
    (dest / "recordkit.toml").write_text('root = "records"\nmax_file_size = "200 KB"\n', encoding="utf-8")
    lit = dest / "records" / "lit" / "LIT-250.md"
    text = lit.read_text(encoding="utf-8")
    lit.write_text(text.replace("---\n", "---\n# compare LIT-849\n", 1)
                   + "\nSee `LIT-849` <!-- and LIT-849 -->.\n\n```query\nSELECT id FROM records WHERE id = 'LIT-849'\n```\n",
                   encoding="utf-8")
    (dest / "records" / "note" / "broken.md").write_text("---\nid: [LIT-849\n---\nLIT-849 and more\n", encoding="utf-8")
    return dest


def key(plan):
    return (plan.summary, plan.notes, plan.references, plan.new_path,
            [(c.path, c.before, c.after, c.renamed_from) for c in plan.changes])


def outcome(fn):
    try:
        return key(fn())
    except AuthorError as exc:
        return ("refused", str(exc), exc.usage)


def corpora(root: Path, monkeypatch):
    from recordkit.runtime import tuning
    monkeypatch.setattr(tuning, "RACY_NS", 0)       # (files written a moment ago: their stat trusted)
    config = load_config(root)
    held = load(config=config, jobs=1)
    load(config=config, jobs=1, store=True)
    restored = load(config=config, jobs=1, store=True)      # (records that read their file when asked)
    assert any(r.source.held() is None for r in restored.files)
    return config, held, restored


CASES = [("LIT-849", "LIT-850"), ("LIT-849", "LIT-250"), ("LIT-849", "NOTE-900"), ("LIT-9999", "LIT-850"),
         ("THEORY-798", "THEORY-7980"), ("LIT-849", "LIT-84")]


def test_planned_from_records_equals_planned_from_the_files(root, monkeypatch):
    config, held, restored = corpora(root, monkeypatch)
    schema = held.schema
    for old, new in CASES:
        want = outcome(lambda: plan_rename(config, schema, old, new))
        assert outcome(lambda: plan_rename(config, schema, old, new, records=held.files)) == want, (old, new)
        assert outcome(lambda: plan_rename(config, schema, old, new, records=restored.files)) == want, (old, new)
    plan = plan_rename(config, schema, "LIT-849", "LIT-850", records=held.files)
    assert any("inside code" in n for n in plan.notes)
    changed = {c.path.name for c in plan.changes}
    assert {"LIT-250.md", "broken.md", "LIT-849.md", "LIT-850.md"} <= changed


def test_a_file_too_large_that_names_the_id_is_refused_both_ways(tmp_path, root, monkeypatch):
    dest = tmp_path / "r"
    shutil.copytree(root, dest)
    (dest / "records" / "note" / "huge.md").write_text("x" * 300_000 + "\nLIT-849\n", encoding="utf-8")
    config, held, restored = corpora(dest, monkeypatch)
    want = outcome(lambda: plan_rename(config, held.schema, "LIT-849", "LIT-850"))
    assert want[0] == "refused" and "max_file_size" in want[1]
    assert outcome(lambda: plan_rename(config, held.schema, "LIT-849", "LIT-850", records=held.files)) == want
    assert outcome(lambda: plan_rename(config, held.schema, "LIT-849", "LIT-850", records=restored.files)) == want


def test_an_unsaved_text_is_planned_from(root, monkeypatch):
    config, held, _ = corpora(root, monkeypatch)
    note = next(r for r in held.files if r.ok and r.kind == "NOTE" and "LIT-849" not in r.text)
    unsaved = note.text + "\nAn unsaved mention of LIT-849.\n"
    snap = with_texts(held, {note.path: unsaved})
    plan = plan_rename(config, held.schema, "LIT-849", "LIT-850", records=snap.files)
    change = next(c for c in plan.changes if c.path == note.path)
    assert change.before == unsaved and change.after.endswith("An unsaved mention of LIT-850.\n")
    # on disk the note names no LIT-849: the command leaves it alone
    assert all(c.path != note.path for c in plan_rename(config, held.schema, "LIT-849", "LIT-850").changes)
