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


#: commands that run in a process of their own whatever run_cli is asked: they
#: serve until stopped (serve, lsp)
_OWN_PROCESS = {"serve", "lsp"}


def run_cli(*args, cwd=None, check=False, env=None, process=False):
    """Run the real ``recordkit`` CLI on ``args`` and return a
    ``subprocess.CompletedProcess`` (``returncode``, ``stdout``, ``stderr``).

    By default the command runs in this process, through click's own test
    runner, as ``python -m recordkit`` would run it (the same ``main``, its
    exit status, its two streams apart, a traceback as the interpreter
    prints it): a subprocess costs 0.15-0.25 s of CPU for the interpreter
    and the imports alone, against a few milliseconds for most commands on
    a test's record, and the suite runs this some 600 times.
    ``process=True`` (and ``serve``, ``lsp``, or an ``env`` that sets
    ``PYTHONPATH``) runs a real ``python -m recordkit`` instead: for a test
    that measures the command's own CPU (``child_cpu``), sends it signals,
    or needs a fresh interpreter."""
    command = next((a for a in args if isinstance(a, str) and not a.startswith("-")
                    and a not in _option_values(args)), None)
    if process or command in _OWN_PROCESS or (env and "PYTHONPATH" in env) \
            or os.environ.get("RECORDKIT_TEST_SUBPROCESS"):
        return _run_process(args, cwd, check, env)
    return _run_in_process(args, cwd, check, env)


def _option_values(args) -> set:
    """The values given to the group's own options (``--root X``, ``--config X``)."""
    values = set()
    for i, a in enumerate(args[:-1]):
        if a in ("--root", "--config"):
            values.add(args[i + 1])
    return values


def _run_process(args, cwd, check, env):
    e = dict(os.environ)
    e.pop("GITHUB_ACTIONS", None)
    if env:
        e.update(env)
    proc = subprocess.run([sys.executable, "-m", "recordkit", *args], cwd=cwd, capture_output=True,
                          text=True, env=e, timeout=300)
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


def _run_in_process(args, cwd, check, env):
    import gc
    import traceback
    from click.testing import CliRunner
    from recordkit.cli import main
    import importlib
    batch = importlib.import_module("recordkit.runtime.batch")
    try:
        runner = CliRunner(mix_stderr=False)      # click 8.1: the two streams apart
    except TypeError:
        runner = CliRunner()                      # click >= 8.2: always apart
    # RECORDKIT_CLEAN_EXIT: the commands end by sys.exit, not os._exit (which
    # would end this process); GITHUB_ACTIONS: as _run_process leaves it out
    e = {"RECORDKIT_CLEAN_EXIT": "1", "GITHUB_ACTIONS": None}
    if env:
        e.update({k: str(v) for k, v in env.items()})
    here = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(cwd)
        result = runner.invoke(main, [str(a) for a in args], prog_name="recordkit", env=e, catch_exceptions=True)
    finally:
        os.chdir(here)
        # what a command left frozen for its own exit is this process's again
        if batch.is_frozen():
            batch.unfreeze()
        gc.enable()
    stdout = result.stdout
    try:
        stderr = result.stderr
    except ValueError:
        stderr = ""
    code = result.exit_code
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        # as the interpreter ends on an exception nobody caught: its traceback, status 1
        stderr += "Traceback (most recent call last):\n" + "".join(
            traceback.format_exception(type(result.exception), result.exception, result.exc_info[2])[1:])
        code = 1
    proc = subprocess.CompletedProcess(["recordkit", *map(str, args)], code, stdout, stderr)
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
