"""Shared helpers of the bench scripts: a synthetic record made once, medians."""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def compile_package() -> None:
    """Byte-compile the recordkit that will run, as ``pip install`` does: in
    a source checkout with PYTHONDONTWRITEBYTECODE set (as on this machine),
    every run would otherwise compile it again (40 ms a process start)."""
    import compileall
    import importlib.util
    spec = importlib.util.find_spec("recordkit")
    if spec and spec.submodule_search_locations:
        for folder in spec.submodule_search_locations:
            compileall.compile_dir(folder, quiet=1)


def yaml_reference(root: Path, repeat: int = 3) -> float:
    """Median seconds to ``yaml.load`` every front matter under ``root`` with
    the C loader: the issue's own yardstick for this machine (≈ 0.85 s for
    the 10,000-record bench).  The machine is shared and its speed drifts by
    up to 30% over minutes; printing this beside a figure shows how fast
    the machine was when it was taken."""
    import yaml
    fms = []
    for p in sorted(root.rglob("*.md")):
        t = p.read_text(encoding="utf-8", errors="replace")
        if t.startswith("---"):
            fms.append(t[4:t.find("\n---", 4)])
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        for f in fms:
            try:
                yaml.load(f, Loader=yaml.CSafeLoader)
            except (yaml.YAMLError, ValueError):   # planted defects (bad YAML, 2024-02-30)
                pass
        times.append(time.perf_counter() - t)
    return statistics.median(times)


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
