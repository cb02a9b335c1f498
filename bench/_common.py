"""Shared helpers of the bench scripts: a synthetic record made once, medians."""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def synthetic(count: int, seed: int = 0, defects: float = 0.0) -> Path:
    """A generated record of ``count`` files under bench/out/, made once and reused."""
    from generate import generate
    out = HERE / "out" / f"records-{count}-{seed}-{defects}"
    if not (out / ".complete").exists():
        import shutil
        shutil.rmtree(out, ignore_errors=True)
        stats = generate(out, count, seed=seed, defects=defects)
        (out / ".complete").write_text(str(stats.get("bytes", "")))
    return out


def timed(fn, repeat: int) -> list[float]:
    """Wall times of ``fn()``; what it returns is freed after the clock stops
    (freeing millions of objects is not part of what is measured)."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
        del result
    return times


def report(label: str, times: list[float], target: float | None = None) -> str:
    med = statistics.median(times)
    line = f"{label}: median {med:.3f} s over {len(times)} runs (min {min(times):.3f}, max {max(times):.3f})"
    if target is not None:
        line += f"  target ≤ {target:g} s: {'OK' if med <= target else 'OVER'}"
    print(line, flush=True)
    return line
