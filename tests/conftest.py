import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def write(root: Path, rel: str, text: str) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return p


@pytest.fixture
def make_record(tmp_path):
    """Write files under tmp_path/records and return the root."""
    root = tmp_path / "records"
    root.mkdir()

    def _make(files: dict[str, str]) -> Path:
        for rel, text in files.items():
            write(root, rel, text)
        return root

    return _make


def child_cpu() -> float:
    """CPU seconds of this process's finished children (and of theirs that
    they waited for): what a linear-time test bounds around a subprocess, as
    wall time swings with whatever else the machine runs (pytest-xdist's
    other worker, a loaded CI runner)."""
    import resource
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_cli(*args, cwd=None, check=False, env=None):
    """Run the real ``recordkit`` CLI in a subprocess."""
    e = dict(os.environ)
    e.pop("GITHUB_ACTIONS", None)
    if env:
        e.update(env)
    proc = subprocess.run([sys.executable, "-m", "recordkit", *args], cwd=cwd, capture_output=True,
                          text=True, env=e, timeout=300)
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


#: a small record with a checks folder, clean but for warnings: NOTE-001
#: reads LIT-001, THEORY-001 has LIT-002 as source, THEORY-002 extends
#: THEORY-001, CLAIM-001 is carried by the check one-plus-one of
#: checks/arith.py.  For the ``lint PATHS`` and pre-commit tests.
MINI_RECORD = {
    "records/lit/LIT-001.md": """\
        ---
        id: LIT-001
        title: A work on representations
        status: queued
        authors: [A. Author]
        year: 2020
        ---
        """,
    "records/lit/LIT-002.md": """\
        ---
        id: LIT-002
        title: Another work
        status: queued
        authors: [B. Author]
        year: 2021
        ---
        """,
    "records/note/NOTE-001.md": """\
        ---
        id: NOTE-001
        title: Reading the first work
        status: draft
        paper: LIT-001
        ---
        Notes on the paper.
        """,
    "records/theory/THEORY-001.md": """\
        ---
        id: THEORY-001
        title: A general theory
        status: proposed
        source: [LIT-002]
        promote_when:
          summary: The owner judges it.
        ---
        """,
    "records/theory/THEORY-002.md": """\
        ---
        id: THEORY-002
        title: A special theory
        status: proposed
        source: [NOTE-001]
        extends: [THEORY-001]
        promote_when:
          summary: The owner judges it.
        ---
        """,
    "records/claim/CLAIM-001.md": """\
        ---
        id: CLAIM-001
        title: One plus one is two
        status: open
        grounds: [THEORY-001]
        checks: [one-plus-one]
        ---
        """,
    "checks/arith.py": """\
        from recordkit import check


        @check("one-plus-one", tolerance=1e-12, claim="1 + 1 = 2")
        def _():
            return abs((1 + 1) - 2)
        """,
}


def write_mini_record(folder: Path) -> Path:
    for rel, text in MINI_RECORD.items():
        write(folder, rel, text)
    return folder


def git_env(tmp_path: Path) -> dict:
    """An environment for git (and pre-commit) in a test: an identity, no
    user or system configuration, pre-commit's home in the test's folder."""
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@example.org", GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull,
               PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"))
    env.pop("GITHUB_ACTIONS", None)
    return env


# ----------------------------------------------------------------- markers ---
# ``browser``: drives Debian's chromium (tests/browser.py); ``fuzz``: runs for
# a set time on generated input; ``slow``: half a second or more of CPU (scale
# and linear-time tests, whole-site builds, the pre-commit install).  The quick
# step of .ci/run (the lowest versions pyproject.toml allows) deselects all
# three: -m "not browser and not fuzz and not slow".

def pytest_configure(config):
    config.addinivalue_line("markers", "browser: drives Debian's chromium through Playwright")
    config.addinivalue_line("markers", "fuzz: runs for a set time on generated input")
    config.addinivalue_line("markers", "slow: takes half a second or more of CPU (left out of the quick CI step)")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()) and not item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.browser)


def pytest_runtest_setup(item):
    if item.get_closest_marker("browser"):
        from browser import require_chromium
        require_chromium()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Where every browser test must run (``RECORDKIT_REQUIRE_BROWSER=1``,
    set by .ci/run), a browser test that skips, for whatever reason, fails."""
    outcome = yield
    report = outcome.get_result()
    if report.skipped and os.environ.get("RECORDKIT_REQUIRE_BROWSER") and item.get_closest_marker("browser"):
        reason = report.longrepr[-1] if isinstance(report.longrepr, tuple) else report.longrepr
        report.outcome = "failed"
        report.longrepr = f"a browser test skipped where RECORDKIT_REQUIRE_BROWSER requires it to run: {reason}"


def pytest_terminal_summary(terminalreporter):
    """Say once, at the end, how many browser tests were skipped and the one
    command that installs what they need."""
    from browser import INSTALL_BROWSER, SKIP_REASON
    skipped = [r for r in terminalreporter.stats.get("skipped", [])
               if isinstance(r.longrepr, tuple) and SKIP_REASON in str(r.longrepr[-1])]
    if skipped:
        terminalreporter.write_sep("-", "browser tests", yellow=True)
        terminalreporter.write_line(f"{len(skipped)} browser tests skipped: Debian chromium is not installed. "
                                    f"To run them: {INSTALL_BROWSER}")
