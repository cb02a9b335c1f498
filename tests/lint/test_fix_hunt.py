"""Defects of ``lint --fix`` / ``--diff`` and ``promote --apply`` found by a
hunt: each test runs the real CLI on real files."""
import json
import os
import subprocess
import sys

import pytest
import yaml

from conftest import run_cli, write

LIT = "---\nid: {id}\ntitle: A\nstatus: {status}\nauthors: {authors}\nyear: 2020\ntags: {tags}\n---\nbody\n"


def _lit(tmp_path, id="LIT-001", status="active", authors="[A]", tags="[ok-tag]", text=None):
    p = tmp_path / "records" / "lit" / f"{id}.md"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_bytes((text if text is not None else
                   LIT.format(id=id, status=status, authors=authors, tags=tags)).encode("utf-8"))
    return p


def _front(p):
    text = p.read_text(encoding="utf-8")
    return yaml.safe_load(text.split("---\n")[1])


def _patched_cli(patch: str, *args, cwd):
    """The real CLI in a subprocess, with one rule helper replaced first
    (``patch``: Python run before ``main()``): how a rule that offers a bad
    fix is simulated, to show ``fix_corpus`` refuses it on its own."""
    code = f"import recordkit.lint.rules.fields as fields\n{patch}\nfrom recordkit.cli import main\nmain()\n"
    env = dict(os.environ)
    env.pop("GITHUB_ACTIONS", None)
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True,
                          env=env, timeout=300)


# 1. a fix never changes a value's type -------------------------------------------------

def test_safe_fix_never_turns_a_tag_into_a_boolean_or_null(tmp_path):
    p = _lit(tmp_path, tags="[YEs, NUll, OFf, ok-tag]")
    assert run_cli("lint", "--no-cache", cwd=tmp_path).returncode == 0
    fixed = run_cli("lint", "--fix", cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "RK202" not in fixed.stdout
    assert "tags: ['yes', 'null', 'off', ok-tag]\n" in p.read_text()
    assert _front(p)["tags"] == ["yes", "null", "off", "ok-tag"]


def test_unsafe_fix_never_turns_a_tag_into_a_number_or_a_date(tmp_path):
    p = _lit(tmp_path, tags="[_1, .2020-01-01, Yes_]")
    diff = run_cli("lint", "--diff", "--unsafe-fixes", cwd=tmp_path)
    assert "+tags: ['1', '2020-01-01', 'yes']" in diff.stdout
    fixed = run_cli("lint", "--fix", "--unsafe-fixes", cwd=tmp_path)
    assert fixed.returncode == 0 and "RK202" not in fixed.stdout, fixed.stdout + fixed.stderr
    assert _front(p)["tags"] == ["1", "2020-01-01", "yes"]


def test_a_quoted_value_keeps_its_quotes_and_a_plain_one_stays_plain(tmp_path):
    p = _lit(tmp_path, status="'Active'  # c", tags="[Foo-Bar]")
    run_cli("lint", "--fix", cwd=tmp_path, check=False)
    text = p.read_text()
    assert "status: 'active'  # c\n" in text and "tags: [foo-bar]\n" in text


def test_fix_corpus_refuses_a_fix_that_would_change_a_type(tmp_path):
    """Even when a rule offers a fix whose text YAML reads as a boolean or
    a null, ``--fix`` leaves that fix out (and says so) and applies the
    file's other fixes."""
    p = _lit(tmp_path, status="Active", tags="[YEs, NUll, Foo-Bar]")
    got = _patched_cli("fields.plain_or_quoted = lambda v: v", "lint", "--fix", cwd=tmp_path)
    text = p.read_text()
    assert "status: active\n" in text and "tags: [YEs, NUll, foo-bar]\n" in text, got.stderr
    assert "leaving out the fix (tag YEs → yes)" in got.stderr
    assert "would change the type of `tags.0`" in got.stderr
    assert "Fixed 2 diagnostics" in got.stderr


# 2. lint --fix PATH fixes only PATH --------------------------------------------------

def test_fix_and_diff_with_a_path_touch_only_that_path(tmp_path):
    p1 = _lit(tmp_path, "LIT-001", status="Active")
    p2 = _lit(tmp_path, "LIT-002", status="Active")
    before2 = p2.read_bytes()
    diff = run_cli("lint", "--diff", "records/lit/LIT-001.md", cwd=tmp_path)
    assert "LIT-001.md" in diff.stdout and "LIT-002.md" not in diff.stdout
    assert "Would fix 1 diagnostic." in diff.stderr, diff.stderr
    fixed = run_cli("lint", "--fix", "records/lit/LIT-001.md", cwd=tmp_path)
    assert "Fixed 1 diagnostic." in fixed.stderr, fixed.stderr
    assert "status: active\n" in p1.read_text()
    assert p2.read_bytes() == before2


# 3. fix positions in a CRLF file ------------------------------------------------------

def test_json_and_sarif_fix_positions_in_a_crlf_file(tmp_path):
    _lit(tmp_path, text="---\r\nid: LIT-001\r\ntitle: A\r\nauthors: [a]\r\nyear: 1\r\nstatus: Active\r\n---\r\nbody\r\n")
    out = json.loads(run_cli("lint", "--no-cache", "--format", "json", cwd=tmp_path).stdout)
    edit = [d for d in out if d["code"] == "RK204"][0]["fix"]["edits"][0]
    assert (edit["location"], edit["end_location"]) == ({"row": 6, "column": 9}, {"row": 6, "column": 15})
    sarif = json.loads(run_cli("lint", "--no-cache", "--format", "sarif", cwd=tmp_path).stdout)
    results = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "RK204"]
    region = results[0]["fixes"][0]["artifactChanges"][0]["replacements"][0]["deletedRegion"]
    assert region == {"startLine": 6, "startColumn": 9, "endLine": 6, "endColumn": 15}


