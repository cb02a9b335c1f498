"""Acceptance tests of issue 13 over four vaults written as Obsidian, Foam,
Dendron and MADR users write them (tests/fixtures/vaults/*/, each with an
``expected.json`` saying what the native tool resolves, what it cannot, and
the defects planted in it).

Each vault is copied to a temporary folder and run through the real CLI
with its preset: the lint says "does not exist" only of the links nothing
resolves, every link the tool resolves is an edge of ``graph --format
json``, ``--fix`` changes only what the safe fixes promise (every file's
bytes compared), and ``init --infer`` proposes a schema under which the
vault lints with no error but the planted ones.
"""
from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from conftest import run_cli, write

VAULTS = Path(__file__).resolve().parent.parent / "fixtures" / "vaults"
NAMES = ["obsidian", "foam", "dendron", "madr"]

#: what is still missing elsewhere for a vault to pass a test (each a strict
#: xfail: it fails the suite the day the gap is closed, so the mark goes)
GAPS: dict = {}


def params(test: str, names=NAMES):
    out = []
    for name in names:
        reason = GAPS.get((test, name))
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(name, marks=marks, id=name))
    return out


def expected(name: str) -> dict:
    return json.loads((VAULTS / name / "expected.json").read_text(encoding="utf-8"))


def copy_vault(name: str, dest: Path, preset: bool = True) -> Path:
    """The vault copied to ``dest``; with ``preset``, a recordkit.toml that
    names the vault's root and preset."""
    shutil.copytree(VAULTS / name, dest, symlinks=True)
    (dest / "expected.json").unlink()
    if preset:
        exp = expected(name)
        (dest / "recordkit.toml").write_text(f'root = "{exp.get("root", ".")}"\nschema = "preset:{exp["preset"]}"\n',
                                             encoding="utf-8")
    return dest


def lint_json(folder: Path, *extra) -> list[dict]:
    proc = run_cli("lint", "--no-cache", "--format", "json", "--exit-zero", *extra, cwd=folder)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    return json.loads(proc.stdout)


def rel(name: str, filename: str) -> str:
    """A lint filename (relative to the config's folder) as a path in the record."""
    root = expected(name).get("root", ".")
    prefix = "" if root in (".", "") else root.rstrip("/") + "/"
    return filename[len(prefix):] if prefix and filename.startswith(prefix) else filename


def missing_expected(exp: dict) -> Counter:
    return Counter((u["source"], "RK305" if u["relation"] == "link" else "RK301") for u in exp["unresolved"])


def no_fm(exp: dict) -> tuple[set, set]:
    """The notes without front matter (paths) and the names a link may call
    them by (file name, path without .md)."""
    paths = set(exp.get("no_front_matter", []))
    names = {p[:-3].rsplit("/", 1)[-1] for p in paths} | {p[:-3] for p in paths} | paths
    return paths, names


def about_no_fm(name: str, exp: dict, d: dict) -> bool:
    """Whether a diagnostic is in, or about a link to, a note without front
    matter."""
    paths, names = no_fm(exp)
    if rel(name, d["filename"]) in paths:
        return True
    if d["code"] in ("RK301", "RK305"):
        return any(f" {n}," in d["message"] or f" {n} " in d["message"] for n in names)
    return False


@pytest.mark.parametrize("name", params("missing"))
def test_no_false_does_not_exist(name, tmp_path):
    """RK301/RK305 ("does not exist") only on the links nothing resolves,
    each as many times as the vault writes it; no link called ambiguous
    (RK308: every link here names one note, as the tool resolves it)."""
    exp = expected(name)
    diags = lint_json(copy_vault(name, tmp_path / name))
    codes = ("RK301", "RK305", "RK308")
    got = Counter((rel(name, d["filename"]), d["code"]) for d in diags if d["code"] in codes)
    assert got == missing_expected(exp), [d["message"] for d in diags if d["code"] in codes]


@pytest.mark.parametrize("name", NAMES)
def test_planted_defects_are_reported(name, tmp_path):
    exp = expected(name)
    diags = lint_json(copy_vault(name, tmp_path / name))
    got = {(rel(name, d["filename"]), d["code"]) for d in diags}
    want = {(d["path"], d["code"]) for d in exp["diagnostics"]}
    assert want <= got, sorted(want - got)


@pytest.mark.parametrize("name", params("errors"))
def test_no_error_but_the_planted_ones(name, tmp_path):
    """With its preset, every error the lint gives is a planted defect or a
    link nothing resolves: the preset itself causes none."""
    exp = expected(name)
    diags = lint_json(copy_vault(name, tmp_path / name))
    allowed = {(d["path"], d["code"]) for d in exp["diagnostics"]} | set(missing_expected(exp))
    extra = [f'{d["filename"]}: {d["code"]} {d["message"]}' for d in diags
             if d["severity"] == "error" and (rel(name, d["filename"]), d["code"]) not in allowed]
    assert not extra, extra


