"""recordkit new / rename / merge: lossless, all-or-nothing edits of the record."""
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import REPO, run_cli, write
from recordkit.graph import of as graph_of

RECORDS = REPO / "records"


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (hidden ones too), relative path -> bytes."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def hashes(root: Path) -> dict[str, str]:
    return {k: hashlib.sha256(v).hexdigest() for k, v in snapshot(root).items()}


def lint_json(root: Path, cwd: Path) -> list[dict]:
    proc = run_cli("--root", str(root), "lint", "--no-cache", "--format", "json", "--exit-zero", cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture
def record_copy(tmp_path):
    """A copy of the example record with its configuration (checks beside it)."""
    shutil.copytree(RECORDS, tmp_path / "records")
    shutil.copytree(REPO / "checks", tmp_path / "checks")
    (tmp_path / "recordkit.toml").write_text('root = "records"\nchecks = "checks"\n')
    return tmp_path


# -- rename -------------------------------------------------------------------

@pytest.mark.slow
def test_rename_theory_175_to_176(record_copy):
    root = record_copy / "records"
    before = snapshot(root)
    lint_before = lint_json(root, record_copy)
    proc = run_cli("rename", "THEORY-175", "THEORY-176", cwd=record_copy)
    assert proc.returncode == 0, proc.stderr
    assert "THEORY-175 → THEORY-176" in proc.stdout
    after = snapshot(root)
    # no reference to THEORY-175 anywhere in the record
    assert not [k for k, v in after.items() if b"THEORY-175" in v]
    # every other byte unchanged: each file is the old one with the id's characters replaced
    assert set(after) == {k.replace("THEORY-175", "THEORY-176") for k in before}
    changed = 0
    for k, v in before.items():
        new = after[k.replace("THEORY-175", "THEORY-176")]
        assert new == v.replace(b"THEORY-175", b"THEORY-176"), k
        changed += new != v
    assert changed == 9   # THEORY-175 itself and the eight records that name it
    # the lint says the same, ids aside
    lint_after = lint_json(root, record_copy)

    def norm(diags):
        return sorted((d["code"], d["filename"].replace("THEORY-175", "THEORY-176"), d["location"]["row"],
                       d["location"]["column"], d["message"].replace("THEORY-175", "THEORY-176")) for d in diags)
    assert len(lint_before) == 24 and norm(lint_before) == norm(lint_after)
    # the check module's docstring names the id: said, not changed
    assert "checks/relrep.py:2" in proc.stderr


def test_rename_dry_run_prints_a_diff_and_writes_nothing(record_copy):
    root = record_copy / "records"
    before = snapshot(root)
    proc = run_cli("rename", "THEORY-175", "THEORY-176", "--dry-run", cwd=record_copy)
    assert proc.returncode == 0, proc.stderr
    assert snapshot(root) == before
    assert "--- a/theory/THEORY-175.md\n+++ b/theory/THEORY-176.md\n" in proc.stdout
    assert "-grounds: [THEORY-175, LIT-849]\n+grounds: [THEORY-176, LIT-849]\n" in proc.stdout
    assert "diff --git a/theory/THEORY-175.md b/theory/THEORY-176.md\nrename from theory/THEORY-175.md\n" \
        "rename to theory/THEORY-176.md\n" in proc.stdout
    # the diff applies with git apply and with patch, the rename included,
    # and gives what the rename gives
    tools = [t for t in (["git", "apply"], ["patch", "-p1", "-s"]) if shutil.which(t[0])]
    for tool in tools:
        work = record_copy / f"patched-{tool[0]}"
        shutil.copytree(root, work)
        p = subprocess.run(tool, input=proc.stdout, text=True, cwd=work, capture_output=True)
        assert p.returncode == 0, p.stderr
    run_cli("rename", "THEORY-175", "THEORY-176", cwd=record_copy, check=True)
    for tool in tools:
        assert snapshot(record_copy / f"patched-{tool[0]}") == snapshot(root), tool


LOSSLESS = {
    "theory/THEORY-001.md": "\ufeff---\r\nid: 'THEORY-001'   # the id\r\ntitle: \"One\"\r\nstatus: proposed\r\n"
                            "source: \"LIT-001\"\r\npromote_when:\r\n  summary: s\r\n  requires:\r\n"
                            "    - claim: CLAIM-001\r\n---\r\n\r\n## What is asserted\r\n\r\nx\r\n\r\n"
                            "## What would confirm or reject it\r\n\r\ny\r\n",
    "lit/LIT-001.md": "---\nid: LIT-001\ntitle: A work\nstatus: queued\nauthors: [A]\nyear: 2020\n---\n"
                      "Cited by THEORY-001 (and [[THEORY-001|the theory]], [[ THEORY-001 ]]).\n"
                      "Not THEORY-0010, not X-THEORY-001, not THEORY-001-b.\n"
                      "<!-- THEORY-001 in a comment -->\n`THEORY-001` in a code span stays.\n\n"
                      "```query\nSELECT * FROM records WHERE id = 'THEORY-001'\n```\n\n"
                      "```\nTHEORY-001 in a fence stays\n```\n",
    "claim/CLAIM-001.md": "---\nid: CLAIM-001\ntitle: c\nstatus: open\ngrounds:\n  - LIT-001   # first\n"
                          "  - 'THEORY-001'\n  # THEORY-001 in a YAML comment\n---\nBody.\n",
}


def test_rename_is_lossless_in_every_quoting(make_record, tmp_path):
    root = make_record({})
    for rel, text in LOSSLESS.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(text.encode("utf-8"))
    proc = run_cli("--root", str(root), "rename", "THEORY-001", "THEORY-002", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    theory = (root / "theory" / "THEORY-002.md").read_bytes()
    assert theory == LOSSLESS["theory/THEORY-001.md"].replace("THEORY-001", "THEORY-002").encode()
    assert theory.startswith("\ufeff".encode()) and b"\r\n" in theory
    lit = (root / "lit" / "LIT-001.md").read_text()
    assert "Cited by THEORY-002 (and [[THEORY-002|the theory]], [[ THEORY-002 ]])" in lit
    assert "Not THEORY-0010, not X-THEORY-001, not THEORY-001-b." in lit
    assert "<!-- THEORY-002 in a comment -->" in lit
    assert "WHERE id = 'THEORY-002'" in lit
    assert "`THEORY-001` in a code span stays" in lit and "THEORY-001 in a fence stays" in lit
    assert "lit/LIT-001.md:11, lit/LIT-001.md:18" in proc.stderr   # left, and said
    claim = (root / "claim" / "CLAIM-001.md").read_text()
    assert claim == LOSSLESS["claim/CLAIM-001.md"].replace("THEORY-001", "THEORY-002")


@pytest.mark.parametrize("args,message,code", [
    (["THEORY-715", "THEORY-900"], "no record THEORY-715 under", 2),
    (["THEORY-175", "THEORY-798"], "THEORY-798 exists already", 1),
    (["THEORY-175", "CLAIM-999"], "a rename keeps the kind", 2),
    (["THEORY-175", "THEORY-17"], "not an id of the form", 2),
    (["THEORY-175", "THEROY-176"], "not a kind of the schema (did you mean THEORY?)", 2),
])
def test_rename_refusals(record_copy, args, message, code):
    before = snapshot(record_copy / "records")
    proc = run_cli("rename", *args, cwd=record_copy)
    assert proc.returncode == code, proc.stderr
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
    assert snapshot(record_copy / "records") == before
    if args[0] == "THEORY-715":
        assert "did you mean THEORY-175?" in proc.stderr


# -- all or nothing ------------------------------------------------------------

def _plan(record_copy, old="THEORY-175", new="THEORY-176"):
    from recordkit.author.rename import plan_rename
    from recordkit.config import load_config
    from recordkit.schema import load_schema
    config = load_config(record_copy)
    return config, plan_rename(config, load_schema(config.schema), old, new)


@pytest.mark.parametrize("fail_at", [0, 3, 9])
def test_rename_failing_half_way_leaves_every_byte(record_copy, monkeypatch, fail_at):
    from recordkit.common import transaction
    from recordkit.common.transaction import TransactionError
    root = record_copy / "records"
    before = hashes(root)
    config, plan = _plan(record_copy)
    assert len(plan.changes) == 10   # nine files, one of them renamed (a removal and a new file)

    def fail(i, path):
        if i == fail_at:
            raise PermissionError(13, "Permission denied", path)
    monkeypatch.setattr(transaction, "_before_apply", fail)
    with pytest.raises(TransactionError, match="Permission denied"):
        plan.apply(config.cache_dir)
    assert hashes(root) == before
    assert not (config.cache_dir / "journal.json").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_rename_with_a_read_only_folder_changes_nothing(record_copy):
    root = record_copy / "records"
    before = hashes(root)
    os.chmod(root / "note", 0o555)
    try:
        proc = run_cli("rename", "THEORY-175", "THEORY-176", cwd=record_copy)
    finally:
        os.chmod(root / "note", 0o755)
    assert proc.returncode == 1 and "nothing was changed" in proc.stderr
    assert hashes(root) == before


def test_rename_with_an_immutable_file_half_way_changes_nothing(record_copy):
    """A file the rename must replace is made immutable (``chattr +i``: not
    even root may replace it): the rename stops at that file, puts back the
    three it had replaced, and every file hashes as before."""
    root = record_copy / "records"
    target = root / "note" / "NOTE-652.md"     # the fourth file the rename replaces
    if shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(target)]).returncode != 0:
        pytest.skip("chattr +i is not available here")
    try:
        before = hashes(root)
        proc = run_cli("rename", "THEORY-175", "THEORY-176", cwd=record_copy)
        assert proc.returncode == 1, proc.stderr
        assert "\nrecordkit: nothing was changed: " in proc.stderr and "Traceback" not in proc.stderr
        assert proc.stderr.rstrip().endswith("note/NOTE-652.md: Operation not permitted")
        assert hashes(root) == before
        assert not (record_copy / ".recordkit" / "journal.json").exists()
    finally:
        subprocess.run(["chattr", "-i", str(target)])
    proc = run_cli("rename", "THEORY-175", "THEORY-176", cwd=record_copy)
    assert proc.returncode == 0, proc.stderr


def test_a_change_made_after_the_read_is_not_overwritten(record_copy):
    from recordkit.common.transaction import TransactionConflict
    root = record_copy / "records"
    config, plan = _plan(record_copy)
    target = root / "claim" / "CLAIM-082.md"
    target.write_text(target.read_text() + "\nAn edit made meanwhile.\n")
    before = hashes(root)
    with pytest.raises(TransactionConflict, match="changed since it was read"):
        plan.apply(config.cache_dir)
    assert hashes(root) == before


KILLER = """
import os, signal, sys
sys.path.insert(0, {repo!r})
from recordkit.common import transaction
from recordkit.cli import main
def kill(i, path):
    if i == {at}:
        os.kill(os.getpid(), signal.SIGKILL)
transaction._before_apply = kill
main(["rename", "THEORY-175", "THEORY-176"])
"""


@pytest.mark.slow
@pytest.mark.parametrize("at", [1, 6])
def test_a_killed_rename_is_rolled_back_by_the_next_run(record_copy, at):
    root = record_copy / "records"
    before = hashes(root)
    proc = subprocess.run([sys.executable, "-c", KILLER.format(repo=str(REPO), at=at)], cwd=record_copy,
                          capture_output=True, text=True)
    assert proc.returncode == -signal.SIGKILL
    journal = record_copy / ".recordkit" / "journal.json"
    assert json.loads(journal.read_text())["state"] == "prepared"
    assert hashes(root) != before or at == 0          # half done
    # the next writing command finds the journal and rolls it back first
    proc = run_cli("rename", "THEORY-175", "THEORY-176", "--dry-run", cwd=record_copy)
    assert journal.exists()                            # a dry run writes nothing, recovery included
    proc = run_cli("rename", "THEORY-798", "THEORY-799", cwd=record_copy)
    assert proc.returncode == 0, proc.stderr
    assert "interrupted write" in proc.stderr and "rolled back" in proc.stderr
    assert not journal.exists()
    after = hashes(root)
    # THEORY-175 is back as it was; only the second rename's changes are there
    assert "theory/THEORY-175.md" in after and "theory/THEORY-176.md" not in after
    assert not [p for p in root.rglob(".*") if p.is_file()]    # no temporary file or backup left
    ok = run_cli("rename", "THEORY-799", "THEORY-798", cwd=record_copy)
    assert ok.returncode == 0, ok.stderr
    assert hashes(root) == before


