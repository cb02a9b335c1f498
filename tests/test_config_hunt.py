"""Defects found by hunting the configuration, the schema and the CLI with
real files: each test runs the real command line (``run_cli``) and failed
before its fix."""
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import run_cli, write


def _vault(tmp_path: Path) -> Path:
    """An Obsidian vault in tmp_path/notes whose notes link, with Markdown
    links, to a file in a skipped folder and to one outside the root."""
    write(tmp_path, "recordkit.toml", 'root = "notes"\nschema = "preset:obsidian"\n')
    write(tmp_path, "notes/a.md", "see [d](_attic/old.md) and [[b]]\n")
    write(tmp_path, "notes/b.md", "x [[a]] and [o](../out.md)\n")
    return tmp_path / "notes"


# -- 1. the lint cache and the files links point to that are no records ------

@pytest.mark.slow
def test_lint_cache_sees_a_linked_file_that_is_no_record_deleted_or_created(tmp_path):
    notes = _vault(tmp_path)
    write(notes, "_attic/old.md", "old\n")
    write(tmp_path, "out.md", "out\n")
    first = run_cli("lint", cwd=tmp_path)
    assert first.returncode == 0 and "RK305" not in first.stdout, first.stdout + first.stderr
    again = run_cli("lint", cwd=tmp_path)
    assert "(cached)" in again.stdout, again.stdout          # the cache still answers when nothing changed

    (notes / "_attic/old.md").unlink()                       # a skipped folder's file deleted
    proc = run_cli("lint", cwd=tmp_path)
    assert "notes/a.md:1:5: RK305 link to _attic/old.md, which does not exist" in proc.stdout, proc.stdout
    assert "(cached)" not in proc.stdout
    assert proc.stdout == run_cli("lint", "--no-cache", cwd=tmp_path).stdout

    (tmp_path / "out.md").unlink()                           # a file outside the root deleted
    proc = run_cli("lint", cwd=tmp_path)
    assert "RK305 link to ../out.md, which is outside the record root" in proc.stdout, proc.stdout

    write(notes, "_attic/old.md", "back\n")                  # and created again: both directions
    write(tmp_path, "out.md", "back\n")
    proc = run_cli("lint", cwd=tmp_path)
    assert "RK305" not in proc.stdout and "All checks passed" in proc.stdout, proc.stdout
    assert "(cached)" not in proc.stdout


# -- 2. rule codes in the configuration ----------------------------------------

_NOTE = """\
    ---
    id: NOTE-001
    title: A note
    status: drafty
    ---
    See LIT-999.
    """


