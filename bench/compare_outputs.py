"""Prove that two checkouts of recordkit give byte-identical outputs (lint,
graph in every format, the SQLite export, promote, the static site) over the
repository's own record, every fixture vault of the tests, the lint's defect
fixture and (optionally) a generated bench record.

    python bench/compare_outputs.py --baseline REV [--current DIR] [--bench-count N]
                                    [--bench-defects 0.02] [--only NAME ...] [--keep]

The baseline is checked out with ``git worktree add`` into a temporary
folder (removed at the end); "current" is a checkout folder, by default the
one this script lives in (its working tree, uncommitted changes included).
Each side runs ``python -m recordkit`` (this Python, ``PYTHONPATH`` at the
checkout) in its own fresh copy of each input, in paths of the same shape
(``…/run-a/INPUT`` and ``…/run-b/INPUT``), so caches never collide.

Inputs (all taken from the current checkout, so both sides read the same bytes):

- ``records``: records/, checks/ and pyproject.toml (``[tool.recordkit]``);
- ``vault-NAME``: each tests/fixtures/vaults/NAME/ with the recordkit.toml
  the vault tests write (``root`` and ``schema = "preset:…"`` from its
  expected.json, which is left out of the copy);
- ``lint-defects``: tests/lint/fixtures/defects/ (every planted RK1–RK6
  defect) with ``root = "defects"`` and the default schema;
- ``bench``: with ``--bench-count N``, bench/generate.py's record of N files
  (seed 0, ``--bench-defects`` planted).

Outputs, in this order in each copy (so the later ones may meet the caches
the earlier ones filled, as a user's do):

    lint        lint --select ALL --format json --exit-zero (cache cold)
    lint-warm   the same again (the lint cache and the parsed-record store answer)
    lint-sarif  lint --select ALL --format sarif --exit-zero
    json graphml gexf dot   graph --format F
    sqlite      export --sqlite FILE: every table's schema and rows (sorted)
    fts-shadow  the FTS5 index's shadow tables (records_fts_*), rows sorted
    promote     promote --format json
    site        build -o SITE: the set of file names and every file's bytes

An exit status other than the baseline's is a difference too.  Where an
output holds the run's folder (``…/run-a``) it reads ``<RUN>``; where it holds
the checkout's folder, ``<SRC>``; a date-time stamp of the run's own minutes
(graph JSON's ``meta.generated``, for one) reads ``<NOW>``.  Nothing else is
changed before comparing.

Prints a table input × output → same / DIFFERS, with the first difference
of each as a short unified diff; exit status 1 when anything differs.
"""
from __future__ import annotations

import argparse
import datetime as dt
import difflib
import hashlib
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from compare_layout import compile_tree  # noqa: E402

OUTPUTS = ("lint", "lint-warm", "lint-sarif", "json", "graphml", "gexf", "dot", "sqlite", "fts-shadow",
           "promote", "site")
MANIFEST = ".recordkit-site.json"
MANIFEST_KEY = re.compile(rb'("key":\s*)"[0-9a-f]+"')
MANIFEST_LISTS = re.compile(rb'("lists":\s*\[\s*)"[0-9a-f]+"')
STAMP = re.compile(rb"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?")


# ---------------------------------------------------------------- inputs

def _copy(src: Path, dest: Path, ignore=None) -> None:
    shutil.copytree(src, dest, symlinks=True, ignore=ignore)


def _no_caches(_folder, names):
    return [n for n in names if n in ("__pycache__", ".recordkit", ".pytest_cache")]