def graph_edges(folder: Path, name: str) -> tuple[set, str]:
    out = folder / "graph.json"
    proc = run_cli("graph", "--format", "json", "-o", str(out), cwd=folder)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text(encoding="utf-8"))
    path_of = {n["id"]: n.get("path") for n in data["nodes"]}
    edges = {(path_of.get(e["source"]), path_of.get(e["target"]), e["relation"]) for e in data["links"]}
    return edges, path_of


@pytest.mark.parametrize("name", NAMES)
def test_every_native_link_is_an_edge(name, tmp_path):
    """Every link the native tool resolves (and those the preset resolves
    beyond it, by alias) is an edge of the exported graph, with the
    front-matter property's name as its relation, or the body-link relation."""
    from recordkit.schema import load_schema
    exp = expected(name)
    folder = copy_vault(name, tmp_path / name)
    edges, _ = graph_edges(folder, name)
    body = load_schema(f"preset:{exp['preset']}").mention_relation
    want = {(e["source"], e["target"], body if e["relation"] == "link" else e["relation"])
            for e in exp["edges"] + exp.get("beyond_native", [])}
    missing = sorted(want - edges)
    assert not missing, f"{len(missing)} of {len(want)} links are not edges: {missing[:10]}"


@pytest.mark.parametrize("name", [n for n in NAMES if expected(n).get("no_front_matter")])
def test_notes_without_front_matter_are_records(name, tmp_path):
    """A note with no front matter is a note all the same in these tools:
    no RK101 on it, links to and from it resolve (edges), none is reported
    as missing."""
    from recordkit.schema import load_schema
    exp = expected(name)
    folder = copy_vault(name, tmp_path / name)
    diags = lint_json(folder)
    paths, _ = no_fm(exp)
    assert not [d for d in diags if d["code"] == "RK101"]
    wrong = [d["message"] for d in diags if d["code"] in ("RK301", "RK305") and about_no_fm(name, exp, d)
             and (rel(name, d["filename"]), d["code"]) not in missing_expected(exp)]
    assert not wrong, wrong
    edges, _ = graph_edges(folder, name)
    body = load_schema(f"preset:{exp['preset']}").mention_relation
    want = {(e["source"], e["target"], body if e["relation"] == "link" else e["relation"]) for e in exp["edges"]
            if e["source"] in paths or e["target"] in paths}
    assert want and not sorted(want - edges)