@pytest.mark.parametrize("lint,at,what", [
    ('select = ["RK2O1"]', ":2:1", "select: unknown rule code or prefix: RK2O1"),
    ('ignore = ["RK305", "rk9"]', ":2:1", "ignore: unknown rule code or prefix: rk9"),
    ('extend-select = ["XX1"]', ":2:1", "extend-select: unknown rule code or prefix: XX1"),
    ('select = [""]', ":2:1", "select: unknown rule code or prefix: ''"),
    ('per-file-ignores = {"lit/*" = ["RK2O7"]}', ":2:1", "per-file-ignores of lit/*: unknown rule code or prefix: RK2O7"),
    ('severity = {RK3O5 = "error"}', ":2:1", "severity of RK3O5: unknown rule code or prefix: RK3O5"),
])
def test_an_unknown_rule_code_in_the_configuration_is_a_configuration_error(tmp_path, make_record, lint, at, what):
    make_record({"NOTE-001.md": _NOTE})
    write(tmp_path, "recordkit.toml", f"[lint]\n{lint}\n")
    proc = run_cli("lint", "--no-cache", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"recordkit.toml{at}: {what} (see `recordkit rule --all`)" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr
    # in [lint.severity] / [lint.per-file-ignores] tables: the key's own line
    write(tmp_path, "recordkit.toml", '[lint.severity]\nRK305 = "error"\nrk30x = "info"\n')
    proc = run_cli("lint", "--no-cache", cwd=tmp_path)
    assert proc.returncode == 2 and "recordkit.toml:3:1: severity of rk30x: unknown rule code" in proc.stderr, \
        proc.stderr
    write(tmp_path, "pyproject.toml", '[tool.recordkit.lint.per-file-ignores]\n"*" = ["RK1", "nope"]\n')
    (tmp_path / "recordkit.toml").unlink()
    proc = run_cli("lint", "--no-cache", cwd=tmp_path)
    assert proc.returncode == 2 and "pyproject.toml:2:1: per-file-ignores of *: unknown rule code or prefix: nope" \
        in proc.stderr, proc.stderr


def test_configured_codes_take_prefixes_and_any_case_as_the_command_line_does(tmp_path, make_record):
    make_record({"NOTE-001.md": _NOTE})
    write(tmp_path, "recordkit.toml", '[lint]\nselect = ["rk30"]\nseverity = {rk3 = "error", Rk307 = "info"}\n')
    proc = run_cli("lint", "--no-cache", cwd=tmp_path)
    assert "RK204" not in proc.stdout, proc.stdout                    # only RK30x selected
    assert "NOTE-001.md:6:5: RK305 mention of LIT-999" in proc.stdout, proc.stdout
    assert "Found 1 error, 0 warnings, 1 info" in proc.stdout, proc.stdout    # RK305 an error, RK307 info
    assert proc.returncode == 1
    out = run_cli("lint", "--no-cache", "--format", "json", cwd=tmp_path).stdout
    import json
    sev = {d["code"]: d["severity"] for d in json.loads(out)}
    assert sev == {"RK305": "error", "RK307": "info"}, sev


@pytest.mark.slow
def test_extend_select_adds_to_the_selected_rules_as_in_ruff(tmp_path, make_record):
    make_record({"NOTE-001.md": _NOTE})
    # alone: every rule, and these (it selected only what it listed)
    write(tmp_path, "recordkit.toml", '[lint]\nextend-select = ["RK305"]\n')
    proc = run_cli("lint", "--no-cache", cwd=tmp_path)
    assert "RK204" in proc.stdout and "RK305" in proc.stdout and "RK307" in proc.stdout, proc.stdout
    # with select: select's rules and these
    write(tmp_path, "recordkit.toml", '[lint]\nselect = ["RK2"]\nextend-select = ["RK305"]\n')
    proc = run_cli("lint", "--no-cache", cwd=tmp_path)
    assert "RK204" in proc.stdout and "RK305" in proc.stdout and "RK307" not in proc.stdout, proc.stdout
    # more specific than an ignore, it wins over it
    write(tmp_path, "recordkit.toml", '[lint]\nignore = ["RK3"]\nextend-select = ["RK305"]\n')
    proc = run_cli("lint", "--no-cache", cwd=tmp_path)
    assert "RK204" in proc.stdout and "RK305" in proc.stdout and "RK307" not in proc.stdout, proc.stdout
    # --select on the command line replaces both
    proc = run_cli("lint", "--no-cache", "--select", "RK307", cwd=tmp_path)
    assert "RK204" not in proc.stdout and "RK305" not in proc.stdout, proc.stdout


# -- 3. statuses written as one string -------------------------------------------

@pytest.mark.parametrize("schema,message", [
    ("kinds:\n  LIT:\n    statuses: queued\n",
     "s.yaml: kinds.LIT.statuses must be a list of names, such as [draft, final], not queued (write [queued] for one)"),
    ("kinds:\n  NOTE:\n    sections:\n      - title: Summary\n        statuses: final\n",
     "s.yaml: kinds.NOTE.sections.Summary.statuses must be a list of names, such as [final], not final"),
])
def test_statuses_written_as_one_string_are_a_configuration_error(tmp_path, make_record, schema, message):
    make_record({"LIT-001.md": "---\nid: LIT-001\ntitle: A work\nstatus: queued\nauthors: [A]\nyear: 2020\n---\n"})
    write(tmp_path, "recordkit.toml", 'schema = "s.yaml"\n')
    write(tmp_path, "s.yaml", schema)
    for args in (["lint", "--no-cache"], ["show", "LIT-001"]):
        proc = run_cli(*args, cwd=tmp_path)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert message in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
        assert "q, u, e" not in proc.stdout
    write(tmp_path, "s.yaml", schema.replace("queued", "[queued]").replace("statuses: final", "statuses: [final]"))
    assert run_cli("lint", "--no-cache", cwd=tmp_path).returncode in (0, 1)


# -- 4. [tool.recordkit] that is no table ------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("toml,message", [
    ("[tool]\nrecordkit = 5\n", ":2:1: tool.recordkit must be a table ([tool.recordkit], with keys such as "
                                'root = "records"), not 5'),
    ('tool = "x"\n', ":1:1: tool must be a table ([tool.recordkit] holds recordkit's configuration), not \"x\""),
    ("[tool]\nrecordkit = [1]\n", ":2:1: tool.recordkit must be a table"),
    ('[project]\nname = "p"\n[tool]\nrecordkit = "abc"\n', ':4:1: tool.recordkit must be a table ([tool.recordkit], '
                                                           'with keys such as root = "records"), not "abc"'),
])
def test_a_tool_recordkit_that_is_no_table_is_a_configuration_error(tmp_path, toml, message):
    (tmp_path / "records").mkdir()
    write(tmp_path, "pyproject.toml", toml)
    for args in (["lint"], ["--config", "pyproject.toml", "lint"], ["query", "SELECT 1"]):
        proc = run_cli(*args, cwd=tmp_path)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert "Traceback" not in proc.stderr and "unknown configuration key" not in proc.stderr, proc.stderr
        assert f"pyproject.toml{message}" in proc.stderr, proc.stderr
    # a pyproject.toml whose [tool] has no recordkit is passed over, as before
    write(tmp_path, "pyproject.toml", '[tool.black]\nline-length = 100\n')
    assert run_cli("lint", cwd=tmp_path).returncode == 0