def input_makers(current: Path, work: Path, bench_count: int | None, bench_defects: float) -> dict:
    """name -> a function that writes a fresh copy of the input into a folder
    (the folder the commands run in, where its configuration is)."""
    makers = {}

    def records(dest: Path) -> None:
        dest.mkdir(parents=True)
        shutil.copy2(current / "pyproject.toml", dest / "pyproject.toml")
        _copy(current / "records", dest / "records", _no_caches)
        if (current / "checks").is_dir():
            _copy(current / "checks", dest / "checks", _no_caches)
    makers["records"] = records

    import json
    vaults = current / "tests" / "fixtures" / "vaults"
    for folder in sorted(p for p in vaults.iterdir() if (p / "expected.json").is_file()):
        exp = json.loads((folder / "expected.json").read_text(encoding="utf-8"))

        def vault(dest: Path, folder=folder, exp=exp) -> None:
            _copy(folder, dest, lambda d, names: _no_caches(d, names) + (["expected.json"] if Path(d) == folder
                                                                            else []))
            (dest / "recordkit.toml").write_text(f'root = "{exp.get("root", ".")}"\n'
                                                 f'schema = "preset:{exp["preset"]}"\n', encoding="utf-8")
        makers[f"vault-{folder.name}"] = vault

    defects = current / "tests" / "lint" / "fixtures" / "defects"
    if defects.is_dir():
        def lint_defects(dest: Path) -> None:
            dest.mkdir(parents=True)
            _copy(defects, dest / "defects", _no_caches)
            (dest / "recordkit.toml").write_text('root = "defects"\n', encoding="utf-8")
        makers["lint-defects"] = lint_defects

    if bench_count:
        source = work / "bench-source"

        def bench(dest: Path) -> None:
            if not source.exists():
                gen = current / "bench" / "generate.py"
                subprocess.run([sys.executable, str(gen), str(source / "records"), "--count", str(bench_count),
                                "--seed", "0", "--defects", str(bench_defects)], check=True, stdout=subprocess.DEVNULL)
                (source / "recordkit.toml").write_text('root = "records"\n', encoding="utf-8")
            _copy(source, dest)
        makers["bench"] = bench
    return makers


# ---------------------------------------------------------------- running

