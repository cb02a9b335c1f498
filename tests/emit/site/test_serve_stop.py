"""``recordkit serve`` without ``-o`` builds into a temporary folder: on
Ctrl-C (SIGINT) and on SIGTERM it stops cleanly, exits 0 and removes that
folder (issue 34: it was left behind, and SIGTERM killed it with -15).
A real process, a real signal."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]


def _vault(base: Path) -> Path:
    (base / "notes").mkdir(parents=True)
    (base / "notes" / "Alpha.md").write_text("---\ntitle: Alpha\n---\nSee [[Beta]].\n", encoding="utf-8")
    (base / "notes" / "Beta.md").write_text("---\ntitle: Beta\n---\nBack to [[Alpha]].\n", encoding="utf-8")
    (base / "recordkit.toml").write_text('root = "notes"\nschema = "preset:obsidian"\n', encoding="utf-8")
    return base


def _serve_then(base: Path, signum: int) -> tuple[int, list[str], Path]:
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""),
               TMPDIR=str(base / "tmp"))
    (base / "tmp").mkdir()
    proc = subprocess.Popen([sys.executable, "-m", "recordkit", "serve", "--port", "0"], cwd=base,
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, env=env)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: [lines.append(l) for l in proc.stderr], daemon=True)
    reader.start()
    try:
        end = time.monotonic() + 60
        while not any(l.startswith("serving http://") for l in lines):
            assert proc.poll() is None and time.monotonic() < end, lines
            time.sleep(0.1)
        made = [p for p in (base / "tmp").iterdir() if p.name.startswith("recordkit-serve-")]
        assert len(made) == 1 and (made[0] / "index.html").is_file(), made
        proc.send_signal(signum)
        code = proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    reader.join(timeout=5)
    return code, lines, made[0]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_serve_removes_its_temporary_site(tmp_path, signum):
    code, lines, made = _serve_then(_vault(tmp_path), signum)
    assert code == 0, lines
    assert not made.exists(), sorted(p.name for p in made.rglob("*"))[:10]
    assert any(re.match(r"stopped", l) for l in lines), lines
    assert not any("Traceback" in l for l in lines), lines
