"""What the real-client tests (test_neovim.py, test_emacs.py) share: a copy of
records/ with a defect planted on a line of multi-byte text, and the CLI's
diagnostics for a file of it (what every client must show)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FILE = "records/claim/CLAIM-082.md"
# A dangling wikilink (RK305), a mention and a wikilink after é, — and an
# emoji: each position crosses the server's code-point -> UTF-16 conversion
# and the client's own, so a range off by one unit covers the wrong text.
PLANTED = "Café — 🙂 see [[LIT-999]] and CLAIM-125, after [[THEORY-175]]."


def planted_record(root: Path, config: str = "recordkit.toml") -> Path:
    """records/ and checks/ copied under ``root`` with a configuration
    (``config``: a recordkit.toml, or a pyproject.toml with other tools'
    tables and a [tool.recordkit] one), and PLANTED appended to FILE; ``root``."""
    shutil.copytree(REPO / "records", root / "records")
    shutil.copytree(REPO / "checks", root / "checks")
    settings = 'root = "records"\nchecks = "checks"\n'
    if config == "pyproject.toml":
        settings = '[project]\nname = "notes"\n\n[tool.ruff]\nline-length = 100\n\n[tool.recordkit]\n' + settings
    (root / config).write_text(settings, encoding="utf-8")
    path = root / FILE
    path.write_text(path.read_text(encoding="utf-8").rstrip("\n") + "\n\n" + PLANTED + "\n", encoding="utf-8")
    return root


def lint_json(root: Path, file: str = FILE) -> list[dict]:
    """`recordkit lint --format json FILE` run in ``root``: the diagnostics in FILE."""
    run = subprocess.run([sys.executable, "-m", "recordkit", "lint", "--format", "json", "--exit-zero", file],
                         cwd=root, capture_output=True, text=True, timeout=60,
                         env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    assert run.returncode == 0, run.stderr
    return [d for d in json.loads(run.stdout) if d["filename"] == file]


def covered(root: Path, d: dict, file: str = FILE) -> tuple[int, str]:
    """A CLI diagnostic's line (1-based) and the text its range covers (one-line ranges)."""
    line = (root / file).read_text(encoding="utf-8").split("\n")[d["location"]["row"] - 1]
    return d["location"]["row"], line[d["location"]["column"] - 1:d["end_location"]["column"] - 1]


def client_env(home: Path) -> dict:
    """The environment an editor runs in here: this interpreter's `recordkit`
    first on PATH (the configurations run `recordkit lsp` from PATH), and the
    editor's own folders (logs, state) under ``home``."""
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    return dict(os.environ, PATH=path, PYTHONDONTWRITEBYTECODE="1", HOME=str(home),
                XDG_CONFIG_HOME=str(home / "config"), XDG_DATA_HOME=str(home / "data"),
                XDG_STATE_HOME=str(home / "state"), XDG_CACHE_HOME=str(home / "cache"))
