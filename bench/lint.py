"""Lint benchmark: `recordkit lint` on N synthetic records, cold and cached.

    python bench/lint.py [--count 10000] [--repeat 5] [--defects 0.02]

Runs the real CLI in a subprocess (as pre-commit and CI do).  "cold" clears
the cache before each run; "unchanged" runs again with nothing changed.
Issue targets for 10,000 records: cold ≤ 3 s, unchanged ≤ 0.5 s.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys

from _common import compile_package, report, synthetic, timed, yaml_reference


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=10000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--defects", type=float, default=0.02)
    args = ap.parse_args()
    root = synthetic(args.count, defects=args.defects)
    cache = root.parent / f"cache-{root.name}"
    (root.parent / f"{root.name}.toml").write_text(
        f'root = "{root.name}"\ncache_dir = "cache-{root.name}"\n', encoding="utf-8")
    cmd = [sys.executable, "-m", "recordkit", "--config", str(root.parent / f"{root.name}.toml"), "lint",
           "--exit-zero", "--statistics"]

    def run():
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=root.parent)
        if proc.returncode != 0:
            raise SystemExit(proc.stderr)
        return proc.stdout

    def cold():
        shutil.rmtree(cache, ignore_errors=True)
        run()

    compile_package()
    print(run().rstrip())
    clean = synthetic(args.count) if args.count == 10000 else root   # the yardstick is on this one
    before = yaml_reference(clean)
    report(f"lint cold, {args.count} records", timed(cold, args.repeat), target=3.0 if args.count == 10000 else None)
    after = yaml_reference(clean)
    print(f"machine yardstick, yaml.load of every front matter (issue: ≈ 0.85 s on 10,000): "
          f"{before:.3f} s before, {after:.3f} s after")
    run()
    report(f"lint unchanged (cached), {args.count} records", timed(run, args.repeat),
           target=0.5 if args.count == 10000 else None)
    report("python startup + import recordkit.cli", timed(
        lambda: subprocess.run([sys.executable, "-c", "import recordkit.cli"], check=True), args.repeat))


if __name__ == "__main__":
    main()
