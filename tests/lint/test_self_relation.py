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
