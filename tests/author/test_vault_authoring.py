"""``recordkit rename``, ``merge`` and ``new`` in a vault whose ids are paths
or file names.  A rename: the note moves, and every link that named it
names it again, in the form it was written; the rest of every file is left
byte for byte; a rename that would make any link name something else is
refused with nothing written.  A merge: the links to the merged note reach
the one it went into.  A new note: named after its title, with only the
fields given."""
from __future__ import annotations

import json
import shutil

import pytest

from conftest import REPO, run_cli, write

VAULTS = REPO / "tests" / "fixtures" / "vaults"
PRESET_ROOT = {"obsidian": ".", "foam": ".", "dendron": "notes", "madr": "docs"}


def vault_copy(tmp_path, name):
    base = tmp_path / name
    shutil.copytree(VAULTS / name, base)
    (base / "recordkit.toml").write_text(f'root = "{PRESET_ROOT[name]}"\nschema = "preset:{name}"\n')
    return base


def snapshot(base):
    return {p.relative_to(base).as_posix(): p.read_bytes() for p in sorted(base.rglob("*"))
            if p.is_file() and ".recordkit" not in p.parts}


def edges(base):
    """Every link of the vault, as (from, to, relation, where): the graph's
    edges, one per link (a body's links counted)."""
    proc = run_cli("graph", "--format", "json", cwd=base)
    assert proc.returncode == 0, proc.stderr
    return sorted((e["source"], e["target"], e["relation"], e["origin"]) for e in json.loads(proc.stdout)["links"])


def links_of(base):
    """id -> its body links' targets, resolved, in order."""
    from recordkit.config import load_config
    from recordkit.corpus.loader import load
    corpus = load(config=load_config(base))
    return {rid: list(r.mention_targets) for rid, r in corpus.records.items()}


def renamed(mapping, old, new):
    return {(new if k == old else k): [new if t == old else t for t in v] for k, v in mapping.items()}


@pytest.mark.parametrize("vault, old, new, new_id", [
    ("obsidian", "Sleep spindles", "Sleep spindle bursts", "Concepts/Sleep spindle bursts"),
    ("obsidian", "Projects/TMR replication/Index", "Plan", "Projects/TMR replication/Plan"),
    ("obsidian", "Concepts/Slow oscillations", "Literature/Slow oscillations", "Literature/Slow oscillations"),
    ("foam", "notes/soil-organic-carbon", "soil carbon", "notes/soil carbon"),
    ("dendron", "proj.leaderboard-audit", "proj.leaderboard-review", "proj.leaderboard-review"),
    ("madr", "0004-nightly-cron-for-ingestion", "0004-hourly-cron-for-ingestion", "0004-hourly-cron-for-ingestion"),
])
def test_a_rename_keeps_every_link_of_the_vault(tmp_path, vault, old, new, new_id):
    base = vault_copy(tmp_path, vault)
    links_before, edges_before = links_of(base), edges(base)
    lint_before = run_cli("lint", "--format", "json", "--exit-zero", cwd=base).stdout
    old_id = next(k for k in links_before if k == old or k.endswith("/" + old))
    proc = run_cli("rename", old, new, cwd=base)
    assert proc.returncode == 0, proc.stderr
    assert f"{old_id} → {new_id}" in proc.stdout
    assert links_of(base) == renamed(links_before, old_id, new_id)
    assert edges(base) == sorted(tuple(new_id if x == old_id else x for x in e) for e in edges_before)
    # the same diagnostics at the same places, the moved note's under its new name
    lint_after = run_cli("lint", "--format", "json", "--exit-zero", cwd=base).stdout
    old_file, new_file = old_id.rsplit("/", 1)[-1] + ".md", new_id.rsplit("/", 1)[-1] + ".md"

    def where(out, rename=False):
        return sorted((d["code"], d["location"]["row"], d["location"]["column"],
                       d["filename"].rsplit("/", 1)[-1].replace(old_file, new_file) if rename
                       else d["filename"].rsplit("/", 1)[-1]) for d in json.loads(out))
    assert where(lint_after) == where(lint_before, rename=True)


