"""The resolver (recordkit/corpus/resolve.py) and every link syntax, on small
vaults written as Obsidian, Foam, Dendron and MADR write them: unit checks on
the loaded corpus, then the real CLI (lint, graph, show, promote)."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

import recordkit
from conftest import run_cli
from recordkit.corpus.mentions import scan_mentions
from recordkit.corpus.resolve import Resolver, find_record, is_research_default
from recordkit.markdown.links import markdown_target, value_link, wikilink_target
from recordkit.schema import LinkSettings
from recordkit.lint import lint


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def vault(tmp: Path, schema: str, files: dict[str, str]) -> Path:
    """A vault in ``tmp/vault`` with ``schema.yaml`` and a recordkit.toml."""
    root = tmp / "vault"
    write(root, {"recordkit.toml": 'root = "notes"\nschema = "schema.yaml"\ncache_dir = ".rk"\n',
                 "schema.yaml": schema})
    write(root / "notes", files)
    return root


def edges(root: Path) -> set[tuple]:
    """(source, target, relation, origin) of ``recordkit graph --format json``."""
    p = run_cli("graph", "--format", "json", cwd=root, check=True)
    return {(e["source"], e["target"], e["relation"], e["origin"]) for e in json.loads(p.stdout)["links"]}


def lint_json(root: Path, *codes: str) -> list[dict]:
    p = run_cli("lint", "--format", "json", "--no-cache", *(["--select", ",".join(codes)] if codes else []),
                cwd=root)
    assert p.returncode in (0, 1), p.stderr
    return json.loads(p.stdout)


# -- Obsidian: file names, titles, aliases, paths, headings, blocks, embeds ---------
OBSIDIAN_SCHEMA = """\
links:
  resolve: [id, path, stem, title, aliases]
  case_sensitive: false
  mentions: false
relations:
  up: {label: Below}
  related: {label: Related to}
