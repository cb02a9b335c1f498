"""Obsidian's own property values, through the real CLI: a "Date & time"
property (written without seconds, which YAML reads as text) and the
blank ``tags:`` / ``aliases:`` of a template are not errors."""
from __future__ import annotations

import json

import pytest

from conftest import run_cli


def vault(tmp_path, notes: dict):
    base = tmp_path / "vault"
    (base / ".obsidian").mkdir(parents=True)
    (base / "recordkit.toml").write_text('root = "."\nschema = "preset:obsidian"\n')
    for name, text in notes.items():
        (base / name).write_text(text, encoding="utf-8")
    return base


def codes(base) -> list[tuple]:
    proc = run_cli("lint", "--format", "json", "--exit-zero", cwd=base)
    assert proc.returncode == 0, proc.stderr
    return sorted((d["filename"], d["code"], d["location"]["row"]) for d in json.loads(proc.stdout)
                  if d["code"] != "RK307")


@pytest.mark.slow
def test_a_date_and_time_property_is_a_date(tmp_path):
    """``created: 2026-02-03T14:05`` (Obsidian's Date & time) was RK205
    "not a date"; a date and time that is no real one still is."""
    base = vault(tmp_path, {
        "Dt.md": "---\ncreated: 2026-02-03T14:05\nupdated: 2026-01-02 10:00\ndate: 2026-01-02T10:00:30+01:00\n---\nx\n",
        "Bad.md": "---\ncreated: 2026-02-03T25:05\nupdated: 2026-02-30T10:00\n---\nx\n"})
    assert codes(base) == [("Bad.md", "RK205", 2), ("Bad.md", "RK205", 3)]
    proc = run_cli("build", "-o", "site", "-q", cwd=base)
    assert proc.returncode == 0, proc.stderr


def test_blank_list_properties_are_empty(tmp_path):
    """A template's blank ``tags:`` and ``aliases:`` (null to YAML, an empty
    property to Obsidian) were RK202 errors."""
    base = vault(tmp_path, {"E.md": "---\ntags:\naliases:\ncssclasses:\n---\nx\n",
                            "T.md": "---\ntags: 5\n---\nx\n"})
    assert codes(base) == [("T.md", "RK202", 2)]


@pytest.mark.slow
def test_rename_refuses_a_name_obsidian_or_a_link_cannot_take(tmp_path):
    """``rename A "Why? a: b*c"`` made a file Obsidian refuses (and
    Windows cannot hold), ``"N#x^y"`` one no link can name; new already
    cleaned such names, rename did not."""
    base = vault(tmp_path, {"A.md": "x\n", "B.md": "See [[A]].\n"})
    for name, said in (("Why? a: b*c", "may not hold * : ?"), ("N#x^y", "may not hold # ^"),
                       ("a|b", "may not hold |"), ("x[1]", "may not hold [ ]")):
        proc = run_cli("rename", "A", name, cwd=base)
        assert proc.returncode == 2 and said in proc.stderr, (name, proc.stderr)
    assert sorted(p.name for p in base.glob("*.md")) == ["A.md", "B.md"]
    proc = run_cli("rename", "A", "Plain (new) name", cwd=base)
    assert proc.returncode == 0, proc.stderr
    assert (base / "B.md").read_text() == "See [[Plain (new) name]].\n"


def test_the_site_shows_attachments_and_names_a_missing_one(tmp_path):
    """``![[image.png|200]]`` showed "200" (its size) in place of the file's
    name, then only the name; now the image is copied into the site and
    shown at its size (docs/site.md, "Attachments").  A missing file is
    named as text (no broken link); a remote image stays a link (never
    loaded)."""
    base = vault(tmp_path, {"Pics.md": "One ![[image.png|200]] two ![[doc.pdf]] three "
                                       "![alt text](attachments/image.png) four ![r](https://example.org/x.png).\n"})
    (base / "attachments").mkdir()
    (base / "attachments" / "image.png").write_bytes(b"\x89PNG")
    proc = run_cli("build", "-o", "site", "-q", cwd=base)
    assert proc.returncode == 0, proc.stderr
    page = next((base / "site").rglob("Pics*.html")).read_text(encoding="utf-8")
    body = page.split('<div class="rk-body">', 1)[1].split("</div>", 1)[0]
    assert '<img class="rk-image" src="../files/attachments/image.png" alt="image.png" width="200"' in body, body
    assert ">200<" not in body
    assert '<span class="rk-attachment" title="attachment not found">doc.pdf</span>' in body, body
    assert 'src="../files/attachments/image.png" alt="alt text"' in body, body
    assert (base / "site" / "files" / "attachments" / "image.png").read_bytes() == b"\x89PNG"
    assert '<a class="rk-image" href="https://example.org/x.png"' in body and "example.org/x.png\"" not in body.replace(
        'href="https://example.org/x.png"', "")


