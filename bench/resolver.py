"""Resolver benchmark: what resolving links costs, against a cold lint.

    python bench/resolver.py [--count 10000] [--repeat 3]

On N synthetic records (the research record's shape) prints the median wall
time of a cold ``recordkit lint`` (the real CLI in a subprocess, cache
cleared), then of the resolver's work in process, and its share of the cold
lint:

- research defaults (``links.resolve: [id]``, case-sensitive): what every
  load pays, :func:`recordkit.corpus.resolve.resolve_links` (a look at each
  relation value) plus building the resolver and resolving every relation
  and mention target once (what RK301/RK305/RK308 and the commands ask);
- a vault's settings (``resolve: [id, path, stem, title, aliases]``,
  case-insensitive, Markdown links on) on the same files: building all five
  indexes and resolving every link found at load (the scan for links is
  part of the load, in its parallel parse; positions are worked out only
  for the records whose mentions someone reads).

Issue target: the resolver costs ≤ 10 % of a cold lint on 10,000 records.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import compile_package, report, synthetic, timed


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=10000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    root = synthetic(args.count)
    compile_package()
    cache = root.parent / f"cache-resolver-{root.name}"
    toml = root.parent / f"{root.name}-resolver.toml"
    toml.write_text(f'root = "{root.name}"\ncache_dir = "{cache.name}"\n', encoding="utf-8")
    cmd = [sys.executable, "-m", "recordkit", "--config", str(toml), "lint", "--exit-zero", "--statistics"]

    def cold():
        shutil.rmtree(cache, ignore_errors=True)
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=root.parent)
        if proc.returncode != 0:
            raise SystemExit(proc.stderr)

    import recordkit
    from recordkit.corpus import resolve as rs
    from recordkit.schema import load_schema

    lint_times = timed(cold, args.repeat)
    report(f"lint cold, {args.count} records", lint_times)
    lint_med = sorted(lint_times)[len(lint_times) // 2]

    corpus = recordkit.load(root)
    import gc
    gc.freeze()      # as the CLI keeps a loaded record (see below)

    def research():
        corpus._resolver = None
        rs.resolve_links(corpus)
        n = 0
        for rec in corpus.files:
            if not rec.ok:
                continue
            for targets in rec.relations.values():
                for t in targets:
                    rs.target_resolution(corpus, rec, t)
                    n += 1
            for m in rec.mention_targets:
                rs.resolver_for(corpus).resolve(m)
                n += 1
        return n

    share(f"resolver, research defaults, {args.count} records", timed(research, args.repeat), lint_med)
    print(f"  ({research()} links resolved)")

    with tempfile.TemporaryDirectory() as tmp:
        schema_file = Path(tmp) / "schema.yaml"
        schema_file.write_text("links:\n  resolve: [id, path, stem, title, aliases]\n  case_sensitive: false\n"
                               "  markdown_links: true\n", encoding="utf-8")
        vault = recordkit.load(root, schema=load_schema(schema_file))

    def vault_links():
        vault._resolver = None
        rs.resolve_links(vault)
        r = rs.resolver_for(vault)
        for key in rs.KEYS:      # every index, as a vault whose links miss by id builds them
            r.index(key)
        return sum(len(rec.mention_targets) for rec in vault.files if rec.ok)

    # as in the CLI (cli/context.py loads with the collector off and keeps
    # what it loaded frozen): a collection here walks only what the resolver
    # makes, not the two loaded records (which made the minimum and the
    # median of the runs differ by 2.5x)
    gc.freeze()
    share(f"resolver, vault settings (all keys, folded, Markdown links), {args.count} records",
          timed(vault_links, args.repeat), lint_med)


def share(label: str, times: list[float], lint_med: float) -> None:
    med = sorted(times)[len(times) // 2]
    report(label, times)
    pct = 100 * med / lint_med
    print(f"  share of a cold lint: {pct:.1f} %  target ≤ 10 %: {'OK' if pct <= 10 else 'OVER'}", flush=True)


if __name__ == "__main__":
    main()
