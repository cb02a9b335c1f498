"""Bad input is a diagnostic, never a traceback (issue 10): non-string keys,
values JSON has no type for, non-UTF-8 file names, terminal escapes in
titles, unsafe schema colours, ids YAML reads as numbers, a misconfigured
id_pattern or root.  Every test runs the real CLI on real files."""
import json
import os
import re

import pytest

from conftest import run_cli, write

# a C0 or C1 control (tab and newline aside) or a bidi override, raw
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _ok(proc, codes=(0, 1)):
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode in codes, (proc.returncode, proc.stdout, proc.stderr)
    return proc


def _strict_json(text):
    """JSON as the standard has it: NaN and Infinity are not JSON."""
    def no_constant(name):
        raise AssertionError(f"{name} is not JSON")
    return json.loads(text, parse_constant=no_constant)


NOTE_ODD_KEYS = """
---
id: NOTE-001
title: Odd keys
status: draft
1: one
true: yes
null: nothing
2026-01-01: new year
---
Body.
"""

NOTE_ODD_VALUES = """
---
id: NOTE-002
title: Odd values
status: draft
kinds: !!set {a, b}
blob: !!binary aGVsbG8=
when: 2026-01-01T10:00:00+02:00
big: 123456789012345678901234567890
notanumber: .nan
infinite: -.inf
nested: {first: 2026-01-02, list: [2026-01-03]}
---
Body.
"""


@pytest.mark.slow
def test_non_string_keys_show_graph_and_lint(make_record, tmp_path):
    root = make_record({"note/NOTE-001.md": NOTE_ODD_KEYS})
    out = _ok(run_cli("--root", str(root), "show", "NOTE-001"), (0,)).stdout
    assert "2026-01-01: new year" in out
    data = _strict_json(_ok(run_cli("--root", str(root), "show", "NOTE-001", "--format", "json"), (0,)).stdout)
    assert data["fields"]["2026-01-01"] == "new year"
    assert data["fields"]["null"] == "nothing"
    assert "1" in data["fields"]          # 1 and true are one key to YAML
    _ok(run_cli("--root", str(root), "graph", "--html", str(tmp_path / "g.html")), (0,))
    for fmt in ("json", "graphml", "gexf", "dot"):
        _ok(run_cli("--root", str(root), "graph", "--format", fmt), (0,))
    _ok(run_cli("--root", str(root), "promote"), (0,))
    # lint: a field-name diagnostic at the key, saying what YAML made of it
    diags = _strict_json(_ok(run_cli("--root", str(root), "lint", "--no-cache", "--format", "json",
                                     "--select", "RK203")).stdout)
    by_row = {d["location"]["row"]: d["message"] for d in diags}
    assert "read by YAML as null" in by_row[7] and by_row[7].startswith("field name `null`")
    assert "read by YAML as a date" in by_row[8] and "`\"2026-01-01\":`" in by_row[8]
    assert all(d["location"]["column"] == 1 for d in diags)
    assert len(diags) == 3


def test_values_json_has_no_type_for(make_record, tmp_path):
    root = make_record({"note/NOTE-002.md": NOTE_ODD_VALUES})
    proc = _ok(run_cli("--root", str(root), "show", "NOTE-002", "--format", "json"), (0,))
    fields = _strict_json(proc.stdout)["fields"]
    assert fields["kinds"] == ["a", "b"]
    assert fields["blob"] == "aGVsbG8="
    assert fields["when"] == "2026-01-01T10:00:00+02:00"
    assert fields["big"] == "123456789012345678901234567890"     # no digits lost to a double
    assert fields["notanumber"] == ".nan" and fields["infinite"] == "-.inf"
    assert fields["nested"] == {"first": "2026-01-02", "list": ["2026-01-03"]}
    # the content index (graph --format json) and the page carry the same values
    graph = _strict_json(_ok(run_cli("--root", str(root), "graph", "--format", "json"), (0,)).stdout)
    node = next(n for n in graph["nodes"] if n["id"] == "NOTE-002")
    assert node["fields"]["kinds"] == ["a", "b"] and node["fields"]["big"] == "123456789012345678901234567890"
    page = tmp_path / "g.html"
    _ok(run_cli("--root", str(root), "graph", "--html", str(page)), (0,))
    assert "aGVsbG8=" in page.read_text(encoding="utf-8")
    text = _ok(run_cli("--root", str(root), "show", "NOTE-002"), (0,)).stdout
    assert "Nested: {first: 2026-01-02, list: [2026-01-03]}" in text
    assert "datetime" not in text and "{'" not in text