# 4. one fix that would not parse blocks no other -------------------------------------

R4 = "---\nid: LIT-001\ntitle: A\nstatus: Active\nauthors: Smith [J]\nyear: 1\n---\nbody"


def test_an_unparseable_wrap_is_not_offered_and_blocks_no_other_fix(tmp_path):
    p = _lit(tmp_path, text=R4)
    out = json.loads(run_cli("lint", "--no-cache", "--format", "json", cwd=tmp_path).stdout)
    assert [d["fix"] for d in out if d["code"] == "RK202"] == [None]    # `[Smith [J]]` would not parse
    fixed = run_cli("lint", "--fix", "--unsafe-fixes", cwd=tmp_path)
    assert "Fixed 2 diagnostics" in fixed.stderr, fixed.stderr
    assert p.read_text() == R4.replace("Active", "active") + "\n"


def test_fix_corpus_drops_only_the_fix_that_would_not_parse(tmp_path):
    """A rule that offers the wrap all the same (simulated): that fix alone
    is left out, the others are applied."""
    p = _lit(tmp_path, text=R4)
    got = _patched_cli("fields._strings = lambda text: True", "lint", "--fix", "--unsafe-fixes", cwd=tmp_path)
    assert p.read_text() == R4.replace("Active", "active") + "\n", got.stderr
    assert "leaving out the fix (wrap `authors` in a list)" in got.stderr
    assert "would not parse" in got.stderr and "Fixed 2 diagnostics" in got.stderr


# 5. promote keeps an anchor, a tag and quotes; fills a null promoted_by -------------------

NOTE = "---\nid: NOTE-001\ntitle: N\nstatus: final\nbears_on: [THEORY-001]\n---\nbody\n"
THEORY = ("---\nid: THEORY-001\ntitle: T\nstatus: {status}\n{extra}promote_when:\n  summary: s\n  requires:\n"
          "    - record: {{kind: NOTE, relation: bears_on, status: final}}\n---\nbody\n")