class Side:
    def __init__(self, label: str, src: Path, run: Path):
        self.label, self.src, self.run = label, src, run
        self.env = dict(os.environ, PYTHONPATH=str(src), TZ="UTC")
        self.env.pop("GITHUB_ACTIONS", None)
        self.env.pop("RECORDKIT_JOBS", None)
        run.mkdir(parents=True)
        probe = ("import recordkit; print(recordkit.__file__)\n"
                 "try:\n    from recordkit.version import code_fingerprint as f; print(f())\n"
                 "except Exception:\n    print()\n")
        got = subprocess.run([sys.executable, "-c", probe], cwd=run, env=self.env, capture_output=True, text=True)
        where, _, code = got.stdout.partition("\n")
        if got.returncode or not Path(where).resolve().is_relative_to(src.resolve()):
            raise SystemExit(f"{label}: recordkit is not imported from {src}: {where or got.stderr}")
        self.code = code.strip()

    def cli(self, cwd: Path, *args) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "recordkit", *args], cwd=cwd, env=self.env,
                              capture_output=True, timeout=3600)

    def outputs(self, name: str, make, wanted: set) -> dict:
        """output name -> {pseudo-path: bytes} for one input."""
        base = self.run / name
        folder, out = base / "in", base / "out"
        make(folder)
        out.mkdir(parents=True)
        got: dict = {}

        def keep(key: str, proc: subprocess.CompletedProcess, files: dict | None = None) -> None:
            entry = {"(exit status)": str(proc.returncode).encode()}
            if proc.returncode not in (0, 1) or b"Traceback" in proc.stderr:
                entry["(stderr)"] = proc.stderr
            if files is None:
                entry["stdout"] = proc.stdout
            else:
                entry.update(files)
            got[key] = entry

        def want(*keys) -> bool:
            return any(k in wanted for k in keys)

        if want("lint", "lint-warm"):
            keep("lint", self.cli(folder, "lint", "--select", "ALL", "--format", "json", "--exit-zero"))
            keep("lint-warm", self.cli(folder, "lint", "--select", "ALL", "--format", "json", "--exit-zero"))
        if want("lint-sarif"):
            keep("lint-sarif", self.cli(folder, "lint", "--select", "ALL", "--format", "sarif", "--exit-zero"))
        for fmt in ("json", "graphml", "gexf", "dot"):
            if want(fmt):
                keep(fmt, self.cli(folder, "graph", "--format", fmt))
        if want("sqlite", "fts-shadow"):
            db = out / "export.sqlite"
            proc = self.cli(folder, "export", "--sqlite", str(db))
            tables, shadow = dump_sqlite(db) if db.exists() else ({}, {})
            keep("sqlite", proc, tables)
            got["fts-shadow"] = shadow
        if want("promote"):
            keep("promote", self.cli(folder, "promote", "--format", "json"))
        if want("site"):
            site = out / "site"
            proc = self.cli(folder, "build", "-o", str(site), "-q")
            files = {}
            if site.is_dir():                       # a 10,000-record site is held as digests, read again for a diff
                for p in sorted(site.rglob("*")):
                    if p.is_file() or p.is_symlink():
                        rel = p.relative_to(site).as_posix()
                        files[rel] = Blob(lambda p=p, rel=rel: self.normalise(
                            b"-> " + os.fsencode(os.readlink(p)) if p.is_symlink() else p.read_bytes(),
                            (name, "site", rel)))
            keep("site", proc, files)
        return {k: {path: data if isinstance(data, Blob) else self.normalise(data, (name, k, path))
                    for path, data in v.items()}
                for k, v in got.items() if k in wanted}

    def normalise(self, data: bytes, where: tuple) -> bytes:
        before = data
        for path, mark in ((self.run, b"<RUN>"), (self.src, b"<SRC>")):
            for form in {str(path), str(path.resolve())}:
                data = data.replace(os.fsencode(form), mark)
        if self.code:                               # the digest of the package's files (version.py)
            data = data.replace(self.code.encode(), b"<CODE>")
        data = STAMP.sub(_stamp, data)
        if where[1:] == ("site", MANIFEST):          # the build's cache keys are salted with the code's digest
            data = MANIFEST_LISTS.sub(rb'\1"<KEY>"', MANIFEST_KEY.sub(rb'\1"<KEY>"', data))
        if data != before:
            for mark in (b"<RUN>", b"<SRC>", b"<CODE>", b"<NOW>", b"<KEY>"):
                if mark in data and mark not in before:
                    NORMALISED.setdefault(mark.decode(), set()).add(f"{where[0]}/{where[1]}")
        return data


class Blob:
    """An output file known by the digest of its normalised bytes; read
    (and normalised) again only to show a difference."""
    def __init__(self, load):
        data = load()
        self.load, self.size, self.digest = load, len(data), hashlib.sha256(data).digest()

    def __eq__(self, other):
        return isinstance(other, Blob) and (self.size, self.digest) == (other.size, other.digest)

    def __len__(self):
        return self.size


def _bytes(x) -> bytes:
    return x.load() if isinstance(x, Blob) else x


START = dt.datetime.now(dt.timezone.utc)
NORMALISED: dict = {}     # mark -> {input/output} where it was put in


def _stamp(m: re.Match) -> bytes:
    """A date-time of this run's own minutes is the clock, not the record."""
    text = m.group(0).decode()
    try:
        when = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return m.group(0)
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.timezone.utc)
    if START - dt.timedelta(minutes=2) <= when <= dt.datetime.now(dt.timezone.utc) + dt.timedelta(minutes=2):
        return b"<NOW>"
    return m.group(0)


