import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def write(root: Path, rel: str, text: str) -> Path:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return p


@pytest.fixture
def make_record(tmp_path):
    """Write files under tmp_path/records and return the root."""
    root = tmp_path / "records"
    root.mkdir()

    def _make(files: dict[str, str]) -> Path:
        for rel, text in files.items():
            write(root, rel, text)
        return root

    return _make


def run_cli(*args, cwd=None, check=False, env=None):
    """Run the real ``recordkit`` CLI in a subprocess."""
    e = dict(os.environ)
    e.pop("GITHUB_ACTIONS", None)
    if env:
        e.update(env)
    proc = subprocess.run([sys.executable, "-m", "recordkit", *args], cwd=cwd, capture_output=True,
                          text=True, env=e, timeout=300)
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc
