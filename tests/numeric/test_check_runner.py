"""The numeric check runner: discovery, containment, cache, CLI, RK501–RK504.

Most tests run the real CLI in a subprocess on a small record in tmp_path
(``recordkit.toml`` with ``root = "records"``, ``checks = "checks"``).
"""
import json
import os
import textwrap
import time
from pathlib import Path

import pytest

import recordkit
from recordkit.numeric.discover import discover_all, source_hash
from recordkit.numeric.registry import seed_for
from recordkit.numeric.results import check_holds
from recordkit.numeric.store import load_results

from conftest import run_cli, write

TOML = 'root = "records"\nchecks = "checks"\n'

NOTE = """
---
id: NOTE-001
title: A note with checks
status: draft
checks: [passes, fails, nosuch, raises]
---
Some text.

```python check id=block-ok tolerance=1e-12
a, b = rng.normal(size=(2, 1000))
a, b = (a - a.mean()) / a.std(), (b - b.mean()) / b.std()
error = abs(np.var(a - b) - 2 * (1 - np.corrcoef(a, b)[0, 1]))
```

````markdown
```python check id=not-a-check tolerance=1
error = 1
```
````

```python check id=block-raises tolerance=1
x = 1
error = undefined_name
```
"""

CHECKS = '''
import os, subprocess, sys, time
import numpy as np
from recordkit import check


def helper(x):
    return 2 * x


@check("passes", tolerance=1e-12, claim="two is two")
def _(rng):
    return abs(helper(1.0) - 2.0)


@check("fails", tolerance=1e-9)
def _(rng):
    return {"small": 1e-12, "big": 0.5}


@check("raises", tolerance=1)
def _(rng):
    return helper(1) / 0


@check("hangs", tolerance=1)
def _(rng):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    with open(os.environ["RK_TEST_PIDFILE"], "w") as fh:
        fh.write(str(child.pid))
    while True:
        time.sleep(0.05)


@check("exits", tolerance=1)
def _(rng):
    os._exit(3)


@check("segfaults", tolerance=1)
def _(rng):
    import ctypes
    return ctypes.string_at(0)


@check("hogs", tolerance=1, timeout=30)   # filling pages is slow on a loaded machine
def _(rng):
    hoard = []
    while True:
        hoard.append(bytearray(64 << 20))


@check("nan", tolerance=1)
def _(rng):
    return float("nan")


def table():
    return "rho | value\\n  3 | 0.8866"


@check("reported", tolerance=1e-9)
def reported(rng):
    return 0.0


reported.report = table
'''


def project(tmp_path: Path, note: str = NOTE, checks: str = CHECKS) -> Path:
    (tmp_path / "recordkit.toml").write_text(TOML)
    write(tmp_path, "records/note/NOTE-001.md", note)
    write(tmp_path, "checks/basic.py", checks)
    return tmp_path


def cli(root, *args, **kw):
    return run_cli(*args, cwd=root, **kw)


def as_json(proc):
    try:
        return {r["id"]: r for r in json.loads(proc.stdout)}
    except ValueError:
        raise AssertionError(f"not JSON (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}")


# -- containment: one run of everything -------------------------------------------

@pytest.mark.slow
def test_every_failure_mode_is_contained(tmp_path):
    root = project(tmp_path)
    pidfile = tmp_path / "child.pid"
    t0 = time.monotonic()
    proc = cli(root, "check", "--timeout", "3", "--memory", "400M", "--jobs", "4", "--format", "json",
               "--pass-env", "RK_TEST_PIDFILE",
               env={"RK_TEST_PIDFILE": str(pidfile)})
    wall = time.monotonic() - t0
    assert proc.returncode == 1, proc.stderr
    res = as_json(proc)
    verdicts = {k: v["verdict"] for k, v in res.items()}
    assert verdicts == {
        "passes": "pass", "fails": "fail", "raises": "error", "hangs": "timeout", "exits": "crashed",
        "segfaults": "crashed", "hogs": "error", "nan": "fail", "reported": "pass",
        "block-ok": "pass", "block-raises": "error",
    }
    # the hanging check was killed at the limit while the others finished
    assert wall < 20, wall
    assert 2.5 < res["hangs"]["seconds"] < 6
    assert "killed after 3 s" in res["hangs"]["message"]
    # ... with the process it started (its whole process group)
    child = int(pidfile.read_text())
    for _ in range(100):
        if not _alive(child):
            break
        time.sleep(0.05)
    assert not _alive(child), "a process started by the timed-out check survived"
    # raised: the exception and the last frames, pointing into the check module
    assert res["raises"]["message"] == "ZeroDivisionError: division by zero"
    assert "basic.py" in res["raises"]["traceback"] and "helper(1) / 0" in res["raises"]["traceback"]
    # os._exit and a segfault: the status and the signal
    assert "status 3" in res["exits"]["message"]
    assert "SIGSEGV" in res["segfaults"]["message"]
    assert "basic.py" in (res["segfaults"]["traceback"] or "")
    # memory: a MemoryError at the limit, not a dead machine
    assert "MemoryError" in res["hogs"]["message"] and "400 MiB" in res["hogs"]["message"]
    # not finite never passes; JSON stays strict
    assert res["nan"]["discrepancy"] == "nan"
    # the block check: its traceback gives the record file's own line
    assert "NOTE-001.md" in res["block-raises"]["traceback"]
    assert 'line 23' in res["block-raises"]["traceback"], res["block-raises"]["traceback"]
    assert "NameError" in res["block-raises"]["message"]
    assert res["block-ok"]["discrepancy"] < 1e-12


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False
    except OSError:  # pragma: no cover
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


