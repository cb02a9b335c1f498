"""RK303 compares a relation's target once links are resolved: in a vault
that links by file name, title or alias, a note whose front matter links to
itself is reported however the link names it."""
import json

from conftest import run_cli, write


def test_a_self_link_by_name_title_or_alias_is_rk303(tmp_path):
    (tmp_path / "recordkit.toml").write_text('root = "."\nschema = "preset:obsidian"\n', encoding="utf-8")
    write(tmp_path, "Sleep spindles.md", '---\naliases: [Spindles]\nup: "[[Sleep spindles]]"\n'
                                        'related: ["[[Spindles]]", "[[Memory]]"]\n---\nBody.\n')
    write(tmp_path, "Memory.md", '---\ntitle: Memory consolidation\nup: "[[Memory consolidation]]"\n---\n')
    write(tmp_path, "Other.md", '---\nup: "[[Memory]]"\n---\n')
    p = run_cli("lint", "--no-cache", "--format", "json", "--exit-zero", "--select", "RK303", cwd=tmp_path)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    got = sorted((d["filename"], d["location"]["row"], d["message"]) for d in json.loads(p.stdout))
    assert got == [
        ("Memory.md", 3, "`up` names the record itself ([[Memory consolidation]])"),
        ("Sleep spindles.md", 3, "`up` names the record itself ([[Sleep spindles]])"),
        ("Sleep spindles.md", 4, "`related` names the record itself ([[Spindles]])"),
    ]


def test_a_derived_relation_to_the_record_itself_is_rk303(tmp_path):
    """MADR's `status: superseded by [ADR-0003](0003-….md)` in 0003 itself:
    the derived edge would be a loop (the graph drops it); RK303 says so."""
    (tmp_path / "recordkit.toml").write_text('schema = "preset:madr"\n', encoding="utf-8")
    write(tmp_path, "records/0003-use-sqlite.md",
          "---\nstatus: superseded by [ADR-0003](0003-use-sqlite.md)\n---\n# Use SQLite\n")
    write(tmp_path, "records/0004-use-duckdb.md",
          "---\nstatus: superseded by [ADR-0003](./0003-use-sqlite.md)\n---\n# Use DuckDB\n")
    p = run_cli("lint", "--no-cache", "--format", "json", "--exit-zero", "--select", "RK303", cwd=tmp_path)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    got = [(d["filename"], d["location"]["row"], d["location"]["column"], d["message"]) for d in json.loads(p.stdout)]
    assert got == [("records/0003-use-sqlite.md", 2, 9, "`status` makes `superseded_by` name the record itself "
                                                        "([ADR-0003](0003-use-sqlite.md))")]