@pytest.mark.parametrize("name", NAMES)
def test_fix_changes_only_what_safe_fixes_promise(name, tmp_path):
    """``lint --fix`` applies the safe fixes and nothing else: every file's
    bytes are compared with the original's."""
    exp = expected(name)
    folder = copy_vault(name, tmp_path / name)
    before = {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    proc = run_cli("lint", "--no-cache", "--fix", "--exit-zero", cwd=folder)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    after = {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
             and not p.relative_to(folder).as_posix().startswith(".recordkit/")}
    root = exp.get("root", ".")
    prefix = "" if root == "." else root + "/"
    promised = {}
    for f in exp.get("safe_fixes", []):
        key = prefix + f["path"]
        old = before[key].decode("utf-8")
        assert old.count(f["before"]) == 1
        promised[key] = old.replace(f["before"], f["after"]).encode("utf-8")
    assert set(after) == set(before)
    for key, data in after.items():
        assert data == promised.get(key, before[key]), f"{key} changed beyond the safe fixes"


@pytest.mark.slow
@pytest.mark.parametrize("name", params("infer"))
def test_init_infer_proposes_a_schema_the_vault_lints_under(name, tmp_path):
    """``init --infer`` on a copy: the schema it writes loads, and under it
    the vault lints with no error but the planted defects and the links
    nothing resolves (an inferred schema may be more lenient, never
    stricter)."""
    exp = expected(name)
    folder = copy_vault(name, tmp_path / name, preset=False)
    proc = run_cli("init", "--infer", exp.get("root", "."), cwd=folder)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    assert "kinds:" in proc.stdout and "links:" in proc.stdout
    assert (folder / "recordkit.toml").is_file() and (folder / "recordkit.schema.yaml").is_file()
    diags = lint_json(folder)
    allowed = {(d["path"], d["code"]) for d in exp["diagnostics"]} | set(missing_expected(exp))
    extra = [f'{d["filename"]}: {d["code"]} {d["message"]}' for d in diags
             if d["severity"] == "error" and (rel(name, d["filename"]), d["code"]) not in allowed]
    assert not extra, extra
    # links resolve under the inferred schema as under the preset
    edges, _ = graph_edges(folder, name)
    from recordkit.schema import load_schema
    body = load_schema(str(folder / "recordkit.schema.yaml")).mention_relation
    want = {(e["source"], e["target"], body if e["relation"] == "link" else e["relation"]) for e in exp["edges"]}
    assert not sorted(want - edges)


def test_infer_finds_each_vaults_shape(tmp_path):
    """What ``init --infer`` says of each vault: the id shape, the kind
    source, the link style."""
    said = {}
    for name in NAMES:
        folder = copy_vault(name, tmp_path / name, preset=False)
        proc = run_cli("init", "--infer", "--dry-run", expected(name).get("root", "."), cwd=folder)
        assert proc.returncode == 0, proc.stderr
        assert not (folder / "recordkit.toml").exists()
        said[name] = proc.stdout
    assert "ids: [path]" in said["obsidian"] and "`type:` field" in said["obsidian"]
    assert "resolved by path, stem, aliases, in any case" in said["obsidian"]
    assert "front-matter links 25" in said["obsidian"]
    assert "ids: [stem]" in said["foam"]
    assert "ids: [stem]" in said["dendron"] and "do not name their files" in said["dendron"]
    assert "first part of dotted file names" in said["dendron"] and "label-first" in said["dendron"]
    assert "date, in epoch milliseconds" in said["dendron"]
    # 15 decisions, 0001 without front matter (it was "14": only notes with front matter were counted)
    assert "id_pattern ^(?P<number>[0-9]{4})-" in said["madr"] and "ADR: 15 notes" in said["madr"]
    assert "pages: README.md (an index or a template" in said["madr"]
    assert "pages:" not in said["obsidian"] + said["foam"] + said["dendron"]
    assert "unique: pattern:number (no two notes" in said["madr"] and "unique: field:id (" in said["dendron"]
    assert "unique:" not in said["obsidian"] + said["foam"]
    assert "relations: superseded_by" in said["madr"] and "Markdown links to .md 34" in said["madr"]
    # a template's braces and a capitalised slip are no statuses of their own
    assert "statuses accepted, proposed, deprecated, superseded" in said["madr"]


def test_init_never_overwrites(tmp_path):
    folder = copy_vault("madr", tmp_path / "madr", preset=False)
    (folder / "recordkit.toml").write_text("# mine\n", encoding="utf-8")
    proc = run_cli("init", "--infer", "docs/decisions", cwd=folder)
    assert proc.returncode == 2
    assert "recordkit.toml exists" in proc.stderr and "Traceback" not in proc.stderr
    assert (folder / "recordkit.toml").read_text(encoding="utf-8") == "# mine\n"
    assert not (folder / "recordkit.schema.yaml").exists()
    (folder / "recordkit.toml").unlink()
    (folder / "recordkit.schema.yaml").write_text("kinds: {}\n", encoding="utf-8")
    proc = run_cli("init", cwd=folder)
    assert proc.returncode == 2 and "recordkit.schema.yaml exists" in proc.stderr
    assert not (folder / "recordkit.toml").exists()
    assert not [p for p in folder.iterdir() if p.name.endswith(".tmp")]


def test_init_with_a_preset_and_without_inference(tmp_path):
    folder = copy_vault("dendron", tmp_path / "dendron", preset=False)
    proc = run_cli("init", "--preset", "dendron", "notes", cwd=folder)
    assert proc.returncode == 0, proc.stderr
    assert "extends: preset:dendron" in (folder / "recordkit.schema.yaml").read_text(encoding="utf-8")
    toml = (folder / "recordkit.toml").read_text(encoding="utf-8")
    assert 'root = "notes"' in toml and 'schema = "recordkit.schema.yaml"' in toml
    diags = lint_json(folder)
    assert {d["code"] for d in diags if d["severity"] == "error"} <= {"RK107", "RK111", "RK204", "RK205"}
    bad = run_cli("init", "--preset", "roam", "notes", cwd=tmp_path / "dendron")
    assert bad.returncode == 2 and "unknown preset roam" in bad.stderr


def test_init_infer_survives_messy_input(tmp_path):
    """Binary files, broken YAML, a front matter that is a list, deep
    nesting, an unclosed fence, odd types: init --infer says what it found,
    writes a schema that loads, and never shows a traceback."""
    root = tmp_path / "notes"
    root.mkdir()
    (root / "binary.md").write_bytes(b"\xff\xfe\x00junk\x00" * 100)
    (root / "bad-yaml.md").write_text("---\ntitle: [unclosed\n---\nbody\n", encoding="utf-8")
    (root / "list.md").write_text("---\n- a\n- b\n---\n", encoding="utf-8")
    (root / "deep.md").write_text("---\nx: " + "[" * 200 + "]" * 200 + "\n---\n", encoding="utf-8")
    (root / "fence.md").write_text("---\ntype: note\nstatus: '{{status}}'\n---\n```\n[[inside code]]\n",
                                   encoding="utf-8")
    (root / "odd.md").write_text("---\ntype: [a, b]\n1: one\nstatus: 3\ncreated: 2026-02-30\ntags: {a: 1}\n"
                                 "up: '[[fence]]'\n---\n[[fence|label]] [x](<with space.md>) [[" + "[" * 5000
                                 + "\n", encoding="utf-8")
    (root / "empty.md").write_text("", encoding="utf-8")
    proc = run_cli("init", "--infer", "notes", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and "files: 7" in proc.stdout
    from recordkit.schema import load_schema
    schema = load_schema(str(tmp_path / "recordkit.schema.yaml"))
    assert "{{status}}" not in str(schema.raw)      # a template's braces are no status
    proc = run_cli("lint", "--no-cache", "--exit-zero", cwd=tmp_path)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr


def test_infer_on_generated_notes():
    """The library function on its own: kinds from `type:`, a relation from
    front-matter links, epoch dates, counts that follow the input."""
    from recordkit.schema.infer import Sample, infer

    def samples(n):
        return [Sample(f"d{i % 7}/note-{i}.md", {"type": f"t{i % 5}", "status": "open", "created": 1773273600000,
                                                 "tags": ["a/b"], "up": f"[[note-{i // 2}]]"},
                       f"# Note {i}\n[[note-{(i * 7) % n}]] and [x](note-{i + 1}.md)\n") for i in range(n)]
    small, big = infer(samples(500)), infer(samples(1000))
    assert small.link_counts["wikilinks"] * 2 == big.link_counts["wikilinks"]
    assert big.kinds["t0"]["count"] == 200 and big.fields["up"].relation
    assert big.fields["created"].spec == {"type": "date", "epoch": "ms"}


def test_init_infer_over_a_preset(tmp_path):
    """``--infer --preset obsidian``: the inferred schema extends the preset
    (its relations and link settings kept, the vault's kinds added), and the
    vault lints under it with no error but the planted ones."""
    exp = expected("obsidian")
    folder = copy_vault("obsidian", tmp_path / "obsidian", preset=False)
    proc = run_cli("init", "--infer", "--preset", "obsidian", ".", cwd=folder)
    assert proc.returncode == 0, proc.stderr
    assert "(17 with front matter)" in proc.stdout
    text = (folder / "recordkit.schema.yaml").read_text(encoding="utf-8")
    assert "extends: preset:obsidian" in text and "front_matter: optional" in text
    from recordkit.schema import load_schema
    schema = load_schema(str(folder / "recordkit.schema.yaml"))
    assert {"NOTE", "literature", "project"} <= set(schema.kinds) and "link-related" in schema.relations
    diags = lint_json(folder)
    allowed = {(d["path"], d["code"]) for d in exp["diagnostics"]} | set(missing_expected(exp))
    extra = [d["message"] for d in diags if d["severity"] == "error"
             and (rel("obsidian", d["filename"]), d["code"]) not in allowed]
    assert not extra, extra


@pytest.mark.slow
def test_tags_as_obsidian_and_foam_read_them(tmp_path):
    """A body's ``#tags`` are its note's (they were never read: the tag
    pages, the graph and the tags table lacked them), outside code,
    comments, headings and links' addresses, not ``#123``; ``tags: soil,
    carbon`` is two tags and ``tags: one`` is valid (it was one tag
    "soil, carbon" and an RK202 error)."""
    from conftest import write
    for preset in ("obsidian", "foam"):
        base = tmp_path / preset
        write(base, "Home.md", "---\ntags: [home]\n---\n# Heading\n"
              "Text #project/alpha #a-b_c and #123 and #1a, x#no, [[Home#Heading]] `#code`\n<!-- #hidden -->\n"
              "[l](http://x/#frag) <https://y/#frag2>\n\n```\n#fenced\n```\n#home again #trail/\n")
        write(base, "a.md", "---\ntags: soil, carbon\n---\nx\n")
        write(base, "b.md", "---\ntags: single-tag\n---\ny\n")
        (base / "recordkit.toml").write_text(f'root = "."\nschema = "preset:{preset}"\n')
        proc = run_cli("query", "select record, tag from tags order by record, rowid", "--format", "json", cwd=base)
        assert proc.returncode == 0, proc.stderr
        got = [(r["record"], r["tag"]) for r in json.loads(proc.stdout)]
        assert got == [("Home", "home"), ("Home", "project/alpha"), ("Home", "a-b_c"), ("Home", "1a"),
                       ("Home", "trail"), ("a", "soil"), ("a", "carbon"), ("b", "single-tag")], (preset, got)
        lint = run_cli("lint", "--format", "json", "--exit-zero", cwd=base)
        assert not [d for d in json.loads(lint.stdout) if d["code"] in ("RK202", "RK206")], lint.stdout


@pytest.mark.slow
def test_build_after_init_in_a_vault(tmp_path):
    """`init .` makes the vault's folder the root, and the site's default
    folder ./site is then inside it: `build` refused ("inside the record
    root") until given -o elsewhere.  It builds there (no .md file in it,
    so no record), again and again; the root itself is refused."""
    base = tmp_path / "v"
    shutil.copytree(VAULTS / "obsidian", base)
    assert run_cli("init", "--preset", "obsidian", ".", cwd=base).returncode == 0
    lint_before = run_cli("lint", "--format", "json", "--exit-zero", "--no-cache", cwd=base).stdout
    for _ in range(2):
        proc = run_cli("build", cwd=base)
        assert proc.returncode == 0, proc.stderr
    assert (base / "site" / "index.html").exists()
    assert run_cli("lint", "--format", "json", "--exit-zero", "--no-cache", cwd=base).stdout == lint_before
    proc = run_cli("build", "-o", ".", cwd=base)
    assert proc.returncode == 2 and "is the record root" in proc.stderr


def test_init_infer_gives_notes_without_front_matter_a_kind(tmp_path):
    """Every note with front matter had a `type:`, so no default kind was
    written, and the note without front matter was RK110 (no kind)."""
    for n in "abc":
        (tmp_path / f"{n}.md").write_text("---\ntype: concept\n---\n[[d]]\n")
    (tmp_path / "d.md").write_text("plain [[a]]\n")
    assert run_cli("init", "--infer", ".", cwd=tmp_path).returncode == 0
    assert "{default: NOTE}" in (tmp_path / "recordkit.schema.yaml").read_text()
    lint = run_cli("lint", "--format", "json", "--exit-zero", cwd=tmp_path)
    assert not [d for d in json.loads(lint.stdout) if d["code"] == "RK110"], lint.stdout


def test_a_superseded_by_link_to_no_decision_is_rk301(tmp_path):
    """MADR's `status: superseded by [ADR-0009](0009-nope.md)` naming no
    decision: the edge was dropped with nothing said.  Plain words
    (`superseded by ADR-0003`) are no link, and not reported."""
    d = tmp_path / "d"
    d.mkdir()
    (d / "0001-a.md").write_text('---\nstatus: "superseded by [ADR-0009](0009-nope.md)"\n---\n# A\n')
    (d / "0002-b.md").write_text("---\nstatus: superseded by [ADR-0003](0003-c.md)\n---\n# B\n")
    (d / "0003-c.md").write_text("---\nstatus: superseded by ADR-0001\n---\n# C\n")
    (tmp_path / "recordkit.toml").write_text('root = "d"\nschema = "preset:madr"\n')
    lint = run_cli("lint", "--format", "json", "--exit-zero", cwd=tmp_path)
    got = [(d["filename"].rsplit("/", 1)[-1], d["location"]["row"], d["message"])
           for d in json.loads(lint.stdout) if d["code"] == "RK301"]
    assert got == [("0001-a.md", 2, "`superseded_by` target 0009-nope.md (in `status`) does not exist")], got


@pytest.mark.slow
def test_a_subheading_link_names_its_last_heading(tmp_path):
    """Obsidian's [[Note#Part#Section]] names the Section under Part: it
    was RK309 ("no heading Part#Section") and the page's link went to the
    top."""
    (tmp_path / "N.md").write_text("# A\n## B\ntext\n")
    (tmp_path / "S.md").write_text("[[N#A#B]] and [[N#A#Missing]]\n")
    (tmp_path / "recordkit.toml").write_text('root = "."\nschema = "preset:obsidian"\n')
    lint = run_cli("lint", "--format", "json", "--exit-zero", cwd=tmp_path)
    got = [d["message"] for d in json.loads(lint.stdout) if d["code"] == "RK309"]
    assert got == ['`[[N#A#Missing]]`: N has no heading "Missing"'], got
    assert run_cli("build", "-o", str(tmp_path / "out"), "-q", cwd=tmp_path).returncode == 0
    page = (tmp_path / "out" / "note" / "S.html").read_text(encoding="utf-8")
    assert 'href="../note/N.html#b"' in page


def test_relative_wikilinks(tmp_path):
    """Obsidian writes [[../Areas/Goal]] and [[./Sibling]] with its
    "relative path" link format: they were RK305 and no edge, and dangling
    on the site.  Read from the linking file's folder, exactly."""
    for rel, text in {"Areas/Goal.md": "t\n", "P/A/Sib.md": "s\n", "Nope.md": "n\n",
                      "P/A/Doc.md": "[[../../Areas/Goal]] [[./Sib]] [[../Nope]]\n"}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    (tmp_path / "recordkit.toml").write_text('root = "."\nschema = "preset:obsidian"\n')
    lint = run_cli("lint", "--format", "json", "--exit-zero", cwd=tmp_path)
    assert [d["message"] for d in json.loads(lint.stdout) if d["code"] == "RK305"] == \
        ["wikilink of ../Nope, which does not exist"], lint.stdout     # (P/Nope, not the root's Nope)
    graph = json.loads(run_cli("graph", "--format", "json", cwd=tmp_path).stdout)
    assert sorted((e["source"], e["target"]) for e in graph["links"]) == [("P/A/Doc", "Areas/Goal"),
                                                                           ("P/A/Doc", "P/A/Sib")]
    assert run_cli("build", "-o", str(tmp_path / "out"), "-q", cwd=tmp_path).returncode == 0
    page = next((tmp_path / "out").rglob("p-a-doc-*.html")).read_text(encoding="utf-8")
    assert 'data-id="Areas/Goal">../../Areas/Goal</a>' in page and 'data-id="P/A/Sib">./Sib</a>' in page


@pytest.mark.slow
def test_obsidian_percent_comments_are_not_published_nor_read(tmp_path):
    """%% a comment %% is hidden in Obsidian's reading view: the site
    showed it as text, and a link in it was read (RK305 here)."""
    (tmp_path / "A.md").write_text("Visible %% SECRET1 [[Nowhere]] %% text.\n\n%%\nSECRET2 block\n%%\n\n"
                                   "`%% in code %%`\n\n50% done.\n")
    (tmp_path / "recordkit.toml").write_text('root = "."\nschema = "preset:obsidian"\n')
    lint = run_cli("lint", "--format", "json", "--exit-zero", cwd=tmp_path)
    assert not [d for d in json.loads(lint.stdout) if d["code"] == "RK305"], lint.stdout
    assert run_cli("build", "-o", str(tmp_path / "out"), "-q", cwd=tmp_path).returncode == 0
    assert not [p for p in (tmp_path / "out").rglob("*") if p.is_file() and b"SECRET" in p.read_bytes()]
    page = (tmp_path / "out" / "note" / "A.html").read_text(encoding="utf-8")
    assert "<p>Visible  text.</p>" in page and "<code>%% in code %%</code>" in page and "50% done." in page


def test_show_says_ambiguous_where_lint_says_rk308(tmp_path):
    """`show` called a link that names two notes "(missing)", where lint
    says RK308 (ambiguous): it names the candidates now."""
    for rel, text in {"A/Index.md": "a\n", "B/Index.md": "b\n",
                      "S.md": '---\nup: "[[Index]]"\n---\n[[Index]] and [[Nope]]\n'}.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    (tmp_path / "recordkit.toml").write_text('root = "."\nschema = "preset:obsidian"\n')
    out = run_cli("show", "S", cwd=tmp_path).stdout
    assert "up: Index — (ambiguous: A/Index or B/Index)" in out, out
    assert "Mentions Index (ambiguous: A/Index or B/Index), Nope (missing)" in out, out
    info = json.loads(run_cli("show", "S", "--format", "json", cwd=tmp_path).stdout)
    assert info["relations"]["up"][0]["ambiguous"] == ["A/Index", "B/Index"]


def test_obsidian_markdown_links_without_md(tmp_path):
    """Obsidian reads [a](Note%20One) as a link to Note One.md: it was no
    link at all (no edge, and no RK305 for a missing note).  A rename keeps
    the form; a path with an extension or a folder is not a note."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "Note One.md").write_text("# One\n## Part\n")
    (tmp_path / "T.md").write_text("[a](Note%20One) [b](Note%20One#part) [c](Missing%20Thing) "
                                   "[d](http://x.org/page) [e](image.png) [f](sub/)\n")
    (tmp_path / "recordkit.toml").write_text('root = "."\nschema = "preset:obsidian"\n')
    lint = run_cli("lint", "--format", "json", "--exit-zero", cwd=tmp_path)
    assert [d["message"] for d in json.loads(lint.stdout) if d["code"] in ("RK305", "RK309")] == \
        ["link to Missing Thing.md, which does not exist"], lint.stdout
    graph = json.loads(run_cli("graph", "--format", "json", cwd=tmp_path).stdout)
    assert [(e["source"], e["target"]) for e in graph["links"]] == [("T", "Note One")]
    assert run_cli("rename", "Note One", "Note Two", cwd=tmp_path).returncode == 0
    assert (tmp_path / "T.md").read_text() == ("[a](Note%20Two) [b](Note%20Two#part) [c](Missing%20Thing) "
                                               "[d](http://x.org/page) [e](image.png) [f](sub/)\n")


def test_obsidian_markdown_links_to_notes_with_a_dot_in_their_names(tmp_path):
    """``[a](v1.2%20notes)`` names ``v1.2 notes.md``: any dot in the name
    made it a file with an extension, so no link (no edge, no RK305, a
    rename left it stale).  An extension is a dot and up to 8 letters and
    digits with a letter: ``run.py``, ``clip.mp4`` are no notes."""
    (tmp_path / "v1.2 notes.md").write_text("Release notes.\n")
    (tmp_path / "Dr. Who.md").write_text("A doctor.\n")
    (tmp_path / "T.md").write_text("[a](v1.2%20notes) [b](Dr.%20Who) [c](v9.9%20notes) [d](run.py) "
                                   "[e](clip.mp4)\n")
    (tmp_path / "recordkit.toml").write_text('root = "."\nschema = "preset:obsidian"\n')
    lint = run_cli("lint", "--format", "json", "--exit-zero", cwd=tmp_path)
    assert [d["message"] for d in json.loads(lint.stdout) if d["code"] == "RK305"] == \
        ["link to v9.9 notes.md, which does not exist"], lint.stdout
    graph = json.loads(run_cli("graph", "--format", "json", cwd=tmp_path).stdout)
    assert sorted((e["source"], e["target"]) for e in graph["links"]) == [("T", "Dr. Who"), ("T", "v1.2 notes")]
    assert run_cli("rename", "v1.2 notes", "v1.3 notes", cwd=tmp_path).returncode == 0
    assert (tmp_path / "T.md").read_text() == ("[a](v1.3%20notes) [b](Dr.%20Who) [c](v9.9%20notes) [d](run.py) "
                                               "[e](clip.mp4)\n")
    site = tmp_path / "out"
    run_cli("build", "-o", str(site), "-q", cwd=tmp_path, check=True)
    page = (site / "note" / "T.html").read_text()
    assert 'data-id="v1.3 notes"' in page and 'data-id="Dr. Who"' in page, page


@pytest.mark.slow
def test_links_into_deep_folders_resolve_by_any_end_of_the_path(tmp_path):
    """The path index kept every end of every path: notes 900 folders deep
    took 3.4 s and 421 MB to lint (1.6 GB at 1,600 notes).  It keeps the
    ends of up to 8 parts and the whole path; a longer end is found from
    its last part, as before."""
    parts = [f"p{i}" for i in range(12)]
    deep = tmp_path / "v" / "/".join(parts)
    deep.mkdir(parents=True)
    (deep / "Note.md").write_text("Deep.\n")
    (tmp_path / "v" / "Other").mkdir()
    (tmp_path / "v" / "Other" / "Note.md").write_text("Other.\n")
    links = ["/".join(parts[k:]) + "/Note" for k in (0, 1, 3, 8, 11)]
    (tmp_path / "v" / "Top.md").write_text(" ".join(f"[[{t}]]" for t in links) + " [[p5/p6/p7/p8/p9/p10/p11/Nope]]\n")
    (tmp_path / "recordkit.toml").write_text('root = "v"\nschema = "preset:obsidian"\n')
    lint = run_cli("lint", "--format", "json", "--exit-zero", cwd=tmp_path)
    assert [d["message"] for d in json.loads(lint.stdout) if d["code"] in ("RK305", "RK308")] == \
        ["wikilink of p5/p6/p7/p8/p9/p10/p11/Nope, which does not exist"], lint.stdout
    graph = json.loads(run_cli("graph", "--format", "json", cwd=tmp_path).stdout)
    target = "/".join(parts) + "/Note"
    assert sorted({(e["source"], e["target"]) for e in graph["links"]}) == [("Top", target)]


def test_a_heading_inside_an_html_comment_is_no_anchor(tmp_path):
    """The site leaves comments out, so a heading in one is on no page: the
    lint's RK309 read it as a heading (markdown-it with raw HTML off parses
    it so) and passed a link the site sent to the page's top."""
    (tmp_path / "N.md").write_text("# N\n<!--\n## Hidden\n-->\n## Shown\n")
    (tmp_path / "S.md").write_text("[[N#Hidden]] [[N#Shown]]\n")
    (tmp_path / "recordkit.toml").write_text('root = "."\nschema = "preset:obsidian"\n')
    lint = run_cli("lint", "--format", "json", "--exit-zero", cwd=tmp_path)
    assert [d["message"] for d in json.loads(lint.stdout) if d["code"] == "RK309"] == \
        ['`[[N#Hidden]]`: N has no heading "Hidden"'], lint.stdout


def test_a_vault_of_deep_folders_lints_in_memory_linear_in_its_size(tmp_path):
    # 400 notes 900 folders deep took 421 MB (every end of every path in
    # the index, and in init --infer's): now about 40 MB
    import os
    import subprocess
    import sys
    folder = tmp_path / "v"
    folder.mkdir()
    (folder / "Top.md").write_text("[[N0]] [[d/N0]]\n")
    deep = folder
    for _ in range(600):
        deep = deep / "d"
        deep.mkdir()
    for i in range(300):
        (deep / f"N{i}.md").write_text(f"[[N{(i + 1) % 300}]] [[Top]]\n")
    (tmp_path / "recordkit.toml").write_text('root = "v"\nschema = "preset:obsidian"\n')
    probe = ("import sys\nfrom recordkit.cli import main\nsys.argv = ['recordkit'] + sys.argv[1:]\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             # (VmHWM, not ru_maxrss: that keeps the forking pytest's own peak across the exec)
             "hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1]\n"
             "print('RSS', hwm, file=sys.stderr)\n")
    try:
        for args in (["lint", "-q", "--no-cache"], ["init", "--infer", "--dry-run", "v"]):
            proc = subprocess.run([sys.executable, "-c", probe, *args], cwd=tmp_path, capture_output=True, text=True,
                                  timeout=300, env=dict(os.environ, RECORDKIT_CLEAN_EXIT="1"))
            rss_kb = int(proc.stderr.rsplit("RSS ", 1)[1])
            assert rss_kb < 100_000, (args, rss_kb, proc.stderr[-500:])     # (before: 171 MB for lint)
    finally:
        subprocess.run(["rm", "-rf", str(folder)], check=False)


def test_a_madr_decision_superseded_by_another_has_the_status_superseded(tmp_path):
    """MADR writes ``status: superseded by [ADR-0002](0002-….md)``: lint
    accepted it, but the graph, RK406, the site's status pages and query
    read the whole string as the status (not faded, nothing reported for a
    decision building on it, a status page per superseded decision)."""
    body = "\n## Context and Problem Statement\n\nx\n\n## Decision Outcome\n\ny\n"
    write(tmp_path, "dec/0001-use-sqlite.md",
          "---\nstatus: superseded by [ADR-0002](0002-use-duckdb.md)\ndate: 2024-01-01\n---\n# Use SQLite\n" + body)
    write(tmp_path, "dec/0002-use-duckdb.md", "---\nstatus: accepted\ndate: 2024-02-01\n---\n# Use DuckDB\n" + body)
    write(tmp_path, "dec/0003-query-layer.md", "---\nstatus: accepted\ndate: 2024-03-01\n"
          "depends_on: [\"[[0001-use-sqlite]]\"]\n---\n# Query layer\n" + body)
    (tmp_path / "recordkit.toml").write_text('root = "dec"\nschema = "s.yaml"\n')
    (tmp_path / "s.yaml").write_text("extends: preset:madr\nrelations:\n"
                                     "  depends_on: {from: [ADR], to: [ADR], builds_on: true}\n")
    lint = run_cli("lint", cwd=tmp_path)
    assert "RK406 builds on 0001-use-sqlite (depends_on), which is superseded" in lint.stdout, lint.stdout
    graph = json.loads(run_cli("graph", "--format", "json", cwd=tmp_path).stdout)
    assert {n["id"]: n["status"] for n in graph["nodes"]}["0001-use-sqlite"] == "superseded"
    assert [(e["source"], e["target"]) for e in graph["links"] if e.get("relation") == "superseded_by"] == \
        [("0001-use-sqlite", "0002-use-duckdb")]
    run_cli("build", "-o", "site", "-q", cwd=tmp_path, check=True)
    assert sorted(p.name for p in (tmp_path / "site" / "status").iterdir()) == ["accepted.html", "superseded.html"]
    q = run_cli("query", "select status from records where id = '0001-use-sqlite'", "--format", "csv", cwd=tmp_path)
    assert q.stdout == "status\nsuperseded\n"


@pytest.mark.slow
def test_dendron_epoch_dates_are_shown_as_dates(tmp_path):
    """Dendron writes created/updated as epoch milliseconds: query and the
    page's header gave dates, but show and the site's Properties printed
    1767434400000."""
    write(tmp_path, "notes/proj.md", "---\nid: a1\ntitle: Proj\n---\n\nSee [[eval]].\n")
    write(tmp_path, "notes/eval.md", "---\nid: c3\ntitle: Bench\nupdated: 1772363700000\ncreated: 1767434400000\n"
          "---\n\nx [[proj]]\n")
    (tmp_path / "recordkit.toml").write_text('root = "notes"\nschema = "preset:dendron"\n')
    out = run_cli("show", "eval", cwd=tmp_path).stdout
    assert "Updated: 2026-03-01" in out and "Created: 2026-01-03" in out and "1767434400000" not in out, out
    info = json.loads(run_cli("show", "eval", "--format", "json", cwd=tmp_path).stdout)
    assert info["dates"] == {"updated": "2026-03-01", "created": "2026-01-03"}
    assert info["fields"]["created"] == 1767434400000
    run_cli("build", "-o", "site", "-q", cwd=tmp_path, check=True)
    page = (tmp_path / "site" / "note" / "eval.html").read_text()
    assert "<dt>Created</dt>\n<dd><ul class=\"rk-items\">\n<li>2026-01-03</li>" in page
    assert "1767434400000" not in page and "1772363700000" not in page