def dump_sqlite(db: Path) -> tuple[dict, dict]:
    """(tables, fts shadow tables): each table's CREATE statement and its rows,
    one repr a line, sorted; sqlite's own tables left out."""
    tables, shadow = {}, {}
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        conn.text_factory = bytes
        master = conn.execute("SELECT type, name, tbl_name, sql FROM sqlite_master "
                              "WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").fetchall()
        tables["(schema)"] = b"\n".join(repr(row).encode() for row in master)
        virtual = {name.decode(): (sql or b"").lower() for kind, name, _t, sql in master
                   if kind == b"table" and (sql or b"").upper().startswith(b"CREATE VIRTUAL TABLE")}
        fts = [v + "_" for v, sql in virtual.items() if b"using fts" in sql]
        for kind, name, _tbl, sql in master:
            if kind != b"table":
                continue
            name_s = name.decode()
            fts_shadow = name_s not in virtual and name_s.startswith(tuple(fts))
            cols = [c[1].decode() for c in conn.execute(f'PRAGMA table_xinfo("{name_s}")')]
            rows = conn.execute(f'SELECT * FROM "{name_s}"').fetchall()
            lines = sorted(repr(tuple(r)).encode() for r in rows)
            text = b"\n".join([repr(cols).encode(), *lines]) + b"\n"
            if fts_shadow:
                shadow[name_s] = text
            else:
                tables[name_s + (" (virtual)" if name_s in virtual else "")] = text
        for pragma in ("user_version", "application_id"):
            tables[f"(pragma {pragma})"] = repr(conn.execute(f"PRAGMA {pragma}").fetchone()).encode()
    finally:
        conn.close()
    return tables, shadow


# ---------------------------------------------------------------- comparing

def compare(a: dict, b: dict) -> str:
    """'same', or 'DIFFERS (…)' with the first difference as a short diff."""
    names = sorted(set(a) | set(b))
    differing = [n for n in names if a.get(n) != b.get(n)]
    if not differing:
        return f"same ({_size(b)})"
    first = next((n for n in differing if n != MANIFEST), differing[0])    # the manifest follows the pages
    only = [n for n in differing if n not in a or n not in b]
    head = f"DIFFERS ({len(differing)} of {len(names)} files"
    if only:
        head += f", {sum(n not in a for n in only)} only current, {sum(n not in b for n in only)} only baseline"
    head += f"; first difference: {first}"
    if first not in a or first not in b:
        return head + f" is {'only in current' if first not in a else 'only in baseline'})"
    return head + ")\n" + excerpt(_bytes(a[first]), _bytes(b[first]))


