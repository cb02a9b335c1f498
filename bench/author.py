"""Authoring and query benchmark on N synthetic records.

    python bench/author.py [--count 10000] [--repeat 3]

Runs the real CLI in a subprocess:

- ``export --sqlite`` (every table and the full-text index) with an empty
  cache folder: "cold", every file parsed;
- a first ``query`` (no cached database: the record is loaded and the
  database built), cold, then the same query again (the cached database: no
  record file is read);
- export and a first query "after a lint": the cache folder emptied, then
  ``recordkit lint`` (not timed; it fills the store of parsed records, as
  pre-commit or CI does), then the command timed: what a record that is
  linted before it is exported or queried costs (recordkit/corpus/store/store.py);
- a first full-text query on the cached database (adds ``records_fts``);
- ``rename`` of a record that 500 others mention (and back, alternately).

Issue targets for 10,000 records: export and a first query ≤ 3 s; a second
query ≤ 0.3 s; the rename ≤ 2 s.  The cold and the after-a-lint figures are
printed side by side, each against the target.
"""
from __future__ import annotations

import argparse
import random
import resource
import statistics
import re
import shutil
import subprocess
import sys
import time

from _common import HERE, compile_package, report, synthetic, timed, yaml_reference

QUERY = "SELECT kind, count(*) AS n FROM records GROUP BY kind ORDER BY n DESC"
FTS_QUERY = "SELECT id FROM records_fts WHERE records_fts MATCH 'representation' ORDER BY rank LIMIT 5"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=10000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--mentioned-by", type=int, default=500)
    args = ap.parse_args()
    src = synthetic(args.count)
    work = HERE / "out" / f"author-{args.count}"
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(src, work / "records")
    copied = time.time()
    cache = work / "cache"
    (work / "recordkit.toml").write_text('root = "records"\ncache_dir = "cache"\nchecks = "checks"\n')

    cpu: list[float] = []

    def cli(*a):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        proc = subprocess.run([sys.executable, "-m", "recordkit", *a], capture_output=True, text=True, cwd=work)
        if proc.returncode != 0:
            raise SystemExit(f"recordkit {' '.join(a)}: exit {proc.returncode}\n{proc.stderr}")
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        return proc.stdout

    def cpu_line(n: int) -> None:
        """The median CPU seconds (user + system, helpers included) of the last ``n`` runs: a
        busy machine stretches wall times, much less CPU times."""
        print(f"  CPU (user+sys, every process): median {statistics.median(cpu[-n:]):.3f} s", flush=True)

    compile_package()
    before = yaml_reference(src, repeat=1)
    big = 500 if args.count >= 10000 else None

    def cold_export():
        shutil.rmtree(cache, ignore_errors=True)      # no store of parsed records either
        t = time.perf_counter()
        cli("export", "--sqlite", str(work / "record.db"))
        return time.perf_counter() - t
    export = [cold_export() for _ in range(args.repeat)]
    cold_export = report(f"export --sqlite, cold (no cache), {args.count} records", export,
                         target=3.0 if big else None)
    cpu_line(args.repeat)

    def first():
        shutil.rmtree(cache, ignore_errors=True)
        t = time.perf_counter()
        cli("query", QUERY)
        return time.perf_counter() - t
    firsts = [first() for _ in range(args.repeat)]
    cold_query = report(f"first query, cold (builds the cached database), {args.count} records", firsts,
                        target=3.0 if big else None)
    cpu_line(args.repeat)

    # after a lint: the store of parsed records holds every file.  The store
    # trusts a file's stat only when the file changed more than its racy
    # window (3 s) before it was read: wait that long after the copy, as a
    # record's files are older than that when it is linted
    from recordkit.runtime.tuning import RACY_NS
    time.sleep(max(0.0, copied + RACY_NS / 1e9 + 0.5 - time.time()))

    def after_lint(*a):
        def run():
            shutil.rmtree(cache, ignore_errors=True)
            cli("lint", "--exit-zero", "--statistics")
            cpu.pop()                       # (the lint is not what is measured)
            t = time.perf_counter()
            out = cli(*a)
            return time.perf_counter() - t, out
        return run
    lint_export = [after_lint("export", "--sqlite", str(work / "record.db"))()[0] for _ in range(args.repeat)]
    warm_export = report(f"export --sqlite after a lint (parsed records from the store), {args.count} records",
                         lint_export, target=3.0 if big else None)
    cpu_line(args.repeat)
    lint_query = [after_lint("query", QUERY)()[0] for _ in range(args.repeat)]
    warm_query = report(f"first query after a lint (parsed records from the store), {args.count} records",
                        lint_query, target=3.0 if big else None)
    cpu_line(args.repeat)
    if big:
        print("  summary against the targets (export, first query ≤ 3 s each):")
        for line in (cold_export, cold_query, warm_export, warm_query):
            print("    " + line)
    print(cli("query", QUERY).rstrip())
    report("second query (cached database)", timed(lambda: cli("query", QUERY), args.repeat * 3),
           target=0.3 if big else None)

    def fts_first():
        shutil.rmtree(cache, ignore_errors=True)
        cli("query", QUERY)
        return None
    fts = []
    for _ in range(args.repeat):
        fts_first()
        fts += timed(lambda: cli("query", FTS_QUERY), 1)
    report("first full-text query on a cached database (adds records_fts)", fts)
    report("full-text query again", timed(lambda: cli("query", FTS_QUERY), args.repeat * 3))

    # a record that N others mention: add a mention of it to N bodies
    rng = random.Random(0)
    files = sorted((work / "records").rglob("*.md"))
    target = next(p for p in files if p.parent.name == "lit")
    tid = target.stem
    kind, num = tid.rsplit("-", 1)
    others = rng.sample([p for p in files if p != target], args.mentioned_by)
    for p in others:
        with open(p, "a", encoding="utf-8") as fh:
            fh.write(f"\nSee also {tid}.\n")
    naming = sum(1 for p in files if re.search(rf"(?<![\w-]){re.escape(tid)}(?![\w-])", p.read_text()))
    print(f"{tid} is named by {naming} files")
    alt = f"{kind}-{int(num) + 900000}"
    state = {"now": tid}

    def rename():
        new = alt if state["now"] == tid else tid
        out = cli("rename", state["now"], new)
        state["now"] = new
        return out
    print(rename().rstrip())
    report(f"rename of a record mentioned by {args.mentioned_by} others, {args.count} records",
           timed(rename, args.repeat), target=2.0 if big else None)
    after = yaml_reference(src, repeat=1)
    print(f"machine yardstick, yaml.load of every front matter (issue: ≈ 0.85 s on 10,000): "
          f"{before:.3f} s before, {after:.3f} s after")


if __name__ == "__main__":
    main()
