"""Issue 34: the presets fit real logs and vaults, and ``init --infer``
recognises them without the tool's marks.  Through the real CLI.

- tests/fixtures/vaults/madr-log: a log in the layout of MADR's own, in
  text of its own (its README): capitals and `#` in names, Just the Docs
  fields, `superseded by ADR-0013`, `on hold`; more is planted here;
- an Obsidian-style vault written here, with no `.obsidian/` folder.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import run_cli

VAULTS = Path(__file__).resolve().parent.parent / "fixtures" / "vaults"


def _madr(tmp_path: Path, config: bool = True) -> Path:
    folder = tmp_path / "madr"
    shutil.copytree(VAULTS / "madr-log", folder)
    dec = folder / "docs" / "decisions"
    # planted: MADR's template's own way to say superseded, one dangling, an open status
    (dec / "0019-planted-superseded.md").write_text(
        "---\nstatus: superseded by ADR-0013\n---\n# Planted: superseded by number\n", encoding="utf-8")
    (dec / "0020-planted-dangling.md").write_text(
        "---\nstatus: superseded by ADR-0123\n---\n# Planted: superseded by a decision not written\n",
        encoding="utf-8")
    (dec / "0021-planted-on-hold.md").write_text("---\nstatus: on hold\n---\n# Planted: on hold\n",
                                                 encoding="utf-8")
    if config:
        (folder / "recordkit.toml").write_text('root = "docs/decisions"\nschema = "preset:madr"\n', encoding="utf-8")
    return folder


def _lint(folder: Path) -> tuple[int, list[dict]]:
    proc = run_cli("lint", "--no-cache", "--format", "json", cwd=folder)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def test_madr_log_fits_the_madr_preset(tmp_path):
    folder = _madr(tmp_path)
    code, diags = _lint(folder)
    errors = [d for d in diags if d["severity"] == "error"]
    assert code == 0 and not errors, errors
    codes = {(Path(d["filename"]).name, d["code"], d["severity"]) for d in diags}
    assert not any(c == "RK105" for _n, c, _s in codes)                 # capitals, `#` in names
    assert not any(c == "RK203" for _n, c, _s in codes), codes         # parent, nav_order, has_children
    assert ("0021-planted-on-hold.md", "RK204", "warning") in codes     # an open status list
    assert ("0020-planted-dangling.md", "RK301", "warning") in codes    # superseded by ADR-0123: not written
    graph = json.loads(run_cli("graph", "--format", "json", cwd=folder, check=True).stdout)
    edges = {(e["source"], e["target"], e["relation"]) for e in graph.get("edges", graph.get("links", []))}
    assert ("0019-planted-superseded", "0013-timestamp-readings-in-UTC", "superseded_by") in edges
    assert ("0005-log-local-harbour-time", "0013-timestamp-readings-in-UTC", "superseded_by") in edges
    assert ("0015-alert-the-harbour-office-on-surges.md", "RK204", "warning") in codes


def test_init_infer_recognises_a_madr_log_with_capitals(tmp_path):
    folder = _madr(tmp_path, config=False)
    proc = run_cli("init", "--infer", "docs/decisions", cwd=folder)
    assert proc.returncode == 0, proc.stderr
    assert "preset:madr" in proc.stdout and "MADR" in proc.stdout
    assert "ADR: 10 notes" in proc.stdout, proc.stdout
    code, diags = _lint(folder)
    assert code == 0, [d for d in diags if d["severity"] == "error"]
    assert not any(d["code"] == "RK105" for d in diags)


def _obsidian_like(tmp_path: Path) -> Path:
    """An Obsidian vault as it is published on GitHub: no .obsidian/, no
    final newlines, a `_` folder, a link to a note not written yet."""
    v = tmp_path / "vault"
    (v / "_inbox").mkdir(parents=True)
    (v / "Maths").mkdir()
    files = {
        "Home.md": "---\ntags: [maths, maths, calculus]\n---\nStart at [[Limits]] and [[Derivatives]].\n%% a comment %%",
        "Maths/Limits.md": "---\ntags: [maths]\naliases: The limit\ndescription:\n---\n"
                           "> [!tip] Remember\n> the epsilon\n\nNext: [[Derivatives]], later [[Integrals]]",
        "Maths/Derivatives.md": "---\ntags: [calculus]\ncssclasses: [wide]\nmobile: true\n---\n"
                                "![[Limits]] and [[Series]] and [[Integrals]]",
        "_inbox/Idea.md": "An idea about [[Limits]] #maths",
    }
    for rel, text in files.items():
        (v / rel).write_text(text, encoding="utf-8")
    return v


def test_init_infer_recognises_obsidian_without_its_folder(tmp_path):
    v = _obsidian_like(tmp_path)
    proc = run_cli("init", "--infer", ".", cwd=v)
    assert proc.returncode == 0, proc.stderr
    assert "preset:obsidian" in proc.stdout, proc.stdout
    # distinct tags, not how often they are written
    assert "2 distinct tags (6 uses" in proc.stdout, proc.stdout
    code, diags = _lint(v)
    assert code == 0, [d for d in diags if d["severity"] == "error"]
    by_code = {}
    for d in diags:
        by_code.setdefault(d["code"], []).append(d)
    assert "RK208" not in by_code                         # Obsidian writes no final newline
    assert "RK203" not in by_code, by_code.get("RK203")   # cssclasses, mobile, description
    missing = by_code.get("RK305", [])
    assert missing and all(d["severity"] == "info" for d in missing), missing   # notes not written yet
    assert any("_inbox/Idea.md" in d["filename"] for d in diags) or \
        "_inbox" in run_cli("show", "_inbox/Idea", cwd=v).stdout


def test_preset_agrees_with_init_on_the_same_vault(tmp_path):
    v = _obsidian_like(tmp_path)
    (v / "recordkit.toml").write_text('root = "."\nschema = "preset:obsidian"\n', encoding="utf-8")
    code, diags = _lint(v)
    assert code == 0, [d for d in diags if d["severity"] == "error"]
    assert not any(d["code"] in ("RK208", "RK203") for d in diags)
    # the severity is configurable
    (v / "recordkit.toml").write_text('root = "."\nschema = "preset:obsidian"\n[lint.severity]\nRK305 = "warning"\n',
                                      encoding="utf-8")
    _code, diags = _lint(v)
    assert {d["severity"] for d in diags if d["code"] == "RK305"} == {"warning"}


def test_lint_without_configuration_names_init(tmp_path):
    v = _obsidian_like(tmp_path)
    proc = run_cli("lint", cwd=v)
    assert proc.returncode == 2
    assert "recordkit init" in proc.stderr, proc.stderr