# -- new ------------------------------------------------------------------------

@pytest.mark.slow
def test_new_theory_takes_the_next_id_and_lints_clean(record_copy):
    root = record_copy / "records"
    proc = run_cli("new", "THEORY", "--title", "Conformal maps: a test", "--field", "source=LIT-849",
                   "--field", "tags=representation-learning", cwd=record_copy)
    assert proc.returncode == 0, proc.stderr
    path = root / "theory" / "THEORY-799.md"
    assert proc.stdout.strip() == "THEORY-799: theory/THEORY-799.md"
    text = path.read_text()
    assert text.startswith("---\nid: THEORY-799\ntitle: 'Conformal maps: a test'\nstatus: proposed\n")
    assert "promote_when:\n  summary: >-\n" in text
    assert "\n## What is asserted\n\n## What would confirm or reject it\n" in text
    diags = [d for d in lint_json(root, record_copy) if d["filename"].endswith("THEORY-799.md")]
    assert diags == []
    # the next one is 800; a LIT gets LIT-875 (zero-padded as the LITs are)
    run_cli("new", "THEORY", "--title", "T", "--field", "source=LIT-849", cwd=record_copy, check=True)
    assert (root / "theory" / "THEORY-800.md").exists()
    proc = run_cli("new", "LIT", "--title", "A work", "--field", "authors=A. Author, B. Author",
                   "--field", "year=2024", cwd=record_copy, check=True)
    lit = (root / "lit" / "LIT-875.md").read_text()
    assert "authors: [A. Author, B. Author]\nyear: 2024\n" in lit
    assert not [d for d in lint_json(root, record_copy) if "LIT-875" in d["filename"] and d["severity"] == "error"]


def test_new_pads_as_the_record_does(make_record, tmp_path):
    root = make_record({"question/QUESTION-0007.md": "---\nid: QUESTION-0007\ntitle: q\nstatus: open\n---\n"})
    proc = run_cli("--root", str(root), "new", "question", "--title", "Why?", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (root / "question" / "QUESTION-0008.md").exists()
    proc = run_cli("--root", str(root), "new", "CLAIM", "--title", "c", "--field", "grounds=QUESTION-0007",
                   cwd=tmp_path)
    assert proc.returncode == 2 and "grounds may name a THEORY or LIT or NOTE or CLAIM, not a QUESTION" in proc.stderr


@pytest.mark.parametrize("args,message", [
    (["THEROY", "--title", "x"], "no kind THEROY in the schema (did you mean THEORY?)"),
    (["THEORY", "--title", "x", "--field", "sorce=LIT-849"], "a THEORY has no field sorce (did you mean source?)"),
    (["THEORY", "--title", "x", "--field", "source=LIT-489"], "no record LIT-489 (did you mean LIT-849?)"),
    (["THEORY", "--title", "x"], "a THEORY needs source: give --field source="),
    (["LIT", "--title", "x", "--field", "authors=A", "--field", "year=soon"], "'soon' is not an integer"),
    (["THEORY", "--title", "x", "--field", "source=LIT-849", "--field", "status=proposd"], "(did you mean proposed?)"),
])
def test_new_refusals(record_copy, args, message):
    before = snapshot(record_copy / "records")
    proc = run_cli("new", *args, cwd=record_copy)
    assert proc.returncode == 2 and message in proc.stderr, proc.stderr
    assert snapshot(record_copy / "records") == before


def test_new_never_overwrites(record_copy, monkeypatch):
    from recordkit.author.new import plan_new
    from recordkit.common.transaction import TransactionConflict
    import recordkit
    corpus = recordkit.load(record_copy / "records")
    plan = plan_new(corpus, "THEORY", "T", ["source=LIT-849"])
    plan.new_path.write_text("written meanwhile\n")
    with pytest.raises(TransactionConflict, match="exists already"):
        plan.apply(record_copy / ".recordkit")
    assert plan.new_path.read_text() == "written meanwhile\n"
    # a file that is not a record still takes its name
    proc = run_cli("new", "THEORY", "--title", "T", "--field", "source=LIT-849", cwd=record_copy, check=True)
    assert "THEORY-800" in proc.stdout


@pytest.mark.slow
@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.one_of(st.text(), st.lists(st.text(), max_size=3), st.integers(), st.floats(allow_nan=False),
                 st.dates(), st.booleans()))
def test_a_value_new_writes_reads_back_as_itself(value):
    """What ``new`` writes for a title or a field reads back as the same
    value, whatever its characters.  Found by this test: a trailing no-break
    space was stripped (``str.rstrip()``), and a NEL (U+0085) became a space
    (PyYAML writes it bare inside quotes, where YAML 1.1 folds a line break)."""
    import yaml
    from recordkit.author.new import _scalar
    assert yaml.safe_load(_scalar(value)) == value


