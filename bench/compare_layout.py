"""Compare two checkouts of recordkit on the same generated record: the
lint's JSON must be byte-identical, and the speed of load, lint (cold and
warm) and the graph page is printed for both, measured interleaved in one
run (so a machine whose speed drifts treats both alike).

    python bench/compare_layout.py --baseline 3f0a815 [--count 10000] [--repeat 5] [--defects 0.02]

The baseline is checked out with ``git worktree add`` into a temporary
folder (removed at the end); "current" is this working tree.  Each figure is
the median wall time of a fresh process running the real thing:

- load: ``recordkit.load(root)`` and its graph (``recordkit.graph.of``; ``.graph`` in
  a checkout from before it) (timed inside the process);
- lint cold: ``recordkit lint`` with its cache cleared first;
- lint warm: ``recordkit lint`` again, nothing changed (the cache answers);
- graph page: ``recordkit graph --html`` (load, content index, page).

Exit status 1 when the lint outputs differ.
"""
from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

LOAD = ("import sys, time, recordkit, recordkit.graph as G\n"
        "t = time.perf_counter()\n"
        "c = recordkit.load(sys.argv[1]); G.of(c) if hasattr(G, 'of') else c.graph\n"
        "print(time.perf_counter() - t)\n")


class Checkout:
    def __init__(self, label: str, path: Path, work: Path, root: Path):
        self.label, self.path = label, path
        self.cache = work / f"cache-{label}"
        self.config = work / f"{label}.toml"
        self.config.write_text(f'root = "{root.name}"\ncache_dir = "{self.cache.name}"\n', encoding="utf-8")
        self.work, self.root = work, root
        self.times: dict[str, list[float]] = {}

    def env(self) -> dict:
        import os
        env = dict(os.environ)
        env["PYTHONPATH"] = str(self.path)
        env.pop("GITHUB_ACTIONS", None)
        return env

    def cli(self, *args) -> subprocess.CompletedProcess:
        proc = subprocess.run([sys.executable, "-m", "recordkit", "--config", str(self.config), *args],
                              cwd=self.work, env=self.env(), capture_output=True)
        if proc.returncode not in (0, 1):
            raise SystemExit(f"{self.label}: recordkit {' '.join(args)} failed:\n{proc.stderr.decode()}")
        return proc

    def timed_cli(self, what: str, *args) -> None:
        t = time.perf_counter()
        self.cli(*args)
        self.times.setdefault(what, []).append(time.perf_counter() - t)

    def measure(self) -> None:
        got = subprocess.run([sys.executable, "-c", LOAD, str(self.root)], cwd=self.work, env=self.env(),
                             capture_output=True, text=True, check=True)
        self.times.setdefault("load", []).append(float(got.stdout.strip()))
        shutil.rmtree(self.cache, ignore_errors=True)
        self.timed_cli("lint cold", "lint", "--exit-zero", "--statistics")
        self.timed_cli("lint warm", "lint", "--exit-zero", "--statistics")
        self.timed_cli("graph page", "graph", "--html", str(self.work / f"graph-{self.label}.html"))


def compile_tree(path: Path) -> None:
    """Byte-compile a checkout's package (as pip install does), so neither
    pays for compiling on every start."""
    import compileall
    compileall.compile_dir(path / "recordkit", quiet=1)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--baseline", required=True, help="git revision to compare with (e.g. main before a change)")
    ap.add_argument("--count", type=int, default=10000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--defects", type=float, default=0.02)
    args = ap.parse_args()

    from generate import generate
    work = Path(tempfile.mkdtemp(prefix="recordkit-compare-"))
    base_path = work / "baseline"
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", args.baseline], cwd=REPO, check=True,
                             capture_output=True, text=True).stdout.strip()
        subprocess.run(["git", "worktree", "add", "--detach", str(base_path), rev], cwd=REPO, check=True,
                       capture_output=True)
        root = work / "records"
        stats = generate(root, args.count, seed=0, defects=args.defects)
        print(f"{stats['count']} records ({stats['bytes'] / 1e6:.1f} MB, defects {args.defects}) in {root}")
        current_rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                                     text=True).stdout.strip()
        sides = [Checkout("baseline", base_path, work, root), Checkout("current", REPO, work, root)]
        for side in sides:
            compile_tree(side.path)

        outs = {s.label: s.cli("lint", "--no-cache", "--exit-zero", "--format", "json").stdout for s in sides}
        same = outs["baseline"] == outs["current"]
        n = outs["current"].count(b'"code":')
        print(f"lint --format json: {'byte-identical' if same else 'DIFFERENT'} "
              f"({len(outs['current'])} bytes, {n} diagnostics)")
        if not same:
            for label, data in outs.items():
                (work.parent / f"compare-lint-{label}.json").write_bytes(data)
            print(f"  outputs kept in {work.parent}/compare-lint-*.json")

        for _ in range(args.repeat):          # interleaved: baseline, current, baseline, current, ...
            for side in sides:
                side.measure()
        print(f"\nmedian of {args.repeat} runs each, interleaved; baseline {rev}, current {current_rev} "
              f"(working tree)")
        print(f"{'':12} {'baseline':>10} {'current':>10} {'current/baseline':>17}")
        for what in ("load", "lint cold", "lint warm", "graph page"):
            b = statistics.median(sides[0].times[what])
            c = statistics.median(sides[1].times[what])
            print(f"{what:12} {b:9.3f}s {c:9.3f}s {c / b:16.3f}")
        return 0 if same else 1
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(base_path)], cwd=REPO, capture_output=True)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
