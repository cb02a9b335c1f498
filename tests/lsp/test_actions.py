"""Code actions (quick fixes from the diagnostic's data or the lint again,
fix-all = lint --fix, did you mean, create from skeleton, promote) and the
lenses, inlay hints and Run check."""
from __future__ import annotations

import pytest
from lsprotocol import types as lsp

from featurekit import Snap, research_copy, snap_of
from recordkit.lsp.features import actions, lenses


@pytest.fixture(scope="module")
def snap(tmp_path_factory):
    return snap_of(research_copy(tmp_path_factory.mktemp("act")))


def edited(snap, rid, old, new):
    rec = snap.corpus.records[rid]
    text = rec.text.replace(old, new, 1)
    return Snap(snap.corpus, {rec.path: text}), text


def test_did_you_mean_and_create_from_skeleton_on_a_dangling_id(snap):
    s, text = edited(snap, "THEORY-798", "source: [LIT-849]", "source: [LIT-894]")
    pos = s.at("THEORY-798", "LIT-894", shift=2)
    got = actions.code_actions(s, s.uri("THEORY-798"), lsp.Range(start=pos, end=pos), [])
    titles = [a.title for a in got]
    assert "Did you mean LIT-849?" in titles
    s2, _ = edited(snap, "THEORY-798", "NOTE-652", "NOTE-999")
    pos = s2.at("THEORY-798", "NOTE-999", shift=2)
    got = actions.code_actions(s2, s2.uri("THEORY-798"), lsp.Range(start=pos, end=pos), [])
    create = next(a for a in got if a.title.startswith("Create NOTE-"))
    assert any(isinstance(c, lsp.CreateFile) for c in create.edit.document_changes)
    # a LIT needs its authors and year, which `recordkit new` refuses to guess: offered disabled, with its reason
    pos = s.at("THEORY-798", "LIT-894", shift=2)
    got = actions.code_actions(s, s.uri("THEORY-798"), lsp.Range(start=pos, end=pos), [])
    lit = next(a for a in got if a.title.startswith("Create a LIT"))
    assert lit.edit is None and "needs" in lit.disabled.reason and "authors" in lit.disabled.reason


def test_quick_fix_from_the_lint_and_fix_all_as_lint_fix(snap):
    s, text = edited(snap, "THEORY-798", "status: proposed", "status: Proposed")
    line = text.split("\n").index("status: Proposed")
    d = lsp.Diagnostic(range=lsp.Range(start=lsp.Position(line=line, character=8),
                                       end=lsp.Position(line=line, character=16)), message="", code="RK204")
    got = actions.quick_fixes(s, s.uri("THEORY-798"), d)
    assert got and "safe" in got[0].title
    (edit,) = got[0].edit.changes[s.uri("THEORY-798")]
    assert edit.new_text == "proposed"
    fa = actions.fix_all(s, s.uri("THEORY-798"))
    assert fa.kind == actions.FIX_ALL
    (e,) = [e for e in fa.edit.changes[s.uri("THEORY-798")] if e.range.start.line == line]
    fixed = text.split("\n")[line]
    fixed = fixed[:e.range.start.character] + e.new_text + fixed[e.range.end.character:]
    assert fixed == "status: proposed"
    data = {"fix": {"message": "m", "applicability": "unsafe", "edits": [
        {"range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 1}}, "newText": "x"}]}}
    d2 = lsp.Diagnostic(range=d.range, message="", code="RK999", data=data)
    assert "unsafe" in actions.quick_fixes(s, s.uri("THEORY-798"), d2)[0].title


def test_promote_a_ready_theory(snap):
    s, text = edited(snap, "NOTE-804", "status: draft", "status: final")
    got = actions.promote_action(s, s.uri("THEORY-798"), s.corpus.records["THEORY-798"])
    assert got is not None and got.title.startswith("Promote THEORY-798")
    new = [e.new_text for e in got.edit.changes[s.uri("THEORY-798")]]
    assert any("active" in x for x in new) and any("promoted_by" in x for x in new)


def test_lenses_hints_and_run_check(tmp_path):
    s = snap_of(research_copy(tmp_path))
    titles = [lens.command.title for lens in lenses.code_lenses(s, s.uri("NOTE-738"))]
    assert titles[0].startswith("Cited as") and "check var-diff-identity: not run" in titles and "Run check" in titles
    (hint,) = lenses.inlay_hints(s, s.uri("THEORY-798"))
    assert hint.label == "· blocked"
    said = []
    got = lenses.run_check(s, "var-diff-identity", report=said.append, cancelled=lambda: False)
    assert got["verdict"] == "pass" and said
    s2 = snap_of(tmp_path)
    assert any(t.startswith("check var-diff-identity: pass") for t in
               (lens.command.title for lens in lenses.code_lenses(s2, s2.uri("NOTE-738"))))
    with pytest.raises(lenses.Cancelled):
        lenses.run_check(s2, "var-diff-identity", cancelled=lambda: True)


def test_fix_all_equals_lint_fix_on_the_command_line(tmp_path):
    import shutil
    import subprocess
    import sys
    root = research_copy(tmp_path / "a")
    p = root / "records" / "theory" / "THEORY-798.md"
    text = p.read_text(encoding="utf-8").replace("status: proposed", "status: Proposed", 1) \
        .replace("tags: [representation-learning,", "tags: [Representation_Learning,", 1) \
        .replace("source: [LIT-849]", "source: LIT-849", 1)
    p.write_text(text, encoding="utf-8")
    cli = tmp_path / "b"
    shutil.copytree(root, cli)
    s = snap_of(root)
    fa = actions.fix_all(s, s.uri("THEORY-798"))
    lines = text.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    fixed = text
    for e in sorted(fa.edit.changes[s.uri("THEORY-798")], key=lambda e: (e.range.start.line, e.range.start.character),
                    reverse=True):
        a = starts[e.range.start.line] + e.range.start.character
        b = starts[e.range.end.line] + e.range.end.character
        fixed = fixed[:a] + e.new_text + fixed[b:]
    proc = subprocess.run([sys.executable, "-m", "recordkit", "lint", "--no-cache", "--fix", "--exit-zero"], cwd=cli,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    by_cli = (cli / "records" / "theory" / "THEORY-798.md").read_text(encoding="utf-8")
    assert by_cli != text and fixed == by_cli


def test_run_check_cancelled_while_it_runs(tmp_path):
    import time
    (tmp_path / "recordkit.toml").write_text('root = "records"\nchecks = "checks"\n', encoding="utf-8")
    (tmp_path / "records" / "note").mkdir(parents=True)
    (tmp_path / "records" / "note" / "NOTE-001.md").write_text(
        "---\nid: NOTE-001\ntitle: Long\nstatus: draft\n---\n\n```python check id=slow tolerance=1 timeout=120\n"
        "import time\ntime.sleep(120)\nerror = 0\n```\n", encoding="utf-8")
    s = snap_of(tmp_path)
    t0 = time.monotonic()
    with pytest.raises(lenses.Cancelled):
        lenses.run_check(s, "slow", cancelled=lambda: time.monotonic() > t0 + 1.0)
    assert time.monotonic() - t0 < 2.5
    lens = [x.command.title for x in lenses.code_lenses(snap_of(tmp_path), s.uri("NOTE-001"))]
    assert "check slow: not run" in lens         # a cancelled run stores no verdict
