#!/usr/bin/env python3
"""Bench of ``recordkit build`` (issue: 10,000 records ≤ 10 s cold on 2
cores, ≤ 1.5 s for a fresh build after a one-file edit, peak memory ≤ 500 MB),
beside mkdocs on the same 1,000 records and the markdown floor.

    python bench/site.py [--count 10000] [--runs 3] [--compare 1000] [--no-mkdocs]

Prints, measured in one run:
- the markdown floor: every body of the N records rendered by plain
  markdown-it-py (CommonMark) in one process, what the issue calls "≈ 9 s on
  one core" at 10,000;
- ``recordkit build`` cold (empty folder) in a fresh process: median, and
  peak memory of the whole process tree (rusage of the children);
- ``recordkit build`` again after one record's body was edited, in a fresh
  process (the incremental path: the site's record cache and the manifest
  of the last build), median;
- a process that only imports what ``recordkit build`` imports (and a bare
  interpreter): what no fresh build can go below;
- ``recordkit serve``'s rebuild after a one-file edit: the server's own
  code in this process (the builder and watcher threads of
  :class:`SiteServer`, no HTTP), timed from the file write to the moment
  the new build is announced to the open pages (``status.build``), so the
  watcher's debounce is included;
- Hugo (Debian's ``hugo``, Go and Goldmark) on the same records with the
  minimal theme of ``../shared/bench/hugo/`` (or ``RECORDKIT_HUGO_SITE``),
  each cold run interleaved with recordkit's: both medians, their ratio
  (target ≤ 1.0) and both peaks of memory; skipped with a message where
  ``hugo`` or the theme is absent;
- the engine's own floor: pulldown-cmark alone (``pyromark.html``) and the
  native engine's pass (:mod:`recordkit.markdown.native`, every body, one
  core and both cores), beside markdown-it-py's (the engine before);
- at ``--compare`` records: recordkit cold and ``mkdocs build`` on the same
  Markdown files (skipped when mkdocs is not installed: ``pip install mkdocs``),
  and the ratio.
Cold means no cache of any kind: each cold build runs in a fresh working
folder (the cache folder, ``.recordkit``, is made there) and an empty
output folder.
The machine yardstick of the other benches (yaml.load of every front matter)
is printed beside, to show how fast the machine was.
"""
from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import compile_package, synthetic, yaml_reference

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