# -- 5. a symbolic link loop as the record root or the schema -------------------------

_COMMANDS = [["lint"], ["lint", "--no-cache"], ["export", "--sqlite", "out.sqlite"], ["query", "SELECT 1"],
             ["build", "-q", "-o", "site"], ["show", "X-1"], ["graph", "--format", "json"], ["check"], ["promote"]]


@pytest.mark.slow
@pytest.mark.parametrize("setup,message", [
    ('root = "loop"\n', "record root {tmp}/loop is a symbolic link loop (a link that leads, through links, back "
                        "to itself) (set by root = in {tmp}/recordkit.toml)"),
    ("--root", "record root loop is a symbolic link loop (a link that leads, through links, back to itself) "
               "(given by --root loop)"),
    ('schema = "loop"\n', "{tmp}/loop: cannot read the schema file: it is a symbolic link loop"),
])
def test_a_symlink_loop_as_root_or_schema_is_a_configuration_error(tmp_path, setup, message):
    (tmp_path / "records").mkdir()
    (tmp_path / "loop").symlink_to("loop")
    before = []
    if setup == "--root":
        before = ["--root", "loop"]
    else:
        write(tmp_path, "recordkit.toml", setup)
    for args in _COMMANDS:
        proc = run_cli(*before, *args, cwd=tmp_path)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr[-2000:])
        assert "Traceback" not in proc.stderr and "does not exist" not in proc.stderr, (args, proc.stderr[-2000:])
        assert message.format(tmp=tmp_path) in proc.stderr, (args, proc.stderr)


# -- 6. graph --format dot: backslashes in ids and titles ------------------------------------

