"""Identity, kind and title as the schema says (``id_from``, ``kind_from``,
``title_from``), through the real CLI on real files: what ``graph --format
json`` says of each node, and what the lint says."""
import json
import textwrap
from pathlib import Path

import recordkit
from recordkit.config import load_config

from conftest import run_cli, write


def _vault(tmp_path: Path, schema: str, files: dict[str, str]) -> Path:
    (tmp_path / "schema.yaml").write_text(textwrap.dedent(schema).lstrip("\n"), encoding="utf-8")
    (tmp_path / "recordkit.toml").write_text('root = "vault"\nschema = "schema.yaml"\n', encoding="utf-8")
    for rel, text in files.items():
        write(tmp_path / "vault", rel, text)
    return tmp_path


def _nodes(folder: Path) -> dict:
    p = run_cli("graph", "--format", "json", cwd=folder, check=True)
    return {n["id"]: n for n in json.loads(p.stdout)["nodes"]}


def _lint(folder: Path):
    p = run_cli("lint", "--no-cache", "--format", "json", cwd=folder)
    assert p.returncode in (0, 1), p.stderr
    return json.loads(p.stdout)


KINDS = """
replace: true
fields:
  title: {type: string}
  status: {type: string}
kinds:
  ADR: {statuses: [proposed, accepted]}
  NOTE: {statuses: [draft, done], dir: notes}
  PROJECT: {statuses: [open, closed]}
relations:
  related: {from: ['*'], to: ['*']}
"""


def test_id_from_stem_path_and_field_with_fallbacks(tmp_path):
    folder = _vault(tmp_path, KINDS + """
        id_from: [field:uid, path]
        kind_from: [{default: NOTE}]
        """.replace("\n        ", "\n"), {
        "a/with uid.md": "---\nuid: U-1\nstatus: draft\n---\n",
        "a/b/no uid.md": "---\nstatus: draft\n---\n",
        "top.md": "---\nuid: ''\nstatus: draft\n---\n",
        "é/ünï cödé.md": "---\nstatus: draft\n---\n",
    })
    nodes = _nodes(folder)
    assert set(nodes) == {"U-1", "a/b/no uid", "top", "é/ünï cödé"}
    assert nodes["a/b/no uid"]["path"] == "a/b/no uid.md"

    (tmp_path / "schema.yaml").write_text(KINDS + "id_from: [stem]\nkind_from: [{default: NOTE}]\n")
    assert set(_nodes(folder)) == {"with uid", "no uid", "top", "ünï cödé"}


def test_without_an_id_source_the_stem_is_the_id(tmp_path):
    folder = _vault(tmp_path, KINDS + "id_from: [field:uid]\nkind_from: [{default: NOTE}]\n", {
        "x/one.md": "---\nstatus: draft\n---\n",
    })
    assert set(_nodes(folder)) == {"one"}
    # and the lint says the field is missing (it is the only source)
    found = [(d["code"], d["message"]) for d in _lint(folder)]
    assert ("RK105", "`uid` is missing") in found


def test_kind_from_pattern_field_map_folder_prefix_default(tmp_path):
    folder = _vault(tmp_path, KINDS + r"""
id_from: [field:id, stem]
id_pattern: '^(?P<kind>[A-Z]+)-(?P<number>\d{4})$'
kind_from:
  - {pattern: kind}
  - {field: type, map: {Decision: ADR, adr: ADR}}
  - {folder: 1, map: {decisions: ADR}}
  - {prefix: '.', map: {proj: PROJECT}}
  - {default: NOTE}
""", {
        "x/ADR-0001.md": "---\nid: ADR-0001\nstatus: accepted\n---\n",
        "x/typed.md": "---\ntype: DECISION\nstatus: accepted\n---\n",
        "x/named.md": "---\ntype: project\nstatus: open\n---\n",
        "x/listed.md": "---\ntype: [unknown, adr]\nstatus: accepted\n---\n",
        "decisions/in folder.md": "---\nstatus: accepted\n---\n",
        "notes/by dir.md": "---\nstatus: draft\n---\n",
        "x/proj.alpha.md": "---\nstatus: open\n---\n",
        "x/plain.md": "---\nstatus: draft\n---\n",
    })
    kinds = {i: n["kind"] for i, n in _nodes(folder).items()}
    assert kinds == {"ADR-0001": "ADR", "typed": "ADR", "named": "PROJECT", "listed": "ADR",
                     "in folder": "ADR", "by dir": "NOTE", "proj.alpha": "PROJECT", "plain": "NOTE"}


