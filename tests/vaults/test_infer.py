"""recordkit.schema.infer on small hand-made inputs: each rule of the
inference, and the schema text it writes loading as a schema."""
from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import yaml

from conftest import REPO, run_cli
from recordkit.schema import Schema
from recordkit.schema.infer import Sample, infer


def load(inf) -> Schema:
    raw = yaml.safe_load(inf.schema_yaml())
    raw.pop("replace", None)
    return Schema(raw)


def test_statuses_leave_out_template_braces_and_fold_case_and_read_pointers():
    samples = [Sample(f"{i:04d}-decision-{i}.md", {"status": st, "date": dt.date(2024, 1, 1 + i)}, f"# Decision {i}\n")
               for i, st in enumerate(["accepted", "accepted", "Accepted", "proposed",
                                       "{proposed | accepted | superseded by ADR-0123}",
                                       "superseded by [ADR-0001](0001-decision-1.md)"])]
    inf = infer(samples)
    assert inf.id_pattern.startswith("^(?P<number>[0-9]{4})-") and list(inf.kinds) == ["ADR"]
    from recordkit.schema.infer import _status_list
    assert _status_list(inf.kinds["ADR"]["statuses"]) == ["accepted", "proposed", "superseded"]
    assert inf.derive == [{"relation": "superseded_by", "field": "status",
                           "pattern": r"(?i)^\s*superseded\s+by\s+(?P<target>.+?)\s*$"}]
    schema = load(inf)
    assert schema.kinds["ADR"].statuses == ("accepted", "proposed", "superseded")
    assert "superseded_by" in schema.relations and schema.derive_patterns[0].field == "status"


def test_fields_naming_other_notes_are_relations_and_dates_are_not():
    samples = [
        Sample("a.md", {"type": "note", "up": "b", "seen": "2026-01-02", "n": 3}, "# A\n"),
        Sample("b.md", {"type": "Note", "up": ["c"], "seen": "2026-01-03", "n": 4.5}, ""),
        Sample("c.md", {"type": "note", "up": "a", "seen": dt.date(2026, 1, 4), "n": None}, ""),
        Sample("2026-01-02.md", {"type": "daily"}, ""),
        Sample("2026-01-03.md", {"type": "daily"}, ""),
    ]
    inf = infer(samples)
    assert inf.fields["up"].relation and not inf.fields["seen"].relation
    assert inf.fields["seen"].spec == {"type": "date"}
    assert inf.fields["n"].spec == {"type": ["number", "null"]}
    # `note` and `Note` are one kind, and no second NOTE is made for it
    assert set(inf.kinds) == {"note", "daily"}
    schema = load(inf)
    assert "up" in schema.relations and "note" in schema.kinds


def test_a_single_string_among_listed_tags_is_no_slip():
    """``tags: component`` among notes with tag lists: Obsidian and Quartz
    read it as one tag, so the inferred schema takes a string too (it had
    narrowed tags to lists, and lint failed the vault it was inferred from:
    a public Quartz garden); another field's odd one out stays a slip."""
    samples = [Sample(f"n{i}.md", {"tags": ["a", "b"], "sizes": [1, 2]}, "") for i in range(20)]
    samples.append(Sample("odd.md", {"tags": "component", "sizes": "big"}, ""))
    inf = infer(samples)
    assert inf.fields["tags"].spec["type"] == ["array", "string"]
    assert inf.fields["sizes"].spec["type"] == "array"


def test_ids_dendron_prefixes_and_label_first_links():
    samples = [Sample(f"{name}.md", {"id": f"k{i:022d}", "created": 1767225600000 + i, "title": name.title()},
                      body)
               for i, (name, body) in enumerate([
                   ("proj", "[[Audit|proj.audit]]"), ("proj.audit", "[[Plan|proj.audit.plan]] [[proj]]"),
                   ("proj.audit.plan", "[[Audit|proj.audit]]"), ("task.2026.01.01.a", "[[Plan|proj.audit.plan]]"),
                   ("daily.journal.2026.01.01", ""), ("root", "[[Proj|proj]]")])]
    inf = infer(samples)
    assert inf.id_from == ["stem"] and inf.id_pattern is None
    assert inf.kind_from[0] == {"prefix": ".", "map": {"daily": "JOURNAL", "proj": "proj", "task": "TASK"}}
    assert inf.links["wikilink_order"] == "label-first" and inf.links["resolve"] == ["stem"]
    assert inf.fields["created"].spec == {"type": "date", "epoch": "ms"}
    load(inf)


