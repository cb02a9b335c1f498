"""A newcomer's tasks, done as tests in a copy of the package: add a rule
(one file in lint/rules/) and add an output format (one file in
lint/formats/), touching nothing else, and the command line offers them."""
from __future__ import annotations

import filecmp
import json
import shutil
import textwrap

import pytest

from conftest import REPO, run_cli, write

RECORD = {
    "records/theory/THEORY-001.md": """\
        ---
        id: THEORY-001
        title: Everything is a kernel
        status: proposed
        promote_when: A person says so.
        ---
        Body.
        """,
    "records/lit/LIT-001.md": """\
        ---
        id: LIT-001
        title: A paper about kernels and other things
        status: queued
        authors: [A. Author]
        year: 2024
        ---
        TODO: read it.
        """,
}

NEW_RULE = '''\
"""RK9xx: a newcomer's rule."""
from __future__ import annotations

from ..registry import rule


@rule("RK901", "todo-in-body", "warning", local=True)
def todo_in_body(ctx, rec):
    """The body has a TODO.

    ## What it does
    Finds `TODO:` in a record's body.

    ## Why is this bad
    A TODO is work not done.

    ## Example
    ```markdown
    TODO: read it.
    ```

    ## Use instead
    ```markdown
    Read.
    ```
    """
    i = rec.body.find("TODO:")
    if i < 0:
        return []
    line = rec.body_line + rec.body.count("\\n", 0, i)
    return [ctx.diag("RK901", "the body has a TODO", rec, (line, 1, line, 6))]
'''

NEW_FORMAT = '''\
"""``--format csv``: one line per diagnostic."""
from __future__ import annotations

import csv
import io

from ...common.paths import display_path

NAME = "csv"


def render(diags, info) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\\n")
    w.writerow(["path", "line", "col", "code", "name", "message"])
    for d in diags:
        w.writerow([display_path(d.path), d.line, d.col, d.code, info.rule_info(d.code).get("name"), d.message])
    return out.getvalue()
'''


@pytest.fixture
def package_copy(tmp_path):
    """A copy of the recordkit package (and a record to lint), used through
    PYTHONPATH; returns (folder on the path, project folder)."""
    site = tmp_path / "site"
    shutil.copytree(REPO / "recordkit", site / "recordkit",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    project = tmp_path / "project"
    for rel, text in RECORD.items():
        write(project, rel, text)
    (project / "recordkit.toml").write_text('root = "records"\n')
    return site, project


def _unchanged_but(site, added: str) -> None:
    """Every file of the copy is the package's, but ``added``."""
    cmp = filecmp.dircmp(REPO / "recordkit", site / "recordkit", ignore=["__pycache__"])
    def walk(c, prefix=""):
        extra = [prefix + n for n in c.right_only]
        changed = [prefix + n for n in c.diff_files + c.left_only]
        for name, sub in c.subdirs.items():
            e, ch = walk(sub, prefix + name + "/")
            extra += e
            changed += ch
        return extra, changed
    extra, changed = walk(cmp)
    assert changed == [] and extra == [added]


@pytest.mark.slow
def test_add_a_rule_is_one_file(package_copy):
    site, project = package_copy
    (site / "recordkit" / "lint" / "rules" / "newcomer.py").write_text(NEW_RULE)
    _unchanged_but(site, "lint/rules/newcomer.py")
    env = {"PYTHONPATH": str(site)}
    shown = run_cli("rule", "RK901", cwd=project, env=env)
    assert shown.returncode == 0 and "# todo-in-body (RK901)" in shown.stdout and "A TODO is work not done." in shown.stdout
    got = run_cli("lint", "--no-cache", "--select", "RK9", "--format", "json", cwd=project, env=env)
    found = json.loads(got.stdout)
    assert [(d["code"], d["name"], d["filename"], d["location"]["row"]) for d in found] == \
        [("RK901", "todo-in-body", "records/lit/LIT-001.md", 8)]
    # it is a rule like the others: selectable by prefix, ignorable, in the SARIF table and the docs
    assert run_cli("lint", "--no-cache", "--ignore", "RK901", "--select", "RK9", cwd=project, env=env).returncode == 0
    sarif = json.loads(run_cli("lint", "--no-cache", "--format", "sarif", cwd=project, env=env).stdout)
    assert "RK901" in [r["id"] for r in sarif["runs"][0]["tool"]["driver"]["rules"]]
    docs = run_cli("rule", "--all", "--format", "markdown", cwd=project, env=env).stdout
    assert "## RK901 todo-in-body" in docs
    # without the file, the package knows no RK901
    assert run_cli("rule", "RK901", cwd=project).returncode == 2


@pytest.mark.slow
def test_add_an_output_format_is_one_file(package_copy):
    site, project = package_copy
    (site / "recordkit" / "lint" / "formats" / "csv.py").write_text(NEW_FORMAT)
    _unchanged_but(site, "lint/formats/csv.py")
    env = {"PYTHONPATH": str(site)}
    got = run_cli("lint", "--no-cache", "--select", "RK2", "--format", "csv", cwd=project, env=env)
    lines = got.stdout.splitlines()
    assert lines[0] == "path,line,col,code,name,message" and len(lines) > 1, got.stdout + got.stderr
    assert all(line.startswith("records/") for line in lines[1:])
    assert "csv" in run_cli("lint", "--help", cwd=project, env=env).stdout
    # the package itself offers no csv
    assert run_cli("lint", "--format", "csv", cwd=project).returncode == 2


def test_a_broken_plugin_is_an_error_not_skipped(package_copy):
    """A rule module that does not import stops the lint with its error,
    rather than the rules in it silently missing."""
    site, project = package_copy
    (site / "recordkit" / "lint" / "rules" / "broken.py").write_text("raise RuntimeError('broken rule module')\n")
    got = run_cli("lint", "--no-cache", cwd=project, env={"PYTHONPATH": str(site)})
    assert got.returncode != 0 and "broken rule module" in got.stderr


def test_the_registry_and_the_format_table_are_what_the_folders_hold():
    from recordkit.lint.formats import formats
    from recordkit.lint.registry import RULES_FOLDER, all_rules
    import recordkit.lint.formats as fm
    modules = {p.stem for p in RULES_FOLDER.glob("*.py") if not p.stem.startswith("_")}
    assert {r.func.__module__.rsplit(".", 1)[1] for r in all_rules().values()} == modules
    assert set(formats()) == {p.stem for p in fm.FOLDER.glob("*.py") if not p.stem.startswith("_")} \
        == {"text", "json", "github", "sarif"}
