"""The editor configurations docs/editors.md gives (files under editors/):
each shown in the page as it is, each parsed by its own language's parser, and
the settings each passes accepted by the server's settings with no problem.
(Neovim 0.7 and Emacs run theirs against the server: test_neovim.py,
test_emacs.py.)"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from recordkit.lsp.settings import Settings

REPO = Path(__file__).resolve().parents[2]
EDITORS = REPO / "editors"
DOC = REPO / "docs" / "editors.md"
SHOWN = ["nvim/recordkit.lua", "nvim/recordkit-lspconfig.lua", "nvim/recordkit-0.11.lua",
         "helix/languages.toml", "zed/settings.json", "emacs/recordkit-eglot.el"]


def accepted(raw: dict) -> Settings:
    """The server's settings after ``raw``; fails on any problem it reports."""
    settings = Settings()
    assert settings.update(raw) == [], raw
    return settings


@pytest.mark.parametrize("name", SHOWN)
def test_the_page_shows_each_configuration_as_it_is(name):
    text = (EDITORS / name).read_text(encoding="utf-8").rstrip("\n")
    blocks = re.findall(r"^```[a-z]*\n(.*?)\n```$", DOC.read_text(encoding="utf-8"), re.S | re.M)
    assert text in blocks, f"docs/editors.md does not show editors/{name} as it is"


def test_every_configuration_file_is_shown():
    files = {str(p.relative_to(EDITORS)) for p in EDITORS.glob("*/*") if p.is_file()
             and p.parent.name != "vscode"}
    assert files == set(SHOWN)


def test_helix():
    config = tomllib.loads((EDITORS / "helix/languages.toml").read_text(encoding="utf-8"))
    server = config["language-server"]["recordkit"]
    assert [server["command"], *server["args"]] == ["recordkit", "lsp"]
    assert accepted(server["config"]).debounce_ms == server["config"]["debounce"]
    markdown = [lang for lang in config["language"] if lang["name"] == "markdown"]
    assert markdown and "recordkit" in markdown[0]["language-servers"]


def test_zed():
    config = json.loads((EDITORS / "zed/settings.json").read_text(encoding="utf-8"))
    server = config["lsp"]["recordkit"]
    assert [server["binary"]["path"], *server["binary"]["arguments"]] == ["recordkit", "lsp"]
    accepted(server["initialization_options"])
    accepted(server["settings"])
    assert "recordkit" in config["languages"]["Markdown"]["language_servers"]


def test_vscode_settings_are_the_servers():
    """What the extension sends (every `recordkit.*` setting but `server.*` and
    `trace.*`, at its default) is accepted, and every setting the server reads
    has a VS Code setting."""
    manifest = json.loads((EDITORS / "vscode/package.json").read_text(encoding="utf-8"))
    props = manifest["contributes"]["configuration"]["properties"]
    sent: dict = {}
    for key, prop in props.items():
        parts = key.split(".")[1:]
        if parts[0] in ("server", "trace"):
            continue
        node = sent
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = prop["default"]
    settings = accepted({"recordkit": sent})
    assert settings.debounce_ms == props["recordkit.debounce"]["default"]
    assert set(sent) == {"debounce", "lintOn", "diagnostics", "features"}
    assert all(settings.enabled(name) for name in sent["features"])
    assert props["recordkit.lintOn"]["enum"] == ["type", "save"]
    for value in props["recordkit.diagnostics"]["enum"] + props["recordkit.lintOn"]["enum"]:
        key = "diagnostics" if value in props["recordkit.diagnostics"]["enum"] else "lintOn"
        accepted({key: value})


@pytest.mark.parametrize("name", [n for n in SHOWN if n.endswith(".lua")])
def test_neovim_lua_parses(name, tmp_path):
    nvim = shutil.which("nvim")
    if nvim is None:
        pytest.skip("nvim is not installed (Debian: apt-get install neovim)")
    path = EDITORS / name
    run = subprocess.run([nvim, "--headless", "-u", "NONE", "-i", "NONE", "-n", "-c",
                          f"lua local f, e = loadfile([[{path}]]); if not f then io.stderr:write(e) "
                          f"vim.cmd('cquit 1') end", "-c", "qall!"],
                         capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
                         env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stderr


def test_emacs_lisp_reads(tmp_path):
    emacs = shutil.which("emacs")
    if emacs is None:
        pytest.skip("emacs is not installed (Debian: apt-get install emacs-nox)")
    path = EDITORS / "emacs/recordkit-eglot.el"
    # every form read (a syntax check that needs no eglot); the count printed
    run = subprocess.run([emacs, "--batch", "-Q", "--eval",
                          f'(with-temp-buffer (insert-file-contents "{path}") (let ((n 0)) '
                          f'(condition-case nil (while t (read (current-buffer)) (setq n (1+ n))) '
                          f'(end-of-file (princ n)))))'],
                         capture_output=True, text=True, timeout=60, env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stderr
    assert int(run.stdout.strip()) >= 6


def test_vscode_manifest_matches_the_extension():
    """The manifest's entry point is the bundle build.sh makes, it activates
    on Markdown, and every command the source registers is contributed (a
    command registered but not declared would not show in the palette)."""
    root = EDITORS / "vscode"
    manifest = json.loads((root / "package.json").read_text(encoding="utf-8"))
    source = (root / "src/extension.ts").read_text(encoding="utf-8")
    assert manifest["main"] == "./dist/extension.js"
    assert "dist/extension.js" in manifest["scripts"]["bundle"]
    assert "onLanguage:markdown" in manifest["activationEvents"]
    registered = set(re.findall(r'registerCommand\(\s*"([^"]+)"', source))
    contributed = {c["command"] for c in manifest["contributes"]["commands"]}
    assert registered and registered == contributed
    lock = json.loads((root / "package-lock.json").read_text(encoding="utf-8"))
    assert set(lock["packages"][""]["dependencies"]) == set(manifest["dependencies"]) == {"vscode-languageclient"}
    ignore = (root / ".vscodeignore").read_text(encoding="utf-8").split()
    assert "!dist/extension.js" in ignore and "**" in ignore