def test_a_record_with_no_kind_is_a_node_and_is_not_checked_against_relations(tmp_path):
    folder = _vault(tmp_path, KINDS + """
id_from: [stem]
kind_from: [{field: type}]
relations:
  related: {from: ['*'], to: ['*']}
  supersedes: {from: [ADR], to: [ADR]}
""", {
        "a.md": "---\ntype: ADR\nstatus: accepted\nsupersedes: [b]\n---\n",
        "b.md": "---\nstatus: whatever\nsupersedes: [a]\n---\n",
    })
    nodes = _nodes(folder)
    assert nodes["a"]["kind"] == "ADR" and nodes["b"]["kind"] is None
    codes = {(d["code"], Path(d["filename"]).name) for d in _lint(folder)}
    # a's supersedes points at a record of no kind: not called the wrong kind;
    # b has no kind: neither its status nor its relations are checked
    assert not {c for c in codes if c[0] in ("RK302", "RK204", "RK203")}


def test_titles_from_field_h1_and_stem(tmp_path):
    folder = _vault(tmp_path, KINDS + """
id_from: [stem]
kind_from: [{default: NOTE}]
title_from: [field:title, h1, stem]
""", {
        "field.md": "---\ntitle: From the field\nstatus: draft\n---\n# Not this\n",
        "atx.md": "---\nstatus: draft\n---\n\n```\n# a comment in code\n```\n\n## Level two\n\n# The ATX one #\n",
        "setext.md": "---\nstatus: draft\n---\nIntro line\n\nThe Setext one\n==============\n\n# Later\n",
        "indented.md": "---\nstatus: draft\n---\n    # indented code\n\n<!--\n# in a comment\n-->\nnothing\n",
        "empty title.md": "---\ntitle: ''\nstatus: draft\n---\ntext\n",
    })
    titles = {i: n["title"] for i, n in _nodes(folder).items()}
    assert titles == {"field": "From the field", "atx": "The ATX one", "setext": "The Setext one",
                      "indented": "indented", "empty title": "empty title"}
    corpus = recordkit.load(folder / "vault", config=load_config(folder))
    sources = {i: r.title_source for i, r in corpus.records.items()}
    assert sources == {"field": "field", "atx": "h1", "setext": "h1", "indented": "stem", "empty title": "stem"}


def test_h1_titles_survive_the_parallel_parse(tmp_path):
    files = {f"n{i:04d}.md": f"---\nstatus: draft\n---\n# Heading {i}\n" for i in range(40)}
    folder = _vault(tmp_path, KINDS + "id_from: [stem]\nkind_from: [{default: NOTE}]\n"
                    "title_from: [field:title, h1, stem]\n", files)
    config = load_config(folder)
    serial = recordkit.load(folder / "vault", config=config, jobs=1)
    parallel = recordkit.load(folder / "vault", config=config, jobs=2)
    got = {i: (r.title, r.title_source, r.kind) for i, r in parallel.records.items()}
    assert got == {i: (r.title, r.title_source, r.kind) for i, r in serial.records.items()}
    assert got["n0007"] == ("Heading 7", "h1", "NOTE")


def test_research_titles_are_the_title_field_only(make_record):
    root = make_record({"note/NOTE-001.md": "---\nid: NOTE-001\nstatus: draft\n---\n# A heading\n"})
    rec = recordkit.load(root).records["NOTE-001"]
    assert (rec.title, rec.title_source, rec.kind) == ("", None, "NOTE")


def test_aliases_stem_and_path_id(tmp_path):
    folder = _vault(tmp_path, KINDS + "id_from: [stem]\nkind_from: [{default: NOTE}]\n", {
        "sub/dir/My Note.md": "---\nstatus: draft\naliases: [Other name, '', 3]\n---\n",
        "single.md": "---\nstatus: draft\naliases: Just one\n---\n",
    })
    corpus = recordkit.load(folder / "vault", config=load_config(folder))
    r = corpus.records["My Note"]
    assert (r.stem, r.relpath, r.path_id, r.aliases) == ("My Note", "sub/dir/My Note.md", "sub/dir/My Note",
                                                         ["Other name"])
    assert corpus.records["single"].aliases == ["Just one"]


def test_epoch_millisecond_dates(tmp_path):
    folder = _vault(tmp_path, KINDS + """
id_from: [stem]
kind_from: [{default: NOTE}]
fields:
  created: {type: date, epoch: ms}
  updated: {type: date}
""", {
        "ok.md": "---\nstatus: draft\ncreated: 1700000000000\nupdated: 2024-01-02\n---\n",
        "iso.md": "---\nstatus: draft\ncreated: 2024-01-02\n---\n",
        "bad.md": "---\nstatus: draft\ncreated: soon\nupdated: 1700000000000\n---\n",
        "huge.md": "---\nstatus: draft\ncreated: 99999999999999999999\n---\n",
    })
    found = sorted((Path(d["filename"]).name, d["message"]) for d in _lint(folder) if d["code"] == "RK205")
    assert found[:2] == [
        ("bad.md", "`created` is `soon`, not a date (YYYY-MM-DD or milliseconds since 1970)"),
        ("bad.md", "`updated` is `1700000000000` (an integer), not a date (YYYY-MM-DD)"),
    ]
    # past the dates a computer can hold: not a date either
    assert [f for f, _ in found[2:]] == ["huge.md"]


