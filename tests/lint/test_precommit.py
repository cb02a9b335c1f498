"""The real ``pre-commit`` in a git repo: a commit that breaks the record is
blocked with the right code, a clean one goes through.

Two hooks, both ``repo: local`` (no network: pre-commit clones and installs
nothing): the shipped hook of ``.pre-commit-hooks.yaml`` (its settings, run
with this interpreter instead of an installed ``recordkit``), and the
"what the commit involves" hook of docs/configuration.md (which relies on
``recordkit lint PATHS`` with deleted paths).
"""
from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys

import pytest
import yaml

from conftest import REPO, git_env, write, write_mini_record

pytestmark = pytest.mark.skipif(shutil.which("git") is None or shutil.which("sh") is None,
                                reason="needs git and sh")
pytest.importorskip("pre_commit")

RECORDKIT = f"{shlex.quote(sys.executable)} -m recordkit"


def shipped_hook() -> dict:
    """The hook of .pre-commit-hooks.yaml, as a local hook run by this
    interpreter: every setting but ``entry``/``language`` is the shipped one."""
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    hook = dict(next(h for h in hooks if h["id"] == "recordkit-lint"))
    assert hook["entry"].startswith("recordkit ")
    hook["entry"] = RECORDKIT + hook["entry"][len("recordkit"):]
    hook["language"] = "system"
    hook.pop("description", None)
    return hook


def documented_changed_hook() -> dict:
    """The ``recordkit-lint-changed`` hook of docs/configuration.md, as
    written there (``recordkit`` run by this interpreter)."""
    doc = (REPO / "docs" / "configuration.md").read_text()
    block = re.search(r"```yaml\n# \.pre-commit-config\.yaml: recordkit-lint-changed\n(.*?)```", doc, re.S)
    assert block, "docs/configuration.md lost its recordkit-lint-changed example"
    config = yaml.safe_load(block.group(1))
    hook = config["repos"][0]["hooks"][0]
    assert config["repos"][0]["repo"] == "local" and hook["id"] == "recordkit-lint-changed"
    hook["entry"] = hook["entry"].replace("xargs -0 -r recordkit ", f"xargs -0 -r {RECORDKIT} ")
    assert RECORDKIT in hook["entry"]
    return hook


@pytest.fixture(params=["shipped", "changed"])
def repo(request, tmp_path):
    which = request.param
    repo = tmp_path / "repo"
    write_mini_record(repo)
    if which == "changed":
        # an error the commits below do not involve: this hook lets them through
        write(repo, "records/lit/LIT-099.md", "---\nid: LIT-099\ntitle: t\nstatus: queued\nauthors: [a]\n"
                                              "year: 2020\ncites: [LIT-404]\n---\n")
    hook = shipped_hook() if which == "shipped" else documented_changed_hook()
    (repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump({"repos": [{"repo": "local", "hooks": [hook]}]}))
    (repo / ".gitignore").write_text(".recordkit/\n")
    env = git_env(tmp_path)
    # nothing may reach the network: a download would fail, not wait
    env.update(http_proxy="http://127.0.0.1:9", https_proxy="http://127.0.0.1:9", HTTP_PROXY="http://127.0.0.1:9",
               HTTPS_PROXY="http://127.0.0.1:9", PIP_NO_INDEX="1", GIT_TERMINAL_PROMPT="0")

    def git(*a, check=True):
        proc = subprocess.run(["git", *a], cwd=repo, capture_output=True, text=True, env=env, timeout=300)
        if check and proc.returncode != 0:
            raise AssertionError(f"git {' '.join(a)}: exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
        return proc

    git("init", "-q")
    git("add", ".")
    git("commit", "-qm", "base (before the hook)")
    subprocess.run([sys.executable, "-m", "pre_commit", "install"], cwd=repo, check=True, capture_output=True,
                   env=env, timeout=300)
    return which, repo, git


def _commit(git, message):
    git("add", "-A")
    proc = git("commit", "-m", message, check=False)
    return proc.returncode, proc.stdout + proc.stderr


def _blocked(git, repo, message, code, where, what):
    before = git("rev-parse", "HEAD").stdout
    rc, out = _commit(git, message)
    assert rc != 0, f"{message}: the commit went through\n{out}"
    assert git("rev-parse", "HEAD").stdout == before
    lines = [l for l in out.splitlines() if f" {code} " in l]
    assert any(l.startswith(where + ":") and what in l for l in lines), f"{message}: no {code} at {where}\n{out}"
    git("reset", "-q", "--hard", "HEAD")


@pytest.mark.slow
def test_each_breaking_commit_is_blocked_with_its_code_and_a_clean_one_passes(repo):
    which, root, git = repo

    # 1. deleting a cited LIT: the error is in the note that cites it
    git("rm", "-q", "records/lit/LIT-001.md")
    _blocked(git, root, "delete a cited LIT", "RK301", "records/note/NOTE-001.md", "LIT-001")

    # 2. renaming an id with its file: THEORY-001 still names the old id
    git("mv", "records/lit/LIT-002.md", "records/lit/LIT-003.md")
    p = root / "records/lit/LIT-003.md"
    p.write_text(p.read_text().replace("LIT-002", "LIT-003"))
    _blocked(git, root, "rename LIT-002 to LIT-003", "RK301", "records/theory/THEORY-001.md", "LIT-002")

    # 3. closing an extends cycle from THEORY-001: the cycle is flagged in THEORY-002
    p = root / "records/theory/THEORY-001.md"
    p.write_text(p.read_text().replace("source: [LIT-002]\n", "source: [LIT-002]\nextends: [THEORY-002]\n"))
    _blocked(git, root, "close a cycle", "RK304", "records/theory/THEORY-002.md", "THEORY-001 → THEORY-002")

    # 4. deleting a check module: the claim's checks: names a check no more
    git("rm", "-q", "checks/arith.py")
    _blocked(git, root, "delete a check module", "RK501", "records/claim/CLAIM-001.md", "one-plus-one")

    # 5. a clean commit goes through (the changed-files hook ignores LIT-099's error)
    p = root / "records/claim/CLAIM-001.md"
    p.write_text(p.read_text().replace("One plus one is two", "One and one make two"))
    before = git("rev-parse", "HEAD").stdout
    rc, out = _commit(git, "a clean edit")
    assert rc == 0, out
    assert git("rev-parse", "HEAD").stdout != before
    assert "recordkit lint" in out and "Passed" in out