@pytest.mark.slow
def test_failing_check_prints_measured_and_tolerance(tmp_path):
    root = project(tmp_path)
    proc = cli(root, "check", "fails", "passes")
    assert proc.returncode == 1
    out = proc.stdout
    assert "FAIL fails" in out
    assert "measured 0.5 > tolerance 1e-09" in out
    assert "entry `big`" in out
    row = next(l for l in out.splitlines() if l.startswith("fails "))
    assert "0.5" in row and "1e-09" in row and "fail" in row and "NOTE-001" in row
    assert "1 passed, 1 failed" in out
    assert cli(root, "check", "passes").returncode == 0


def test_json_shape(tmp_path):
    root = project(tmp_path)
    proc = cli(root, "check", "fails", "block-ok", "--format", "json")
    data = json.loads(proc.stdout)
    assert isinstance(data, list) and [d["id"] for d in data] == ["block-ok", "fails"]
    keys = {"id", "verdict", "discrepancy", "discrepancies", "worst", "tolerance", "seconds", "cached",
            "message", "traceback", "records", "claim", "form", "filename", "line", "report"}
    assert all(set(d) == keys for d in data)
    fails = data[1]
    assert fails["discrepancies"] == {"small": 1e-12, "big": 0.5} and fails["worst"] == "big"
    assert fails["tolerance"] == 1e-9 and fails["records"] == ["NOTE-001"]
    assert fails["filename"] == "checks/basic.py" and fails["form"] == "function"
    assert data[0]["form"] == "block" and data[0]["filename"] == "records/note/NOTE-001.md"
    assert data[0]["line"] == 9


@pytest.mark.slow
def test_report_printed_when_named_or_verbose(tmp_path):
    root = project(tmp_path)
    named = cli(root, "check", "reported")
    assert named.returncode == 0
    assert "reported report" in named.stdout and "0.8866" in named.stdout
    quiet = cli(root, "check", "reported", "passes", "--format", "json")
    assert as_json(quiet)["reported"]["report"].startswith("rho | value")
    # not named, not verbose: no report (a record id selects its checks)
    write(tmp_path, "records/note/NOTE-002.md", """
    ---
    id: NOTE-002
    title: n2
    status: draft
    checks: [passes]
    ---
    """)
    assert "0.8866" not in cli(root, "check", "NOTE-002").stdout
    assert "0.8866" in cli(root, "check", "NOTE-002", "reported", "-v").stdout


def test_unknown_and_duplicate_ids_are_usage_errors(tmp_path):
    root = project(tmp_path)
    proc = cli(root, "check", "fail")
    assert proc.returncode == 2
    assert "unknown check id" in proc.stderr and "fails" in proc.stderr
    write(tmp_path, "checks/other.py", """
    from recordkit import check

    @check("passes", tolerance=1)
    def again(rng):
        return 0.0
    """)
    proc = cli(root, "check", "passes")
    assert proc.returncode == 2
    assert "defined more than once" in proc.stderr
    assert "basic.py" in proc.stderr and "other.py" in proc.stderr


# -- the cache ----------------------------------------------------------------------

SIMPLE = '''
from recordkit import check


def helper():
    return 1.0


@check("alpha", tolerance=1e-9)
def _(rng):
    return abs(helper() - 1.0)


@check("beta", tolerance=1e-9)
def _(rng):
    return 0.0
'''

SIMPLE_NOTE = """
---
id: NOTE-001
title: cached
status: draft
checks: [alpha, beta]
---
```python check id=gamma tolerance=1
error = 0.0
```
"""


