"""A real client: Emacs with eglot, in batch (tests/lsp/emacs/driver.el),
through the eglot configuration docs/editors.md gives
(editors/emacs/recordkit-eglot.el): a record file opened as a user opens it
(markdown-mode's hook, eglot-ensure) starts `recordkit lsp`, and the
diagnostics flymake shows are the CLI's, each range covering the same text on
a line with é, — and an emoji.

Skipped only where Emacs or eglot is absent (Debian: apt-get install
emacs-nox elpa-eglot elpa-markdown-mode; eglot is built into Emacs 29+).
"""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from realclients import FILE, PLANTED, REPO, client_env, covered, lint_json, planted_record

DRIVER = Path(__file__).resolve().parent / "emacs" / "driver.el"
SNIPPET = REPO / "editors" / "emacs" / "recordkit-eglot.el"   # docs/editors.md's eglot configuration
EMACS = shutil.which("emacs")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def emacs() -> str:
    if EMACS is None:
        pytest.skip("emacs is not installed (Debian: apt-get install emacs-nox elpa-eglot elpa-markdown-mode)")
    probe = subprocess.run([EMACS, "--batch", "--eval", "(progn (require 'eglot) (require 'markdown-mode))"],
                           capture_output=True, text=True, timeout=60)
    if probe.returncode != 0:
        pytest.skip("Emacs has no eglot or markdown-mode (Debian: apt-get install elpa-eglot elpa-markdown-mode)")
    return EMACS


def test_eglot_shows_the_cli_diagnostics(emacs: str, tmp_path: Path):
    record = planted_record(tmp_path / "record")
    out = tmp_path / "emacs.json"
    env = dict(client_env(tmp_path / "home"), RK_EMACS_CONFIG=str(SNIPPET),
               RK_EMACS_FILE=str(record / FILE), RK_EMACS_OUT=str(out))
    run = subprocess.run([emacs, "--batch", "-l", str(DRIVER)], cwd=record, env=env,
                         stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert out.exists(), f"Emacs wrote no result (exit {run.returncode}):\n{run.stdout}\n{run.stderr}"
    seen = json.loads(out.read_text(encoding="utf-8"))
    assert "error" not in seen, f"{seen['error']}\n{run.stderr[-2000:]}"
    assert seen["major_mode"] == "markdown-mode"
    assert seen["connected"] and seen["server_name"] == "recordkit", seen
    assert seen["diagnostics_received"], seen
    shown = sorted((d["line"], d["text"]) for d in seen["flymake"])
    want = sorted(covered(record, d) for d in lint_json(record))
    row = (record / FILE).read_text(encoding="utf-8").split("\n").index(PLANTED) + 1
    assert (row, "[[LIT-999]]") in want
    assert shown == want, f"flymake shows {shown}, the CLI {want}"