@pytest.fixture
def odd_name_root(make_record):
    root = make_record({"note/NOTE-001.md": "---\nid: NOTE-001\ntitle: A\nstatus: draft\n---\nSee NOTE-003.\n"})
    name = os.path.join(os.fsencode(root / "note"), b"NOTE-003\xff.md")
    try:
        with open(name, "wb") as fh:
            fh.write(b"---\nid: NOTE-003\ntitle: Odd name\nstatus: draft\n---\nSee NOTE-001.\n")
    except OSError:  # pragma: no cover - a file system that takes UTF-8 names only
        pytest.skip("the file system refuses non-UTF-8 names")
    return root


@pytest.mark.slow
def test_non_utf8_file_name(odd_name_root, tmp_path):
    root = odd_name_root
    for _ in range(2):        # the second run reads the lint cache
        proc = _ok(run_cli("--root", str(root), "lint"))
        assert "NOTE-003\\xff.md" in proc.stdout
    _ok(run_cli("--root", str(root), "graph", "--html", str(tmp_path / "g.html")), (0,))
    graph = _strict_json(_ok(run_cli("--root", str(root), "graph", "--format", "json"), (0,)).stdout)
    assert {n["path"] for n in graph["nodes"]} == {"note/NOTE-001.md", "note/NOTE-003\\xff.md"}
    for fmt in ("graphml", "gexf", "dot"):
        _ok(run_cli("--root", str(root), "graph", "--format", fmt), (0,))
    assert "NOTE-003\\xff.md" in _ok(run_cli("--root", str(root), "show", "NOTE-003"), (0,)).stdout
    info = _strict_json(_ok(run_cli("--root", str(root), "show", "NOTE-003", "--format", "json"), (0,)).stdout)
    assert info["path"].endswith("NOTE-003\\xff.md")
    _ok(run_cli("--root", str(root), "promote"), (0,))
    _ok(run_cli("--root", str(root), "lint", "--format", "json"))
    _ok(run_cli("--root", str(root), "lint", "--format", "sarif"))


THEORY_ESC = """
---
id: THEORY-001
title: "Evil \\e[2J\\e[31mred\\e[0m \\u202eright-to-left\\u202c \\x9b31m"
status: proposed
source: [NOTE-001]
tags: ["Bad\\e[31mTag"]
promote_when:
  summary: "when \\e[5mblinking\\e[0m stops"
  requires:
    - record: {kind: NOTE, relation: source}
---
## What is asserted
X.
"""


@pytest.mark.slow
def test_terminal_escapes_are_shown_not_sent(make_record):
    root = make_record({
        "theory/THEORY-001.md": THEORY_ESC,
        "note/NOTE-001.md": "---\nid: NOTE-001\ntitle: \"n\\e]0;pwned\\a\"\nstatus: draft\n---\nTHEORY-001\n",
    })
    show = _ok(run_cli("--root", str(root), "show", "THEORY-001"), (0,)).stdout
    assert not RAW_CONTROL.search(show), repr(show)
    assert "Evil \\x1b[2J\\x1b[31mred\\x1b[0m \\u202eright-to-left\\u202c \\x9b31m" in show
    assert "\\x1b[5mblinking" in show
    note = _ok(run_cli("--root", str(root), "show", "NOTE-001"), (0,)).stdout
    assert not RAW_CONTROL.search(note) and "\\x1b]0;pwned\\x07" in note
    lint = _ok(run_cli("--root", str(root), "lint", "--no-cache")).stdout
    assert not RAW_CONTROL.search(lint), repr(lint)
    assert "tag `\"Bad\\x1b[31mTag\"` is not kebab-case" in lint
    github = _ok(run_cli("--root", str(root), "lint", "--no-cache", "--format", "github")).stdout
    assert not RAW_CONTROL.search(github)
    promote = _ok(run_cli("--root", str(root), "promote"), (0,)).stdout
    assert "THEORY-001" in promote and not RAW_CONTROL.search(promote), repr(promote)
    one = _ok(run_cli("--root", str(root), "promote", "THEORY-001"), (0, 1)).stdout
    assert not RAW_CONTROL.search(one)
    # JSON keeps the text exactly (its escapes are JSON's own)
    info = _strict_json(run_cli("--root", str(root), "show", "THEORY-001", "--format", "json").stdout)
    assert info["title"].startswith("Evil \x1b[2J")


def _project(tmp_path, schema: str, records: dict[str, str]):
    (tmp_path / "schema.yaml").write_text(schema, encoding="utf-8")
    (tmp_path / "recordkit.toml").write_text('root = "records"\nschema = "schema.yaml"\n', encoding="utf-8")
    for rel, text in records.items():
        write(tmp_path / "records", rel, text)
    return tmp_path