"""

OBSIDIAN = {
    "Home.md": """\
        ---
        tags: [index]
        ---
        # Home

        Start at [[alpha plan]] (any case), or [[ALPHA   PLAN]] with blanks, or by its alias [[Alpha]].
        The notes of [[beta/Notes]] and of [[gamma/Notes|gamma]]; plain [[Notes]] is ambiguous.
        ![[Diagram Note]] is embedded, [[Diagram Note#Legend|its legend]] and [[Diagram Note^b1c2]] linked.
        [[Nowhere at all]] names nothing.  `[[Home]]` in code is not a link, nor is NOTE-123 here.
        """,
    "Projects/Alpha Plan.md": """\
        ---
        aliases: [Alpha, The plan]
        up: "[[Home]]"
        related: ["[[beta/Notes|the notes]]", "[[Diagram Note]]", "[[Notes]]", "[[Missing Note]]"]
        ---
        # The alpha plan

        Back [[home|home page]].
        """,
    "beta/Notes.md": "---\ntitle: Beta notes\n---\nSee [[The Plan]].\n",
    "gamma/Notes.md": "---\ntitle: Gamma notes\n---\nNothing.\n",
    "Diagram Note.md": "---\ntags: [figure]\n---\n# Diagram\n\n## Legend\n\nA box. ^b1c2\n",
}


def test_obsidian_links_resolve_by_path_stem_title_alias(tmp_path):
    root = vault(tmp_path, OBSIDIAN_SCHEMA, OBSIDIAN)
    corpus = recordkit.load(root / "notes")
    rec = corpus.records["Home"]
    targets = [(m.target, m.form) for m in rec.mentions]
    assert targets == [
        ("Alpha Plan", "wikilink"), ("Alpha Plan", "wikilink"), ("Alpha Plan", "wikilink"),
        ("Notes", "wikilink"),      # beta/Notes: the record whose id is the stem "Notes" (the first by path)
        ("gamma/Notes", "wikilink"),   # one record per id: gamma/Notes.md is a duplicate, not a record
        ("Notes", "wikilink"),
        ("Diagram Note", "embed"), ("Diagram Note", "wikilink"), ("Diagram Note", "wikilink"),
        ("Nowhere at all", "wikilink")]
    # the texts as written are kept
    assert [m.text for m in rec.mentions][:3] == ["alpha plan", "ALPHA   PLAN", "Alpha"]
    plan = corpus.records["Alpha Plan"]
    assert [t.id for t in plan.relations["up"]] == ["Home"]
    assert [t.text for t in plan.relations["up"]] == ["[[Home]]"]


def test_obsidian_vault_through_the_cli(tmp_path):
    # ids from paths, so that the two Notes.md are two records
    schema = OBSIDIAN_SCHEMA + "id_from: [path]\n"
    files = {k: v.replace("[[Home]]", "[[Home]]") for k, v in OBSIDIAN.items()}
    root = vault(tmp_path, schema, files)
    corpus = recordkit.load(root / "notes")
    if "beta/Notes" not in corpus.records:
        # before ``id_from`` exists, a note's id is its stem: the two Notes.md
        # are one id; the rest of this test needs two records
        pytest.skip("id_from: [path] is not read yet (branch ident)")
    got = edges(root)
    assert ("Home", "Projects/Alpha Plan", "mentions", "body") in got
    assert ("Home", "beta/Notes", "mentions", "body") in got
    assert ("Home", "gamma/Notes", "mentions", "body") in got
    assert ("Home", "Diagram Note", "mentions", "body") in got
    assert ("Projects/Alpha Plan", "Home", "up", "frontmatter") in got
    assert ("Projects/Alpha Plan", "beta/Notes", "related", "frontmatter") in got
    assert ("beta/Notes", "Projects/Alpha Plan", "mentions", "body") in got
    diags = lint_json(root, "RK301", "RK305", "RK308")
    by = sorted((d["code"], d["filename"].split("notes/")[-1], d["message"]) for d in diags)
    assert by == [
        ("RK301", "Projects/Alpha Plan.md", "`related` target Missing Note does not exist"),
        ("RK305", "Home.md", "wikilink of Nowhere at all, which does not exist"),
        ("RK308", "Home.md", "wikilink Notes is ambiguous: it matches the file name of beta/Notes.md and "
                             "gamma/Notes.md; write more of the path to say which"),
        ("RK308", "Projects/Alpha Plan.md", "`related` target Notes is ambiguous: it matches the file name of "
                                            "beta/Notes.md and gamma/Notes.md; write more of the path to say which"),
    ]


def _two_notes(tmp_path, extra_schema=""):
    """A vault where two files are named Notes.md, with distinct ids."""
    return vault(tmp_path, OBSIDIAN_SCHEMA + extra_schema, {
        "beta/Notes.md": "---\nid: NOTE-001\ntitle: Beta notes\naliases: [Shared]\n---\n",
        "gamma/Notes.md": "---\nid: NOTE-002\ntitle: Gamma notes\naliases: [Shared]\n---\n",
        "Index.md": "---\nid: NOTE-003\ntitle: Index\nup: \"[[Notes]]\"\n---\n[[Notes]] [[gamma/notes]] [[SHARED]] "
                    "[[beta notes]] [[NOTE-002]] [[note-001]]\n",
    })


def test_ambiguous_and_shortest_path(tmp_path):
    root = _two_notes(tmp_path)
    corpus = recordkit.load(root / "notes")
    r = Resolver(corpus.records, corpus.schema.links)
    amb = r.resolve("Notes")
    assert amb.target is None and amb.ambiguous and set(amb.candidates) == {"NOTE-001", "NOTE-002"}
    assert amb.by == "stem"
    assert r.resolve("gamma/notes").target == "NOTE-002" and r.resolve("gamma/notes").by == "path"
    assert r.resolve("/gamma/Notes.md").target == "NOTE-002"
    assert r.resolve("Shared").ambiguous and r.resolve("Shared").by == "aliases"
    assert r.resolve("beta notes").target == "NOTE-001" and r.resolve("beta notes").by == "title"
    assert r.resolve("note-001").target == "NOTE-001"           # case-insensitive ids
    assert r.resolve("nothing").missing
    rec = corpus.records["NOTE-003"]
    assert [m.target for m in rec.mentions] == ["Notes", "NOTE-002", "SHARED", "NOTE-001", "NOTE-002",
                                                "NOTE-001"]
    diags = [d for d in lint(corpus, select=["RK301", "RK305", "RK308"]).diagnostics]
    assert sorted((d.code, d.line, d.col) for d in diags) == [("RK308", 4, 5), ("RK308", 6, 1), ("RK308", 6, 27)]
    msgs = {d.message for d in diags}
    assert "mention of" not in " ".join(msgs) and "does not exist" not in " ".join(msgs)
    assert "wikilink SHARED is ambiguous: it matches an alias of beta/Notes.md and gamma/Notes.md; " \
           "write more of the path to say which" in msgs


def test_resolve_order_decides(tmp_path):
    """The first key that matches decides; a later key is not asked."""
    root = vault(tmp_path, "links: {resolve: [title, stem], case_sensitive: true}\n", {
        "a/Apple.md": "---\nid: NOTE-001\ntitle: Pear\n---\n",
        "b/Pear.md": "---\nid: NOTE-002\ntitle: Quince\n---\n",
    })
    corpus = recordkit.load(root / "notes")
    r = Resolver(corpus.records, corpus.schema.links)
    assert r.resolve("Pear").target == "NOTE-001" and r.resolve("Pear").by == "title"
    assert r.resolve("Apple").target == "NOTE-001" and r.resolve("Apple").by == "stem"
    assert r.resolve("pear").missing                       # case-sensitive
    assert r.resolve("NOTE-002").missing                   # ids are not in the order


# -- Dendron: label-first wikilinks, hierarchy names ------------------------------------
def test_dendron_label_first(tmp_path):
    root = vault(tmp_path, "links: {resolve: [id, stem, title], wikilink_order: label-first, mentions: false}\n"
                           "relations:\n  related: {}\n", {
        "proj.alpha.md": "---\nid: a1\ntitle: Alpha\n---\nSee [[the beta one|proj.beta]] and [[proj.beta#goals]], "
                         "[[Beta|proj.beta#goals]]; LIT-001 is no mention here.\n",
        "proj.beta.md": "---\nid: b2\ntitle: Beta\nrelated: ['[[alpha|proj.alpha]]']\n---\n",
    })
    corpus = recordkit.load(root / "notes")
    a = corpus.records["a1"]
    assert [(m.target, m.label) for m in a.mentions] == [("b2", "the beta one"), ("b2", None), ("b2", "Beta")]
    assert [t.id for t in corpus.records["b2"].relations["related"]] == ["a1"]
    got = edges(root)
    assert ("a1", "b2", "mentions", "body") in got and ("b2", "a1", "related", "frontmatter") in got
    assert not [d for d in lint(corpus, select=["RK301", "RK305", "RK308"]).diagnostics]


# -- Foam and MADR: Markdown links, relative, URL-encoded, derived superseded_by --------
MADR_SCHEMA = """\
links:
  resolve: [id, path, stem, title]
  markdown_links: true
  mentions: false
relations:
  superseded_by: {label: Superseded by}
derive:
  - {relation: superseded_by, field: status, pattern: '(?i)superseded by\\s+(?P<target>.+)'}
"""

MADR = {
    "decisions/0001-use-markdown.md": """\
        ---
        id: ADR-0001
        status: superseded by [ADR-0002](0002-use-madr.md)
        ---
        # Use Markdown

        We follow [the next one](0002-use-madr.md#decision-outcome "title") and
        [the guide](../guides/How%20We%20Decide.md), [also](<../guides/How We Decide.md>).
        Not links: [site](https://example.com/x.md), [mail](mailto:a@b.md), [none](0099-nothing.md).
        `[code](0002-use-madr.md)`

        ```
        [fenced](0002-use-madr.md)
        ```
        """,
    "decisions/0002-use-madr.md": "---\nid: ADR-0002\nstatus: accepted\n---\n# Use MADR\n\nBack to "
                                  "[0001](./0001-use-markdown.md) and [the pipeline](../../pipeline.md).\n",
    "guides/How We Decide.md": "---\nid: GUIDE-1\n---\n# How we decide\n\nSee [ADR 2](/decisions/0002-use-madr.md).\n",
}


def test_markdown_links_relative_and_encoded(tmp_path):
    root = vault(tmp_path, MADR_SCHEMA, MADR)
    (root / "pipeline.md").write_text("# The pipeline (outside the record root)\n")
    corpus = recordkit.load(root / "notes")
    rec = corpus.records["ADR-0001"]
    assert [(m.target, m.form) for m in rec.mentions] == [
        ("ADR-0002", "markdown"), ("GUIDE-1", "markdown"), ("GUIDE-1", "markdown"), ("0099-nothing.md", "markdown")]
    # a link to a file outside the root that exists: not a record, and not missing
    assert [m.target for m in corpus.records["ADR-0002"].mentions] == ["ADR-0001", "../../pipeline.md"]
    assert [m.target for m in corpus.records["GUIDE-1"].mentions] == ["ADR-0002"]
    got = edges(root)
    assert ("ADR-0001", "ADR-0002", "superseded_by", "derived") in got
    assert ("ADR-0001", "GUIDE-1", "mentions", "body") in got
    assert ("GUIDE-1", "ADR-0002", "mentions", "body") in got
    diags = lint(corpus, select=["RK301", "RK305", "RK308"]).diagnostics
    assert [(d.code, d.line, d.message) for d in diags] == [
        ("RK305", 9, "link to 0099-nothing.md, which does not exist")]


def test_derived_by_pattern_with_wikilink_and_id(tmp_path):
    root = vault(tmp_path, "links: {resolve: [id, stem, title]}\nrelations:\n  superseded_by: {}\n"
                           "derive:\n  - {relation: superseded_by, field: status, "
                           "pattern: '(?i)superseded by\\s+(?P<target>.+)'}\n", {
        "a.md": "---\nid: NOTE-001\nstatus: Superseded by [[b]]\n---\n",
        "b.md": "---\nid: NOTE-002\nstatus: superseded by NOTE-003\n---\n",
        "c.md": "---\nid: NOTE-003\nstatus: superseded by nothing\n---\n",
        "d.md": "---\nid: NOTE-004\nstatus: superseded by NOTE-001\nsuperseded_by: NOTE-001\n---\n",
    })
    got = {e for e in edges(root) if e[3] == "derived"}
    assert got == {("NOTE-001", "NOTE-002", "superseded_by", "derived"),
                   ("NOTE-002", "NOTE-003", "superseded_by", "derived")}


def test_bad_derive_pattern_is_a_configuration_error(tmp_path):
    root = vault(tmp_path, "derive:\n  - {relation: cites, field: status, pattern: 'superseded (by'}\n",
                 {"a.md": "---\nid: NOTE-001\n---\n"})
    p = run_cli("lint", cwd=root)
    assert p.returncode == 2
    assert "derive[0].pattern superseded (by is not a valid regular expression" in p.stderr
    assert "Traceback" not in p.stderr
    root2 = vault(tmp_path / "2", "derive:\n  - {relation: cites, field: status, pattern: 'superseded by (.+)'}\n",
                  {"a.md": "---\nid: NOTE-001\n---\n"})
    p = run_cli("lint", cwd=root2)
    assert p.returncode == 2 and "has no group named target" in p.stderr


# -- the research defaults: as before the resolver ----------------------------------
def test_research_defaults_resolve_by_id_as_written(tmp_path):
    root = vault(tmp_path, "relations:\n  up: {}\n", {
        "NOTE-001.md": "---\nid: NOTE-001\ntitle: First\n---\n[[first]] [[NOTE-002|second]] NOTE-002 [[NOTE-001^x]]\n",
        "NOTE-002.md": "---\nid: NOTE-002\ntitle: Second\nup: ['[[NOTE-001]]', NOTE-009, First]\n---\n",
    })
    corpus = recordkit.load(root / "notes")
    assert is_research_default(corpus.schema.links)
    rec = corpus.records["NOTE-001"]
    assert rec.mention_targets == ["first", "NOTE-002", "NOTE-002", "NOTE-001"]
    assert all(m.text is None for m in rec.mentions)      # nothing rewritten
    up = corpus.records["NOTE-002"].relations["up"]
    assert [(t.id, t.text) for t in up] == [("NOTE-001", "[[NOTE-001]]"), ("NOTE-009", None), ("First", None)]
    msgs = sorted(d.message for d in lint(corpus, select=["RK301", "RK305", "RK308"]).diagnostics)
    assert msgs == ["`up` target First does not exist", "`up` target NOTE-009 does not exist (did you mean NOTE-001?)",
                    "wikilink of first, which does not exist"]


# -- commands take a path, a title or an alias -----------------------------------------
@pytest.mark.slow
def test_commands_accept_path_title_alias(tmp_path):
    root = _two_notes(tmp_path)
    for arg in ("NOTE-001", "beta/Notes.md", "notes/beta/Notes.md", "beta/Notes", "Beta notes", "BETA NOTES"):
        p = run_cli("show", arg, "--format", "json", cwd=root)
        assert p.returncode == 0, (arg, p.stderr)
        assert json.loads(p.stdout)["id"] == "NOTE-001", arg
    p = run_cli("show", "Notes", cwd=root)
    assert p.returncode == 2
    assert p.stderr.startswith("recordkit show: Notes matches 2 records by stem: NOTE-001 (beta/Notes.md), "
                               "NOTE-002 (gamma/Notes.md)")
    p = run_cli("show", "NOTE-004", cwd=root)
    assert p.returncode == 2 and "no record NOTE-004" in p.stderr and "did you mean NOTE-001" in p.stderr
    p = run_cli("graph", "--html", str(tmp_path / "g.html"), "--focus", "gamma notes", cwd=root)
    assert p.returncode == 0, p.stderr
    assert '"NOTE-002"' in (tmp_path / "g.html").read_text()
    p = run_cli("graph", "--html", str(tmp_path / "g.html"), "--focus", "Shared", cwd=root)
    assert p.returncode == 2 and "recordkit: --focus Shared matches 2 records by aliases" in p.stderr
    p = run_cli("promote", "Shared", cwd=root)
    assert p.returncode == 2 and "recordkit promote: Shared matches 2 records" in p.stderr


def test_find_record_in_the_research_record():
    from conftest import REPO
    corpus = recordkit.load(REPO / "records")
    title = corpus.records["NOTE-738"].title
    for arg in ("NOTE-738", "note/NOTE-738.md", "note/NOTE-738", title, title.upper()):
        assert find_record(corpus, arg).target == "NOTE-738", arg


# -- the pieces --------------------------------------------------------------------------
@pytest.mark.parametrize("inner,order,want", [
    ("Note", "target-first", "Note"),
    ("Note#Heading|label", "target-first", "Note"),
    ("Note^block", "target-first", "Note"),
    ("sub/Note#h#h2", "target-first", "sub/Note"),
    ("label|Note", "label-first", "Note"),
    ("label|Note#h", "label-first", "Note"),
    ("Note", "label-first", "Note"),
])
def test_wikilink_target(inner, order, want):
    assert wikilink_target(inner, order) == want


@pytest.mark.parametrize("href,want", [
    ("0038-foo.md", "0038-foo.md"),
    ("../a/My%20Note.md#part", "../a/My Note.md"),
    ("<my note.md>", "my note.md"),
    ("x.MD?raw=1", "x.MD"),
    ("https://example.com/x.md", None),
    ("mailto:x@y.md", None),
    ("//host/x.md", None),
    ("#anchor", None),
    ("picture.png", None),
])
def test_markdown_target(href, want):
    assert markdown_target(href) == want


def test_value_link_forms():
    s = LinkSettings(markdown_links=True)
    assert value_link('[[Note]]') == ("Note", "wikilink")
    assert value_link(' [[Note|alias]] ') == ("Note", "wikilink")
    assert value_link('![[Note#h]]') == ("Note", "wikilink")
    assert value_link('[[a]] and [[b]]') == ("[[a]] and [[b]]", "value")   # not one link: as written
    assert value_link('[ADR](0002-x.md)', s) == ("0002-x.md", "markdown")
    assert value_link('[ADR](0002-x.md)') == ("[ADR](0002-x.md)", "value")    # markdown links off
    assert value_link(' LIT-001 ') == ("LIT-001", "value")


def test_link_settings_are_the_schemas():
    """One ``LinkSettings``: the schema's ``links``, validated (a bad value
    is the schema's error, not a default taken in silence)."""
    from recordkit.schema import Schema, SchemaError, default_schema_raw
    assert Schema(dict(default_schema_raw(), links={"resolve": ["stem"]})).links == LinkSettings(resolve=("stem",))
    assert is_research_default(Schema(dict(default_schema_raw(), links=None)).links)
    for bad in ({"resolve": ["stem", "nonsense"]}, {"case_sensitive": "no"}, {"wikilink_order": "sideways"}):
        with pytest.raises(SchemaError):
            Schema(dict(default_schema_raw(), links=bad))


def test_markdown_links_not_in_code_and_bounded():
    s = LinkSettings(markdown_links=True, mentions=False)
    body = "[a](x.md) `[b](y.md)` <!-- [c](z.md) -->\n\n    [d](w.md)\n"
    assert [m.target for m in scan_mentions(body, None, 1, None, s)] == ["x.md"]
    # no link text before the destination: not a link
    assert scan_mentions("text](x.md)", None, 1, None, s) == []


def test_resolver_is_built_once_and_queried_from_its_indexes(tmp_path, monkeypatch):
    root = _two_notes(tmp_path)
    corpus = recordkit.load(root / "notes")
    r = Resolver(corpus.records, corpus.schema.links)
    built = []
    real = Resolver._build

    def counting(self, key):
        built.append(key)
        return real(self, key)
    monkeypatch.setattr(Resolver, "_build", counting)
    for _ in range(50):
        r.resolve("beta notes")
        r.resolve("nothing at all")
        r.resolve("gamma/Notes")
    assert sorted(built) == ["aliases", "id", "path", "stem", "title"]   # each index once


def test_front_matter_wikilinks_quoted_or_not(tmp_path):
    """``up: "[[Home]]"``, ``up: [[Home]]`` (YAML reads a list in a list),
    list items either way, with a label: each names its record."""
    root = vault(tmp_path, OBSIDIAN_SCHEMA, {
        "Home.md": "---\ntitle: Home\n---\n",
        "Other.md": "---\ntitle: Other\n---\n",
        "a.md": "---\nup: [[Home]]\nrelated: [[[Other|the other]], \"[[Home#top]]\", Other]\n---\n",
        "b.md": "---\nup: '[[home|back home]]'\nrelated:\n  - [[Other]]\n  - \"![[Home]]\"\n---\n",
    })
    corpus = recordkit.load(root / "notes")
    got = {rid: {rel: [t.id for t in ts] for rel, ts in corpus.records[rid].relations.items()} for rid in ("a", "b")}
    assert got == {"a": {"up": ["Home"], "related": ["Other", "Home", "Other"]},
                   "b": {"up": ["Home"], "related": ["Other", "Home"]}}
    # the positions are those of the values
    a = corpus.records["a"]
    assert [t.pos[:2] for t in a.relations["related"]] == [(3, 11), (3, 32), (3, 48)]
    assert not lint(corpus, select=["RK301", "RK308"]).diagnostics


def test_rename_in_a_vault_keeps_title_links(tmp_path):
    """A vault whose bodies link by title: renaming an id rewrites what
    names it and leaves the title links alone (they still resolve)."""
    root = vault(tmp_path, "links: {resolve: [id, stem, title], case_sensitive: false}\nrelations:\n  up: {}\n", {
        "NOTE-001.md": "---\nid: NOTE-001\ntitle: First note\n---\nSee [[second note]] and NOTE-002.\n",
        "NOTE-002.md": "---\nid: NOTE-002\ntitle: Second note\nup: '[[First Note]]'\n---\nBack to [[NOTE-001]].\n",
    })
    p = run_cli("rename", "NOTE-002", "NOTE-003", cwd=root)
    assert p.returncode == 0, p.stderr
    text = (root / "notes" / "NOTE-001.md").read_text()
    assert "[[second note]] and NOTE-003." in text
    got = edges(root)
    assert ("NOTE-001", "NOTE-003", "mentions", "body") in got and ("NOTE-003", "NOTE-001", "up", "frontmatter") in got


def test_attachments_and_escaped_bars(tmp_path):
    """``![[figure.png]]`` and ``[[paper.pdf#page=3]]`` name attachments, not
    records: no "does not exist"; ``[[Note\\|label]]`` (a bar escaped in a
    table) names Note."""
    root = vault(tmp_path, OBSIDIAN_SCHEMA, {
        "Note.md": "---\ntitle: Note\n---\n",
        "Table.md": "---\ntitle: Table\n---\n| a | b |\n| - | - |\n| [[Note\\|the note]] | ![[figure.png]] |\n\n"
                    "[[paper.pdf#page=3]] [[Dendron.style.name]]\n",
    })
    corpus = recordkit.load(root / "notes")
    assert [(m.target, m.label) for m in corpus.records["Table"].mentions] == [("Note", "the note"),
                                                                             ("Dendron.style.name", None)]
    assert [d.message for d in lint(corpus, select=["RK305"]).diagnostics] == [
        "wikilink of Dendron.style.name, which does not exist"]


def test_site_links_wikilinks_by_title(tmp_path):
    """The site's pages link a wikilink by title or alias to the record's page."""
    root = vault(tmp_path, "links: {resolve: [id, stem, title, aliases], case_sensitive: false}\n", {
        "NOTE-001.md": "---\nid: NOTE-001\ntitle: First note\nstatus: draft\n---\nSee [[second note|the second]].\n",
        "NOTE-002.md": "---\nid: NOTE-002\ntitle: Second note\nstatus: draft\naliases: [Deux]\n---\nBack to [[deux]].\n",
    })
    p = run_cli("build", "-o", str(tmp_path / "site"), cwd=root)
    assert p.returncode == 0, p.stderr
    page = next((tmp_path / "site").rglob("NOTE-001.html")).read_text()
    import re
    # data-id is the record's id (the hover preview is looked up by it), not the text as written
    a = re.search(r'<a class="rk-ref[^"]*" href="([^"]+)" data-id="NOTE-002">the second</a>', page)
    assert a and a.group(1).endswith("NOTE-002.html"), page
    assert "rk-dangling" not in page


def test_shortest_unambiguous_path_and_unicode(tmp_path):
    """``[[sub/Note]]`` names ``a/sub/Note.md`` (the end of its path, as
    Obsidian and Foam write the shortest unambiguous path); a name written
    decomposed (as macOS stores it) matches one written composed."""
    import unicodedata
    decomposed = unicodedata.normalize("NFD", "Café")
    root = vault(tmp_path, OBSIDIAN_SCHEMA + "id_from: [path]\n", {
        "a/sub/Note.md": "---\ntitle: Deep\n---\n",
        "b/other/Note.md": "---\ntitle: Other deep\n---\n",
        f"{decomposed}.md": "---\ntags: [x]\n---\n",
        "Index.md": "---\ntags: [x]\n---\n[[sub/Note]] [[other/note]] [[a/sub/Note]] [[Note]] [[café]] [[x/sub/Note]]\n",
    })
    corpus = recordkit.load(root / "notes")
    r = Resolver(corpus.records, corpus.schema.links)
    assert r.resolve("sub/Note").target == "a/sub/Note"
    assert r.resolve("other/note").target == "b/other/Note"
    assert r.resolve("Note").ambiguous
    assert r.resolve("café").target == decomposed
    assert r.resolve("x/sub/Note").missing            # a path's end must match whole folders
    assert corpus.records["Index"].mention_targets == ["a/sub/Note", "b/other/Note", "a/sub/Note", "Note",
                                                        decomposed, "x/sub/Note"]