def test_every_command_takes_kindless_records_and_odd_ids(tmp_path):
    folder = _vault(tmp_path, KINDS + """
id_from: [path]
kind_from: [{field: type}]
title_from: [field:title, h1, stem]
""", {
        "Décisions/0001 première.md": "---\ntype: ADR\nstatus: accepted\nrelated: [notes/x y]\n---\n# Première\n",
        "notes/x y.md": "---\nstatus: whatever\n---\nSee [[Décisions/0001 première]].\n",
        "loose.md": "---\nfoo: bar\n---\n",
    })
    for args in (["lint", "--no-cache"], ["graph", "--format", "json"], ["graph", "--format", "graphml"],
                 ["graph", "--format", "gexf"], ["graph", "--format", "dot"],
                 ["export", "--sqlite", str(tmp_path / "x.sqlite")], ["build", "-o", str(tmp_path / "site")],
                 ["show", "notes/x y"], ["show", "loose"], ["promote"],
                 ["query", "select id, kind, title from records"]):
        p = run_cli(*args, cwd=folder)
        assert p.returncode in (0, 1), (args, p.stderr)
        assert "Traceback" not in p.stderr, (args, p.stderr)
    pages = sorted(p.relative_to(tmp_path / "site").as_posix() for p in (tmp_path / "site").rglob("*.html")
                   if p.parent.name in ("adr", "other"))
    assert len(pages) == 3 and all(p.count("/") == 1 for p in pages), pages


def test_two_files_of_one_stem_are_a_duplicate_id(tmp_path):
    folder = _vault(tmp_path, KINDS + "id_from: [stem]\nkind_from: [{default: NOTE}]\n", {
        "a/Same.md": "---\nstatus: draft\n---\n",
        "b/Same.md": "---\nstatus: draft\n---\n",
    })
    found = sorted((d["filename"].split("vault/")[-1], d["message"]) for d in _lint(folder) if d["code"] == "RK107")
    assert found == [("a/Same.md", "id Same is also declared in b/Same.md"),
                     ("b/Same.md", "id Same is also declared in a/Same.md")]


def test_a_note_without_front_matter_is_a_record_when_ids_come_from_file_names(tmp_path):
    folder = _vault(tmp_path, KINDS + "id_from: [stem]\nkind_from: [{default: NOTE}]\n"
                    "title_from: [field:title, h1, stem]\n", {
                        "bare.md": "# Bare note\n\nLinks to [[other]].\n",
                        "empty.md": "---\n---\nNothing.\n",
                        "other.md": "---\nstatus: draft\nrelated: [bare]\n---\n",
                    })
    nodes = _nodes(folder)
    assert {i: (n["kind"], n["title"]) for i, n in nodes.items()} == {
        "bare": ("NOTE", "Bare note"), "empty": ("NOTE", "empty"), "other": ("NOTE", "other")}
    codes = {d["code"] for d in _lint(folder)}
    assert not codes & {"RK101", "RK104", "RK301"}
    # a note without front matter may be merged in a vault (INTO gets one
    # only when OLD brings fields); this one is refused for another reason
    p = run_cli("merge", "bare", "other", cwd=folder)
    assert p.returncode == 1 and "other names bare in related (line 3): merging would make other relate to " \
        "itself" in p.stderr, p.stderr
    assert (folder / "vault" / "bare.md").read_text() == "# Bare note\n\nLinks to [[other]].\n"
    p = run_cli("merge", "empty", "bare", cwd=folder)
    assert p.returncode == 0, p.stderr
    assert (folder / "vault" / "bare.md").read_text() == \
        "# Bare note\n\nLinks to [[other]].\n\n## Merged from “empty”\n\nNothing.\n"


def test_front_matter_required_is_a_schema_setting(tmp_path):
    folder = _vault(tmp_path, KINDS + "id_from: [stem]\nkind_from: [{default: NOTE}]\nfront_matter: required\n",
                    {"bare.md": "# Bare note\n", "empty.md": "---\n---\n"})
    assert sorted(d["code"] for d in _lint(folder)) == ["RK101", "RK104"]
    # the research schema (ids from the `id` field only) requires it
    (tmp_path / "schema.yaml").write_text("{}\n")
    assert "RK101" in {d["code"] for d in _lint(folder)}
    (tmp_path / "schema.yaml").write_text("front_matter: sometimes\n")
    p = run_cli("lint", cwd=folder)
    assert p.returncode == 2 and "front_matter must be required or optional" in p.stderr
