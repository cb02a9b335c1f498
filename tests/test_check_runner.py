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
from recordkit.numeric.results import check_holds, load_results

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

def test_every_failure_mode_is_contained(tmp_path):
    root = project(tmp_path)
    pidfile = tmp_path / "child.pid"
    t0 = time.monotonic()
    proc = cli(root, "check", "--timeout", "3", "--memory", "400M", "--jobs", "4", "--format", "json",
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
    from recordkit.rules import all_rules
    rules = all_rules()
    for code in ("RK501", "RK502", "RK503", "RK504"):
        doc = rules[code].doc
        for section in ("## What it does", "## Why is this bad", "## Example", "## Use instead"):
            assert section in doc, (code, section)
    assert rules["RK504"].severity == "warning" and rules["RK502"].severity == "error"


def test_show_lists_check_results(tmp_path):
    root = project(tmp_path, SIMPLE_NOTE, SIMPLE)
    cli(root, "check", "alpha", check=True)
    import recordkit.numeric.showextra  # noqa: F401  (registers the extra)
    from recordkit.show import describe
    info = describe(recordkit.load(tmp_path / "records"), "NOTE-001")
    checks = {c["id"]: c for c in info["checks"]}
    assert checks["alpha"]["verdict"] == "pass" and checks["alpha"]["tolerance"] == 1e-9
    assert checks["beta"]["verdict"] == "not run" and checks["gamma"]["verdict"] == "not run"