def _cached(proc) -> dict:
    return {k: v["cached"] for k, v in as_json(proc).items()}


@pytest.mark.slow
def test_cache_reused_until_source_changes(tmp_path):
    root = project(tmp_path, SIMPLE_NOTE, SIMPLE)
    assert _cached(cli(root, "check", "--format", "json")) == {"alpha": False, "beta": False, "gamma": False}
    text = cli(root, "check")
    assert text.returncode == 0 and text.stdout.count("(cached)") == 3
    assert (tmp_path / ".recordkit" / "checks.json").is_file()
    # editing a helper of the module invalidates the module's checks, not the block
    mod = tmp_path / "checks" / "basic.py"
    mod.write_text(mod.read_text().replace("return 1.0", "return 1.0 + 0.0"))
    assert _cached(cli(root, "check", "--format", "json")) == {"alpha": False, "beta": False, "gamma": True}
    # editing the block invalidates the block only
    note = tmp_path / "records" / "note" / "NOTE-001.md"
    note.write_text(note.read_text().replace("error = 0.0", "error = 0.0 * 2"))
    assert _cached(cli(root, "check", "--format", "json")) == {"alpha": True, "beta": True, "gamma": False}
    # --no-cache / --force run everything
    assert _cached(cli(root, "check", "--force", "--format", "json")) == {"alpha": False, "beta": False,
                                                                          "gamma": False}


def test_results_api_stale_and_unknown(tmp_path):
    root = project(tmp_path, SIMPLE_NOTE, SIMPLE)
    corpus = recordkit.load(tmp_path / "records")
    assert load_results(corpus) == {}                      # never run: absent
    assert check_holds(load_results(corpus), "alpha") is None
    cli(root, "check", "alpha", check=True)
    res = load_results(recordkit.load(tmp_path / "records"))
    assert set(res) == {"alpha"} and res["alpha"].verdict == "pass" and not res["alpha"].stale
    assert check_holds(res, "alpha") is True and check_holds(res, "beta") is None
    mod = tmp_path / "checks" / "basic.py"
    mod.write_text(mod.read_text() + "\n# a comment changes the module\n")
    res = load_results(recordkit.load(tmp_path / "records"))
    assert res["alpha"].stale and check_holds(res, "alpha") is None   # stale is unknown, never true