def test_only_link_targets_change_and_the_form_they_were_written_in_stays(tmp_path):
    base = tmp_path / "v"
    write(base, "Inbox/Alpha.md", "---\naliases: [The A]\n---\nAlpha. Itself: [[Alpha#Top]].\n")
    write(base, "Inbox/Gamma.md", """\
        ---
        up: "[[Alpha]]"
        related: ['[[alpha|a]]', "[[The A]]"]
        ---
        [[Alpha]], ![[Alpha#^b1]], [[Inbox/Alpha|label]], [[alpha]], [[The A]], [[Alpha.md]]
        [x](Alpha.md), [y](<Alpha.md#top>), [z](/Inbox/Alpha.md), [w](./Alpha.md?q=1)
        | a | [[Alpha\\|in a table]] |
        |---|---|
        `[[Alpha]]` stays: it is code.

            [[Alpha]] in an indented block too.
        """)
    write(base, "Other/Delta.md", "[up](../Inbox/Alpha.md) and [[Alpha]]\n")
    (tmp_path / "recordkit.toml").write_text('root = "v"\nschema = "preset:obsidian"\n')
    proc = run_cli("rename", "Alpha", "New name", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert not (base / "Inbox" / "Alpha.md").exists()
    assert (base / "Inbox" / "New name.md").read_text() == \
        "---\naliases: [The A]\n---\nAlpha. Itself: [[New name#Top]].\n"
    assert (base / "Inbox" / "Gamma.md").read_text() == """\
---
up: "[[New name]]"
related: ['[[New name|a]]', "[[The A]]"]
---
[[New name]], ![[New name#^b1]], [[Inbox/New name|label]], [[New name]], [[The A]], [[New name.md]]
[x](New%20name.md), [y](<New name.md#top>), [z](/Inbox/New%20name.md), [w](./New%20name.md?q=1)
| a | [[New name\\|in a table]] |
|---|---|
`[[Alpha]]` stays: it is code.

    [[Alpha]] in an indented block too.
"""
    assert (base / "Other" / "Delta.md").read_text() == "[up](../Inbox/New%20name.md) and [[New name]]\n"


def test_a_rename_that_would_make_a_link_ambiguous_is_refused(tmp_path):
    base = vault_copy(tmp_path, "obsidian")
    before = snapshot(base)
    proc = run_cli("rename", "Projects/TMR replication/Index", "Analysis plan", cwd=base)
    assert proc.returncode == 1, proc.stdout
    assert "would be ambiguous (Projects/Spindle density study/Analysis plan, Projects/TMR replication/Analysis " \
           "plan) after the rename" in proc.stderr
    assert snapshot(base) == before


def test_a_link_that_named_no_note_and_now_names_the_renamed_one_is_said(tmp_path):
    base = tmp_path / "v"
    write(base, "Alpha.md", "Alpha.\n")
    write(base, "Beta.md", "[[Alpha]] and [[Gamma]], which does not exist yet.\n")
    (tmp_path / "recordkit.toml").write_text('root = "v"\nschema = "preset:obsidian"\n')
    proc = run_cli("rename", "Alpha", "Gamma", "--dry-run", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "note: 1 link that named no single note now names Gamma: Beta.md (Gamma)" in proc.stderr
    assert "+[[Gamma]] and [[Gamma]], which does not exist yet." in proc.stdout


@pytest.mark.parametrize("new, message, code", [
    ("Nowhere/Alpha", "Nowhere/ is not a folder of the vault", 1),
    ("Beta", "Beta.md exists already", 1),
    ("../Outside", "is not a name for a note", 2),
    ("a//b", "is not a name for a note", 2),
    ("Alpha", "is named Alpha already", 2),
])
def test_rename_refusals_in_a_vault(tmp_path, new, message, code):
    base = tmp_path / "v"
    write(base, "Alpha.md", "Alpha.\n")
    write(base, "Beta.md", "[[Alpha]]\n")
    (tmp_path / "recordkit.toml").write_text('root = "v"\nschema = "preset:obsidian"\n')
    before = snapshot(base)
    proc = run_cli("rename", "Alpha", new, cwd=tmp_path)
    assert proc.returncode == code, proc.stderr
    assert message in proc.stderr
    assert snapshot(base) == before


def test_a_file_name_vault_keeps_the_folder(tmp_path):
    base = vault_copy(tmp_path, "dendron")
    proc = run_cli("rename", "proj.leaderboard-audit", "other/proj.x", cwd=base)
    assert proc.returncode == 2 and "the ids of this record are file names" in proc.stderr


def test_a_note_moved_to_another_folder_keeps_its_own_relative_links(tmp_path):
    base = tmp_path / "v"
    write(base, "A/Alpha.md", "[b](../B/Beta.md), [self](Alpha.md#top), [[Beta]], [root](/B/Beta.md)\n")
    write(base, "B/Beta.md", "[a](../A/Alpha.md)\n")
    (tmp_path / "recordkit.toml").write_text('root = "v"\nschema = "preset:obsidian"\n')
    proc = run_cli("rename", "A/Alpha", "B/Deep/Alpha two", cwd=tmp_path)
    assert proc.returncode == 1 and "B/Deep/ is not a folder of the vault" in proc.stderr
    (base / "B" / "Deep").mkdir()
    proc = run_cli("rename", "A/Alpha", "B/Deep/Alpha two", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (base / "B" / "Deep" / "Alpha two.md").read_text() == \
        "[b](../Beta.md), [self](Alpha%20two.md#top), [[Beta]], [root](/B/Beta.md)\n"
    assert (base / "B" / "Beta.md").read_text() == "[a](Deep/Alpha%20two.md)\n"


def test_a_note_that_cannot_be_read_and_may_link_to_it_stops_the_rename(tmp_path):
    base = tmp_path / "v"
    write(base, "Alpha.md", "Alpha.\n")
    write(base, "Broken.md", "---\ntitle: [unclosed\n---\nSee [[alpha]].\n")
    (tmp_path / "recordkit.toml").write_text('root = "v"\nschema = "preset:obsidian"\n')
    before = snapshot(base)
    proc = run_cli("rename", "Alpha", "Omega", cwd=tmp_path)
    assert proc.returncode == 1 and "Broken.md cannot be read as a note" in proc.stderr, proc.stderr
    assert snapshot(base) == before


@pytest.mark.parametrize("vault, old, into", [
    ("obsidian", "Concepts/Targeted memory reactivation", "Concepts/Synaptic homeostasis hypothesis"),
    ("obsidian", "Literature/Walker 2017 - Why We Sleep", "Literature/Rasch and Born 2013"),
    ("foam", "notes/priming-effect", "notes/microbial-carbon-pump"),
])
def test_a_merge_in_a_vault_keeps_every_link(tmp_path, vault, old, into):
    base = vault_copy(tmp_path, vault)
    edges_before, links_before = edges(base), links_of(base)
    proc = run_cli("merge", old, into, cwd=base)
    assert proc.returncode == 0, proc.stderr
    want = {tuple(into if x == old else x for x in e) for e in edges_before}
    assert {e for e in want if e[0] != e[1]} <= set(edges(base))
    after = links_of(base)
    for rid, targets in links_before.items():
        if rid not in (old, into):
            assert after[rid] == [into if t == old else t for t in targets], rid
    assert old not in after


@pytest.mark.slow
def test_new_in_a_vault_names_the_note_after_its_title(tmp_path):
    base = vault_copy(tmp_path, "obsidian")
    proc = run_cli("new", "NOTE", "--title", "Sleep pressure", cwd=base)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "Sleep pressure: Sleep pressure.md"
    assert (base / "Sleep pressure.md").read_bytes() == b""            # a note with nothing in it, as Obsidian's
    proc = run_cli("new", "note", "--title", "Adenosine: a sleep factor? #2", "--folder", "Concepts",
                   "--field", "tags=sleep/pressure,molecule", "--field", "status=draft", cwd=base)
    assert proc.returncode == 0, proc.stderr
    assert (base / "Concepts" / "Adenosine- a sleep factor- -2.md").read_text() == \
        "---\ntitle: 'Adenosine: a sleep factor? #2'\ntags: [sleep/pressure, molecule]\nstatus: draft\n---\n"
    show = run_cli("show", "Adenosine: a sleep factor? #2", cwd=base)
    assert show.returncode == 0 and "Concepts/Adenosine- a sleep factor- -2: Adenosine: a sleep factor? #2" \
        in show.stdout, show.stdout + show.stderr
    lint = run_cli("lint", "--format", "json", "--exit-zero", "Concepts/Adenosine- a sleep factor- -2.md",
                   "Sleep pressure.md", cwd=base)
    assert [d for d in json.loads(lint.stdout) if d["severity"] == "error"] == [], lint.stdout


def test_new_in_a_vault_puts_a_kind_where_it_is_read_as_that_kind(tmp_path):
    base = vault_copy(tmp_path, "foam")
    proc = run_cli("new", "journal", "--title", "2026-12-05", cwd=base)
    assert proc.returncode == 0, proc.stderr
    assert (base / "journal" / "2026-12-05.md").exists()
    show = run_cli("show", "journal/2026-12-05", "--format", "json", cwd=base)
    assert json.loads(show.stdout)["kind"] == "JOURNAL"


@pytest.mark.parametrize("args, message, code", [
    (["--title", "sleep spindles"], "a note named sleep spindles exists already (Concepts/Sleep spindles.md)", 1),
    (["--title", "X", "--folder", "Nowhere"], "Nowhere/ is not a folder of the vault", 1),
    (["--title", "X", "--folder", "../out"], "a folder inside the vault", 2),
    (["--title", "Home"], "Home.md exists already", 1),
    (["--title", "X", "--field", "nope=1"], "NOTE has no field nope", 2),
    (["--title", "X", "--field", "status=nonsense"], "is not a status of a NOTE", 2),
    (["--title", "///"], "leaves nothing for a file name", 2),
])
def test_new_refusals_in_a_vault(tmp_path, args, message, code):
    base = vault_copy(tmp_path, "obsidian")
    before = snapshot(base)
    proc = run_cli("new", "NOTE", *args, cwd=base)
    assert proc.returncode == code, proc.stderr
    assert message in proc.stderr, proc.stderr
    assert snapshot(base) == before


def test_folder_is_only_for_a_vault(tmp_path):
    shutil.copytree(REPO / "records", tmp_path / "records")
    (tmp_path / "recordkit.toml").write_text('root = "records"\n')
    proc = run_cli("new", "NOTE", "--title", "x", "--folder", "note", cwd=tmp_path)
    assert proc.returncode == 2 and "--folder is for a vault" in proc.stderr


@pytest.mark.slow
def test_a_merge_in_a_vault_takes_notes_without_front_matter(tmp_path):
    # a vault's notes often have none; a merge refused them ("add one first")
    base = tmp_path / "v"
    write(base, "Alpha.md", "---\ntags: [x]\n---\nAlpha text.\n")
    write(base, "Beta.md", "Beta text.\n")
    write(base, "Gamma.md", "Gamma text.\n")
    write(base, "Delta.md", "[[Alpha]] [[Gamma]]\n")
    (tmp_path / "recordkit.toml").write_text('root = "v"\nschema = "preset:obsidian"\n')
    proc = run_cli("merge", "Alpha", "Beta", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (base / "Beta.md").read_text() == \
        "---\ntags: [x]\n---\nBeta text.\n\n## Merged from “Alpha”\n\nAlpha text.\n"
    proc = run_cli("merge", "Gamma", "Beta", cwd=tmp_path)          # neither brings a field
    assert proc.returncode == 0, proc.stderr
    assert (base / "Beta.md").read_text().endswith("Alpha text.\n\n## Merged from “Gamma”\n\nGamma text.\n")
    assert (base / "Delta.md").read_text() == "[[Beta]] [[Beta]]\n"


FOAM_A = """\
    # Note A

    See [[note-b]], [the other one][ref-b], [again][ref-c] and [inline](note-b.md).
    [fake]: note-b.md is in a paragraph: not a definition.

    ```
    [ref-d]: note-b.md
    ```

    [//begin]: # "Autogenerated link references for markdown compatibility"
    [note-b]: note-b "Note B"
    [other]: other "Other"
    [//end]: # "Autogenerated link references"

    [ref-b]: note-b.md
    [ref-c]: <note-b#top> 'used by a link: its label stays'
    """


def test_a_rename_keeps_link_reference_definitions(tmp_path):
    """A definition's destination is a link (``[text][ref-b]`` uses it):
    a rename gives it the new path, with or without ``.md`` as it was
    written; Foam's (labelled as the wikilink they serve) get the new name
    as label too, unless a ``[text][label]`` link uses the label.  Not
    touched: a definition in code, a line in a paragraph, Foam's markers,
    another note's."""
    base = tmp_path / "v"
    write(base, "notes/note-a.md", FOAM_A)
    write(base, "notes/note-b.md", "# Note B\n")
    write(base, "notes/other.md", "# Other\n")
    (tmp_path / "recordkit.toml").write_text('root = "v"\nschema = "preset:foam"\n')
    proc = run_cli("rename", "notes/note-b", "note-c", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    # the wikilink, the inline link and three definitions' destinations; not the label
    assert "5 links rewritten in 1 other file" in proc.stdout
    import textwrap
    assert (base / "notes" / "note-a.md").read_text() == textwrap.dedent(FOAM_A).replace(
        "See [[note-b]]", "See [[note-c]]").replace("(note-b.md)", "(note-c.md)").replace(
        '[note-b]: note-b "Note B"', '[note-c]: note-c "Note B"').replace(
        "[ref-b]: note-b.md", "[ref-b]: note-c.md").replace("<note-b#top>", "<note-c#top>")
    lint = run_cli("lint", cwd=tmp_path)
    assert lint.returncode == 0, lint.stdout + lint.stderr


def test_a_dangling_link_reference_definition_is_rk305(tmp_path):
    base = tmp_path / "v"
    write(base, "a.md", "# A\n\nSee [the plan][p].\n\n[p]: plans/missing.md \"The plan\"\n")
    (tmp_path / "recordkit.toml").write_text('root = "v"\nschema = "preset:foam"\n')
    proc = run_cli("lint", "--format", "json", "--exit-zero", cwd=tmp_path)
    found = [(d["code"], d["location"]["row"], d["location"]["column"], d["end_location"]["column"])
             for d in json.loads(proc.stdout) if d["code"] != "RK307"]     # (RK307: an orphan note)
    assert found == [("RK305", 5, 1, 33)], proc.stdout


def test_a_note_reached_through_a_symbolic_link_is_changed_once(tmp_path):
    """Beta.md is a link to Gamma.md: the rename edits Gamma once (it was
    a traceback: the same file twice in one transaction)."""
    base = tmp_path / "v"
    write(base, "Alpha.md", "# A\n")
    write(base, "Gamma.md", "[[Alpha]]\n")
    (base / "Beta.md").symlink_to("Gamma.md")
    (tmp_path / "recordkit.toml").write_text('root = "v"\nschema = "preset:obsidian"\n')
    proc = run_cli("rename", "Alpha", "Omega", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (base / "Gamma.md").read_text() == "[[Omega]]\n" and (base / "Beta.md").is_symlink()


def test_a_name_too_long_is_refused_and_writes_stay_possible(tmp_path):
    """A file name the file system refuses: refused up front; and a
    transaction whose staging fails on a name too long removes its journal
    (it was left, and stopped every later write)."""
    from recordkit.common.transaction import JOURNAL, Transaction, TransactionError
    base = tmp_path / "v"
    write(base, "Alpha.md", "# A\n")
    (tmp_path / "recordkit.toml").write_text('root = "v"\nschema = "preset:obsidian"\n')
    proc = run_cli("rename", "Alpha", "x" * 300, cwd=tmp_path)
    assert proc.returncode == 2 and "a file name of at most 236 bytes" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr) < 300
    tx = Transaction(tmp_path / "journal")
    tx.write(base / ("y" * 250 + ".md"), "text")
    with pytest.raises(TransactionError):
        tx.commit()
    assert not (tmp_path / "journal" / JOURNAL).exists()
    tx = Transaction(tmp_path / "journal")
    tx.write(base / "ok.md", "text")
    tx.commit()
    assert (base / "ok.md").read_text() == "text"


@pytest.mark.parametrize("new", [".hidden", "Sub/.hidden", ".obsidian/Alpha", "node_modules/Alpha"])
def test_a_rename_to_a_name_recordkit_does_not_read_is_refused(tmp_path, new):
    base = tmp_path / "v"
    write(base, "Alpha.md", "# A\n")
    write(base, "B.md", "[[Alpha]]\n")
    for folder in ("Sub", ".obsidian", "node_modules"):
        (base / folder).mkdir()
    (tmp_path / "recordkit.toml").write_text('root = "v"\nschema = "preset:obsidian"\n')
    proc = run_cli("rename", "Alpha", new, cwd=tmp_path)
    assert proc.returncode == 2 and "would not be read" in proc.stderr, proc.stderr
    assert (base / "Alpha.md").exists() and (base / "B.md").read_text() == "[[Alpha]]\n"


def test_a_dry_run_diff_applies_with_git_and_patch(tmp_path):
    """The diff of ``rename --dry-run`` in a vault: names with spaces and a
    quote, a file without a final newline, the rename itself; ``git
    apply`` and ``patch -p1`` in the vault give what the rename gives."""
    import subprocess
    base = tmp_path / "v"
    write(base, "Al pha.md", "# A\n")
    write(base, "Gamma.md", "[[Al pha]]\nx\n")
    (base / 'Be "ta.md').write_text("no newline [[Al pha]]")
    (tmp_path / "recordkit.toml").write_text('root = "v"\nschema = "preset:obsidian"\n')
    proc = run_cli("rename", "Al pha", "Om ega", "--dry-run", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert 'diff --git "a/Al pha.md" "b/Om ega.md"\nrename from "Al pha.md"\nrename to "Om ega.md"\n' in proc.stdout
    tools = [t for t in (["git", "apply"], ["patch", "-p1", "-s"]) if shutil.which(t[0])]
    for tool in tools:
        work = tmp_path / f"patched-{tool[0]}"
        shutil.copytree(base, work)
        p = subprocess.run(tool, input=proc.stdout, text=True, cwd=work, capture_output=True)
        assert p.returncode == 0, p.stderr
    run_cli("rename", "Al pha", "Om ega", cwd=tmp_path, check=True)
    for tool in tools:
        assert snapshot(tmp_path / f"patched-{tool[0]}") == snapshot(base), tool


def test_a_front_matter_alias_of_a_link_is_renamed_once(tmp_path):
    """``down: *x`` reads as a second link at the anchor's value: the rename
    was refused ("overlapping edits", no file named); the value is now
    rewritten once and the alias stays."""
    base = tmp_path / "v"
    write(base, "Alpha.md", "# A\n")
    write(base, "B.md", '---\nup: &x "[[Alpha]]"\ndown: *x\n---\nbody [[Alpha]]\n')
    (tmp_path / "recordkit.toml").write_text('root = "v"\nschema = "preset:obsidian"\n')
    proc = run_cli("rename", "Alpha", "Omega", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "2 links rewritten in 1 other file" in proc.stdout
    assert (base / "B.md").read_text() == '---\nup: &x "[[Omega]]"\ndown: *x\n---\nbody [[Omega]]\n'


def test_a_madr_superseded_by_link_follows_a_rename(tmp_path):
    """``status: superseded by [ADR-0002](0002-use-duckdb.md)`` makes the
    superseded_by edge (a derive pattern): a rename of 0002 left it naming
    the old file, the edge gone, nothing said.  Its destination is
    rewritten; the status stays as written otherwise."""
    base = tmp_path / "d"
    write(base, "0001-use-markdown.md", "---\nstatus: superseded by [ADR-0002](0002-use-duckdb.md)\n"
          "date: 2024-01-01\n---\n# Use Markdown\n\nBody.\n")
    write(base, "0002-use-duckdb.md", "---\nstatus: accepted\ndate: 2024-02-01\n---\n# Use DuckDB\n\n"
          "See [0001](0001-use-markdown.md).\n")
    (tmp_path / "recordkit.toml").write_text('root = "d"\nschema = "preset:madr"\n')
    edges_before = edges(tmp_path)
    proc = run_cli("rename", "0002-use-duckdb", "0002-use-duckdb-now", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (base / "0001-use-markdown.md").read_text().startswith(
        "---\nstatus: superseded by [ADR-0002](0002-use-duckdb-now.md)\n")
    rename = {"0002-use-duckdb": "0002-use-duckdb-now"}
    assert edges(tmp_path) == sorted(tuple(rename.get(x, x) for x in e) for e in edges_before)
    assert any(e[2] == "superseded_by" for e in edges_before)
    show = run_cli("show", "0001-use-markdown", cwd=tmp_path).stdout
    assert "Status: Superseded by [ADR-0002](0002-use-duckdb-now.md)" in show


@pytest.mark.slow
def test_a_merge_that_would_send_a_section_link_to_the_other_notes_section_is_refused(tmp_path):
    """Alpha and Beta both have ``## Sec`` and a ``^blk`` block: after Alpha
    is merged into Beta, ``[[Beta#Sec]]`` (was ``[[Alpha#Sec]]``) lands on
    Beta's own section, and ``^blk`` is twice in one note.  It went through
    with nothing said; it is refused now, naming the link."""
    base = tmp_path / "v"
    write(base, "Alpha.md", "# Alpha\n\n## Sec\n\nAlpha's text. ^blk\n")
    write(base, "Beta.md", "# Beta\n\n## Sec\n\nBeta's text. ^blk\n")
    (tmp_path / "recordkit.toml").write_text('root = "v"\nschema = "preset:obsidian"\n')
    for link in ("[[Alpha#Sec]]", "![[Alpha#^blk]]", "[x](Alpha.md#sec)", "[x]: Alpha.md#sec"):
        write(base, "Gamma.md", f"See {link}.\n" if "]:" not in link else f"See [x].\n\n{link}\n")
        before = snapshot(base)
        proc = run_cli("merge", "Alpha", "Beta", cwd=tmp_path)
        line = 3 if "]:" in link else 1
        assert proc.returncode == 1 and f"Gamma.md:{line}: {link} would reach Beta's own" in proc.stderr, proc.stderr
        assert snapshot(base) == before
    write(base, "Gamma.md", "See [[Alpha#Other]] and [[Alpha]].\n")
    proc = run_cli("merge", "Alpha", "Beta", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.slow
def test_a_merge_keeps_the_notes_title_and_line_endings(tmp_path):
    """Foam takes a note's title from its first # heading: a note without
    one took the merged note's as its title.  Refused now, saying why.
    A field copied into a CRLF note is written with CRLF (it was LF)."""
    base = tmp_path / "w"
    write(base, "notes/soil.md", "Soil text, no heading.\n")
    write(base, "notes/biochar.md", "# Biochar title\n\nBiochar text.\n")
    (tmp_path / "recordkit.toml").write_text('root = "w"\nschema = "preset:foam"\n')
    proc = run_cli("merge", "notes/biochar", "notes/soil", cwd=tmp_path)
    assert proc.returncode == 1 and "notes/soil's title would become “Biochar title”" in proc.stderr, proc.stderr
    (base / "notes" / "soil.md").write_bytes(b"---\r\ntitle: Soil\r\n---\r\n# Soil\r\n\r\nText.\r\n")
    (base / "notes" / "biochar.md").write_bytes(b"---\nextra: 1\n---\n# Biochar\n\nText.\n")
    proc = run_cli("merge", "notes/biochar", "notes/soil", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    data = (base / "notes" / "soil.md").read_bytes()
    assert data.startswith(b"---\r\ntitle: Soil\r\nextra: 1\r\n---\r\n") and b"\n" not in data.replace(b"\r\n", b""), data


def test_new_in_a_madr_log_numbers_the_decision(tmp_path):
    """MADR names a decision NNNN-title-in-kebab-case.md and titles it by
    its # heading: `new ADR` wrote "Use SQLite instead.md" (RK105 at once)."""
    base = vault_copy(tmp_path, "madr")
    docs = base / "docs"
    numbers = sorted(int(p.name[:4]) for p in docs.rglob("[0-9][0-9][0-9][0-9]-*.md"))
    proc = run_cli("new", "ADR", "--title", "Use SQLite instead", cwd=base)
    assert proc.returncode == 0, proc.stderr
    made = docs / "decisions" / f"{numbers[-1] + 1:04d}-use-sqlite-instead.md"     # (where the others are)
    assert made.exists(), proc.stdout
    assert made.read_text().startswith("# Use SQLite instead\n")
    lint = run_cli("lint", "--format", "json", "--exit-zero", cwd=base)
    assert not [d for d in json.loads(lint.stdout) if made.name in d["filename"] and d["severity"] == "error"]


def test_a_link_from_the_vault_root_stays_one(tmp_path):
    """[[/Sub/Alpha]] became [[Sub/Omega]]: the leading / is kept."""
    base = tmp_path / "v"
    write(base, "Sub/Alpha.md", "# A\n")
    write(base, "B.md", "[[/Sub/Alpha]] and [[Sub/Alpha]] and [[Alpha]]\n")
    (tmp_path / "recordkit.toml").write_text('root = "v"\nschema = "preset:obsidian"\n')
    proc = run_cli("rename", "Sub/Alpha", "Omega", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (base / "B.md").read_text() == "[[/Sub/Omega]] and [[Sub/Omega]] and [[Omega]]\n"


@pytest.mark.parametrize("new, message", [
    # another decision's number: lint's RK111 (the preset's `unique: [pattern:number]`)
    ("0005-hourly-cron-for-ingestion", "number 0005 is the number of decisions/0005-store-raw-data-in-object-storage.md "
                                       "already, and the schema keeps it unique: lint would report both (RK111)"),
    ("0011-hourly-cron-for-ingestion", "number 0011 is the number of decisions/0011-"),
    # no number, or a blank in the name: lint's RK105 (the preset's id_pattern, which
    # allows capitals and `#`, as MADR's own log names its files: issue 34)
    ("hourly-cron-for-ingestion", "hourly-cron-for-ingestion does not match the id pattern "
                                  "^(?P<number>[0-9]{4})-[^\\s/]+$: lint would report it (RK105)"),
    ("0004-Hourly cron", "does not match the id pattern"),
])
def test_a_madr_rename_to_an_id_the_schema_refuses_is_refused(tmp_path, new, message):
    """A decision renamed to another's number, or to a name with no number,
    went through: RK111 or RK105 after the rename.  Refused now (exit 2,
    nothing written), as the schema's id_pattern and unique read it."""
    base = vault_copy(tmp_path, "madr")
    before = snapshot(base)
    proc = run_cli("rename", "0004-nightly-cron-for-ingestion", new, cwd=base)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr, proc.stderr
    assert snapshot(base) == before
    # a page (the preset's `pages`: README.md) is held to neither, as lint holds it; a free number is taken
    proc = run_cli("rename", "0004-nightly-cron-for-ingestion", "0015-hourly-cron-for-ingestion", cwd=base)
    assert proc.returncode == 0, proc.stderr
    lint = run_cli("lint", "--format", "json", "--exit-zero", "--select", "RK105,RK111", cwd=base)
    assert not [d for d in json.loads(lint.stdout) if "0015" in d["filename"]], lint.stdout


def test_a_rename_is_refused_a_unique_value_of_the_id_in_any_schema(tmp_path):
    """Not MADR's alone: a research record whose schema keeps the number of
    an id unique refuses NOTE-003 while LIT-003 exists."""
    base = tmp_path / "records"
    write(base, "note/NOTE-002.md", "---\nid: NOTE-002\ntitle: b\nstatus: draft\n---\nText.\n")
    write(base, "lit/LIT-003.md", "---\nid: LIT-003\ntitle: c\nstatus: queued\nauthors: [x]\nyear: 2020\n---\n")
    (tmp_path / "schema.yaml").write_text("unique: ['pattern:number']\n")
    (tmp_path / "recordkit.toml").write_text('root = "records"\nschema = "schema.yaml"\n')
    proc = run_cli("rename", "NOTE-002", "NOTE-003", cwd=tmp_path)
    assert proc.returncode == 2 and "number 003 is the number of lit/LIT-003.md already" in proc.stderr, proc.stderr
    assert (base / "note" / "NOTE-002.md").exists()
    proc = run_cli("rename", "NOTE-002", "NOTE-004", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.slow
def test_a_foam_merge_keeps_one_block_of_definitions_and_no_self_link(tmp_path):
    """Merging priming-effect into biochar, which link to each other: the
    links between them became biochar's links to itself, biochar's Foam
    definitions stayed above the merged text with priming-effect's below
    it, one `[biochar]` twice, and the inbox's definition kept the title
    "Priming effect".  Now: the links are the words they showed, one block
    of definitions at the end, each once, none of either note."""
    base = vault_copy(tmp_path, "foam")
    proc = run_cli("merge", "notes/priming-effect", "notes/biochar", cwd=base)
    assert proc.returncode == 0, proc.stderr
    assert "made plain text: notes/biochar.md:8, notes/priming-effect.md:8" in proc.stderr
    assert (base / "notes" / "biochar.md").read_text() == """\
---
type: concept
tags: [soil/amendments, soil/microbes]
---
# Biochar

Pyrolysed biomass. Highly persistent itself; its effect on native
[[soil-organic-carbon]] is the open question (priming-effect).
Money side: [[soil carbon credits]].

## Merged from “Priming effect”

# Priming effect

Fresh inputs can speed up the decomposition of old organic matter, so adding
carbon can lose carbon. Relevant to biochar and to [[cover-crops]].

[soil-organic-carbon]: soil-organic-carbon "Soil organic carbon"
[soil carbon credits]: <soil carbon credits> "Soil carbon credits"
[cover-crops]: cover-crops "Cover crops"
"""
    assert (base / "inbox.md").read_text().endswith(
        "[[zhang-2024-biochar-meta-analysis]]\n- Ask the lab about [[nitrogen-cycling]] measurements for the "
        "trial.\n\n[biochar]: notes/biochar \"Biochar\"\n")
    show = run_cli("show", "notes/biochar", cwd=base)
    assert "notes/biochar" not in show.stdout.split("Mentions", 1)[-1], show.stdout


@pytest.mark.slow
def test_a_foam_merge_tidies_marked_definitions_and_keeps_section_links(tmp_path):
    """Foam's ``[//begin]``…``[//end]`` block: the merged note's definitions
    go inside INTO's, OLD's markers left out.  A link to a section of the
    other note stays a link (to a section of the merged note), with its
    definition; an embed of the other note on a line of its own goes (its
    text is there now); a ``[text][label]`` link whose definition named the
    other note becomes its text; another note that linked to both keeps
    one definition."""
    base = tmp_path / "v"
    write(base, "notes/keep.md", """\
        # Keep

        Keep's text, see [[gone]] and [[gone#Detail|the detail]].
        A [ref link][r-gone] and [[other]].

        ![[gone]]

        [//begin]: # "Autogenerated link references for markdown compatibility"
        [gone]: gone "Gone"
        [gone#Detail|the detail]: gone "Gone"
        [other]: other "Other"
        [//end]: # "Autogenerated link references"

        [r-gone]: gone.md
        """)
    write(base, "notes/gone.md", """\
        # Gone

        Back to [[keep]], on to [[other]] and [[third]], itself [[gone]].

        ## Detail

        Details.

        [//begin]: # "Autogenerated link references for markdown compatibility"
        [keep]: keep "Keep"
        [other]: other "Other"
        [third]: third "Third"
        [gone]: gone "Gone"
        [//end]: # "Autogenerated link references"
        """)
    write(base, "notes/other.md", '# Other\n\n[[gone]] and [[keep]].\n\n[gone]: gone "Gone"\n[keep]: keep "Keep"\n')
    write(base, "notes/third.md", "# Third\n")
    (tmp_path / "recordkit.toml").write_text('root = "v"\nschema = "preset:foam"\n')
    proc = run_cli("merge", "notes/gone", "notes/keep", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (base / "notes" / "keep.md").read_text() == """\
# Keep

Keep's text, see gone and [[keep#Detail|the detail]].
A ref link and [[other]].

## Merged from “Gone”

# Gone

Back to keep, on to [[other]] and [[third]], itself gone.

## Detail

Details.

[//begin]: # "Autogenerated link references for markdown compatibility"
[keep#Detail|the detail]: keep "Keep"
[other]: other "Other"
[third]: third "Third"
[//end]: # "Autogenerated link references"
"""
    assert (base / "notes" / "other.md").read_text() == '# Other\n\n[[keep]] and [[keep]].\n\n[keep]: keep "Keep"\n'
    lint = run_cli("lint", cwd=tmp_path)
    assert lint.returncode == 0, lint.stdout + lint.stderr


@pytest.mark.slow
def test_a_foam_note_moved_to_another_folder_keeps_its_definitions(tmp_path):
    """Foam's definitions (without .md) of a note that moves to another
    folder, by a rename or as the merged text of a merge, were left naming
    paths from the old folder: worked out again from the new one."""
    base = vault_copy(tmp_path, "foam")
    proc = run_cli("merge", "inbox", "notes/biochar", "--dry-run", cwd=base)
    assert proc.returncode == 0 and "note:" not in proc.stderr, proc.stderr     # (the same [priming-effect]: no note)
    proc = run_cli("rename", "inbox", "notes/inbox", cwd=base)
    assert proc.returncode == 0, proc.stderr
    assert (base / "notes" / "inbox.md").read_text().endswith('\n[priming-effect]: priming-effect "Priming effect"\n')
    proc = run_cli("merge", "notes/inbox", "notes/cover-crops", cwd=base)
    assert proc.returncode == 0, proc.stderr
    assert (base / "notes" / "cover-crops.md").read_text().endswith("""\
- Ask the lab about [[nitrogen-cycling]] measurements for the trial.

[soil-organic-carbon]: soil-organic-carbon "Soil organic carbon"
[carbon-saturation]: carbon-saturation "Carbon saturation"
[field-trial-2026]: ../projects/field-trial-2026 "Field trial 2026"
[priming-effect]: priming-effect "Priming effect"
""")


@pytest.mark.parametrize("vault, rid", [("foam", "notes/priming-effect"),
                                        ("madr", "0008-use-duckdb-for-analysis-queries")])
def test_show_names_body_backlinks_with_the_schemas_label(tmp_path, vault, rid):
    """`show` said "Mentioned by" where the preset (and the site) say
    "Linked from"."""
    base = vault_copy(tmp_path, vault)
    proc = run_cli("show", rid, cwd=base)
    assert proc.returncode == 0, proc.stderr
    assert "\nLinked from " in proc.stdout and "Mentioned by" not in proc.stdout, proc.stdout


def test_a_foam_rename_rewrites_the_definitions_of_a_note_saved_with_crlf(tmp_path):
    """A note saved on Windows ends its lines with CRLF: its Foam link
    reference definitions were not read (the pattern wanted a line's end
    right after the title), so a rename left ``[priming-effect]:
    priming-effect`` pointing at a note that no longer exists."""
    base = vault_copy(tmp_path, "foam")
    for rel in ("notes/biochar.md", "inbox.md"):
        p = base / rel
        p.write_bytes(p.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    proc = run_cli("rename", "notes/priming-effect", "notes/priming-effects", cwd=base)
    assert proc.returncode == 0, proc.stderr
    biochar = (base / "notes" / "biochar.md").read_bytes()
    assert b'[priming-effects]: priming-effects "Priming effect"\r\n' in biochar or \
        b"]: priming-effects" in biochar, biochar
    assert b"]: priming-effect \"" not in biochar and b"]: priming-effect\r" not in biochar, biochar
    assert b"\n" not in biochar.replace(b"\r\n", b""), "a bare LF was written into a CRLF note"
    inbox = (base / "inbox.md").read_bytes()
    assert b"]: notes/priming-effects" in inbox, inbox
    lint = run_cli("lint", "--format", "json", "--exit-zero", cwd=base)
    assert [d for d in json.loads(lint.stdout) if "priming" in d["message"]] == [], lint.stdout


def test_a_foam_merge_says_when_the_merged_text_takes_a_label_of_into(tmp_path):
    """OLD's text (now before INTO's block of definitions) defines a label
    INTO's block defines otherwise: CommonMark reads the first, so INTO's
    ``[x][ref]`` would go elsewhere after the merge.  The merge says so
    (or, where the graph sees the link, refuses), never silently."""
    base = tmp_path / "v"
    base.mkdir()
    (base / "recordkit.toml").write_text('root = "."\nschema = "preset:foam"\n')
    for name, text in (("a.md", "# A\n\n[ref]: d\n\nUse [y][ref].\n"),
                       ("b.md", "# B\n\nSee [x][ref].\n\n[ref]: c \"C\"\n"),
                       ("c.md", "# C\n"), ("d.md", "# D\n")):
        (base / name).write_text(text)
    proc = run_cli("merge", "a", "b", "--dry-run", cwd=base)
    said = proc.stdout + proc.stderr
    assert proc.returncode == 0, said
    assert "b's definition of [ref] now comes after a's text" in said and "a's is the one read" in said, said
    # with .md destinations the graph sees the link change: the merge is refused
    (base / "a.md").write_text("# A\n\n[ref]: d.md\n\nUse [y][ref].\n")
    (base / "b.md").write_text("# B\n\nSee [x][ref].\n\n[ref]: c.md \"C\"\n")
    proc = run_cli("merge", "a", "b", cwd=base)
    assert proc.returncode != 0 and "would lose 1 link: b -links_to(body)-> c" in proc.stderr, proc.stderr
    assert (base / "a.md").exists()


@pytest.mark.slow
def test_merge_is_linear_in_the_links_of_the_merged_note(tmp_path):
    """Each edit was tested against every link made plain text, and each
    dropped definition's label searched the whole body: 16,000 links took
    27 s (4,000: 2 s).  Four times the links now take about four times as
    long, far below sixteen."""
    import time

    def vault(n):
        base = tmp_path / f"v{n}"
        base.mkdir()
        (base / "recordkit.toml").write_text('root = "."\nschema = "preset:foam"\n')
        (base / "a.md").write_text("# A\n\n## H\n\n" + "".join(f"See [[b]] and [[a#H]] {i}.\n\n" for i in range(n))
                                   + "".join(f"Use [t{i}][x{i}] here.\n\n" for i in range(n))
                                   + "".join(f'[x{i}]: b "B"\n' for i in range(n)))
        (base / "b.md").write_text("# B\n\nText of b.\n")
        return base

    took = []
    for n in (1000, 4000):
        base = vault(n)
        t = time.perf_counter()
        proc = run_cli("merge", "a", "b", "--dry-run", cwd=base)
        took.append(time.perf_counter() - t)
        assert proc.returncode == 0, proc.stderr
    assert took[1] < 8 * took[0] + 1.0, took
