"""Load benchmark: read and parse N synthetic records and build the graph.

    python bench/load.py [--count 10000] [--repeat 5]

Prints the median wall time of ``recordkit.graph.of(recordkit.load(root))`` and of its
parts (reading the files; parsing the front matter alone with the C loader).
Issue target: 10,000 records (≈ 85 MB) ≤ 2.5 s.
"""
from __future__ import annotations

import argparse
import gc
import time

from _common import compile_package, report, synthetic, timed


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=10000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    root = synthetic(args.count)
    compile_package()
    files = sorted(root.rglob("*.md"))
    size = sum(p.stat().st_size for p in files)
    print(f"{len(files)} files, {size / 1e6:.1f} MB under {root}")

    import yaml
    import recordkit
    import recordkit.graph

    def read():
        for p in files:
            p.read_bytes()

    fms = []
    for p in files:
        t = p.read_text(encoding="utf-8")
        fms.append(t[4:t.find("\n---", 4)])

    def yaml_only():
        for f in fms:
            yaml.load(f, Loader=yaml.CSafeLoader)

    def full():
        c = recordkit.load(root)
        g = recordkit.graph.of(c)
        assert g.number_of_nodes() == len(c.records)
        return c

    report("read files", timed(read, args.repeat))
    report("front matter alone, yaml.load with CSafeLoader", timed(yaml_only, args.repeat))
    fms.clear()
    gc.collect()
    report(f"recordkit.load + graph, {len(files)} records", timed(full, args.repeat),
           target=2.5 if args.count == 10000 else None)
    c = recordkit.load(root)
    t = time.perf_counter()
    g = recordkit.graph.of(c)
    print(f"graph: {g.number_of_nodes()} nodes, {g.number_of_edges()} edges ({time.perf_counter() - t:.3f} s to build)")


if __name__ == "__main__":
    main()
