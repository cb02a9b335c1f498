"""A message about one file of a large group (thousands of files with one
id, one unique number, or one title a link names) names the first few of
the others and counts the rest: naming every other one in each made lint's
output, its cache and its helper's transfer quadratic (20,000 copies of one
id took 24 GB and were killed; 6,000 notes sharing a title, 11 s and a
446 MB cache).  Each test runs the real CLI."""
import json
import os
import re

import pytest

from conftest import run_cli


def _lint(base, *extra, jobs="1"):
    proc = run_cli("lint", "--format", "json", *extra, cwd=base, env={"RECORDKIT_JOBS": jobs})
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc, json.loads(proc.stdout)


@pytest.mark.slow
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_thousand_copies_of_one_id(tmp_path, jobs):
    root = tmp_path / "records" / "theory"
    root.mkdir(parents=True)
    (tmp_path / "recordkit.toml").write_text('root = "records"\n')
    for i in range(1, 1001):
        (root / f"THEORY-{i:05d}.md").write_text(
            "---\nid: THEORY-00001\ntitle: T\nstatus: proposed\n---\nBody mentions THEORY-00001.\n")
    proc, diags = _lint(tmp_path, jobs=jobs)
    dup = [d for d in diags if d["code"] == "RK107"]
    assert len(dup) == 1000
    assert dup[1]["message"] == ("id THEORY-00001 is also declared in theory/THEORY-00001.md, "
                                 "theory/THEORY-00003.md, theory/THEORY-00004.md and 996 more")
    assert len(proc.stdout) < 1000 * len(diags)       # (each named 999 others: 30 KB a diagnostic)
    # PATHS: the diagnostics about the id its copy holds (every copy's)
    proc, diags = _lint(tmp_path, "records/theory/THEORY-00500.md", jobs=jobs)
    files = [d["filename"] for d in diags if d["code"] == "RK107"]
    assert len(files) == 1000 and "records/theory/THEORY-00500.md" in files


def test_four_copies_are_all_named(tmp_path):
    root = tmp_path / "records" / "theory"
    root.mkdir(parents=True)
    (tmp_path / "recordkit.toml").write_text('root = "records"\n')
    for i in range(1, 6):
        (root / f"THEORY-{i:05d}.md").write_text("---\nid: THEORY-00001\ntitle: T\nstatus: proposed\n---\nB\n")
    _, diags = _lint(tmp_path)
    msg = next(d["message"] for d in diags if d["code"] == "RK107" and d["filename"].endswith("THEORY-00001.md"))
    assert msg.endswith("theory/THEORY-00002.md, theory/THEORY-00003.md, theory/THEORY-00004.md, "
                        "theory/THEORY-00005.md")


@pytest.mark.slow
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_link_ambiguous_among_thousands_of_notes(tmp_path, jobs):
    # (same_folder off: each note's [[Note]] would be itself, in its own folder, as Obsidian opens it)
    (tmp_path / "schema.yaml").write_text("extends: preset:obsidian\nlinks:\n  same_folder: false\n")
    (tmp_path / "recordkit.toml").write_text('root = "vault"\nschema = "schema.yaml"\n')
    for i in range(2000):
        d = tmp_path / "vault" / f"d{i:04d}"
        d.mkdir(parents=True)
        (d / "Note.md").write_text("---\ntags: [x]\n---\nSee [[Note]] here.\n")
    proc, diags = _lint(tmp_path, jobs=jobs)
    amb = [d for d in diags if d["code"] == "RK308"]
    assert len(amb) == 2000
    assert re.fullmatch(r"wikilink Note is ambiguous: it matches the file name of d0000/Note\.md, "
                        r"d0001/Note\.md, d0002/Note\.md and 1,997 more; write more of the path to say which",
                        amb[0]["message"]), amb[0]["message"]
    cache = tmp_path / ".recordkit" / "lint-cache.json"
    assert cache.stat().st_size < 20_000_000        # 446 MB for 6,000 before
    again, diags2 = _lint(tmp_path, jobs=jobs)       # from the cache: the same
    assert diags2 == diags
    # the diagnostic is about every candidate: linting one of them shows the others' ambiguity
    proc, some = _lint(tmp_path, "vault/d1500/Note.md", "--no-cache", jobs=jobs)
    assert len([d for d in some if d["code"] == "RK308"]) == 2000


@pytest.mark.slow
def test_a_thousand_decisions_with_one_number(tmp_path):
    (tmp_path / "recordkit.toml").write_text('root = "decisions"\nschema = "preset:madr"\n')
    root = tmp_path / "decisions"
    root.mkdir()
    for i in range(1000):
        (root / f"0011-decision-{i:04d}.md").write_text(f"# Decision {i}\n\n## Context and Problem Statement\n\nX.\n")
    proc, diags = _lint(tmp_path)
    same = [d for d in diags if d["code"] == "RK111"]
    assert len(same) == 1000, {d["code"] for d in diags}
    assert same[0]["message"].endswith(" and 996 more"), same[0]["message"]
    assert len(proc.stdout) < 1000 * len(diags)