CPU: list = []   # CPU seconds (user + system, parent and helpers) of each run_build


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_build(root: Path, out: Path, cwd: Path | None = None) -> tuple[float, int, str]:
    """Wall seconds, peak RSS (kB) of the process tree, stderr; the CPU
    seconds of the build (all its processes) are appended to ``CPU``.
    ``cwd``: where the build runs (its cache folder is ``cwd/.recordkit``)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    cpu = _cpu()
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "recordkit", "--root", str(root), "build", "-o", str(out), "-q"],
                          capture_output=True, text=True, env=_env(), cwd=cwd or tempfile.gettempdir())
    wall = time.perf_counter() - t
    CPU.append(_cpu() - cpu)
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if proc.returncode != 0:
        raise SystemExit(f"recordkit build failed:\n{proc.stderr[-2000:]}")
    return wall, max(after, before), proc.stderr


def fresh_cwd(path: Path) -> Path:
    """An empty working folder: no cache from an earlier run."""
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return path


def serve_rebuild(root: Path, out: Path, cwd: Path, runs: int) -> list[float]:
    """Seconds from a one-file edit to the next build announced by the
    server (see the module's doc), serving the site built in ``out`` with
    the cache of ``cwd`` (as ``recordkit serve -o out`` run there)."""
    import threading
    sys.path.insert(0, str(REPO))
    from recordkit.config import load_config
    from recordkit.emit.site.serve import SiteServer
    cfg = load_config(root)
    cfg.root = root.resolve()
    cfg.cache_dir = cwd / ".recordkit"
    srv = SiteServer(cfg, out, log=lambda m: None)
    srv.rebuild(wait=True)           # the first build, as serve starts
    threading.Thread(target=srv._builder, daemon=True).start()
    threading.Thread(target=srv._watch, daemon=True).start()
    time.sleep(1.5)                  # the watcher is watching
    times, cpus = [], []
    try:
        for k in range(runs):
            before = srv.status.build
            t = time.perf_counter()
            c = time.process_time() + _cpu()
            edit_one(root, 1000 + k)
            while srv.status.build == before:
                if time.perf_counter() - t > 120:
                    raise SystemExit("serve did not rebuild within 120 s")
                time.sleep(0.005)
            times.append(time.perf_counter() - t)
            cpus.append(time.process_time() + _cpu() - c)
            time.sleep(0.5)
    finally:
        srv.stop.set()
    return times, cpus


def peak_rss(root: Path, out: Path, cwd: Path | None = None) -> int:
    """Peak resident memory of one build, parent and helpers, in MB (from
    /usr/bin/time when present, else the parent's rusage)."""
    timer = shutil.which("time") or ("/usr/bin/time" if Path("/usr/bin/time").exists() else None)
    cmd = [sys.executable, "-m", "recordkit", "--root", str(root), "build", "-o", str(out), "-q"]
    if timer:
        proc = subprocess.run([timer, "-v", *cmd], capture_output=True, text=True, env=_env(), cwd=cwd)
        for line in proc.stderr.splitlines():
            if "Maximum resident set size" in line:
                return int(line.split()[-1]) // 1024
    run_build(root, out, cwd)
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024


def noop_process(runs: int = 5) -> tuple[float, float]:
    """Median wall seconds of a Python process that only imports what
    ``recordkit build`` imports (the interpreter, the CLI, the site's
    modules, networkx, Jinja2, markdown-it-py), and of one that imports
    nothing: the floor under a fresh build after an edit."""
    code = ("import recordkit.cli, recordkit.cli.build, recordkit.emit.site.build, recordkit.emit.site.load, "
            "networkx, recordkit.graph.build")
    out = []
    for cmd in ([sys.executable, "-c", code], [sys.executable, "-c", "pass"]):
        times = []
        for _ in range(runs):
            t = time.perf_counter()
            subprocess.run(cmd, env=_env(), check=True)
            times.append(time.perf_counter() - t)
        out.append(statistics.median(times))
    return out[0], out[1]


def _bodies(root: Path) -> list[str]:
    """Every record's body (its text after the front matter), in path order."""
    bodies = []
    for p in sorted(root.rglob("*.md")):
        t = p.read_text(encoding="utf-8")
        if t.startswith("---"):
            end = t.find("\n---", 4)
            t = t[end + 4:] if end > 0 else t
        bodies.append(t)
    return bodies


def markdown_floor(root: Path) -> float:
    """markdown-it-py (commonmark) over every body, one core: the engine the
    site had before the native one."""
    from markdown_it import MarkdownIt
    md = MarkdownIt("commonmark")
    bodies = _bodies(root)
    t0 = time.perf_counter()
    for b in bodies:
        md.render(b)
    return time.perf_counter() - t0


def engine_floor(root: Path) -> tuple[float, float]:
    """pulldown-cmark alone (``pyromark.html`` with the engine's options) and
    the native engine's one pass (events walked, recordkit's syntax, no
    record resolved) over every body, one core: seconds of each."""
    import pyromark
    sys.path.insert(0, str(REPO))
    from recordkit.markdown.native import OPTIONS, Walk
    bodies = _bodies(root)
    t0 = time.perf_counter()
    for b in bodies:
        pyromark.html(b, options=OPTIONS)
    alone = time.perf_counter() - t0
    walk = Walk(re.compile(r"\b[A-Z]+-[0-9]+\b"))
    t0 = time.perf_counter()
    for b in bodies:
        walk.render(b, {})
    return alone, time.perf_counter() - t0


def markdown_floor_two_cores(root: Path) -> float:
    """The native engine's floor on both cores: two forked processes, each
    rendering every other body (read before the fork), timed from the fork
    to the second exit.  What a build that did nothing but render its
    bodies, on both cores, would take."""
    sys.path.insert(0, str(REPO))
    from recordkit.markdown.native import Walk
    walk = Walk(re.compile(r"\b[A-Z]+-[0-9]+\b"))
    bodies = _bodies(root)
    t0 = time.perf_counter()
    pids = []
    for k in range(2):
        pid = os.fork()
        if pid == 0:
            try:
                for b in bodies[k::2]:
                    walk.render(b, {})
            finally:
                os._exit(0)
        pids.append(pid)
    for pid in pids:
        os.waitpid(pid, 0)
    return time.perf_counter() - t0


def hugo_theme() -> Path | None:
    """The Hugo yardstick's site folder (config and layouts), or None."""
    where = os.environ.get("RECORDKIT_HUGO_SITE")
    for cand in ([Path(where)] if where else []) + [REPO.parent / "shared" / "bench" / "hugo",
                                                    REPO.parent.parent / "shared" / "bench" / "hugo"]:
        if (cand / "config.toml").is_file():
            return cand
    return None


def hugo_prepare(root: Path, work: Path) -> Path | None:
    """A Hugo site of the records in ``work`` (the theme's folder, the
    records as its content), or None (with a message) where ``hugo`` or
    the theme is missing."""
    theme = hugo_theme()
    if shutil.which("hugo") is None or theme is None:
        print("hugo: skipped (" + ("no hugo on PATH: apt-get install -y hugo" if shutil.which("hugo") is None
                                   else "no theme: ../shared/bench/hugo or RECORDKIT_HUGO_SITE") + ")")
        return None
    shutil.copytree(theme, work, ignore=shutil.ignore_patterns("public", "resources", "README.md"))
    shutil.copytree(root, work / "content", ignore=shutil.ignore_patterns(".*"))
    renamed = 0
    for p in (work / "content").rglob("*.md"):
        text = p.read_text(encoding="utf-8")
        if not text.startswith("---"):
            continue
        end = text.find("\n---", 3)
        head = _HUGO_RESERVED.sub(lambda m: "record_" + m.group(1) + ":", text[:end])
        if head != text[:end]:
            renamed += 1
            p.write_text(head + text[end:], encoding="utf-8")
    print(f"hugo: {renamed} records have front-matter keys Hugo reserves (url: a page's address, aliases: "
          f"redirect pages), shown to Hugo as record_url and record_aliases")
    return work


#: front-matter keys Hugo acts on (``url``: the page's address, which may
#: not be absolute; ``aliases``: a redirect page each): renamed in Hugo's copy
_HUGO_RESERVED = re.compile(r"^(url|aliases):", re.M)


def hugo_build(site: Path) -> tuple[float, int, float]:
    """One cold Hugo build (no output, no cache of an earlier run): wall
    seconds, peak memory in MB, CPU seconds."""
    for d in ("public", "resources", ".hugo-cache"):
        shutil.rmtree(site / d, ignore_errors=True)
    cmd = ["hugo", "--quiet", "--cacheDir", str(site / ".hugo-cache")]
    timer = "/usr/bin/time" if Path("/usr/bin/time").exists() else None
    cpu = _cpu()
    t = time.perf_counter()
    proc = subprocess.run(([timer, "-v"] if timer else []) + cmd, cwd=site, capture_output=True, text=True)
    wall = time.perf_counter() - t
    cpu = _cpu() - cpu
    if proc.returncode != 0:
        raise SystemExit(f"hugo failed:\n{proc.stderr[-2000:]}")
    peak = 0
    for line in proc.stderr.splitlines():
        if "Maximum resident set size" in line:
            peak = int(line.split()[-1]) // 1024
    return wall, peak, cpu


def write_floor_two_cores(site: Path, scratch: Path) -> tuple[float, int]:
    """Seconds to write a built site's files again (as many, as large, in
    folders of the same names), two forked processes taking every other
    file, each file written as the build writes it (a temporary file and a
    rename); and how many files there are."""
    files = [(p.relative_to(site), p.stat().st_size) for p in sorted(site.rglob("*")) if p.is_file()]
    shutil.rmtree(scratch, ignore_errors=True)
    for d in sorted({rel.parent for rel, _ in files}):
        (scratch / d).mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    pids = []
    for k in range(2):
        pid = os.fork()
        if pid == 0:
            try:
                for rel, size in files[k::2]:
                    path = scratch / rel
                    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
                    with open(tmp, "wb") as fh:
                        fh.write(b"x" * size)
                    os.replace(tmp, path)
            finally:
                os._exit(0)
        pids.append(pid)
    for pid in pids:
        os.waitpid(pid, 0)
    took = time.perf_counter() - t0
    shutil.rmtree(scratch, ignore_errors=True)
    return took, len(files)


def stage_times(root: Path, out: Path, cwd: Path) -> dict:
    """A cold build's seconds by stage (load, gather, pages with the lists
    made meanwhile, search), from the build's own report, in a fresh
    process as the CLI runs it."""
    code = ("import json, sys; from pathlib import Path; from recordkit.config import load_config; "
            "from recordkit.emit.site import build_site; cfg = load_config(sys.argv[1]); "
            "cfg.root = Path(sys.argv[1]).resolve(); cfg.cache_dir = Path(sys.argv[3]) / '.recordkit'; "
            "print(json.dumps(build_site(cfg, sys.argv[2]).timings))")
    proc = subprocess.run([sys.executable, "-c", code, str(root), str(out), str(cwd)], capture_output=True,
                          text=True, env=_env(), cwd=cwd, check=True)
    import json
    return json.loads(proc.stdout.strip().splitlines()[-1])


def edit_one(root: Path, k: int) -> None:
    p = sorted((root / "question").glob("*.md"))[0]
    text = p.read_text(encoding="utf-8")
    p.write_text(text.rstrip("\n") + f"\n\nAn edit for the bench, number {k}.\n", encoding="utf-8")


def mkdocs_build(root: Path, work: Path) -> float | None:
    try:
        import mkdocs  # noqa: F401
    except ImportError:
        return None
    docs = work / "docs"
    shutil.copytree(root, docs, ignore=shutil.ignore_patterns(".*"))
    (docs / "index.md").write_text("# Home\n", encoding="utf-8")
    (work / "mkdocs.yml").write_text("site_name: bench\nuse_directory_urls: false\n", encoding="utf-8")
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-d", str(work / "site")], cwd=work,
                          capture_output=True, text=True)
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        print(f"mkdocs build failed: {proc.stderr[-500:]}")
        return None
    return wall


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=10_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--compare", type=int, default=1000)
    ap.add_argument("--no-mkdocs", action="store_true")
    ap.add_argument("--no-hugo", action="store_true", help="leave Hugo out")
    ap.add_argument("--no-markdown-it", action="store_true", help="leave markdown-it-py's floor out")
    args = ap.parse_args()
    compile_package()
    root = synthetic(args.count)
    print(f"machine yardstick (yaml.load of every front matter): {yaml_reference(root, 1):.2f} s")
    alone, walked = engine_floor(root)
    print(f"engine floor, {args.count} bodies on one core: pulldown-cmark alone (pyromark.html) {alone:.2f} s; "
          f"the native engine's pass (events walked, recordkit's syntax) {walked:.2f} s")
    if not args.no_markdown_it:
        floor_mdit = markdown_floor(root)
        print(f"markdown-it-py (commonmark, the engine before) over the same bodies: {floor_mdit:.2f} s "
              f"({floor_mdit / walked:.1f}x the native pass)")
    floor = walked
    floor2 = markdown_floor_two_cores(root)
    print(f"the native pass on both cores (two processes, half the bodies each): {floor2:.2f} s "
          f"({floor / floor2:.2f}x the one-core floor)")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        work = tmp / "records"
        shutil.copytree(root, work, ignore=shutil.ignore_patterns(".complete"))
        hugo = None if args.no_hugo else hugo_prepare(work, tmp / "hugo-site")
        cold, hugo_runs, hugo_peaks, hugo_cpu, rk_cpu = [], [], [], [], []
        for k in range(args.runs):
            out = tmp / f"cold-{k}"
            # cold: no output folder and a fresh working folder, so no
            # cache of an earlier run (record cache, search shards) survives
            cwd = fresh_cwd(tmp / "cwd")
            del CPU[:]
            wall, _, _ = run_build(work, out, cwd)
            cold.append(wall)
            rk_cpu.append(CPU[-1])
            if k < args.runs - 1:
                shutil.rmtree(out)
            if hugo is not None:        # interleaved: the same minute of the machine
                h, hp, hc = hugo_build(hugo)
                hugo_runs.append(h)
                hugo_peaks.append(hp)
                hugo_cpu.append(hc)
        med = statistics.median(cold)
        print(f"recordkit build, {args.count} records, cold: median {med:.2f} s "
              f"(runs {', '.join(f'{x:.2f}' for x in cold)}) — {med / floor2:.2f}x the engine's two-core floor; "
              f"CPU (user+sys, all processes) median {statistics.median(rk_cpu):.2f} s")
        if hugo_runs:
            hm = statistics.median(hugo_runs)
            print(f"hugo (Debian, Goldmark, the shared minimal theme), the same records, cold, interleaved: "
                  f"median {hm:.2f} s (runs {', '.join(f'{x:.2f}' for x in hugo_runs)}); CPU median "
                  f"{statistics.median(hugo_cpu):.2f} s; peak memory {max(hugo_peaks)} MB")
            print(f"ratio recordkit / hugo (cold medians): {med / hm:.2f} (target ≤ 1.0: "
                  f"{'met' if med <= hm else 'not met'})")
        stages = stage_times(work, tmp / "cold-stages", fresh_cwd(tmp / "cwd-stages"))
        writes, nfiles = write_floor_two_cores(tmp / "cold-stages", tmp / "write-floor")
        shutil.rmtree(tmp / "cold-stages")
        load = stages.get("load", 0.0)
        print("where a cold build's time goes (one more cold build, its own report): "
              + ", ".join(f"{k} {v:.2f} s" for k, v in stages.items()))
        print(f"writing its {nfiles} files again, on both cores, nothing else: {writes:.2f} s")
        print(f"so a build that loads the record before it renders (a page needs every id, title and "
              f"backlink), renders its bodies with the native engine and writes its pages cannot go below "
              f"{load + floor2 + writes:.2f} s here (load {load:.2f} + markdown on both cores {floor2:.2f} "
              f"+ writes {writes:.2f}), before any template, key or search index")
        out = tmp / f"cold-{args.runs - 1}"
        warm = []
        del CPU[:]
        for k in range(args.runs):
            edit_one(work, k)
            wall, _, err = run_build(work, out, cwd)
            warm.append(wall)
        print(f"recordkit build after a one-file edit, fresh process: median {statistics.median(warm):.2f} s "
              f"(runs {', '.join(f'{x:.2f}' for x in warm)}; target ≤ 0.6 s); CPU (all processes) median "
              f"{statistics.median(CPU):.2f} s (runs {', '.join(f'{x:.2f}' for x in CPU)})")
        imports, bare = noop_process()
        print(f"a process that only imports what the build imports: {imports:.2f} s (a bare interpreter "
              f"{bare:.2f} s)")
        serve, cpus = serve_rebuild(work, out, cwd, args.runs)
        print(f"recordkit serve, rebuild after a one-file edit (write → reload signal, watcher included): "
              f"median {statistics.median(serve):.2f} s (runs {', '.join(f'{x:.2f}' for x in serve)}; "
              f"target ≤ 0.4 s); CPU (the server's threads and its helper) median {statistics.median(cpus):.2f} s "
              f"(runs {', '.join(f'{x:.2f}' for x in cpus)})")
        shutil.rmtree(out)
        print(f"peak memory of a cold build (parent and helpers, the largest): "
              f"{peak_rss(work, out, fresh_cwd(tmp / 'cwd'))} MB (target ≤ 400 MB)")
    if args.no_mkdocs:
        return
    small = synthetic(args.compare)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        rk, _, _ = run_build(small, tmp / "rk", fresh_cwd(tmp / "cwd"))
        mk = mkdocs_build(small, tmp / "mk")
        if mk is None:
            print(f"{args.compare} records: recordkit {rk:.2f} s; mkdocs not installed (pip install mkdocs)")
        else:
            print(f"{args.compare} records: recordkit {rk:.2f} s, mkdocs {mk:.2f} s: "
                  f"recordkit is {mk / rk:.1f}x faster")


if __name__ == "__main__":
    main()