def test_rename_and_merge_rewrite_links_in_any_property(tmp_path):
    """``project: "[[Target]]"`` (a property that is no relation of the
    preset) kept the old name after a rename, a link Obsidian would show
    broken; Obsidian updates a link in any property.  Other values, and a
    link to another note, are left as they are."""
    base = vault(tmp_path, {
        "Target.md": "Body.\n", "Else.md": "Else.\n", "Other.md": "Other.\n",
        "Src.md": '---\nproject: "[[Target]]"\nup: "[[Target]]"\nrefs:\n  - "[[Target|the target]]"\n'
                  '  - plain\n  - "[[Else]]"\nnote: Target is here\n---\nSee [[Target]].\n'})
    proc = run_cli("rename", "Target", "Target two", cwd=base)
    assert proc.returncode == 0, proc.stderr
    assert (base / "Src.md").read_text() == (
        '---\nproject: "[[Target two]]"\nup: "[[Target two]]"\nrefs:\n  - "[[Target two|the target]]"\n'
        '  - plain\n  - "[[Else]]"\nnote: Target is here\n---\nSee [[Target two]].\n')
    proc = run_cli("merge", "Target two", "Other", cwd=base)
    assert proc.returncode == 0, proc.stderr
    assert (base / "Src.md").read_text().startswith('---\nproject: "[[Other]]"\nup: "[[Other]]"\nrefs:\n'
                                                   '  - "[[Other|the target]]"\n')


@pytest.mark.slow
def test_a_single_line_break_is_a_line_break_on_an_obsidian_site(tmp_path):
    """Obsidian's reading view keeps a note's lines (its "Strict line
    breaks" is off by default); the site ran them into one line.  The
    Obsidian preset says ``line_breaks: true``; the research record's
    schema keeps CommonMark's soft breaks."""
    base = vault(tmp_path, {"Lines.md": "key:: one\nother:: two\n\nA paragraph\nstill.\n"})
    proc = run_cli("build", "-o", "site", "-q", cwd=base)
    assert proc.returncode == 0, proc.stderr
    page = next((base / "site").rglob("Lines*.html")).read_text(encoding="utf-8")
    assert "<p>key:: one<br />\nother:: two</p>" in page and "<p>A paragraph<br />\nstill.</p>" in page, page
    (base / "recordkit.toml").write_text('root = "."\nschema = "preset:obsidian"\n')
    (base / "schema.yaml").write_text("extends: preset:obsidian\nline_breaks: false\n")
    (base / "recordkit.toml").write_text('root = "."\nschema = "schema.yaml"\n')
    proc = run_cli("build", "-o", "site2", "-q", cwd=base)
    assert proc.returncode == 0, proc.stderr
    page = next((base / "site2").rglob("Lines*.html")).read_text(encoding="utf-8")
    assert "<p>key:: one\nother:: two</p>" in page, page


def test_a_blank_relation_property_is_empty(tmp_path):
    """A template's blank ``up:`` / ``down:`` (null) was RK202 "must be a
    string or a list, not null"; it is a relation with no target."""
    base = vault(tmp_path, {"E.md": "---\nup:\ndown:\n---\nx\n"})
    assert codes(base) == []


def test_a_blank_required_relation_is_said_empty_where_it_is(tmp_path):
    """The research record's THEORY with ``source:`` and nothing after it was
    RK202 "not null" and RK201 "missing" at 1:1; it is one RK201, "is
    empty", at its key."""
    import shutil
    from conftest import REPO
    shutil.copytree(REPO / "records", tmp_path / "records")
    (tmp_path / "recordkit.toml").write_text('root = "records"\n')
    p = tmp_path / "records" / "theory" / "THEORY-798.md"
    lines = p.read_text(encoding="utf-8").split("\n")
    k = next(i for i, line in enumerate(lines) if line.startswith("source:"))
    lines[k] = "source:"
    p.write_text("\n".join(lines), encoding="utf-8")
    proc = run_cli("lint", "--format", "json", "--exit-zero", "records/theory/THEORY-798.md", cwd=tmp_path)
    mine = [(d["code"], d["message"], d["location"]["row"]) for d in json.loads(proc.stdout)
            if d["filename"].endswith("THEORY-798.md") and d["code"] in ("RK201", "RK202")]
    assert mine == [("RK201", "required field `source` is empty", k + 1)], mine