@pytest.mark.slow
def test_concurrent_runs_keep_both_results(tmp_path):
    import subprocess
    import sys
    root = project(tmp_path, SIMPLE_NOTE, SIMPLE)
    env = dict(os.environ)
    procs = [subprocess.Popen([sys.executable, "-m", "recordkit", "check", cid], cwd=root, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for cid in ("alpha", "beta", "gamma")]
    assert [p.wait(timeout=60) for p in procs] == [0, 0, 0]
    data = json.loads((tmp_path / ".recordkit" / "checks.json").read_text())
    assert set(data["results"]) == {"alpha", "beta", "gamma"}


# -- discovery (no subprocess) ------------------------------------------------------------

def test_discovery_forms_and_hash(tmp_path):
    project(tmp_path, NOTE, textwrap.dedent('''
        import recordkit as rk
        from recordkit import check as verify
        import recordkit.numeric

        def helper():
            return 0

        @rk.check("via-module", tolerance=2e-3 * 5, claim="a claim "
                  "in two parts")
        def a(rng):
            return helper()

        @verify("via-alias")
        def b(rng):
            return 0

        @recordkit.numeric.check("via-numeric", tolerance=1, timeout=5)
        def c(rng):
            return 0

        ID = "computed"

        @verify(ID)
        def d(rng):
            return 0

        @other("not-a-check")
        def e(rng):
            return 0
    '''))
    corpus = recordkit.load(tmp_path / "records")
    disc = discover_all(corpus)
    assert set(disc.checks) == {"via-module", "via-alias", "via-numeric", "block-ok", "block-raises"}
    vm = disc.checks["via-module"]
    assert vm.tolerance == pytest.approx(1e-2) and vm.claim == "a claim in two parts"
    assert vm.line == 8 and vm.source.startswith("@rk.check") and "return helper()" in vm.source
    assert disc.checks["via-alias"].tolerance == 1e-9                 # the decorator's default
    assert disc.checks["via-numeric"].timeout == 5
    assert [p.message for p in disc.problems] == ["@check needs the check id as a string literal"]
    blk = disc.checks["block-ok"]
    assert blk.form == "block" and blk.record == "NOTE-001" and blk.line == 9 and blk.code_line == 10
    assert blk.source.startswith("a, b = rng.normal")
    # the fenced example inside a ```` fence is text, not a check
    assert "not-a-check" not in disc.checks
    # hash: stable, and sensitive to the tolerance
    assert vm.hash == source_hash(vm, module_text=(tmp_path / "checks/basic.py").read_text())
    vm2 = type(vm)(**{**vm.__dict__, "tolerance": 1.0})
    assert source_hash(vm2, module_text=(tmp_path / "checks/basic.py").read_text()) != vm.hash
    assert seed_for("var-diff-identity") == seed_for("var-diff-identity") != seed_for("other")


def test_hash_covers_sibling_helper_modules(tmp_path):
    project(tmp_path, SIMPLE_NOTE, SIMPLE.replace("from recordkit import check",
                                                  "from recordkit import check\nfrom _helpers import k"))
    write(tmp_path, "checks/_helpers.py", "k = 1\n")
    h1 = discover_all(recordkit.load(tmp_path / "records")).checks["alpha"].hash
    write(tmp_path, "checks/_helpers.py", "k = 2\n")
    h2 = discover_all(recordkit.load(tmp_path / "records")).checks["alpha"].hash
    assert h1 != h2


# -- lint: RK501–RK504 -------------------------------------------------------------------

def _lint(root) -> list[tuple[str, int, str]]:
    proc = cli(root, "lint", "--no-cache", "--select", "RK5", "--format", "json")
    assert proc.returncode in (0, 1), proc.stderr
    return sorted((d["code"], d["location"]["row"], d["message"]) for d in json.loads(proc.stdout))


@pytest.mark.slow
def test_lint_rules_rk501_to_rk504(tmp_path):
    root = project(tmp_path)
    # nothing has run: unknown id (RK501), missing results (RK504) at the items and the fences
    before = _lint(root)
    codes = [(c, row) for c, row, _ in before]
    assert ("RK501", 5) in codes
    assert [m for c, _, m in before if c == "RK501"] == ["unknown check id `nosuch`"]
    assert sorted(r for c, r in codes if c == "RK504") == [5, 5, 5, 9, 21]
    # after running them: RK502 (measured and tolerance printed), RK503 (what it raised)
    cli(root, "check", "passes", "fails", "raises", "block-ok", "block-raises")
    after = _lint(root)
    assert ("RK502", 5, "check fails failed: discrepancy 0.5 > tolerance 1e-09 (entry `big`)") in after
    assert ("RK503", 5, "check raises raised: ZeroDivisionError: division by zero") in after
    assert any(c == "RK503" and row == 21 and "NameError" in m for c, row, m in after)
    assert not any(c == "RK504" for c, _, _ in after)
    # the column of the checks: item is that of the id in the flow list
    data = json.loads(cli(root, "lint", "--no-cache", "--select", "RK502", "--format", "json").stdout)
    assert data[0]["location"] == {"row": 5, "column": 18}
    # a source change makes the results stale: RK504 again, no RK502
    mod = tmp_path / "checks" / "basic.py"
    mod.write_text(mod.read_text() + "\n")
    stale = _lint(root)
    assert any(c == "RK504" and "stale" in m and "fails" in m for c, _, m in stale)
    assert not any(c == "RK502" for c, _, _ in stale)


def test_rule_docs_have_the_sections():
    from recordkit.lint.registry import all_rules
    rules = all_rules()
    for code in ("RK501", "RK502", "RK503", "RK504"):
        doc = rules[code].doc
        for section in ("## What it does", "## Why is this bad", "## Example", "## Use instead"):
            assert section in doc, (code, section)
    assert rules["RK504"].severity == "warning" and rules["RK502"].severity == "error"


def test_show_lists_check_results(tmp_path):
    root = project(tmp_path, SIMPLE_NOTE, SIMPLE)
    cli(root, "check", "alpha", check=True)
    from recordkit.views.describe import describe
    info = describe(recordkit.load(tmp_path / "records"), "NOTE-001")
    checks = {c["id"]: c for c in info["checks"]}
    assert checks["alpha"]["verdict"] == "pass" and checks["alpha"]["tolerance"] == 1e-9
    assert checks["beta"]["verdict"] == "not run" and checks["gamma"]["verdict"] == "not run"


# -- the sandbox: what docs/checks.md promises (issue 10) ---------------------------

SANDBOX_NOTE = """
---
id: NOTE-001
title: Sandbox
status: draft
---
Text.

```python check id=block-nan-timeout tolerance=1 timeout=nan
import time
time.sleep(600)
error = 0
```
"""


def _cli_bounded(root, *args, env=None, limit=60):
    """The CLI with a wall-clock bound, so a check without a limit fails the test instead of hanging it."""
    import subprocess
    import sys
    e = dict(os.environ)
    e.pop("GITHUB_ACTIONS", None)
    e.update(env or {})
    try:
        return subprocess.run([sys.executable, "-m", "recordkit", *args], cwd=root, capture_output=True,
                              text=True, env=e, timeout=limit)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"recordkit {' '.join(args)} ran past {limit} s: a check ran without its limit")


