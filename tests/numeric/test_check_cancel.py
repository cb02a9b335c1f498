"""A running check can be stopped: ``run_checks(..., cancel=...)`` kills
the sandbox's process tree (a child in a new session included) within a
second of the cancel, raises ``ChecksCancelled`` (not a failure), and
leaves the stored verdict as it was; the checks that finished first keep
their results."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

import recordkit
from recordkit.numeric.runner import ChecksCancelled, run_checks
from recordkit.numeric.store import load_results

NOTE = """---
id: NOTE-001
title: Long
status: draft
checks: [quick, long]
---
Text.
"""

CHECKS = '''
import subprocess, sys, time
from recordkit import check

PIDS = {pids!r}


@check("quick", tolerance=1)
def _(rng):
    return 0.0


@check("long", tolerance=1, timeout=120)
def _(rng):
    kid = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"], start_new_session=True)
    with open(PIDS, "w") as fh:
        fh.write(f"{{__import__('os').getpid()}}\\n{{kid.pid}}\\n")
    time.sleep(120)
    return 0.0
'''


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.fixture
def root(tmp_path) -> Path:
    (tmp_path / "recordkit.toml").write_text('root = "records"\nchecks = "checks"\n', encoding="utf-8")
    (tmp_path / "records" / "note").mkdir(parents=True)
    (tmp_path / "records" / "note" / "NOTE-001.md").write_text(NOTE, encoding="utf-8")
    (tmp_path / "checks").mkdir()
    (tmp_path / "checks" / "long.py").write_text(CHECKS.format(pids=str(tmp_path / "pids.txt")), encoding="utf-8")
    return tmp_path


def test_cancelling_a_long_check_ends_it_within_a_second(root):
    pidfile = root / "pids.txt"
    corpus = recordkit.load(root / "records")
    said = []
    asked_at = []

    def cancel():
        if not asked_at and pidfile.exists() and len(pidfile.read_text().split()) == 2:
            asked_at.append(time.monotonic())
        return bool(asked_at)
    t0 = time.monotonic()
    with pytest.raises(ChecksCancelled) as info:
        run_checks(corpus, ["quick", "long"], jobs=1, progress=lambda r: said.append(r.id), cancel=cancel)
    ended = time.monotonic()
    print(f"cancel to end: {ended - asked_at[0]:.3f} s")
    assert asked_at and ended - asked_at[0] < 1.5, f"the cancel took {ended - asked_at[0]:.2f} s"
    assert ended - t0 < 60
    pids = [int(x) for x in pidfile.read_text().split()]
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.05)
    assert not any(_alive(p) for p in pids), "the check or its child outlived the cancel"
    assert set(info.value.done) == {"quick"} and said == ["quick"]       # (finished first: kept)
    stored = load_results(corpus)
    assert "quick" in stored and "long" not in stored                   # not stored as failed


def test_a_cancel_before_any_check_runs_nothing(root):
    corpus = recordkit.load(root / "records")
    with pytest.raises(ChecksCancelled) as info:
        run_checks(corpus, ["long"], jobs=1, cancel=lambda: True)
    assert info.value.done == {}
    assert not (root / "pids.txt").exists()
