"""recordkit.common.walk: os.walk's answers without its recursion (Python
3.11's os.walk and Path.rglob recurse once per folder level: a record
1,000 folders deep ended lint, show, build, graph and export in
RecursionError)."""
import pytest
import os
import random
import subprocess
import sys

from recordkit.common.walk import every_path, walk


def _tree(root, rng, depth=0):
    for i in range(rng.randint(0, 3)):
        (root / f"f{i}.md").write_text("x")
    if depth < 4:
        for i in range(rng.randint(0, 3)):
            sub = root / rng.choice(["a", "b", ".h", "_u", "c d"]) / f"s{i}"
            sub.mkdir(parents=True, exist_ok=True)
            _tree(sub, rng, depth + 1)


def test_walk_gives_what_os_walk_gives(tmp_path):
    for seed in range(20):
        root = tmp_path / str(seed)
        root.mkdir()
        _tree(root, random.Random(seed))
        (root / "link").symlink_to(root / "a") if (root / "a").exists() else None

        def prune(dirs):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))

        ours, theirs = [], []
        for got, walker in ((ours, walk), (theirs, os.walk)):
            for folder, dirs, files in walker(root):
                prune(dirs)
                got.append((folder, list(dirs), sorted(files)))
        assert ours == theirs
        assert sorted(map(str, every_path(root))) == sorted(map(str, root.rglob("*")))


@pytest.mark.slow
def test_a_record_a_thousand_folders_deep(tmp_path):
    deep = tmp_path / "records"
    try:
        deep.mkdir()
        for _ in range(1000):       # (os.makedirs recurses too)
            deep = deep / "d"
            deep.mkdir()
        (deep / "NOTE-001.md").write_text("---\nid: NOTE-001\ntitle: Deep\nstatus: draft\n---\nBody.\n")
        (tmp_path / "recordkit.toml").write_text('root = "records"\n')
        for args in (["lint"], ["show", "NOTE-001"], ["build", "-o", "site", "-q"], ["graph", "--html", "g.html"],
                     ["export", "--sqlite", "x.db"]):
            proc = subprocess.run([sys.executable, "-m", "recordkit", *args], cwd=tmp_path, capture_output=True,
                                  text=True, timeout=120)
            assert "Traceback" not in proc.stderr and proc.returncode == 0, (args, proc.stderr[-2000:])
        assert "Deep" in (tmp_path / "site" / "note" / "NOTE-001.html").read_text()
    finally:
        # (shutil.rmtree, which pytest cleans up with, recurses as deep)
        subprocess.run(["rm", "-rf", str(tmp_path / "records")], check=False)