NOTE = {"note/NOTE-001.md": "---\nid: NOTE-001\ntitle: n\nstatus: draft\n---\nBody.\n"}


@pytest.mark.parametrize("colour", [
    "rgb(1,2,3);background-image:url(https://example.org/x.png)",
    "url(https://example.org/x.png)",
    "red;position:fixed",
    "#12345",
    "expression(alert(1))",
    "notacolour",
    "12",
])
def test_unsafe_schema_colour_is_a_configuration_error(tmp_path, colour):
    root = _project(tmp_path, f"kinds:\n  NOTE:\n    color: {json.dumps(colour)}\n", NOTE)
    for args in (["graph", "--html", "g.html"], ["lint", "--no-cache"], ["show", "NOTE-001"]):
        proc = run_cli(*args, cwd=root)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert "configuration error" in proc.stderr and "kinds.NOTE.color" in proc.stderr
    assert not (root / "g.html").exists()


@pytest.mark.parametrize("colour", ["#abc", "#abcd", "#a1b2c3", "#a1b2c3d4", "RebeccaPurple",
                                    "rgb(10, 20, 30)", "hsl(120deg 50% 40% / 0.5)"])
def test_good_schema_colours_reach_the_page(tmp_path, colour):
    root = _project(tmp_path, f"kinds:\n  NOTE:\n    color: {json.dumps(colour)}\n", NOTE)
    _ok(run_cli("graph", "--html", "g.html", cwd=root), (0,))
    assert json.dumps(colour)[1:-1] in (root / "g.html").read_text(encoding="utf-8")


@pytest.mark.slow
def test_id_pattern_without_kind_group(tmp_path):
    # the groups are optional (issue 13): the kind then comes from another
    # kind_from source, or the record has none; never a traceback
    root = _project(tmp_path, 'id_pattern: "^[A-Z]+-[0-9]{3,}$"\n', NOTE)
    for args in (["lint", "--no-cache"], ["show", "NOTE-001"], ["graph", "--format", "json"]):
        proc = run_cli(*args, cwd=root)
        assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr
    graph = json.loads(run_cli("graph", "--format", "json", cwd=root).stdout)
    assert [(n["id"], n["kind"]) for n in graph["nodes"]] == [("NOTE-001", None)]
    (root / "schema.yaml").write_text('id_pattern: "^[A-Z]+-[0-9]{3,}$"\nkind_from: [{prefix: "-"}]\n')
    graph = json.loads(run_cli("graph", "--format", "json", cwd=root).stdout)
    assert [(n["id"], n["kind"]) for n in graph["nodes"]] == [("NOTE-001", "NOTE")]


def test_ids_and_dates_explained_without_reprs(make_record):
    root = make_record({
        "note/NOTE-001.md": "---\nid: \"\"\ntitle: a\nstatus: draft\n---\nx\n",
        "note/NOTE-002.md": "---\nid: 002\ntitle: b\nstatus: draft\n---\nx\n",
        "note/NOTE-003.md": "---\nid:\ntitle: c\nstatus: draft\n---\nx\n",
        "note/NOTE-004.md": "---\nid: NOTE-004\ntitle: d\nstatus: {draft}\ncreated: {2026-01-01}\n"
                            "updated: [2026-01-02]\n---\nx\n",
    })
    diags = _strict_json(_ok(run_cli("--root", str(root), "lint", "--no-cache", "--format", "json")).stdout)
    msgs = {}
    for d in diags:
        msgs.setdefault((d["filename"].rsplit("/", 1)[-1], d["code"]), d["message"])
    assert msgs[("NOTE-001.md", "RK105")] == "`id` is empty (expected NOTE-001 from the file name)"
    assert msgs[("NOTE-003.md", "RK105")] == "`id` is empty (expected NOTE-003 from the file name)"
    m = msgs[("NOTE-002.md", "RK105")]
    assert "`002` is read by YAML as an integer" in m and 'quote it (`id: "002"`)' in m
    m = msgs[("NOTE-004.md", "RK205")]
    assert m == "`created` is `{2026-01-01}` (the braces make this a mapping), not a date (YYYY-MM-DD)"
    for d in diags:
        assert not re.search(r"datetime\.|\{'|\['|<class|None\}", d["message"]), d["message"]