def test_new_keeps_every_character_of_a_title(record_copy):
    title = "Nel\x85and no-break\xa0spaces\xa0\u2028: a 'test' #1"
    proc = run_cli("new", "THEORY", "--title", title, "--field", "source=LIT-849", cwd=record_copy)
    assert proc.returncode == 0, proc.stderr
    shown = run_cli("show", "THEORY-799", "--format", "json", cwd=record_copy, check=True)
    assert json.loads(shown.stdout)["title"] == title


@pytest.mark.slow
def test_new_takes_a_yaml_list_and_repeated_list_fields(record_copy):
    proc = run_cli("new", "LIT", "--title", "A work", "--field", 'authors=["Park, K.", "Choe, Y."]',
                   "--field", "authors=Veitch, V.", "--field", "year=2023", cwd=record_copy)
    assert proc.returncode == 0, proc.stderr
    rid = proc.stdout.split(":")[0]
    shown = json.loads(run_cli("show", rid, "--format", "json", cwd=record_copy, check=True).stdout)
    assert shown["fields"]["authors"] == ["Park, K.", "Choe, Y.", "Veitch", "V."]
    for args, message in [
        (["--field", 'authors=["Park, K.', "--field", "year=2023"], "is not a YAML list (column"),
        (["--field", "authors=[{a: 1}]", "--field", "year=2023"], "is not a list of values"),
        (["--field", "authors=A", "--field", "year=2023", "--field", "year=2024"], "year is not a list"),
    ]:
        before = snapshot(record_copy / "records")
        proc = run_cli("new", "LIT", "--title", "W", *args, cwd=record_copy)
        assert proc.returncode == 2 and message in proc.stderr, proc.stderr
        assert snapshot(record_copy / "records") == before


def test_new_edit_opens_the_editor(record_copy):
    editor = f"{sys.executable} -c \"import sys; open(sys.argv[1], 'a').write('Edited.\\n')\""
    proc = run_cli("new", "THEORY", "--title", "T", "--field", "source=LIT-849", "--edit", cwd=record_copy,
                   env={"EDITOR": editor, "VISUAL": editor})
    assert proc.returncode == 0, proc.stderr
    assert (record_copy / "records" / "theory" / "THEORY-799.md").read_text().endswith("Edited.\n")
    # an editor that fails: a message naming the file written, exit 1 (was click's bare "Error: ...")
    proc = run_cli("new", "THEORY", "--title", "T2", "--field", "source=LIT-849", "--edit", cwd=record_copy,
                   env={"EDITOR": "false", "VISUAL": "false"})
    assert proc.returncode == 1 and proc.stderr.startswith("recordkit: ") and "THEORY-800.md" in proc.stderr, \
        proc.stderr
    assert (record_copy / "records" / "theory" / "THEORY-800.md").is_file()


# -- merge ----------------------------------------------------------------------

def _backlinks(root, rid, mapping=None):
    import recordkit
    from recordkit.graph.build import iter_edges
    corpus = recordkit.load(root)
    out = set()
    for u, v, d in iter_edges(graph_of(corpus)):
        if mapping:
            u, v = mapping.get(u, u), mapping.get(v, v)
        if v == rid and u != v:
            out.add((u, d["relation"], d["origin"]))
    return out


MERGE = {
    "lit/LIT-001.md": "---\nid: LIT-001\ntitle: The paper\nstatus: active\nauthors: [A. Author]\nyear: 2020\n"
                      "arxiv: '2001.00001'\ntags: [a-tag]\n---\n\n## Key takeaways\n\nSee LIT-003.\n",
    "lit/LIT-002.md": "---\nid: LIT-002\ntitle: The paper, again\nstatus: queued\nauthors:\n  - A. Author\n"
                      "year: 2020\ndoi: 10.1000/x   # the journal version\ntags: [b-tag]\nreferences: ['2001.00003']\n"
                      "---\nA duplicate of [[LIT-001]]? It cites LIT-004.\n",
    "lit/LIT-003.md": "---\nid: LIT-003\ntitle: Cites both\nstatus: queued\nauthors: [C]\nyear: 2021\n"
                      "references: ['10.1000/x', '2001.00001']\n---\n",
    "lit/LIT-004.md": "---\nid: LIT-004\ntitle: Other\nstatus: queued\nauthors: [D]\nyear: 2021\narxiv: '2001.00003'\n---\n",
    "note/NOTE-001.md": "---\nid: NOTE-001\ntitle: n\nstatus: draft\npaper: LIT-002\n---\nOn LIT-002 and LIT-001.\n",
    "theory/THEORY-001.md": "---\nid: THEORY-001\ntitle: t\nstatus: proposed\nsource:\n  - LIT-001\n  - LIT-002   # both\n"
                            "promote_when:\n  summary: s\n---\n\n## What is asserted\n\nx\n\n"
                            "## What would confirm or reject it\n\ny\n",
    "theory/THEORY-002.md": "---\nid: THEORY-002\ntitle: t2\nstatus: proposed\nsource: [LIT-002, LIT-004]\n"
                            "extends: [THEORY-001]\npromote_when:\n  summary: s\n---\n\n## What is asserted\n\nx\n\n"
                            "## What would confirm or reject it\n\ny\n",
    "theory/THEORY-003.md": "---\nid: THEORY-003\ntitle: t3\nstatus: proposed\nsource: [LIT-004]\n"
                            "extends: [THEORY-002]\npromote_when:\n  summary: s\n---\n\n## What is asserted\n\nx\n\n"
                            "## What would confirm or reject it\n\ny\n",
}