def _theory(tmp_path, status, extra=""):
    write(tmp_path, "records/note/NOTE-001.md", NOTE)
    p = tmp_path / "records" / "theory" / "THEORY-001.md"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(THEORY.format(status=status, extra=extra), encoding="utf-8")
    return p


@pytest.mark.parametrize("status, pb, want_status, want_pb", [
    ("&st !!str proposed  # since May", "", "&st !!str active  # since May", "promoted_by: NOTE-001\n"),
    ("&a 'proposed'", "promoted_by: ~   # later\n", "&a 'active'", "promoted_by: NOTE-001   # later\n"),
    ('!!str "proposed"', "promoted_by: null\n", '!!str "active"', "promoted_by: NOTE-001\n"),
])
def test_promote_keeps_anchor_tag_quotes_and_fills_a_null_promoted_by(tmp_path, status, pb, want_status, want_pb):
    p = _theory(tmp_path, status, pb)
    before = p.read_text()
    diff = run_cli("promote", "THEORY-001", "--diff", cwd=tmp_path)
    assert diff.returncode == 0, diff.stdout + diff.stderr
    assert p.read_text() == before
    done = run_cli("promote", "THEORY-001", "--apply", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    after = p.read_text()
    assert after == before.replace(f"status: {status}\n{pb}", f"status: {want_status}\n{want_pb}")
    front = _front(p)
    assert front["status"] == "active" and front["promoted_by"] == "NOTE-001"


def test_promote_refuses_an_anchor_repeated_elsewhere_and_leaves_the_file(tmp_path):
    p = _theory(tmp_path, "&st proposed", "was: *st\n")
    before = p.read_bytes()
    got = run_cli("promote", "THEORY-001", "--apply", cwd=tmp_path)
    assert got.returncode == 1 and "anchor &st is repeated elsewhere" in got.stdout + got.stderr
    assert p.read_bytes() == before


# 6. a fixed file keeps its owner and group ---------------------------------------------

@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown to another user needs root")
def test_fix_keeps_owner_and_group(tmp_path):
    p = _lit(tmp_path, status="Active")
    os.chown(p, 4242, 4343)
    fixed = run_cli("lint", "--fix", cwd=tmp_path)
    assert "Fixed 1 diagnostic" in fixed.stderr
    st = p.stat()
    assert (st.st_uid, st.st_gid) == (4242, 4343)
    assert "status: active\n" in p.read_text()


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown to another user needs root")
def test_promote_keeps_owner_and_group(tmp_path):
    p = _theory(tmp_path, "proposed")
    os.chown(p, 4242, 4343)
    assert run_cli("promote", "THEORY-001", "--apply", cwd=tmp_path).returncode == 0
    st = p.stat()
    assert (st.st_uid, st.st_gid) == (4242, 4343)


# 7. a symbolic link that aliases another record file ---------------------------------

@pytest.mark.skipif(not hasattr(os, "symlink"), reason="no symbolic links")
def test_a_file_named_twice_is_fixed_once(tmp_path):
    text = "---\nid: LIT-001\ntitle: A\nstatus: Active\nauthors: [a]\nyear: 1\ntags: [Foo-Bar]\n---\nbody"
    p = _lit(tmp_path, text=text)
    os.symlink("LIT-001.md", p.parent / "LIT-002.md")
    diff = run_cli("lint", "--diff", cwd=tmp_path)
    assert diff.stdout.count("diff --git") == 1, diff.stdout
    assert "Would fix 3 diagnostics." in diff.stderr, diff.stderr
    fixed = run_cli("lint", "--fix", cwd=tmp_path)
    assert "Fixed 3 diagnostics." in fixed.stderr and "changed while fixing" not in fixed.stderr, fixed.stderr
    assert os.path.islink(p.parent / "LIT-002.md")
    assert p.read_text() == text.replace("Active", "active").replace("Foo-Bar", "foo-bar") + "\n"
