"""Presets: ``schema = "preset:NAME"`` and ``extends: preset:NAME``."""
import json

from recordkit.schema import load_schema, preset_names

from conftest import run_cli, write, write_mini_record


def test_preset_research_is_the_default_schema():
    assert "research" in preset_names()
    assert load_schema("preset:research").raw == load_schema().raw


def test_preset_research_gives_the_same_outputs_as_no_schema(tmp_path):
    outputs = []
    for config in ("", 'schema = "preset:research"\n'):
        folder = tmp_path / ("a" if not config else "b")
        write_mini_record(folder)
        (folder / "recordkit.toml").write_text(config, encoding="utf-8")
        lint = run_cli("lint", "--no-cache", "--format", "json", cwd=folder)
        graph = run_cli("graph", "--format", "json", cwd=folder, check=True)
        outputs.append((lint.returncode, json.loads(lint.stdout), graph.stdout))
    assert outputs[0] == outputs[1]


def test_an_unknown_preset_lists_the_known_ones(tmp_path):
    write_mini_record(tmp_path)
    (tmp_path / "recordkit.toml").write_text('schema = "preset:obsidain"\n', encoding="utf-8")
    p = run_cli("lint", cwd=tmp_path)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert "unknown preset" in p.stderr and "preset:obsidain" in p.stderr
    assert "preset:research" in p.stderr


def test_a_schema_file_extends_a_preset_and_another_file(tmp_path):
    write_mini_record(tmp_path)
    (tmp_path / "base.yaml").write_text("extends: preset:research\nkinds:\n  ESSAY: {statuses: [draft]}\n")
    (tmp_path / "schema.yaml").write_text("extends: base.yaml\nkinds:\n  ESSAY: {color: '#123456'}\n")
    (tmp_path / "recordkit.toml").write_text('schema = "schema.yaml"\n', encoding="utf-8")
    write(tmp_path, "records/essay/ESSAY-001.md", "---\nid: ESSAY-001\ntitle: An essay\nstatus: draft\n---\n")
    p = run_cli("graph", "--format", "json", cwd=tmp_path, check=True)
    node = next(n for n in json.loads(p.stdout)["nodes"] if n["id"] == "ESSAY-001")
    assert node["kind"] == "ESSAY"
    schema = load_schema(tmp_path / "schema.yaml")
    assert schema.kinds["ESSAY"].color == "#123456" and schema.kinds["ESSAY"].statuses == ("draft",)
    assert "LIT" in schema.kinds


def test_an_extends_loop_and_a_missing_base_are_configuration_errors(tmp_path):
    write_mini_record(tmp_path)
    (tmp_path / "a.yaml").write_text("extends: b.yaml\n")
    (tmp_path / "b.yaml").write_text("extends: a.yaml\n")
    (tmp_path / "recordkit.toml").write_text('schema = "a.yaml"\n', encoding="utf-8")
    p = run_cli("lint", cwd=tmp_path)
    assert p.returncode == 2 and "goes round in a circle" in p.stderr, p.stderr
    (tmp_path / "b.yaml").write_text("extends: missing.yaml\n")
    p = run_cli("lint", cwd=tmp_path)
    assert p.returncode == 2 and "missing.yaml" in p.stderr and "named by extends: in" in p.stderr, p.stderr


def test_changing_the_extended_file_invalidates_the_lint_cache(tmp_path):
    write_mini_record(tmp_path)
    (tmp_path / "base.yaml").write_text("kinds:\n  NOTE: {statuses: [draft, final]}\n")
    (tmp_path / "schema.yaml").write_text("extends: base.yaml\n")
    (tmp_path / "recordkit.toml").write_text('schema = "schema.yaml"\n', encoding="utf-8")
    before = run_cli("lint", "--format", "json", cwd=tmp_path).stdout
    (tmp_path / "base.yaml").write_text("kinds:\n  NOTE: {statuses: [final]}\n")
    after = run_cli("lint", "--format", "json", cwd=tmp_path).stdout
    assert "RK204" not in before and "RK204" in after
