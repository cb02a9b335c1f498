"""Dendron's own link forms, through the real CLI on a written workspace:
cross-vault links (``dendron://vault/note``), note references over a range
of headings and wildcards, the front-matter fields Dendron writes, and
``#tag`` / ``@name`` (links to ``tags.*`` and ``user.*`` notes)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli, write

EVAL = """\
---
id: e1
title: Eval
---
# Eval
intro
## Part One
one text
### Sub
sub text
## Part Two
two text
## Part Three
three text
"""


def workspace(tmp_path: Path, notes: dict, vaults: str | None) -> Path:
    """A Dendron workspace: ``dendron.yml`` (with ``vaults`` as its
    workspace.vaults, none when None) beside the vault ``notes/``, and a
    recordkit.toml naming the vault and the preset."""
    ws = tmp_path / "ws"
    if vaults is not None:
        write(ws, "dendron.yml", "version: 5\nworkspace:\n  vaults:\n" + vaults)
    for rel, text in {"notes/eval.md": EVAL, **notes}.items():
        write(ws, rel, text)
    (ws / "recordkit.toml").write_text('root = "notes"\nschema = "preset:dendron"\n')
    return ws


def lint(ws: Path, *extra) -> list[dict]:
    proc = run_cli("lint", "--format", "json", "--exit-zero", *extra, cwd=ws)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
    return json.loads(proc.stdout)


def messages(diags: list[dict], *codes) -> list[str]:
    return [f'{d["code"]} {d["message"]}' for d in diags if d["code"] in codes]


def edges(ws: Path) -> list[tuple]:
    graph = json.loads(run_cli("graph", "--format", "json", cwd=ws, check=True).stdout)
    return sorted((e["source"], e["target"], e.get("count")) for e in graph["links"])


def page(ws: Path, rid: str) -> str:
    run_cli("build", "-o", str(ws / "site"), "-q", cwd=ws, check=True)
    return (ws / "site" / "note" / f"{rid}.html").read_text(encoding="utf-8")


def test_cross_vault_links(tmp_path):
    """``[[dendron://other-vault/some.note]]`` was RK305 ("does not exist")
    and ``[[dendron://main/eval]]``, a link into the vault loaded, too (no
    edge, a dangling span on the site).  The vault's name is its entry's
    ``name`` in dendron.yml: a link into it names its note; a link into
    another vault is no record link (no RK305, plain text on the site)."""
    ws = workspace(tmp_path, {"notes/root.md": """\
        ---
        id: r
        title: Root
        ---
        Other: [[dendron://other-vault/some.note]] and [[Lbl|dendron://other-vault/some.note#anchor]].
        Own: [[dendron://main/eval]], [[E|dendron://main/eval#part-two]], ![[dendron://main/eval#part-one]].
        Gone: [[dendron://main/nope]] and [[E|dendron://main/eval#nope]].
        """}, "    - fsPath: notes\n      name: main\n    - fsPath: ../other\n      name: other-vault\n")
    diags = lint(ws)
    assert messages(diags, "RK305", "RK308", "RK309") == [
        "RK305 wikilink of dendron://main/nope, which does not exist",
        'RK309 `[[E|dendron://main/eval#nope]]`: eval has no heading "nope"'], diags
    assert edges(ws) == [("root", "eval", 4)]
    html = page(ws, "root")
    assert ('<span class="rk-external" title="dendron://other-vault/some.note: not on this site">some.note</span>'
            in html), html
    assert 'title="dendron://other-vault/some.note: not on this site">Lbl</span>' in html
    assert 'href="../note/eval.html" data-id="eval">eval</a>' in html
    assert 'href="../note/eval.html#part-two" data-id="eval">E</a>' in html
    assert "other-vault/some.note" not in html.replace('title="dendron://other-vault/some.note', "")

    # the vault renamed in dendron.yml: the cached lint is not reused, and
    # dendron://main/ now names another vault
    assert lint(ws) == diags
    write(ws, "dendron.yml", "version: 5\nworkspace:\n  vaults:\n    - fsPath: notes\n      name: research\n")
    assert messages(lint(ws), "RK305", "RK309") == [], "main is another vault now"


def test_cross_vault_name_defaults_to_the_folder(tmp_path):
    """A vault without ``name`` is called by its folder (Dendron's default),
    and so is a vault with no dendron.yml above it."""
    text = {"notes/root.md": "---\nid: r\n---\n[[dendron://notes/eval]] [[dendron://notes/nope]] "
                             "[[dendron://elsewhere/nope]]\n"}
    for vaults in ("    - fsPath: notes\n", None):
        ws = workspace(tmp_path / str(vaults is None), text, vaults)
        assert messages(lint(ws, "--no-cache"), "RK305") == \
            ["RK305 wikilink of dendron://notes/nope, which does not exist"], vaults
        assert edges(ws) == [("root", "eval", 1)]


@pytest.mark.slow
def test_range_and_wildcard_embeds(tmp_path):
    """``![[eval#part-one:#part-three]]`` (from one heading to another) was
    checked by its last heading only (a range from a heading that is not
    there passed), ``![[eval#*]]`` was RK309 ("no heading *") and the
    wildcard reference ``![[journal.2020.*]]`` RK305.  Both ends of a range
    are checked, ``*`` names no heading, a wildcard names no one note; the
    site shows the range from h1 up to h2, ``#h1:#*`` up to the next
    heading, ``#*`` the whole note, and a wildcard as text."""
    ws = workspace(tmp_path, {"notes/root.md": """\
        ---
        id: r
        title: Root
        ---
        ![[eval#part-one:#part-three]]

        ![[eval#part-two:#*]]

        ![[eval#*]]

        ![[journal.2020.*]]

        Bad: ![[eval#nope:#part-two]] and ![[eval#part-one:#nope]] and ![[eval#part-one,1]].
        """}, "    - fsPath: notes\n")
    diags = lint(ws)
    assert messages(diags, "RK305", "RK308", "RK309") == [
        'RK309 `![[eval#nope:#part-two]]`: eval has no heading "nope"',
        'RK309 `![[eval#part-one:#nope]]`: eval has no heading "nope"'], diags
    html = page(ws, "root")
    boxes = html.split('<div class="rk-embed-block"')[1:]
    # the three alone on their lines, and the inline `![[eval#part-one,1]]`,
    # which the lint reads as part one too (an embed in a sentence is a box)
    assert len(boxes) == 4, html
    first, second, third, fourth = boxes
    assert "<h2>Part One</h2>" in fourth and "two text" not in fourth
    assert "§ part-one – part-three" in first
    assert "<h2>Part One</h2>" in first and "sub text" in first and "two text" in first
    assert "three text" not in first and "intro" not in first
    assert "two text" in second and "Part Three" not in second and "one text" not in second
    assert "intro" in third and "three text" in third
    assert '<span class="rk-pattern" title="the notes journal.2020.*">journal.2020.*</span>' in html
    assert "rk-dangling" not in html


def test_front_matter_fields_dendron_writes(tmp_path):
    """``traitIds`` (and ``custom``, ``color``, ``image``, the publishing
    keys) were RK203 unknown-field under preset:dendron."""
    ws = workspace(tmp_path, {"notes/daily.journal.2026.03.11.md": """\
        ---
        id: d1
        title: '2026-03-11'
        desc: ''
        updated: 1773273600000
        created: 1773273600000
        traitIds: [journalNote]
        custom: {mood: fine}
        color: '#ff8800'
        image: {url: cover.png, alt: a cover}
        stub: false
        nav_order: 2
        nav_exclude: true
        published: true
        noindex: false
        excerpt: a day
        canonicalUrl: https://example.org/d1
        config: {global: {enableChildLinks: false}}
        tags: [daily]
        ---
        [[eval]]
        """}, "    - fsPath: notes\n")
    diags = lint(ws)
    assert not [d for d in diags if d["code"].startswith("RK2")], diags


def test_tags_and_users_link_their_notes(tmp_path):
    """``#foo`` is Dendron's ``[[tags.foo]]`` and ``@ana`` ``[[user.ana]]``:
    they were no links, so a tag note used only as a tag, or a user named
    only by ``@``, was RK307 (isolated), and so was a tag note the
    front matter's ``tags:`` names.  They link their notes now; a ``#tag``
    or ``@name`` with no note is a tag, a name (no RK305); addresses, code
    and ``#123`` are none."""
    ws = workspace(tmp_path, {
        "notes/proj.md": """\
            ---
            id: p
            title: Proj
            tags: [audit]
            ---
            About #eval.robustness and #free-tag, with @ana and @nobody.
            Mail ana@example.org, see a#b, issue #123, `#code` and [x](https://x.org/#frag).

            ## Heading
            """,
        "notes/tags.eval.robustness.md": "---\nid: t1\ntitle: robustness\n---\n",
        "notes/tags.audit.md": "---\nid: t2\ntitle: audit\n---\n",
        "notes/tags.unused.md": "---\nid: t3\ntitle: unused\n---\n",
        "notes/user.ana.md": "---\nid: u1\ntitle: Ana\n---\n",
    }, "    - fsPath: notes\n")
    diags = lint(ws)
    assert messages(diags, "RK305", "RK308", "RK309") == [], diags
    isolated = sorted(d["filename"] for d in diags if d["code"] == "RK307")
    assert isolated == ["notes/eval.md", "notes/tags.unused.md"], isolated
    assert edges(ws) == [("proj", "tags.eval.robustness", 1), ("proj", "user.ana", 1)]
    q = run_cli("query", "select target, form from mentions where record = 'proj' order by line, col",
                "--format", "csv", cwd=ws, check=True)
    assert q.stdout.splitlines() == ["target,form", "tags.eval.robustness,tag", "tags.free-tag,tag",
                                     "user.ana,tag", "user.nobody,tag"], q.stdout


@pytest.mark.slow
def test_a_renamed_vault_rebuilds_the_pages_that_link_into_it(tmp_path):
    """dendron.yml names the vault, so it decides whether
    ``[[dendron://main/eval]]`` is a link to a note of this site: renaming
    the vault there (no note edited) changes the page, in a fresh build
    on the last one's site.  (The link's edge comes or goes with the
    name, and the page's key holds its edges: the site's salt need not
    hold dendron.yml, which would render every page again on any edit of
    it.)"""
    ws = workspace(tmp_path, {"notes/root.md": "---\nid: r\ntitle: Root\n---\nOwn: [[dendron://main/eval]].\n"},
                   "    - fsPath: notes\n      name: main\n")
    before = page(ws, "root")
    main = lambda html: html.split("<main", 1)[1].split("</main>", 1)[0]
    assert 'href="../note/eval.html"' in main(before), before
    write(ws, "dendron.yml", "version: 5\nworkspace:\n  vaults:\n    - fsPath: notes\n      name: renamed\n")
    after = page(ws, "root")
    assert "rk-external" in main(after) and "eval.html" not in main(after), after


@pytest.mark.slow
def test_a_nested_cross_vault_link_is_missing_not_a_crash(tmp_path):
    """``[[dendron://vault/dendron://vault/…]]``: the note part was resolved
    as a link again, once per prefix; 600 of them stopped lint and build
    (RecursionError).  Dendron does not nest them: it names no note."""
    nested = "dendron://main/" * 600 + "eval"
    ws = workspace(tmp_path, {"notes/root.md": f"---\nid: r\ntitle: Root\n---\nSee [[{nested}]].\n"},
                   "    - fsPath: notes\n      name: main\n")
    assert [m[:40] for m in messages(lint(ws), "RK305")] == ["RK305 wikilink of dendron://main/dendron"]
    proc = run_cli("build", "-o", str(ws / "site"), "-q", cwd=ws)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr


@pytest.mark.slow
def test_a_tag_note_named_by_hash_tags_can_be_renamed_and_merged(tmp_path):
    """With ``#foo`` read as a link to tags.foo, rename and merge refused
    the note ("a link to tags.foo would name no note"): the ``#foo`` is
    now rewritten, as ``#bar`` when the new name is a tag, else as a
    wikilink."""
    ws = workspace(tmp_path, {"notes/tags.foo.md": "---\nid: t1\ntitle: Foo\n---\nThe foo tag.\n",
                              "notes/a.md": "---\nid: a1\ntitle: A\n---\nThis is about #foo only, and #123..foo.\n"},
                   "    - fsPath: notes\n      name: main\n")
    proc = run_cli("rename", "tags.foo", "tags.bar", cwd=ws)
    assert proc.returncode == 0, proc.stderr
    assert (ws / "notes" / "a.md").read_text().endswith("This is about #bar only, and #123..foo.\n")
    proc = run_cli("rename", "tags.bar", "topics.bar", cwd=ws)
    assert proc.returncode == 0, proc.stderr
    assert "This is about [[topics.bar]] only" in (ws / "notes" / "a.md").read_text()
    write(ws, "notes/tags.baz.md", "---\nid: t2\ntitle: Baz\n---\nBaz.\n")
    write(ws, "notes/b.md", "---\nid: b1\ntitle: B\n---\nSee #baz.\n")
    write(ws, "notes/tags.qux.md", "---\nid: t3\ntitle: Qux\n---\nQux.\n")
    proc = run_cli("merge", "tags.baz", "tags.qux", cwd=ws)
    assert proc.returncode == 0, proc.stderr
    assert (ws / "notes" / "b.md").read_text().endswith("See #qux.\n")
    assert [m for m in messages(lint(ws), "RK305")] == []