def test_dot_export_keeps_backslashes_in_ids_and_titles(tmp_path):
    import html
    import re
    write(tmp_path, "recordkit.toml", 'root = "notes"\nschema = "preset:obsidian"\n')
    write(tmp_path, "notes/a\\.md", "x [[b]]\n")                    # a note named `a\`
    write(tmp_path, "notes/b.md", '---\ntitle: "C:\\\\new \\\\N and \\"q\\""\n---\ny\n')
    proc = run_cli("graph", "--format", "dot", "-o", "g.dot", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    dot_text = (tmp_path / "g.dot").read_text(encoding="utf-8")
    pydot = pytest.importorskip("pydot")
    import networkx as nx
    (parsed,) = pydot.graph_from_dot_data(dot_text)                 # it parses: two nodes, their edges
    g = nx.nx_pydot.from_pydot(parsed)
    assert g.number_of_nodes() == 2 and g.number_of_edges() == 1, dot_text

    def unescape(s):       # a DOT quoted string as Graphviz reads a label (escString)
        s = s[1:-1] if len(s) > 1 and s[0] == s[-1] == '"' else s
        return re.sub(r'\\(.)', lambda m: {"n": "\n"}.get(m.group(1), m.group(1)), s)
    labels = {unescape(n): unescape(d["label"]) for n, d in g.nodes(data=True)}
    assert labels == {"a\\": "a\\\na\\", "b": 'b\nC:\\new \\N and "q"'}, (labels, dot_text)
    if shutil.which("dot"):
        r = subprocess.run(["dot", "-Tsvg"], input=dot_text, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        texts = [html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", r.stdout)]
        assert texts.count("a\\") == 2 and 'C:\\new \\N and "q"' in texts, texts


# -- 7. a table that is no table ---------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("toml,message", [
    ("lint = false\n", ":1:1: lint must be a table ([lint] in recordkit.toml, [tool.recordkit.lint] in pyproject.toml)"),
    ("lint = []\n", ":1:1: lint must be a table"),
    ("site = false\n", ":1:1: site must be a table ([site] in recordkit.toml, [tool.recordkit.site] in pyproject.toml)"),
    ('site = ""\n', ":1:1: site must be a table"),
    ("queries = false\n", ":1:1: queries must be a table ([queries] in recordkit.toml"),
    ("[lint]\nseverity = []\n", ':2:1: severity must be a table of code = "error", "warning" or "info"'),
    ('[lint]\nper-file-ignores = ""\n', ":2:1: per-file-ignores must be a table of pattern = [codes]"),
    ("[lint]\nper-file-ignores = false\n", ":2:1: per-file-ignores must be a table of pattern = [codes]"),
])
def test_a_falsy_value_where_a_table_belongs_is_a_configuration_error(tmp_path, toml, message):
    (tmp_path / "records").mkdir()
    write(tmp_path, "recordkit.toml", toml)
    for args in (["lint", "--no-cache"], ["build", "-q", "-o", "site"], ["query", "SELECT 1"]):
        proc = run_cli(*args, cwd=tmp_path)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert f"recordkit.toml{message}" in proc.stderr and "Traceback" not in proc.stderr, (args, proc.stderr)
    # an empty table is a table
    write(tmp_path, "recordkit.toml", "[lint]\nseverity = {}\n[site]\n[queries]\n")
    assert run_cli("lint", "--no-cache", cwd=tmp_path).returncode == 0


# -- 8. init --schema-file recordkit.toml ----------------------------------------------

@pytest.mark.parametrize("name", ["recordkit.toml", "./sub/../recordkit.toml"])
def test_init_refuses_a_schema_file_named_as_the_configuration(tmp_path, name):
    write(tmp_path, "notes/a.md", "# A note\n")
    proc = run_cli("init", "--schema-file", name, "notes", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert (f"--schema-file {name}: the schema file and recordkit.toml would have the same name" in proc.stderr), \
        proc.stderr
    assert "appeared while init ran" not in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes"]          # nothing written


def test_a_check_key_is_an_unknown_key(tmp_path):
    """``check`` was a known key that nothing read: ``[check] timeout = 5``
    was accepted and had no effect.  It is unknown, as any other."""
    from conftest import run_cli, write
    write(tmp_path, "records/QUESTION-001.md", "---\nid: QUESTION-001\ntitle: q\nstatus: open\n---\nBody.\n")
    (tmp_path / "recordkit.toml").write_text('root = "records"\n[check]\ntimeout = 5\n')
    proc = run_cli("lint", cwd=tmp_path)
    assert proc.returncode == 2 and "unknown configuration key(s): check" in proc.stderr, proc.stderr
