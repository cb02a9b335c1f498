"""``pages:``: files of the record that are not typed records (an index, a
template).  A page is read for its links and can be linked to; it has no
kind, so no id shape, kind, field or section rule applies to it, and it is
not counted among the records without a kind (RK110)."""
import json

from conftest import run_cli, write

NOTE = "---\nid: NOTE-001\ntitle: A note\nstatus: draft\n---\nSee NOTE-002.\n"
NOTE2 = "---\nid: NOTE-002\ntitle: Another\nstatus: draft\n---\nBack to NOTE-001.\n"
INDEX = "# The index\n\nEvery note: NOTE-001, NOTE-002, and NOTE-404 (gone).\n"


def _project(tmp_path, pages: str):
    (tmp_path / "recordkit.toml").write_text('schema = "schema.yaml"\n', encoding="utf-8")
    (tmp_path / "schema.yaml").write_text(f"pages: {pages}\n", encoding="utf-8")
    write(tmp_path, "records/note/NOTE-001.md", NOTE)
    write(tmp_path, "records/note/NOTE-002.md", NOTE2)
    write(tmp_path, "records/README.md", INDEX)
    write(tmp_path, "records/drafts/Template.md", "---\nid: '{{id}}'\nstatus: '{{status}}'\n---\nNOTE-001\n")
    write(tmp_path, "records/note/drafts/NOTE-003.md", "---\nid: NOTE-003\ntitle: Third\nstatus: draft\n---\n")
    return tmp_path


def _lint(folder):
    p = run_cli("lint", "--no-cache", "--format", "json", "--exit-zero", cwd=folder)
    assert p.returncode == 0 and "Traceback" not in p.stderr, p.stderr
    return json.loads(p.stdout)


def test_without_pages_the_index_and_template_are_errors(tmp_path):
    """What ``pages`` is for: the same record with no ``pages`` key."""
    folder = _project(tmp_path, "[]")
    got = {(d["filename"], d["code"]) for d in _lint(folder)}
    assert ("records/README.md", "RK101") in got
    assert ("records/drafts/Template.md", "RK105") in got


def test_pages_are_read_for_links_and_not_checked_as_records(tmp_path):
    folder = _project(tmp_path, "[readme.md, 'drafts/*.md']")
    diags = _lint(folder)
    on_pages = [(d["code"], d["message"]) for d in diags if d["filename"] in ("records/README.md",
                                                                             "records/drafts/Template.md")]
    # the one diagnostic left on a page is about its link to nothing
    assert on_pages == [("RK305", "mention of NOTE-404, which does not exist")], on_pages
    assert not [d for d in diags if d["code"] in ("RK101", "RK105", "RK110")]
    out = folder / "g.json"
    p = run_cli("graph", "--format", "json", "-o", str(out), cwd=folder)
    assert p.returncode == 0, p.stderr
    g = json.loads(out.read_text(encoding="utf-8"))
    kind = {n["id"]: n.get("kind") for n in g["nodes"]}
    assert kind["README"] is None and kind["NOTE-003"] == "NOTE"   # a path glob is anchored at the root
    edges = {(e["source"], e["target"]) for e in g["links"]}
    assert {("README", "NOTE-001"), ("README", "NOTE-002")} <= edges


def test_the_schema_reports_what_a_page_is():
    from recordkit.schema import load_schema
    s = load_schema("preset:madr")
    assert s.is_page("README.md") and s.is_page("sub/Readme.md") and s.is_page("adr-template.md")
    assert not s.is_page("0001-readme.md") and not s.is_page("0002-index.md")
    assert not load_schema().page_globs and not load_schema().is_page("README.md")