def test_paths_when_file_names_repeat_and_shortest_paths_and_case():
    samples = [Sample("p/alpha/Index.md", {"aliases": ["Alpha"]}, "[[beta/index]]"),
               Sample("p/beta/Index.md", {}, "[[Alpha]] and [[alpha/Index#Top]]"),
               Sample("Home.md", {}, "[x](p/alpha/Index.md)\n```\n[[not a link]]\n```\n")]
    inf = infer(samples)
    assert inf.id_from == ["path"]
    assert inf.links["resolve"] == ["path", "stem", "aliases"] and inf.links["case_sensitive"] is False
    assert inf.links["markdown_links"] is True
    assert inf.link_counts["wikilinks"] == 3       # not the one in a code block


def test_no_input_and_odd_input():
    inf = infer([])
    assert inf.files == 0 and load(inf).kinds
    odd = infer([Sample("x.md", None, "no front matter"), Sample("y.md", {1: "a", "tags": {"a": 1}, "status": 3},
                                                                    "[[" * 1000)])
    assert odd.without_front_matter == ["x.md"]
    load(odd)


def test_an_unreadable_file_is_not_counted_as_one_without_front_matter(tmp_path):
    """A front matter that is not YAML, a file that is not UTF-8, one not
    closed: reported as unreadable (with the code lint gives), not as a
    note with no fields, and no reason on its own for front_matter: optional."""
    v = tmp_path / "v"
    v.mkdir()
    (v / "a.md").write_text("---\ntitle: a\n---\nText.\n")
    (v / "bad.md").write_text("---\ntitle: [\n---\n")
    (v / "open.md").write_text("---\ntitle: x\n")
    (v / "bytes.md").write_bytes(b"---\ntitle: \xff\n---\n")
    proc = run_cli("init", "--infer", "v", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "unreadable: 3 file(s) (bad.md (RK102), bytes.md (RK103), open.md (RK101))" in proc.stdout, proc.stdout
    assert "no front matter" not in proc.stdout
    assert "front_matter: optional" not in (tmp_path / "recordkit.schema.yaml").read_text()
    inf = infer([Sample("x.md", None, "", None, "RK102 front matter is not valid YAML"), Sample("y.md", None, "")])
    assert inf.unreadable == [("x.md", "RK102 front matter is not valid YAML")] and inf.without_front_matter == ["y.md"]


def test_init_infer_on_the_research_record(tmp_path):
    """On the research record itself, the inferred schema finds its kinds,
    statuses, KIND-NNN ids and its relations (plain ids in the front
    matter), and the record lints under it with no error but the checks
    the copy cannot find."""
    shutil.copytree(REPO / "records", tmp_path / "records")
    proc = run_cli("init", "--infer", "records", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "kind from the KIND part of KIND-NNN ids" in proc.stdout
    for rel in ("grounds", "extends", "paper", "bears_on", "promoted_by"):
        assert rel in proc.stdout.split("relations:", 1)[1].split("\n", 1)[0]
    lint = run_cli("lint", "--no-cache", "--select", "RK1,RK2,RK3", cwd=tmp_path)
    errors = [line for line in lint.stdout.splitlines() if ": RK" in line and "RK307" not in line]
    assert not errors, errors
    assert Path(tmp_path / "recordkit.schema.yaml").read_text(encoding="utf-8").startswith("# recordkit schema")


def test_tags_written_in_the_text_are_inferred_inline(tmp_path):
    """A Foam or Obsidian vault that tags in the text (``#soil/carbon``):
    init --infer read only tags: fields, so the schema had no tags and
    the vault lost every tag (a hunt of vault workflows)."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "biochar.md").write_text("# Biochar\n\nSee [[soil]]. #soil/carbon #todo\n")
    (notes / "soil.md").write_text("# Soil\n\nBack to [[biochar]]. #soil\n\n```\n#not-a-tag\n```\n")
    proc = run_cli("init", "--infer", ".", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    schema = yaml.safe_load((tmp_path / "recordkit.schema.yaml").read_text())
    assert schema["tags"]["inline"] is True
    out = run_cli("query", "select record, tag from tags order by tag", "--format", "csv", cwd=tmp_path).stdout
    assert out == "record,tag\nsoil,soil\nbiochar,soil/carbon\nbiochar,todo\n", out
    assert "All checks passed" in run_cli("lint", cwd=tmp_path).stdout


import pytest


@pytest.mark.parametrize("vault, preset, mark", [
    ("dendron", "dendron", "found dendron.yml (a Dendron workspace)"),
    ("obsidian", "obsidian", "found .obsidian/ (an Obsidian vault)"),
    ("foam", "foam", "found .foam/ (a Foam workspace)"),
])
@pytest.mark.parametrize("infer", [False, True])
def test_init_starts_from_the_preset_of_the_tool_the_folder_is_plainly_of(tmp_path, vault, preset, mark, infer):
    """A Dendron workspace (dendron.yml), an Obsidian vault (.obsidian/) or
    a Foam workspace (.foam/) was inferred as plain notes: no sigils, no
    Dendron fields, no preset's link settings.  init now starts from the
    tool's preset and says why; --preset research starts elsewhere."""
    base = tmp_path / vault
    shutil.copytree(REPO / "tests" / "fixtures" / "vaults" / vault, base)
    (base / "expected.json").unlink()
    args = ("init", "--infer") if infer else ("init",)
    proc = run_cli(*args, cwd=base)
    assert proc.returncode == 0, proc.stderr
    assert mark in proc.stdout, proc.stdout
    schema = yaml.safe_load((base / "recordkit.schema.yaml").read_text())
    assert schema["extends"] == f"preset:{preset}"
    assert run_cli("lint", "--exit-zero", cwd=base).returncode == 0
    for p in ("recordkit.schema.yaml", "recordkit.toml"):
        (base / p).unlink()
    proc = run_cli(*args, "--preset", "research", cwd=base)
    assert proc.returncode == 0 and "found " not in proc.stdout, proc.stdout
    assert "preset:" + preset not in (base / "recordkit.schema.yaml").read_text()


def test_init_of_plain_notes_names_no_tool(tmp_path):
    base = tmp_path / "notes"
    base.mkdir()
    (base / "a.md").write_text("---\ntitle: A\n---\nText.\n")
    proc = run_cli("init", "--infer", cwd=base)
    assert proc.returncode == 0, proc.stderr
    assert "found " not in proc.stdout and "extends" not in (base / "recordkit.schema.yaml").read_text()


def test_init_reads_the_folders_own_marks_before_a_dendron_yml_above(tmp_path):
    """An Obsidian vault kept under a folder with a dendron.yml was taken
    for Dendron; a dendron.yml above counts only when it lists the folder
    as a vault."""
    (tmp_path / "dendron.yml").write_text("version: 5\nworkspace:\n  vaults:\n    - fsPath: notes\n")
    for name in ("obs", "notes", "other"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "a.md").write_text("---\ntitle: A\n---\nText.\n")
    (tmp_path / "obs" / ".obsidian").mkdir()
    said = {name: run_cli("init", "--dry-run", cwd=tmp_path / name).stdout for name in ("obs", "notes", "other")}
    assert said["obs"].startswith("found .obsidian/ (an Obsidian vault)"), said["obs"]
    assert said["notes"].startswith("found ../dendron.yml listing . (a Dendron vault)"), said["notes"]
    assert "found " not in said["other"], said["other"]


def test_a_templates_placeholders_are_no_values(tmp_path):
    """A Templater or core-Templates template (``date: <% tp.date.now() %>``,
    ``created: "{{date}}"``): its placeholders are no value of any type, so
    neither the inferred schema nor the lint types them (a public Quartz
    garden's template made its inferred `date` a string, failing its dated
    notes, and failed lint itself); a value that is no placeholder still is."""
    root = tmp_path / "v"
    (root / "templates").mkdir(parents=True)
    (root / "templates" / "Note Template.md").write_text(
        '---\ntitle: <% tp.file.title %>\ndate: <% tp.date.now("YYYY-MM-DD") %>\ncreated: "{{date}}"\n'
        'tags: [draft]\n---\n', encoding="utf-8")
    (root / "One.md").write_text("---\ndate: 2026-02-14\ncreated: 2026-02-14\ntags: [a]\n---\nOne.\n", encoding="utf-8")
    for i in range(2, 7):
        (root / f"N{i}.md").write_text(f"---\ndate: 2026-02-1{i}\ncreated: 2026-02-1{i}\ntags: [b]\n---\nN. [[One]]\n",
                                       encoding="utf-8")
    (root / "Bad.md").write_text("---\ndate: soon\ntags: [c]\n---\nBad. [[One]] ![[N2]] %% c %%\n", encoding="utf-8")
    run_cli("init", "--infer", "--preset", "obsidian", ".", cwd=root, check=True)
    proc = run_cli("lint", "--no-cache", "--format", "json", cwd=root)
    import json
    found = {(d["filename"].rsplit("/", 1)[-1], d["code"]) for d in json.loads(proc.stdout)
             if d["severity"] == "error"}
    assert found == {("Bad.md", "RK205")}, proc.stdout