def excerpt(x: bytes, y: bytes, lines: int = 14) -> str:
    xs = x.decode("utf-8", errors="replace").splitlines()
    ys = y.decode("utf-8", errors="replace").splitlines()
    if len(xs) <= 1 and len(ys) <= 1 and max(len(x), len(y)) > 200:    # one long line: show where it parts
        i = next((i for i, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
        lo = max(0, i - 80)
        return (f"      first differing byte {i}\n      - {x[lo:i + 120].decode(errors='replace')}\n"
                f"      + {y[lo:i + 120].decode(errors='replace')}")
    diff = list(difflib.unified_diff(xs, ys, "baseline", "current", n=1, lineterm=""))
    cut = [(ln if len(ln) <= 160 else ln[:157] + "...") for ln in diff[:lines]]
    if len(diff) > lines:
        cut.append(f"... ({len(diff) - lines} more diff lines)")
    return "\n".join("      " + ln for ln in cut)


def _size(d: dict) -> str:
    files = [k for k in d if k not in ("(exit status)", "(stderr)")]
    n = sum(len(d[k]) for k in files)
    exit_note = f", exit {d['(exit status)'].decode()}" if d.get("(exit status)", b"0") != b"0" else ""
    return (f"{len(files)} files, " if len(files) > 1 else "") + f"{n:,} bytes{exit_note}"


# ---------------------------------------------------------------- main

def git(cwd: Path, *args) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="inputs: records, vault-NAME, lint-defects, bench; outputs: " + ", ".join(OUTPUTS))
    ap.add_argument("--baseline", required=True, help="git revision to compare with (resolved in --current's git)")
    ap.add_argument("--current", type=Path, default=REPO, help="checkout to compare (default: %(default)s)")
    ap.add_argument("--bench-count", type=int, help="add a generated record of N files (bench/generate.py)")
    ap.add_argument("--bench-defects", type=float, default=0.02, help="its share of planted defects (default 0.02)")
    ap.add_argument("--only", nargs="+", metavar="NAME",
                    help="only these inputs and/or outputs (names as in the table; 'vault' means every vault)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder (its path is printed)")
    args = ap.parse_args()

    t0 = time.perf_counter()
    current = args.current.resolve()
    if not (current / "recordkit" / "__init__.py").is_file():
        ap.error(f"--current {current} is not a recordkit checkout")
    try:
        gitdir = current if git(current, "rev-parse", "--show-toplevel") else REPO
    except subprocess.CalledProcessError:
        gitdir = REPO
    rev = git(gitdir, "rev-parse", "--short", args.baseline + "^{commit}")
    cur_rev = git(gitdir, "rev-parse", "--short", "HEAD")
    dirty = bool(git(current, "status", "--porcelain", "--untracked-files=no", "--", "recordkit"))

    work = Path(tempfile.mkdtemp(prefix="rk-outputs-"))
    base_src = work / "src-a"
    try:
        subprocess.run(["git", "worktree", "add", "--detach", str(base_src), rev], cwd=gitdir, check=True,
                       capture_output=True)
        makers = input_makers(current, work, args.bench_count, args.bench_defects)
        inputs, outputs = list(makers), list(OUTPUTS)
        if args.only:
            unknown = [n for n in args.only if n not in makers and n not in OUTPUTS and n != "vault"]
            if unknown:
                ap.error(f"--only: unknown {', '.join(unknown)} (inputs: {', '.join(makers)}; outputs: "
                         f"{', '.join(OUTPUTS)})")
            picked = [n for n in makers if n in args.only or ("vault" in args.only and n.startswith("vault-"))]
            inputs = picked or inputs
            outputs = [o for o in OUTPUTS if o in args.only] or outputs
        sides = [Side("baseline", base_src, work / "run-a"), Side("current", current, work / "run-b")]
        for side in sides:
            compile_tree(side.src)
        print(f"baseline {rev} (worktree {base_src}); current {current} at {cur_rev}"
              f"{' + uncommitted changes to recordkit/' if dirty else ''}; python {sys.executable}", flush=True)

        results, differs = [], 0
        for name in inputs:
            t = time.perf_counter()
            got = [side.outputs(name, makers[name], set(outputs)) for side in sides]
            secs = time.perf_counter() - t
            print(f"\n{name}  ({secs:.1f} s, both sides)", flush=True)
            for out in outputs:
                verdict = compare(got[0].get(out, {}), got[1].get(out, {}))
                differs += not verdict.startswith("same")
                results.append((name, out, verdict.split("\n", 1)[0]))
                print(f"  {out:11} {verdict}", flush=True)
            for side in sides:                       # the bench's copies are large: free them as we go
                if not args.keep:
                    shutil.rmtree(side.run / name, ignore_errors=True)

        print(f"\n{'input':14} " + " ".join(f"{o:>10}" for o in outputs))
        for name in inputs:
            cells = {o: v for n, o, v in results if n == name}
            print(f"{name:14} " + " ".join(f"{'same' if cells[o].startswith('same') else 'DIFFERS':>10}"
                                           for o in outputs))
        for mark, where in sorted(NORMALISED.items()):
            outs = sorted({w.split("/", 1)[1] for w in where})
            print(f"normalised {mark} in {len(where)} input/output pairs (outputs: {', '.join(outs)})")
        print(f"\n{'all same' if not differs else f'{differs} of {len(results)} DIFFER'}: baseline {rev}, "
              f"current {current}; {time.perf_counter() - t0:.0f} s")
        return 1 if differs else 0
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(base_src)], cwd=gitdir, capture_output=True)
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
