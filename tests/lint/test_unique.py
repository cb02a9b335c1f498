"""RK111 (`unique:` in the schema): a value no two records may share,
reported in both files at the value, naming the other file with the line
and column of its value."""
import json

from conftest import run_cli, write


def _lint(folder):
    p = run_cli("lint", "--no-cache", "--format", "json", "--exit-zero", "--select", "RK111", cwd=folder)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    return json.loads(p.stdout)


def test_a_group_of_the_id_pattern_read_from_the_id_field(tmp_path):
    (tmp_path / "recordkit.toml").write_text('schema = "schema.yaml"\n', encoding="utf-8")
    (tmp_path / "schema.yaml").write_text("unique: ['pattern:number', 'field:doi']\n", encoding="utf-8")
    write(tmp_path, "records/note/NOTE-001.md", "---\nid: NOTE-001\ntitle: a\nstatus: draft\n---\n")
    write(tmp_path, "records/question/QUESTION-001.md", "---\nid: QUESTION-001\ntitle: b\nstatus: open\n---\n")
    write(tmp_path, "records/note/NOTE-002.md", "---\nid: NOTE-002\ntitle: c\nstatus: draft\ndoi: [10.1/x, 10.1/y]\n---\n")
    write(tmp_path, "records/note/NOTE-003.md", "---\nid: NOTE-003\ntitle: d\nstatus: draft\ndoi: 10.1/y\n---\n")
    got = sorted((d["filename"], d["location"]["row"], d["location"]["column"], d["message"]) for d in _lint(tmp_path))
    assert got == [
        ("records/note/NOTE-001.md", 2, 10,
         "number (the `number` group of the id) 001 is also the number of question/QUESTION-001.md:2:14"),
        ("records/note/NOTE-002.md", 5, 15, "`doi` 10.1/y is also the `doi` of note/NOTE-003.md:5:6"),
        ("records/note/NOTE-003.md", 5, 6, "`doi` 10.1/y is also the `doi` of note/NOTE-002.md:5:15"),
        ("records/question/QUESTION-001.md", 2, 14,
         "number (the `number` group of the id) 001 is also the number of note/NOTE-001.md:2:10"),
    ]


def test_nothing_is_unique_by_default(tmp_path):
    write(tmp_path, "records/note/NOTE-001.md", "---\nid: NOTE-001\ntitle: a\nstatus: draft\n---\n")
    write(tmp_path, "records/question/QUESTION-001.md", "---\nid: QUESTION-001\ntitle: b\nstatus: open\n---\n")
    assert _lint(tmp_path) == []


def test_odd_values_never_break_the_rule(tmp_path):
    """A huge integer (hex in YAML, beyond Python's decimal text limit), a
    long string, a mapping, a boolean: compared as text or skipped, with
    no traceback."""
    (tmp_path / "recordkit.toml").write_text('schema = "schema.yaml"\n', encoding="utf-8")
    (tmp_path / "schema.yaml").write_text("unique: ['field:key']\n", encoding="utf-8")
    big = "0x" + "f" * 4000
    long = "x" * 5000
    for i, key in enumerate([big, big, long, long, "{a: 1}", "{a: 1}", "true", "true", "[[1], [1]]"]):
        write(tmp_path, f"records/note/NOTE-{i:03d}.md", f"---\nid: NOTE-{i:03d}\ntitle: t\nstatus: draft\n"
                                                         f"key: {key}\n---\n")
    got = _lint(tmp_path)
    assert sorted(d["filename"] for d in got) == [f"records/note/NOTE-00{i}.md" for i in range(4)]
    assert all(len(d["message"]) < 200 for d in got)