def test_merge_two_lits_keeps_every_backlink(make_record, tmp_path):
    root = make_record(MERGE)
    want = _backlinks(root, "LIT-001", {"LIT-002": "LIT-001"})
    assert ("LIT-003", "cites", "derived") in want and ("NOTE-001", "paper", "frontmatter") in want
    proc = run_cli("--root", str(root), "merge", "LIT-002", "LIT-001", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert not (root / "lit" / "LIT-002.md").exists()
    assert _backlinks(root, "LIT-001") >= want
    lit = (root / "lit" / "LIT-001.md").read_text()
    assert "tags: [a-tag, b-tag]\n" in lit
    assert "doi: 10.1000/x   # the journal version\n" in lit            # copied as written
    assert "references: ['2001.00003']\n" in lit
    assert lit.endswith("## Merged from “The paper, again”\n\nA duplicate of [[LIT-001]]? It cites LIT-004.\n")
    theory = (root / "theory" / "THEORY-001.md").read_text()
    assert "source:\n  - LIT-001\n---" not in theory and "source:\n  - LIT-001\npromote_when" in theory  # one item left
    assert "source: [LIT-001, LIT-004]" in (root / "theory" / "THEORY-002.md").read_text()
    assert "paper: LIT-001\n" in (root / "note" / "NOTE-001.md").read_text()
    errors = [d for d in lint_json(root, tmp_path) if d["severity"] == "error"]
    assert errors == []
    assert not any(b"LIT-002" in p.read_bytes() for p in root.rglob("*.md"))


@pytest.mark.parametrize("old,into,message", [
    ("THEORY-001", "THEORY-002", "THEORY-002 names THEORY-001 in extends (line 6): merging would make THEORY-002 relate to itself"),
    ("THEORY-002", "THEORY-001", "THEORY-002 names THEORY-001 in extends (line 6): merging would make THEORY-001 relate to itself"),
    ("THEORY-002", "THEORY-003", "THEORY-003 names THEORY-002 in extends"),
    ("LIT-001", "LIT-001", "cannot merge LIT-001 into itself"),
    ("LIT-001", "NOTE-001", "merge records of one kind"),
    ("LIT-009", "LIT-001", "no record LIT-009"),
])
def test_merge_refusals(make_record, tmp_path, old, into, message):
    root = make_record(MERGE)
    before = snapshot(root)
    proc = run_cli("--root", str(root), "merge", old, into, cwd=tmp_path)
    assert proc.returncode in (1, 2) and message in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    assert snapshot(root) == before


def test_merge_refuses_a_cycle(make_record, tmp_path):
    files = dict(MERGE)
    # THEORY-003 extends THEORY-002 extends THEORY-001; THEORY-004 is extended by THEORY-001.
    files["theory/THEORY-004.md"] = files["theory/THEORY-003.md"].replace("THEORY-003", "THEORY-004") \
        .replace("extends: [THEORY-002]\n", "")
    files["theory/THEORY-001.md"] = files["theory/THEORY-001.md"].replace("promote_when", "extends: [THEORY-004]\npromote_when")
    root = make_record(files)
    before = snapshot(root)
    # folding THEORY-004 into THEORY-003 makes THEORY-003 → 002 → 001 → 003
    proc = run_cli("--root", str(root), "merge", "THEORY-004", "THEORY-003", cwd=tmp_path)
    assert proc.returncode == 1 and "merging would create RK304" in proc.stderr, proc.stderr
    assert snapshot(root) == before


@pytest.mark.slow
def test_merge_in_the_example_record(record_copy):
    root = record_copy / "records"
    # both have an arxiv id: LIT-863's is not copied, so LIT-861's reference
    # 1907.04809, which cites LIT-863, would cite nothing.  The merge went
    # through (LIT-861 cites LIT-862 by another reference: the pair hid it)
    proc = run_cli("merge", "LIT-863", "LIT-862", cwd=record_copy)
    assert proc.returncode == 1 and "LIT-861 -cites(derived, via 1907.04809)-> LIT-862" in proc.stderr \
        and "identifier is not copied" in proc.stderr, proc.stderr
    p = root / "lit" / "LIT-862.md"
    p.write_text(p.read_text().replace('arxiv: "2007.00810"\n', ""))     # LIT-862 takes LIT-863's now
    want = _backlinks(root, "LIT-862", {"LIT-863": "LIT-862"})
    proc = run_cli("merge", "LIT-863", "LIT-862", "--dry-run", cwd=record_copy)
    assert proc.returncode == 0 and "+++ /dev/null" in proc.stdout and "-al. (LIT-863)" in proc.stdout
    run_cli("merge", "LIT-863", "LIT-862", cwd=record_copy, check=True)
    assert _backlinks(root, "LIT-862") >= want
    assert not [d for d in lint_json(root, record_copy) if d["severity"] == "error"]


# -- rename and merge name a record as `show` does -----------------------------

@pytest.mark.slow
def test_merge_and_rename_take_a_path_a_title_or_an_alias(make_record, tmp_path):
    files = dict(MERGE)
    files["lit/LIT-004.md"] = files["lit/LIT-004.md"].replace("arxiv:", "aliases: [Doe 2021]\narxiv:")
    root = make_record(files)
    # merge: OLD by its title, INTO by its path
    proc = run_cli("--root", str(root), "merge", "The paper, again", "lit/LIT-001.md", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert not (root / "lit" / "LIT-002.md").exists()
    assert "paper: LIT-001\n" in (root / "note" / "NOTE-001.md").read_text()
    # rename: by the file's path (relative to the root), then by an alias, then by a title
    proc = run_cli("--root", str(root), "rename", "lit/LIT-003.md", "LIT-013", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (root / "lit" / "LIT-013.md").exists() and not (root / "lit" / "LIT-003.md").exists()
    proc = run_cli("--root", str(root), "rename", "Doe 2021", "LIT-014", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "source: [LIT-014]" in (root / "theory" / "THEORY-003.md").read_text()
    proc = run_cli("--root", str(root), "rename", "t2", "THEORY-012", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "extends: [THEORY-012]" in (root / "theory" / "THEORY-003.md").read_text()


@pytest.mark.slow
def test_an_ambiguous_name_exits_2_listing_the_candidates(make_record, tmp_path):
    files = dict(MERGE)
    files["lit/LIT-004.md"] = files["lit/LIT-004.md"].replace("title: Other", "title: Same name")
    files["lit/LIT-003.md"] = files["lit/LIT-003.md"].replace("title: Cites both", "title: Same name")
    root = make_record(files)
    before = snapshot(root)
    for args in (("merge", "Same name", "LIT-001"), ("merge", "LIT-001", "Same name"),
                 ("rename", "Same name", "LIT-009")):
        proc = run_cli("--root", str(root), *args, cwd=tmp_path)
        assert proc.returncode == 2, proc.stderr
        assert "Same name matches 2 records by title: LIT-003 (lit/LIT-003.md), LIT-004 (lit/LIT-004.md)" in proc.stderr, proc.stderr
        assert "Traceback" not in proc.stderr
    assert "INTO Same name" in run_cli("--root", str(root), "merge", "LIT-001", "Same name", cwd=tmp_path).stderr
    proc = run_cli("--root", str(root), "rename", "No such paper", "LIT-009", cwd=tmp_path)
    assert proc.returncode == 2 and "no record No such paper" in proc.stderr, proc.stderr
    assert snapshot(root) == before


@pytest.mark.slow
def test_new_after_an_id_too_long_for_a_number_says_so(record_copy):
    """An id whose number Python cannot read (5,000 digits, found by the
    fuzz test) was a traceback; it is now no id at all (over the 256
    characters an id may have: RK105, the record named by its file), so
    `new` goes on from the record's real ids, as it does past one of 250
    digits (an id, whose number no next id is made from)."""
    root = record_copy / "records"
    huge = "THEORY-" + "9" * 5000
    (root / "theory" / f"{huge[:7]}x.md").write_text(
        f"---\nid: {huge}\ntitle: Far\nstatus: proposed\nsource: LIT-849\n---\n", encoding="utf-8")
    proc = run_cli("new", "THEORY", "--title", "Next", "--field", "source=LIT-849", cwd=record_copy)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    made = [p for p in (root / "theory").glob("THEORY-*.md") if "Next" in p.read_text(encoding="utf-8")]
    assert len(made) == 1 and len(made[0].stem) < 20, made
    lint = run_cli("lint", "--select", "RK105", cwd=record_copy)
    assert "5,007 characters long" in lint.stdout, lint.stdout
    made[0].unlink()
    long = "THEORY-" + "9" * 250
    (root / "theory" / f"{huge[:7]}x.md").write_text(
        f"---\nid: {long}\ntitle: Far\nstatus: proposed\nsource: LIT-849\n---\n", encoding="utf-8")
    proc = run_cli("new", "THEORY", "--title", "Next", "--field", "source=LIT-849", cwd=record_copy)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    made = [p for p in (root / "theory").glob("THEORY-*.md") if "Next" in p.read_text(encoding="utf-8")]
    assert len(made) == 1 and len(made[0].stem) < 20, made


@pytest.mark.slow
def test_rename_past_a_named_pipe_and_a_file_too_large_to_read(record_copy):
    """A named pipe in the record holds no text: a rename goes past it (it
    was a traceback, NotRead) and never renames onto its name; a file
    larger than max_file_size may name the id: the rename is refused, not
    done with that file left unread."""
    root = record_copy / "records"
    fifo = root / "theory" / "THEORY-800.md"
    os.mkfifo(fifo)
    proc = run_cli("rename", "THEORY-175", "THEORY-800", cwd=record_copy)
    assert proc.returncode == 1 and "THEORY-800.md exists already" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    proc = run_cli("rename", "THEORY-175", "THEORY-176", cwd=record_copy)
    assert proc.returncode == 0, proc.stderr
    assert (root / "theory" / "THEORY-176.md").is_file() and fifo.is_fifo()
    before = snapshot(root)
    (root / "note" / "NOTE-999.md").write_text("---\nid: NOTE-999\n---\n" + "x" * 300_000 + "\nTHEORY-176\n")
    (record_copy / "recordkit.toml").write_text('root = "records"\nchecks = "checks"\nmax_file_size = "100KB"\n')
    proc = run_cli("rename", "THEORY-176", "THEORY-177", cwd=record_copy)
    assert proc.returncode == 1 and "NOTE-999.md" in proc.stderr and "larger than max_file_size" in proc.stderr \
        and "names THEORY-176" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    after = snapshot(root)
    assert {k: v for k, v in after.items() if k != "note/NOTE-999.md"} == before
    # a file too large to read that names neither id is no reason to refuse
    (root / "note" / "NOTE-999.md").write_text("---\nid: NOTE-999\n---\n" + "x" * 300_000 + "\n")
    proc = run_cli("rename", "THEORY-176", "THEORY-177", cwd=record_copy)
    assert proc.returncode == 0, proc.stderr
    assert (root / "note" / "NOTE-999.md").read_text().endswith("x\n") and fifo.is_fifo()


def test_rename_prints_an_escape_in_a_file_name_as_text(record_copy):
    """A file name holding an ESC sequence reached the terminal as it was in
    rename's summary (lint's output already escaped it)."""
    root = record_copy / "records"
    odd = root / "lit" / "odd\x1b[2J.md"
    odd.write_text("---\nid: LIT-901\ntitle: An odd name\nstatus: queued\nauthors: [A. Author]\nyear: 2020\n---\n"
                   "See LIT-849.\n")
    proc = run_cli("rename", "LIT-901", "LIT-902", cwd=record_copy)
    assert proc.returncode == 0, proc.stderr
    assert "\x1b" not in proc.stdout + proc.stderr and "odd\\x1b[2J.md" in proc.stdout
    assert "id: LIT-902" in odd.read_text()


def test_new_never_writes_outside_the_record_root(tmp_path):
    """A kind's folder reached through a symbolic link that leads out of the
    root: `new` wrote the record there, where no command reads it (the
    loader does not walk links); it is refused, and nothing is written.
    (A schema's `dir: ../x` is refused when the schema loads: test_schema_keys.)"""
    (tmp_path / "records").mkdir()
    (tmp_path / "outside" / "note").mkdir(parents=True)
    (tmp_path / "records" / "note").symlink_to(tmp_path / "outside" / "note", target_is_directory=True)
    (tmp_path / "recordkit.toml").write_text('root = "records"\n')
    proc = run_cli("new", "NOTE", "--title", "Where", cwd=tmp_path)
    assert proc.returncode == 1 and "leads out of the record root" in proc.stderr, proc.stderr
    assert not list((tmp_path / "outside").rglob("*.md"))


@pytest.mark.slow
def test_an_id_left_in_many_code_blocks_is_noted_briefly_in_linear_time(make_record, tmp_path):
    # 75,000 code blocks naming the id and as many wikilinks to it: each
    # place left was counted from the file's start (11 s) and every one was
    # listed (a 1.8 MB note)
    import time
    root = make_record({"note/NOTE-001.md": "---\nid: NOTE-001\ntitle: A\nstatus: draft\n---\nA.\n"})
    n = 75_000
    (root / "note" / "NOTE-002.md").write_text(
        "---\nid: NOTE-002\ntitle: B\nstatus: draft\n---\n" + "```\nNOTE-001\n```\n" * n + "[[NOTE-001]]\n" * n,
        encoding="utf-8")
    from conftest import child_cpu
    t0 = child_cpu()
    proc = run_cli("--root", str(root), "rename", "NOTE-001", "NOTE-003", cwd=tmp_path, process=True)
    took = child_cpu() - t0
    assert proc.returncode == 0, proc.stderr
    assert took < 6, took           # ~1 s
    assert proc.stderr.startswith("note: NOTE-001 inside code or a link's address (not a reference, left as it is): "
                                  "note/NOTE-002.md:7, note/NOTE-002.md:10, ")
    assert "note/NOTE-002.md:34 and 74,990 more\n" in proc.stderr and len(proc.stderr) < 500
    text = (root / "note" / "NOTE-002.md").read_text(encoding="utf-8")
    assert text.count("[[NOTE-003]]") == n and text.count("```\nNOTE-001\n```") == n


def test_an_id_in_code_inside_a_list_item_is_neither_a_mention_nor_renamed(make_record, tmp_path):
    # an indented code block inside a list item ("- step" then a blank line
    # and six spaces) was read as text: lint counted the id there (RK305
    # for a missing one) and a rename rewrote it
    root = make_record({
        "note/NOTE-001.md": "---\nid: NOTE-001\ntitle: A\nstatus: draft\n---\nA.\n",
        "note/NOTE-002.md": "---\nid: NOTE-002\ntitle: B\nstatus: draft\n---\n"
                            "- step one, after NOTE-001\n\n      run NOTE-001 --and NOTE-999\n\n"
                            "  still the item: NOTE-001\n",
    })
    proc = run_cli("--root", str(root), "lint", "--select", "RK305", cwd=tmp_path)
    assert proc.returncode == 0 and "NOTE-999" not in proc.stdout, proc.stdout
    proc = run_cli("--root", str(root), "rename", "NOTE-001", "NOTE-003", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "note/NOTE-002.md:8\n" in proc.stderr       # the place left, said
    text = (root / "note" / "NOTE-002.md").read_text(encoding="utf-8")
    assert text.endswith("- step one, after NOTE-003\n\n      run NOTE-001 --and NOTE-999\n\n"
                         "  still the item: NOTE-003\n"), text


def _vault(tmp_path):
    root = tmp_path / "vault"
    write(root, "Inbox/Alpha.md", "---\naliases: [The A]\ntags: [x]\n---\nAlpha note.\n")
    write(root, "Inbox/Beta.md", "---\ntags: [y]\n---\nBeta note.\n")
    write(root, "Inbox/Gamma.md", "See [[Alpha]], [[alpha|the alpha]], [[The A]] and [A](Alpha.md).\n")
    (tmp_path / "recordkit.toml").write_text('root = "vault"\nschema = "preset:obsidian"\n')
    return root


def test_a_merge_in_a_vault_rewrites_the_links_to_the_merged_note(tmp_path):
    # the links name Alpha by file name, in any case, by alias and by path:
    # a merge rewrote ids as tokens, so it left them pointing at the removed
    # note, and its check of the links did not see it (building the corpus
    # after resolved the records it shares with the corpus before again,
    # without Alpha, which changed the corpus before as well).  They are now
    # rewritten as a vault's rename rewrites them; Alpha's alias moves to
    # Beta, so [[The A]] reaches Beta as it is written
    root = _vault(tmp_path)
    proc = run_cli("merge", "Alpha", "Beta", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "3 references now name Inbox/Beta" in proc.stdout
    assert (root / "Inbox" / "Gamma.md").read_text() == \
        "See [[Beta]], [[Beta|the alpha]], [[The A]] and [A](Beta.md).\n"
    assert not (root / "Inbox" / "Alpha.md").exists()
    assert "aliases: [The A]" in (root / "Inbox" / "Beta.md").read_text()
    lint = run_cli("lint", cwd=tmp_path)
    assert "RK305" not in lint.stdout and "RK308" not in lint.stdout, lint.stdout


def test_a_merge_that_would_lose_a_link_is_refused(tmp_path):
    # a note that cannot be read may link to the merged note: refused
    root = _vault(tmp_path)
    write(root, "Inbox/Broken.md", "---\ntitle: [unclosed\n---\nSee [[alpha]].\n")
    before = snapshot(root)
    proc = run_cli("merge", "Alpha", "Beta", cwd=tmp_path)
    assert proc.returncode == 1 and "Inbox/Broken.md cannot be read as a note" in proc.stderr, proc.stderr
    assert snapshot(root) == before


def test_a_corpus_re_read_after_an_edit_leaves_the_one_before_as_it_was(tmp_path):
    from recordkit.config import load_config
    from recordkit.corpus.loader import load, with_texts
    root = _vault(tmp_path)
    base = load(config=load_config(tmp_path))
    gamma = base.records["Inbox/Gamma"]
    assert gamma.mention_targets == ["Inbox/Alpha"] * 4
    alpha = base.records["Inbox/Alpha"]
    after = with_texts(base, {alpha.path: alpha.text.replace("aliases: [The A]\n", "")})
    assert after.records["Inbox/Gamma"].mention_targets == ["Inbox/Alpha", "Inbox/Alpha", "The A", "Inbox/Alpha"]
    assert gamma.mention_targets == ["Inbox/Alpha"] * 4      # (was re-pointed along with the copy)
    assert ("Inbox/Gamma", "Inbox/Alpha") in graph_of(base).edges


def test_an_id_in_a_links_address_is_not_renamed(make_record, tmp_path):
    """``![p](../figures/LIT-001.png)`` names a file, ``<https://x.org/LIT-001>``
    an address: the rename changed both (a broken image, another URL), and
    lint counted them as mentions.  They are left, and said; the id in a
    link's text is still a mention and renamed."""
    root = make_record({
        "lit/LIT-001.md": "---\nid: LIT-001\ntitle: A\nstatus: queued\nauthors: [X]\nyear: 2020\n---\nb\n",
        "note/NOTE-001.md": "---\nid: NOTE-001\ntitle: N\nstatus: draft\n---\nSee LIT-001 and "
                            "![p](../figures/LIT-001.png), <https://x.org/LIT-001>, [the LIT-001 page](http://y/LIT-001)."
                            "\n\n[fig]: ../figs/LIT-001.png\n",
    })
    from recordkit.corpus.parse import parse_text
    from recordkit.schema import load_schema
    note = root / "note" / "NOTE-001.md"
    rec, _ = parse_text(note.read_text(), note, "note/NOTE-001.md", load_schema())
    assert rec.mention_targets == ["LIT-001", "LIT-001"]      # the bare one and the link text's
    proc = run_cli("--root", str(root), "rename", "LIT-001", "LIT-005", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (root / "note" / "NOTE-001.md").read_text().split("---\n", 2)[2] == (
        "See LIT-005 and ![p](../figures/LIT-001.png), <https://x.org/LIT-001>, [the LIT-005 page](http://y/LIT-001)."
        "\n\n[fig]: ../figs/LIT-001.png\n")
    assert "inside code or a link's address" in proc.stderr and "note/NOTE-001.md:6" in proc.stderr \
        and "note/NOTE-001.md:8" in proc.stderr


def test_a_rename_keeps_a_links_folder_form_and_foams_aliased_definition_labels(tmp_path):
    """A defect hunt of vault workflows: rename wrote ``[b](./note-b.md)``
    as ``note-c.md`` and ``../notes/note-b.md`` as ``note-c.md`` (only the
    target should change), and left Foam's definition of an aliased
    wikilink, ``[note-b|Bee]: note-b``, labelled with the old name."""
    write(tmp_path, "notes/note-b.md", "# Note B\n")
    write(tmp_path, "notes/note-a.md", "# Note A\n\nSee [[note-b|Bee]], [b](./note-b.md), [c](./note-b.md#x), "
                                       "[d](../notes/note-b.md), [e](note-b.md).\n\n[note-b|Bee]: note-b \"Note B\"\n")
    write(tmp_path, "other/x.md", "X [f](../notes/note-b.md)\n")
    (tmp_path / "recordkit.toml").write_text('root = "."\nschema = "preset:foam"\n')
    proc = run_cli("rename", "notes/note-b", "note-c", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "notes" / "note-a.md").read_text() == (
        "# Note A\n\nSee [[note-c|Bee]], [b](./note-c.md), [c](./note-c.md#x), [d](../notes/note-c.md), "
        "[e](note-c.md).\n\n[note-c|Bee]: note-c \"Note B\"\n")
    assert (tmp_path / "other" / "x.md").read_text() == "X [f](../notes/note-c.md)\n"
    # moved to another folder: the paths are made again from the linking file
    assert run_cli("rename", "notes/note-c", "other/note-d", cwd=tmp_path).returncode == 0
    assert "[b](../other/note-d.md)" in (tmp_path / "notes" / "note-a.md").read_text()
    assert (tmp_path / "other" / "x.md").read_text() == "X [f](note-d.md)\n"


def test_rename_refuses_an_id_the_loader_would_not_take(record_copy):
    """An id over 256 characters is not taken (RK105): a rename to one
    went through, and every reference to the record then dangled."""
    long = "LIT-" + "1" * 300
    proc = run_cli("rename", "LIT-849", long, cwd=record_copy)
    assert proc.returncode == 2, proc.stderr
    assert "an id has at most 256 characters (RK105), this one 304" in proc.stderr
    assert (record_copy / "records" / "lit" / "LIT-849.md").exists()
