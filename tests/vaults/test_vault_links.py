"""Issue 34: links in an Obsidian vault read as Obsidian reads them, through
the real CLI: a link to a note not written yet is info, and ``lint
--statistics`` names the most-wanted notes; a name two notes share is the
one in the linking note's own folder (no RK308 there)."""
from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli


def _vault(tmp_path: Path, files: dict[str, str], extra: str = "") -> Path:
    folder = tmp_path / "vault"
    for rel, text in files.items():
        p = folder / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    (folder / "recordkit.toml").write_text(f'root = "."\nschema = "preset:obsidian"\n{extra}', encoding="utf-8")
    return folder


def _lint(folder: Path, *args: str):
    proc = run_cli("lint", "--no-cache", *args, cwd=folder)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


GROWING = {
    "Home.md": "# Home\n\nStart at [[Spaced repetition]] and [[Zettelkasten]].\n",
    "notes/Memory.md": "See [[Spaced repetition]], [[spaced repetition|again]] and [[Forgetting curve]].\n",
    "notes/Review.md": "Daily: [[Spaced Repetition]]; [[Forgetting curve]].\n",
    "notes/Cards.md": "Cards feed [[Spaced repetition]].\n",
}


def test_statistics_name_the_most_wanted_notes(tmp_path):
    folder = _vault(tmp_path, GROWING)
    proc = _lint(folder, "--statistics")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "most-wanted notes" in out, out
    wanted = [line.split("\t") for line in out.split("most-wanted notes", 1)[1].splitlines()[1:]]
    wanted = [(name, int(n)) for n, name in wanted]
    # counted by the notes that link (Memory links twice, in two cases: once), most first
    assert wanted == [("Spaced repetition", 4), ("Forgetting curve", 2), ("Zettelkasten", 1)], out
    # the links are info, not warnings, in the listing too
    diags = json.loads(_lint(folder, "--format", "json").stdout)
    assert {d["severity"] for d in diags if d["code"] == "RK305"} == {"info"}, diags


def test_most_wanted_follows_the_configured_severity(tmp_path):
    folder = _vault(tmp_path, GROWING, extra='[lint.severity]\nRK305 = "warning"\n')
    proc = _lint(folder, "--statistics")
    assert proc.returncode == 0
    # links to missing notes are warnings again: typos to fix, not notes to write
    assert "RK305" in proc.stdout and "most-wanted" not in proc.stdout, proc.stdout


SHARED_NAME = {
    "projects/alpha/Meeting.md": "# Alpha meeting\n",
    "projects/beta/Meeting.md": "# Beta meeting\n",
    "projects/alpha/Plan.md": "# Plan\n\nDecided in [[Meeting]]; see also [the notes](Meeting.md).\n",
    "Index.md": "# Index\n\nWhich one: [[Meeting]]?\n",
}


def test_a_shared_name_is_the_note_in_the_linking_notes_folder(tmp_path):
    folder = _vault(tmp_path, SHARED_NAME)
    diags = json.loads(_lint(folder, "--format", "json").stdout)
    ambiguous = {(Path(d["filename"]).name, d["code"]) for d in diags if d["code"] == "RK308"}
    # Plan.md's [[Meeting]] is the alpha note Obsidian opens; Index.md's has none in its folder
    assert ambiguous == {("Index.md", "RK308")}, diags
    graph = json.loads(run_cli("graph", "--format", "json", cwd=folder, check=True).stdout)
    edges = {(e["source"], e["target"]) for e in graph.get("edges", graph.get("links", []))}
    plan = next(s for s, _t in edges if s.lower().endswith("plan"))
    assert {t for s, t in edges if s == plan} == {next(n["id"] for n in graph["nodes"]
                                                       if n["id"].lower().endswith("alpha/meeting"))}, edges


def test_verbose_says_where_skip_dirs_come_from(tmp_path):
    import shutil
    folder = tmp_path / "garden"
    shutil.copytree(Path(__file__).resolve().parent.parent / "fixtures" / "vaults" / "quartz-garden" / "content",
                    folder)
    (folder / "recordkit.toml").write_text('root = "."\nschema = "preset:obsidian"\n', encoding="utf-8")
    proc = _lint(folder, "-v")
    said = next(line for line in proc.stderr.splitlines() if "folders not walked" in line)
    # the preset's skip_dirs (which read `_` folders) and the vault's own template folder, each named
    assert "preset:obsidian" in said and "default" not in said, said
    assert "templates/ (template folder, .obsidian/templates.json)" in said, said


def test_a_path_that_leaves_the_root_is_said_to(tmp_path):
    (tmp_path / "Outside.md").write_text("# Outside\n", encoding="utf-8")
    folder = _vault(tmp_path, {
        "README.md": "# Readme\n",
        "notes/A.md": "---\nup: \"[[../../Outside]]\"\n---\n# A\n\n"
                      "[[../../Outside]], [gone](../../Gone.md), [readme](../../README.md), [[Not yet]].\n",
    })
    diags = json.loads(_lint(folder, "--format", "json").stdout)
    said = {(d["code"], d["message"]) for d in diags if d["code"] in ("RK301", "RK305")}
    assert said == {
        ("RK301", "`up` target ../../Outside is outside the record root"),
        ("RK305", "wikilink to ../../Outside, which is outside the record root"),
        ("RK305", "link to ../../Gone.md, which is outside the record root"),
        # not the README.md of the root, which has the same name
        ("RK305", "link to ../../README.md, which is outside the record root"),
        ("RK305", "wikilink of Not yet, which does not exist"),
    }, said
    # a path out of the root is no note to write
    stats = _lint(folder, "--statistics").stdout
    assert stats.split("most-wanted notes", 1)[1].splitlines()[1:] == ["     1\tNot yet"], stats
    proc = run_cli("show", "../Outside.md", cwd=folder)
    assert proc.returncode == 2 and "is outside the record root" in proc.stderr, proc.stderr


def test_a_shared_name_from_another_folder_stays_ambiguous_whatever_the_path_lengths(tmp_path):
    """Which note Obsidian opens from another folder is not documented
    (docs/presets.md): a shorter path is no answer recordkit guesses."""
    folder = _vault(tmp_path, {
        "team/Meeting.md": "# Team meeting\n",
        "projects/beta/2026/Meeting.md": "# Beta meeting\n",
        "notes/Index.md": "# Index\n\nWhich one: [[Meeting]]?\n",
        "team/Home.md": "# Home\n\n[[Meeting]] here is the team one: the same folder.\n",
    })
    diags = json.loads(_lint(folder, "--format", "json").stdout)
    ambiguous = [d for d in diags if d["code"] == "RK308"]
    assert [Path(d["filename"]).name for d in ambiguous] == ["Index.md"], diags
    assert "team/Meeting" in ambiguous[0]["message"] and "projects/beta/2026/Meeting" in ambiguous[0]["message"], \
        ambiguous
