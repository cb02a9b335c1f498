"""What a first-time user runs into: messages that say where and what to
do, exit statuses, and commands that did something else than they said.
Each test runs the real CLI on real files."""
import json
import os
import subprocess
import sys

import pytest

from conftest import REPO, run_cli, write

QUESTION = "---\nid: QUESTION-001\ntitle: Does it scale?\nstatus: open\n---\nBody.\n"


def _record(tmp_path, toml='root = "records"\n'):
    write(tmp_path, "records/question/QUESTION-001.md", QUESTION)
    (tmp_path / "recordkit.toml").write_text(toml)


# -- configuration ---------------------------------------------------------------------

def test_an_unknown_configuration_key_says_where_and_the_key_meant(tmp_path):
    """A misspelt key was "recordkit.toml: unknown configuration key(s):
    chceks", with no line and no hint of the key meant."""
    _record(tmp_path, 'root = "records"\nchceks = "checks"\n')
    proc = run_cli("lint", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "recordkit.toml:2:1: unknown configuration key(s): chceks (did you mean checks?)" in proc.stderr
    assert "Traceback" not in proc.stderr
    # a misspelt table is found at its header
    _record(tmp_path, 'root = "records"\n\n[querys]\nx = "SELECT 1"\n')
    proc = run_cli("query", "x", cwd=tmp_path)
    assert proc.returncode == 2
    assert "recordkit.toml:3:1: unknown configuration key(s): querys (did you mean queries?)" in proc.stderr
    # and a key of [lint], in pyproject.toml as well
    (tmp_path / "recordkit.toml").unlink()
    write(tmp_path, "pyproject.toml", '[project]\nname = "p"\n\n[tool.recordkit]\nroot = "records"\n\n'
                                      '[tool.recordkit.lint]\nselec = ["RK1"]\n')
    proc = run_cli("lint", cwd=tmp_path)
    assert proc.returncode == 2
    assert "pyproject.toml:8:1: unknown lint key(s): selec (did you mean select?)" in proc.stderr


@pytest.mark.slow
def test_wrong_values_of_the_configuration_say_their_line(tmp_path):
    for toml, message in [('templates = 5\n', ':2:1: templates must be the path of a folder, such as "templates", '
                                               'not 5'),
                          ('max_file_size = "-1"\n', ':2:1: max_file_size must be a size such as 4000000'),
                          ('skip_dirs = "x"\n', ':2:1: skip_dirs must be a list'),
                          ('schema = 5\n', ':2:1: schema must be a string')]:
        _record(tmp_path, 'root = "records"\n' + toml)
        proc = run_cli("lint", cwd=tmp_path)
        assert proc.returncode == 2 and f"recordkit.toml{message}" in proc.stderr, (toml, proc.stderr)


# -- a record root that does not exist -------------------------------------------------

def test_build_says_a_missing_root_as_the_other_commands_do(tmp_path):
    """``build`` said "record root … is not a folder" (nothing of where the
    root came from, nor how to give another) for a root that does not exist."""
    proc = run_cli("build", "-o", "site", cwd=tmp_path)
    assert proc.returncode == 2
    assert "records does not exist (the default, as no recordkit.toml" in proc.stderr, proc.stderr
    assert "give the record's folder with --root PATH" in proc.stderr
    assert not (tmp_path / "site").exists()


def test_serve_stops_at_a_missing_root(tmp_path):
    """``serve`` with a missing root served on, printing "watching failed
    (No path was found.); retrying" every second."""
    proc = subprocess.run([sys.executable, "-m", "recordkit", "--root", "nope", "serve", "--port", "0"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"})
    assert proc.returncode == 2, proc.stderr
    assert "nope does not exist (given by --root nope)" in proc.stderr
    assert "watching failed" not in proc.stderr and "serving" not in proc.stderr


# -- lint --------------------------------------------------------------------------------

def test_lint_of_a_path_outside_the_record_says_so(tmp_path):
    """``lint notes/`` with the record in records/ printed "All checks
    passed" and nothing else: a typo'd folder looked like a clean one."""
    _record(tmp_path)
    write(tmp_path, "notes/a.md", "---\nid: broken\n")
    proc = run_cli("lint", "notes", cwd=tmp_path)
    assert "recordkit: notes is outside the record root records and the checks folder: nothing to lint there" \
        in proc.stderr, proc.stderr
    # a path inside the record says nothing of the kind
    proc = run_cli("lint", "records/question", cwd=tmp_path)
    assert proc.returncode == 0 and "outside" not in proc.stderr


# -- check -------------------------------------------------------------------------------

@pytest.mark.slow
def test_check_prints_a_bad_return_value_once(tmp_path):
    _record(tmp_path)
    write(tmp_path, "checks/mine.py", "from recordkit import check\n\n\n@check('bad-return')\ndef br():\n"
                                      "    return True\n")
    proc = run_cli("check", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout.count("the returned value is a bool (True)") == 1, proc.stdout
    # a check that raises keeps its traceback
    write(tmp_path, "checks/mine.py", "from recordkit import check\n\n\n@check('boom')\ndef boom():\n"
                                      "    raise ValueError('kaput')\n")
    proc = run_cli("check", cwd=tmp_path)
    assert proc.returncode == 1 and 'line 6, in boom' in proc.stdout and proc.stdout.count("ValueError: kaput") == 2


def test_check_with_no_checks_says_why_and_json_stays_json(tmp_path):
    """No checks folder: "checks folder checks" said nothing of its being
    missing, and ``--format json`` printed no JSON at all."""
    _record(tmp_path)
    proc = run_cli("check", cwd=tmp_path)
    assert proc.returncode == 0
    assert "no numeric checks found (no folder checks, and no ```python check``` blocks under records)" \
        in proc.stderr, proc.stderr
    assert "docs/checks.md" in proc.stderr
    proc = run_cli("check", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 0 and json.loads(proc.stdout) == []
    (tmp_path / "checks").mkdir()
    proc = run_cli("check", cwd=tmp_path)
    assert "no @check in checks/*.py" in proc.stderr, proc.stderr


# -- new and init ------------------------------------------------------------------------

def test_new_refuses_a_field_with_no_name(tmp_path):
    """``--field =v`` was "a NOTE has no field " (an empty name)."""
    _record(tmp_path)
    proc = run_cli("new", "NOTE", "--title", "x", "--field", "=v", cwd=tmp_path)
    assert proc.returncode == 2 and "'=v' has no NAME: write NAME=VALUE" in proc.stderr, proc.stderr
    assert not (tmp_path / "records" / "note").exists()
    assert "KIND is a kind of the schema" in run_cli("new", "--help", check=True).stdout


def test_init_says_a_missing_folder_and_a_schema_file_it_cannot_write(tmp_path):
    proc = run_cli("init", "nope", cwd=tmp_path)
    assert proc.returncode == 2 and "nope does not exist: give the folder that holds the notes" in proc.stderr
    # a schema file in a folder that does not exist named a temporary file
    proc = run_cli("init", "--schema-file", "sub/x.yaml", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "--schema-file sub/x.yaml: the folder sub does not exist" in proc.stderr and ".tmp" not in proc.stderr
    # an empty one was "<the current folder> exists: recordkit init never overwrites a file"
    proc = run_cli("init", "--schema-file", "", cwd=tmp_path)
    assert proc.returncode == 2 and "an empty schema file name" in proc.stderr, proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    (tmp_path / "sub").mkdir()
    run_cli("init", "--schema-file", "sub/x.yaml", cwd=tmp_path, check=True)
    assert 'schema = "sub/x.yaml"' in (tmp_path / "recordkit.toml").read_text()


# -- build -------------------------------------------------------------------------------

@pytest.mark.slow
def test_build_does_not_call_a_duplicate_key_an_unreadable_file(tmp_path):
    """A duplicate key (a load diagnostic) was counted as "1 file(s) could
    not be read and are not in the site", while its page was built."""
    _record(tmp_path)
    write(tmp_path, "records/question/QUESTION-002.md",
          "---\nid: QUESTION-002\ntitle: q\nstatus: open\nabout: [QUESTION-001]\nabout: [QUESTION-001]\n---\n")
    proc = run_cli("build", "-o", "site", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "site" / "question" / "QUESTION-002.html").is_file()
    assert "could not be read" not in proc.stderr, proc.stderr
    assert "1 record kept out" not in proc.stderr
    # a file that cannot be read (bad YAML) is counted, once, as a file
    write(tmp_path, "records/question/QUESTION-003.md", "---\nid: QUESTION-003\ntitle: [unclosed\n---\n")
    proc = run_cli("build", "-o", "site", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "note: 1 file of the record could not be read and is not in the site (run `recordkit lint`)" \
        in proc.stderr, proc.stderr
    assert not (tmp_path / "site" / "question" / "QUESTION-003.html").exists()


# -- what the loader and the configuration say -------------------------------------

def test_a_tab_in_the_front_matter_a_dangling_link_and_a_link_loop_say_what_they_are(tmp_path):
    """"found character that cannot start any token" said nothing of the
    tab; a dangling symbolic link was "No such file or directory" of a
    file the folder lists."""
    _record(tmp_path)
    write(tmp_path, "records/note/NOTE-009.md", "---\nid: NOTE-009\ntitle: T\nstatus: draft\ntags:\n\t- a\n---\nx\n")
    os.symlink("/nowhere/x.md", tmp_path / "records" / "note" / "gone.md")
    os.symlink("self.md", tmp_path / "records" / "note" / "self.md")
    out = run_cli("lint", cwd=tmp_path).stdout
    assert "NOTE-009.md:6:1: RK102 front matter is not valid YAML: a tab, where YAML indents with spaces only" \
        in out, out
    assert "gone.md:1:1: RK103 file cannot be read: it is a symbolic link to /nowhere/x.md, which does not " \
           "exist" in out, out
    assert "self.md:1:1: RK103 file cannot be read: it is a symbolic link that leads, through links, back to " \
           "itself" in out, out


@pytest.mark.parametrize("toml, command, said", [
    ('schema = "missing.yaml"\n', ("lint",),
     "missing.yaml: cannot read the schema file (the configuration names it: schema = ...): No such file or directory"),
    ('site_url = "ftp://x"\n', ("build", "-o", "site"),
     "recordkit.toml:2:1: site_url must be an http(s) URL"),
    ('[site]\ntemplates = "nope"\n', ("build", "-o", "site"),
     "recordkit.toml:3:1: site.templates "),
    ('[queries]\nx = 5\n', ("query", "x"),
     "recordkit.toml:3:1: query x must be SQL text"),
])
def test_configuration_values_that_cannot_be_used_say_where(tmp_path, toml, command, said):
    _record(tmp_path)
    cfg = tmp_path / "recordkit.toml"
    cfg.write_text(cfg.read_text() + toml)
    proc = run_cli(*command, cwd=tmp_path)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert said in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