def _wait_dead(pids, seconds=3.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end and any(_alive(p) for p in pids):
        time.sleep(0.05)
    return [p for p in pids if _alive(p)]


def _pids(path: Path) -> list[int]:
    return [int(x) for x in path.read_text().split()] if path.exists() else []


@pytest.mark.slow
def test_invalid_timeouts_are_refused_not_unlimited(tmp_path):
    checks = '''
import time
from recordkit import check

@check("zero", tolerance=1, timeout=0)
def _(rng):
    time.sleep(600)
    return 0.0

@check("negative", tolerance=1, timeout=-5)
def _(rng):
    time.sleep(600)
    return 0.0

@check("infinite", tolerance=1, timeout=1e999)
def _(rng):
    time.sleep(600)
    return 0.0

@check("text", tolerance=1, timeout="10")
def _(rng):
    time.sleep(600)
    return 0.0

@check("fine", tolerance=1, timeout=5)
def _(rng):
    return 0.0
'''
    root = project(tmp_path, SANDBOX_NOTE, checks)
    t0 = time.monotonic()
    proc = _cli_bounded(root, "check", "--timeout", "2", "--format", "json", limit=40)
    assert time.monotonic() - t0 < 30
    res = as_json(proc)
    assert proc.returncode == 1
    assert res["fine"]["verdict"] == "pass"
    for cid, shown in (("zero", "timeout=0 "), ("negative", "timeout=-5 "), ("infinite", "timeout=inf "),
                       ("text", "timeout= is a string (`10`), "), ("block-nan-timeout", "timeout=nan ")):
        r = res[cid]
        assert r["verdict"] == "error", (cid, r)
        assert shown in r["message"] and "not run" in r["message"], r["message"]
        assert r["seconds"] == 0
    # each is also a diagnostic at its definition: on stderr, and RK501 at the block's fence
    assert "basic.py:4: @check `zero`: timeout=0 is not a time limit" in proc.stderr, proc.stderr
    lint = run_cli("lint", "--format", "json", cwd=root)
    assert "timeout=nan is not a time limit" in lint.stdout and "RK501" in lint.stdout
    # the command line: 0, nan, inf and negative limits are usage errors
    for bad in ("0", "nan", "inf", "-1"):
        p = run_cli("check", "fine", "--timeout", bad, cwd=root)
        assert p.returncode == 2 and "--timeout" in p.stderr, (bad, p.stderr)
    for bad in ("nan", "inf", "-2G"):
        p = run_cli("check", "fine", "--memory", bad, cwd=root)
        assert p.returncode == 2 and "--memory" in p.stderr, (bad, p.stderr)
    # and the API
    from recordkit.config import ConfigError
    from recordkit.numeric.runner import run_checks
    corpus = recordkit.load(root / "records")
    for bad in (0, float("nan"), float("inf"), -1):
        with pytest.raises(ConfigError):
            run_checks(corpus, ["fine"], timeout=bad)


def test_a_large_timeout_is_capped_by_max_timeout(tmp_path):
    checks = '''
import time
from recordkit import check

@check("slow", tolerance=1, timeout=3600)
def _(rng):
    time.sleep(600)
    return 0.0
'''
    root = project(tmp_path, SIMPLE_NOTE, checks)
    proc = _cli_bounded(root, "check", "slow", "--max-timeout", "1", "--format", "json", limit=30)
    r = as_json(proc)["slow"]
    assert r["verdict"] == "timeout" and "killed after 1 s" in r["message"] and "3600" in r["message"]


ESCAPES = '''
import os, subprocess, sys, time
from recordkit import check

PIDS = {pids!r}
SLEEP = [sys.executable, "-c", "import time; time.sleep(120)"]


def _note(pid):
    with open(PIDS, "a") as fh:
        fh.write(f"{{pid}}\\n")


def _escape():
    # a new session (setsid), and a daemon by double fork: neither is in our process group
    _note(subprocess.Popen(SLEEP, start_new_session=True).pid)
    r, w = os.pipe()
    if os.fork() == 0:
        os.setsid()
        pid = os.fork()
        if pid == 0:
            os.execv(sys.executable, SLEEP)
        os.write(w, str(pid).encode())
        os._exit(0)
    os.close(w)
    time.sleep(0.3)
    _note(int(os.read(r, 32)))


@check("escapes-and-passes", tolerance=1)
def _(rng):
    _escape()
    return 0.0


@check("escapes-and-hangs", tolerance=1)
def _(rng):
    _escape()
    time.sleep(600)
    return 0.0
'''


@pytest.mark.slow
def test_processes_in_a_new_session_do_not_outlive_the_check(tmp_path):
    pidfile = tmp_path / "pids.txt"
    root = project(tmp_path, SIMPLE_NOTE, ESCAPES.format(pids=str(pidfile)))
    proc = _cli_bounded(root, "check", "escapes-and-passes", "--format", "json", limit=60)
    assert as_json(proc)["escapes-and-passes"]["verdict"] == "pass", proc.stdout
    pids = _pids(pidfile)
    assert len(pids) == 2
    assert _wait_dead(pids, 1.0) == [], "a process the check started in a new session survived it"
    # and at the time limit
    pidfile.unlink()
    proc = _cli_bounded(root, "check", "escapes-and-hangs", "--timeout", "3", "--format", "json", limit=60)
    assert as_json(proc)["escapes-and-hangs"]["verdict"] == "timeout"
    pids = _pids(pidfile)
    assert len(pids) == 2
    assert _wait_dead(pids, 1.0) == [], "a process the timed-out check started in a new session survived it"


TREE_HOG = '''
import subprocess, sys, time
from recordkit import check

PIDS = {pids!r}
HOLD = "import time; b = b'x' * (100 << 20); time.sleep(120)"


@check("forks-hogs", tolerance=1)
def _(rng):
    kids = [subprocess.Popen([sys.executable, "-c", HOLD], start_new_session=True) for _ in range(4)]
    with open(PIDS, "w") as fh:
        fh.write("\\n".join(str(k.pid) for k in kids))
    time.sleep(20)
    return 0.0
'''


@pytest.mark.slow
def test_memory_limit_covers_the_checks_whole_tree(tmp_path):
    # four children of 100 MiB each: every one is under a 300 MiB per-process cap, the tree is not
    pidfile = tmp_path / "pids.txt"
    root = project(tmp_path, SIMPLE_NOTE, TREE_HOG.format(pids=str(pidfile)))
    t0 = time.monotonic()
    proc = _cli_bounded(root, "check", "forks-hogs", "--memory", "300M", "--timeout", "30", "--format", "json",
                        limit=60)
    r = as_json(proc)["forks-hogs"]
    assert r["verdict"] == "error", r
    assert "together" in r["message"] and "300 MiB" in r["message"], r["message"]
    assert time.monotonic() - t0 < 19, "the tree was not stopped at the limit"
    assert _wait_dead(_pids(pidfile), 1.0) == []
    # not cached as if it were the check's own answer: it runs again
    assert not as_json(_cli_bounded(root, "check", "forks-hogs", "--memory", "300M", "--timeout", "30",
                                    "--format", "json"))["forks-hogs"]["cached"]


ENVIRON = '''
import os
from recordkit import check


@check("environ", tolerance=1)
def environ(rng):
    return 0.0


environ.report = lambda: repr({"env": dict(os.environ), "cwd": os.getcwd()})
'''


@pytest.mark.slow
def test_a_check_sees_a_minimal_environment_and_a_private_cwd(tmp_path):
    root = project(tmp_path, SIMPLE_NOTE, ENVIRON)
    secret = {"RK_TEST_SECRET_TOKEN": "hunter2-do-not-leak"}
    proc = _cli_bounded(root, "check", "environ", "--format", "json", env=secret)
    report = eval(as_json(proc)["environ"]["report"])       # noqa: S307 - our own test check's repr
    env, cwd = report["env"], report["cwd"]
    assert "RK_TEST_SECRET_TOKEN" not in env
    assert "hunter2" not in (tmp_path / ".recordkit" / "checks.json").read_text()
    assert set(env) <= {"PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_NUMERIC", "TZ", "PYTHONHOME",
                        "LD_LIBRARY_PATH", "PYTHONPATH", "HOME", "TMPDIR", "PYTHONDONTWRITEBYTECODE",
                        "PYTHONUNBUFFERED", "PYTHONHASHSEED", "MPLBACKEND", "OMP_NUM_THREADS",
                        "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS",
                        "VECLIB_MAXIMUM_THREADS"}, sorted(env)
    # its working directory and HOME are a fresh temporary folder, not the record
    assert Path(cwd).resolve() != tmp_path.resolve() and tmp_path.resolve() not in Path(cwd).resolve().parents
    assert env["HOME"] == cwd and env["HOME"] != os.environ.get("HOME")
    assert not Path(cwd).exists()
    # a variable the user lets through
    proc = _cli_bounded(root, "check", "environ", "--force", "--pass-env", "RK_TEST_SECRET_TOKEN",
                        "--format", "json", env=secret)
    assert eval(as_json(proc)["environ"]["report"])["env"]["RK_TEST_SECRET_TOKEN"] == "hunter2-do-not-leak"


FORGER = '''
import glob, json, os, sys, time
from recordkit import check


def _plant(path):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as fh:
        json.dump({{"version": 1, "results": {{"never-run": {{"id": "never-run", "verdict": "pass", "hash": "x"}}}}}}, fh)


@check("forger", tolerance=1)
def _(rng):
    # 1. the cache by its relative path (the old working directory was the record's folder)
    _plant(".recordkit/checks.json")
    # 2. the other workers' result files, wherever the runner keeps them
    ok = json.dumps({{"status": "ok", "value": 0.0, "report": None, "seconds": 0.0}})
    end = time.time() + 2.5
    while time.time() < end:
        for d in {{os.path.dirname(a) for a in sys.argv[1:] if a.endswith(".json")}} | {{os.path.dirname(os.getcwd())}}:
            for i in range(8):
                for p in (os.path.join(d, f"{{i:04d}}.result.json"), os.path.join(d, f"{{i:04d}}", "result.json")):
                    try:
                        with open(p, "w") as fh:
                            fh.write(ok)
                    except OSError:
                        pass
        time.sleep(0.01)
    # 3. a forged message on its own result pipe, claiming a pass
    for fd in range(3, 64):
        try:
            os.write(fd, json.dumps({{"id": "forger", "token": "guess", "payload": json.loads(ok)}}).encode())
        except OSError:
            pass
    return 1.0          # the truth: it fails


@check("victim", tolerance=1e-9)
def _(rng):
    time.sleep(1.0)
    os._exit(3)         # dies without a result
'''


@pytest.mark.slow
def test_a_check_cannot_forge_results(tmp_path):
    root = project(tmp_path, SIMPLE_NOTE, FORGER.format())
    proc = _cli_bounded(root, "check", "forger", "victim", "--jobs", "2", "--format", "json", limit=60)
    res = as_json(proc)
    assert res["victim"]["verdict"] == "crashed", res["victim"]
    assert res["forger"]["verdict"] != "pass", res["forger"]
    cache = json.loads((tmp_path / ".recordkit" / "checks.json").read_text())["results"]
    assert set(cache) == {"forger", "victim"}
    assert cache["victim"]["verdict"] == "crashed"
    assert check_holds(load_results(recordkit.load(tmp_path / "records")), "never-run") is None


PEEKER = '''
import os
from recordkit import check


def _runner_environ():
    # the check's parent is the worker's supervisor; its parent is the runner, whose environment is whole
    with open(f"/proc/{os.getppid()}/stat") as fh:
        runner = int(fh.read().rsplit(")", 1)[1].split()[1])
    with open(f"/proc/{runner}/environ", "rb") as fh:
        return fh.read().decode(errors="replace").replace("\\0", "\\n")


@check("peeks", tolerance=1)
def peeks(rng):
    return {"ok": 0.0}


peeks.report = _runner_environ
'''


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc")
def test_withheld_values_are_redacted_from_what_is_printed_and_cached(tmp_path):
    # the environment is not a secret store: a check can read the runner's from /proc (same user);
    # what it reports is scrubbed of the values it was not given
    root = project(tmp_path, SIMPLE_NOTE, PEEKER)
    proc = _cli_bounded(root, "check", "peeks", "--format", "json", env={"RK_TEST_SECRET_TOKEN": "hunter2-do-not-leak"})
    r = as_json(proc)["peeks"]
    assert r["verdict"] == "pass"
    assert "RK_TEST_SECRET_TOKEN=[redacted]" in r["report"], r["report"][:500]
    assert "hunter2" not in proc.stdout
    assert "hunter2" not in (tmp_path / ".recordkit" / "checks.json").read_text()


def test_killing_the_runner_kills_what_its_checks_started(tmp_path):
    import signal
    import subprocess
    import sys
    pidfile = tmp_path / "pids.txt"
    root = project(tmp_path, SIMPLE_NOTE, ESCAPES.format(pids=str(pidfile)))
    runner = subprocess.Popen([sys.executable, "-m", "recordkit", "check", "escapes-and-hangs"], cwd=root,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        end = time.monotonic() + 30
        while len(_pids(pidfile)) < 2 and time.monotonic() < end:
            time.sleep(0.05)
        assert len(_pids(pidfile)) == 2
    finally:
        runner.send_signal(signal.SIGKILL)
        runner.wait()
    assert _wait_dead(_pids(pidfile), 2.0) == [], "a process started by a check outlived the killed runner"


BOMB = '''
import subprocess, sys, time
from recordkit import check


@check("many-processes", tolerance=1)
def _(rng):
    kids = [subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]) for _ in range(12)]
    time.sleep(30)
    return 0.0
'''


def test_too_many_processes_kill_the_tree(tmp_path):
    from recordkit.numeric.runner import run_checks
    root = project(tmp_path, SIMPLE_NOTE, BOMB)
    t0 = time.monotonic()
    res = run_checks(recordkit.load(root / "records"), ["many-processes"], timeout=20, max_procs=8)
    r = res["many-processes"]
    assert r.verdict == "error" and r.limit == "procs" and "too many processes" in r.message, r
    assert time.monotonic() - t0 < 15


@pytest.mark.slow
def test_numeric_messages_carry_no_python_reprs(tmp_path):
    """The numeric machinery words its messages as the rest do: what the
    user wrote in backticks, never a Python repr such as 'x' or
    {'a': 1}."""
    checks = '''\
import sys

from recordkit import check


@check("exits", tolerance=1)
def _(rng):
    sys.exit("stopped by hand")


@check("nan-entry", tolerance=1)
def _(rng):
    return {"it's": float("nan"), "b": 0.0}


@check("bad-entry", tolerance=1)
def _(rng):
    return {"x y": "text"}


@check("text-timeout", tolerance=1, timeout="ten")
def _(rng):
    return 0.0


@check("twice", tolerance=1)
def _(rng):
    return 0.0


@check("twice", tolerance=1)
def _(rng):
    return 0.0


@check("literal", tolerance=1, inputs=[sys.argv])
def _(rng):
    return 0.0
'''
    root = project(tmp_path, checks=checks)
    proc = _cli_bounded(root, "check", "exits", "nan-entry", "bad-entry", "text-timeout", "--format", "json")
    res = as_json(proc)
    assert res["exits"]["message"] == "the check called `sys.exit` with `stopped by hand`", res["exits"]
    assert "(entry `it's`)" in res["nan-entry"]["message"], res["nan-entry"]
    assert "entry `x y`" in res["bad-entry"]["message"], res["bad-entry"]
    assert "timeout= is a string (`ten`), not a number of seconds" in res["text-timeout"]["message"]
    out = _cli_bounded(root, "check")
    assert "check id `twice` is defined more than once" in out.stderr + out.stdout, out.stderr
    assert "@check `literal`: `inputs=` must be a literal" in out.stderr, out.stderr
    unknown = _cli_bounded(root, "check", "nosuch")
    assert unknown.returncode == 2 and "unknown check id: `nosuch`" in unknown.stderr, unknown.stderr
    out = _cli_bounded(root, "check", "--timeout", "soon")
    assert out.returncode == 2 and "`soon` is not a number of seconds" in out.stderr, out.stderr
    for p in (proc, unknown):
        assert "'" not in p.stderr.replace("it's", ""), p.stderr


def test_an_empty_check_id_is_a_usage_error_not_every_check(tmp_path):
    """`recordkit check "$ID"` with $ID empty ran every check (blank ids
    were dropped, and no id means all)."""
    from conftest import REPO, run_cli
    proc = run_cli("check", "", cwd=REPO)
    assert proc.returncode == 2 and "an empty id" in proc.stderr, proc.stderr
    assert "passed" not in proc.stdout + proc.stderr


def test_a_check_returning_text_is_an_error_not_a_number():
    """float("0") is 0.0: a check returning the text "0" passed, "1e9"
    failed as if it were measured.  Text is refused as a bool is."""
    import numpy as np
    import pytest
    from recordkit.numeric.worker import normalize
    for value in ("0", "1e9", b"0", np.str_("0"), {"a": "0"}):
        with pytest.raises(TypeError, match="not a number"):
            normalize(value)
    assert normalize(np.float32(0.5)) == 0.5 and normalize({"a": 1}) == {"a": 1.0}