def test_missing_root_names_root_option_and_setting(tmp_path):
    proc = run_cli("--root", str(tmp_path / "nowhere"), "lint", cwd=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "--root" in proc.stderr and "root =" in proc.stderr and "nowhere" in proc.stderr
    (tmp_path / "recordkit.toml").write_text('root = "notes"\n', encoding="utf-8")
    proc = run_cli("show", "NOTE-001", cwd=tmp_path)
    assert proc.returncode == 2 and "set by root = in" in proc.stderr and "recordkit.toml" in proc.stderr


@pytest.mark.parametrize("args, what", [
    (["lint", ""], "an empty path"),
    (["lint", "records", ""], "an empty path"),
    (["show", ""], "an empty id"),
    (["show", "  "], "an empty id"),
    (["promote", ""], "an empty id"),
    (["rename", "", "THEORY-176"], "an empty id"),
    (["rename", "THEORY-175", ""], "an empty id"),
    (["merge", "LIT-849", ""], "an empty id"),
    (["new", "", "--title", "x"], "an empty kind"),
])
def test_an_empty_argument_is_a_usage_error(tmp_path, args, what):
    """A script's ``recordkit show "$ID"`` with ``$ID`` unset: ``lint ""``
    linted everything, ``show ""`` said "no record  under …"; now a usage
    error (exit 2) naming the argument, and nothing is written."""
    import shutil

    from conftest import REPO
    shutil.copytree(REPO / "records", tmp_path / "records")
    (tmp_path / "recordkit.toml").write_text('root = "records"\n')
    before = sorted((p, p.read_bytes()) for p in (tmp_path / "records").rglob("*") if p.is_file())
    proc = run_cli(*args, cwd=tmp_path)
    assert proc.returncode == 2 and what in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert sorted((p, p.read_bytes()) for p in (tmp_path / "records").rglob("*") if p.is_file()) == before
    # a file may be named " ": lint takes it as a path (and says it does not exist)
    if args == ["lint", ""]:
        proc = run_cli("lint", " ", cwd=tmp_path)
        assert proc.returncode in (0, 1) and "does not exist" in proc.stderr, proc.stderr


TAGGED = {"!!bool abc": (5, 4), "!!timestamp abc": (5, 4), "!!int ''": (5, 4), "!!float ''": (5, 4),
          "!!int 0x": (5, 4), "!!seq x": (5, 4), "!!map x": (5, 4), "!!set x": (5, 4),
          "!!map {a: !!bool abc}": (5, 14), "[1, !!timestamp 2026-02-30x]": (5, 8)}


@pytest.mark.slow
def test_a_scalar_its_tag_cannot_read_is_rk102_at_the_value(make_record):
    """``x: !!bool abc`` (and the like) was PyYAML's own KeyError, a
    traceback from every command; ``!!seq x`` kept a generator the cache
    could not pickle.  Each is RK102 at the value; the other records are
    read."""
    files = {f"note/NOTE-{i:03d}.md": f"---\nid: NOTE-{i:03d}\ntitle: T{i}\nstatus: draft\nx: {v}\n---\nb\n"
             for i, v in enumerate(TAGGED, 1)}
    files["note/NOTE-099.md"] = "---\nid: NOTE-099\ntitle: Fine\nstatus: draft\n---\nSee NOTE-001.\n"
    root = make_record(files)
    for cache in ([], ["--no-cache"]):
        proc = _ok(run_cli("--root", str(root), "lint", "--format", "json", *cache))
        got = {d["filename"].rsplit("/", 1)[-1]: (d["location"]["row"], d["location"]["column"])
               for d in json.loads(proc.stdout) if d["code"] == "RK102"}
        assert got == {f"NOTE-{i:03d}.md": pos for i, pos in enumerate(TAGGED.values(), 1)}
    for cmd in (["show", "NOTE-099"], ["graph", "--format", "json"], ["query", "select count(*) from records"]):
        _ok(run_cli("--root", str(root), *cmd), codes=(0,))


def test_show_says_why_a_record_is_missing(make_record):
    """``show`` of a record whose file does not parse said only "no record";
    an escape sequence in the argument was stripped from the message (so
    the id shown looked like one that exists)."""
    root = make_record({"note/NOTE-001.md": "---\nid: NOTE-001\ntitle: [x\n---\nb\n",
                        "note/NOTE-002.md": "---\nid: NOTE-002\ntitle: ok\nstatus: draft\n---\nb\n"})
    proc = _ok(run_cli("--root", str(root), "show", "NOTE-001"), codes=(2,))
    assert "note/NOTE-001.md would be NOTE-001, but it cannot be read: RK102" in proc.stderr, proc.stderr
    proc = _ok(run_cli("--root", str(root), "show", "NOTE-\x1b[31m002"), codes=(2,))
    assert "no record NOTE-\\x1b[31m002" in proc.stderr, proc.stderr
