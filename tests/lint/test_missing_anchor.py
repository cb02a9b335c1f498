"""RK309 missing-anchor: a link names a heading or block its target does
not have.  Located at the link, skipped in code, left to RK305/RK308 when
the target is missing or ambiguous; suppressible; re-reported through the
lint cache and by ``lint PATHS`` when the *target's* headings change."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, git_env, run_cli, write

TARGET = """\
---
id: LIT-001
title: A work on representations
status: queued
authors: [A. Author]
year: 2020
---
# Overview

## Results, in short

A finding worth pointing at. ^finding

- a listed point ^point
- another

| a | b |
|---|---|
| 1 | 2 |

^table-one

```
## Not a heading ^not-a-block
```
"""

HOST = """\
---
id: NOTE-001
title: Links into LIT-001
status: draft
paper: LIT-001
---
Present: [[LIT-001#Overview]], [[LIT-001#results, in short|case]], [[LIT-001#results-in-short]],
[[LIT-001#^finding]], [[LIT-001^point]], [[LIT-001#^table-one]].

Missing: [[LIT-001#Methods]] and [[LIT-001#^nothing|a label]] and [[LIT-001^gone]].

![[LIT-001#Not a heading]]

Code is no link: `[[LIT-001#Methods]]`, and

```
[[LIT-001#Methods]] [[#Nowhere]]
```

Not RK309's: [[LIT-404#Methods]].

Own parts: [[#Own heading]], [[#^own-block]], [[#Not here]], [[#^not-here]].

<!-- recordkit: ignore RK309 -->
Silenced: [[LIT-001#Silenced]].

## Own heading

Said here. ^own-block
"""


def _lint(folder: Path, *args, cache: bool = False, env=None) -> tuple[subprocess.CompletedProcess, list]:
    proc = run_cli("lint", "--format", "json", "--exit-zero", *([] if cache else ["--no-cache"]), *args,
                   cwd=folder, env=env)
    assert proc.returncode == 0, proc.stderr
    return proc, json.loads(proc.stdout)


def _found(diags, code="RK309"):
    return sorted((d["filename"], d["location"]["row"], d["location"]["column"], d["end_location"]["column"],
                   d["message"]) for d in diags if d["code"] == code)


def test_each_missing_heading_or_block_at_its_link(tmp_path):
    write(tmp_path, "records/lit/LIT-001.md", TARGET)
    write(tmp_path, "records/note/NOTE-001.md", HOST)
    _, diags = _lint(tmp_path)
    f = "records/note/NOTE-001.md"
    assert _found(diags) == sorted([
        (f, 10, 10, 29, '`[[LIT-001#Methods]]`: LIT-001 has no heading "Methods"'),
        (f, 10, 34, 62, "`[[LIT-001#^nothing|a label]]`: LIT-001 has no block ^nothing"),
        (f, 10, 67, 83, "`[[LIT-001^gone]]`: LIT-001 has no block ^gone"),
        # an embed (at its [[, as RK305 places it); a heading in a code block is none
        (f, 12, 2, 27, '`[[LIT-001#Not a heading]]`: LIT-001 has no heading "Not a heading"'),
        (f, 22, 47, 60, '`[[#Not here]]`: NOTE-001 has no heading "Not here"'),
        (f, 22, 62, 76, "`[[#^not-here]]`: NOTE-001 has no block ^not-here"),
    ])
    # a missing target is RK305's, not RK309's
    assert [(d["location"]["row"], d["message"]) for d in diags if d["code"] == "RK305"] == [
        (20, "wikilink of LIT-404, which does not exist")]
    for d in diags:
        if d["code"] == "RK309":
            assert d["severity"] == "warning"
            assert d["url"].endswith("docs/rules.md#rk309-missing-anchor")


def test_the_example_record_has_no_such_link():
    """``records/`` links to no heading or block: its lint is unchanged."""
    proc = run_cli("lint", "--no-cache", "--format", "json", "--select", "RK309", cwd=REPO)
    assert json.loads(proc.stdout) == []


@pytest.mark.slow
def test_a_fragment_the_target_gains_or_loses_through_the_cache(tmp_path):
    """The diagnostic depends on the target's text: the cached lint answers
    again only while nothing changed, and an edit of the target alone (the
    linking file untouched) brings RK309 and takes it away."""
    target = write(tmp_path, "records/lit/LIT-001.md", TARGET)
    write(tmp_path, "records/note/NOTE-001.md", HOST)
    first, diags = _lint(tmp_path, cache=True)
    assert any("no heading \"Methods\"" in d["message"] for d in diags)
    again, cached = _lint(tmp_path, cache=True)
    assert _found(cached) == _found(diags)
    original = target.read_text(encoding="utf-8")
    target.write_text(original + "\n## Methods\n\nHow it was done.\n", encoding="utf-8")
    _, after = _lint(tmp_path, cache=True)
    assert not any("Methods" in d["message"] for d in after if d["code"] == "RK309")
    assert len(_found(after)) == len(_found(diags)) - 1
    target.write_text(original, encoding="utf-8")
    _, back = _lint(tmp_path, cache=True)
    assert _found(back) == _found(diags)
    _, still = _lint(tmp_path, cache=True)
    assert _found(still) == _found(diags)


@pytest.mark.slow
def test_lint_of_the_target_reports_the_link_in_the_linking_file(tmp_path):
    """``recordkit lint target.md`` reports the RK309 located in the file
    that links to it (the diagnostic is about the target's id), as RK305
    is for the ids a path holds; a path unrelated to both does not."""
    write(tmp_path, "records/lit/LIT-001.md", TARGET)
    write(tmp_path, "records/note/NOTE-001.md", HOST)
    write(tmp_path, "records/lit/LIT-002.md", TARGET.replace("LIT-001", "LIT-002"))
    env = git_env(tmp_path)
    _, every = _lint(tmp_path, env=env)
    _, some = _lint(tmp_path, "records/lit/LIT-001.md", env=env)
    # the four links into LIT-001, not the two to the linking note's own parts
    assert _found(some) == [d for d in _found(every) if "LIT-001 has no" in d[4]] and len(_found(some)) == 4
    assert all(f == "records/note/NOTE-001.md" for f, *_ in _found(some))
    _, unrelated = _lint(tmp_path, "records/lit/LIT-002.md", env=env)
    assert _found(unrelated) == []
    _, host = _lint(tmp_path, "records/note/NOTE-001.md", env=env)
    assert _found(host) == _found(every) and len(_found(every)) == 6


@pytest.mark.slow
def test_vault_links_markdown_links_and_label_first(tmp_path):
    """In a vault: an embed is placed at its ``!``, a Markdown link to a
    ``.md`` file with a ``#fragment`` is checked (the heading's slug, as
    GitHub writes it, counts), an attachment is not; Dendron's
    ``[[label|target#heading]]`` reads the target after the bar."""
    vaults = REPO / "tests" / "fixtures" / "vaults"
    foam = tmp_path / "foam"
    shutil.copytree(vaults / "foam", foam)
    (foam / "recordkit.toml").write_text('root = "."\nschema = "preset:foam"\n', encoding="utf-8")
    _, diags = _lint(foam)
    assert _found(diags) == []        # every heading link of the vault lands
    p = foam / "projects" / "field-trial-2026.md"
    p.write_text(p.read_text(encoding="utf-8").replace("soil-organic-carbon.md#measurement",
                                                       "soil-organic-carbon.md#measurment"), encoding="utf-8")
    q = foam / "journal" / "2026-04-15.md"
    q.write_text(q.read_text(encoding="utf-8").replace("![[field-trial-2026#Sampling]]",
                                                       "![[field-trial-2026#Samples]] ![[figure.png#x]]"),
                 encoding="utf-8")
    _, diags = _lint(foam)
    assert [(f, row, col, msg) for f, row, col, _, msg in _found(diags)] == [
        ("journal/2026-04-15.md", 10, 1,
         '`![[field-trial-2026#Samples]]`: projects/field-trial-2026 has no heading "Samples"'),
        ("projects/field-trial-2026.md", 14, 30, "`[measurement](../notes/soil-organic-carbon.md#measurment)`: "
                                                 'notes/soil-organic-carbon has no heading "measurment"'),
    ]
    dendron = tmp_path / "dendron"
    shutil.copytree(vaults / "dendron", dendron)
    (dendron / "recordkit.toml").write_text('root = "notes"\nschema = "preset:dendron"\n', encoding="utf-8")
    p = dendron / "notes" / "eval.benchmarks.contamination.md"
    p.write_text(p.read_text(encoding="utf-8").replace("eval.benchmarks#contamination", "eval.benchmarks#contam")
                 + "\nSee [[above|#Nowhere]].\n", encoding="utf-8")
    _, diags = _lint(dendron)
    assert [m for *_, m in _found(diags)] == [
        '`[[the benchmarks note|eval.benchmarks#contam]]`: eval.benchmarks has no heading "contam"',
        '`[[above|#Nowhere]]`: eval.benchmarks.contamination has no heading "Nowhere"']


def test_a_record_without_such_links_never_parses_a_body(tmp_path):
    """A lint of a record whose links name no heading or block does not
    import the Markdown engine (pyromark; RK309 reads each file's bytes
    once, for ``[[…#``)."""
    code = ("import sys, recordkit\n"
            "from recordkit.config import load_config\n"
            "from recordkit.lint import lint\n"
            "c = load_config(sys.argv[1])\n"
            "res = lint(recordkit.load(c.root, config=c, jobs=1), select=['RK309'])\n"
            "print(len(res.diagnostics), 'pyromark' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code, str(REPO)], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", "False"]
    write(tmp_path, "records/lit/LIT-001.md", TARGET)
    write(tmp_path, "records/note/NOTE-001.md", HOST)
    write(tmp_path, "recordkit.toml", 'root = "records"\n')
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["6", "True"]


@pytest.mark.parametrize("raw", [True, False])
def test_the_quick_test_never_misses_a_link(raw, tmp_path):
    """The byte search that lets most records skip RK309 finds every form a
    link to a part of a record takes (a record read by a helper process
    keeps its bytes, one read here its text)."""
    from recordkit.lint.rules.relations import _may_name_part

    from recordkit.corpus.source import Source

    class Rec:
        def __init__(self, text):
            self.source = Source(None, text.encode()) if raw else Source(text)
            self.text = text

    for link in ("[[N#H]]", "[[N^b]]", "[[#H]]", "[[#^b]]", "![[N#H|x]]", "[[x|N#H]]", "[[ N #H]]",
                 "[[label|#H]]"):
        assert _may_name_part(Rec(f"a\n{link}\n"), False), link
    assert _may_name_part(Rec("[a](b.md#h)"), True) and not _may_name_part(Rec("[a](b.md#h)"), False)
    assert not _may_name_part(Rec("# H\n\n[[N]] and [[N|l]]\n## x #y\n"), True)


def test_markdown_links_to_the_page_itself(tmp_path):
    """``[text](#heading)`` names a part of the body itself whatever the
    link settings (the site links it): reported when the body lacks it, at
    the link's text; in code it is no link; a footnote's id (``#fn1``) is
    a part the page has."""
    write(tmp_path, "records/note/NOTE-002.md", """\
---
id: NOTE-002
title: Links to its own parts
status: draft
---
See [the method](#method), [its Method](#Method), [a step](#^step), [gone](#not-there)
and [no block](<#^nope>); `[code](#not-there)` is no link.
A claim.[^1] See [its note](#fn1), not [a second](#fn2).

## Method

A step. ^step

[^1]: The only footnote.
""")
    _, diags = _lint(tmp_path)
    f = "records/note/NOTE-002.md"
    assert _found(diags) == [
        (f, 6, 69, 87, '`[gone](#not-there)`: NOTE-002 has no heading "not-there"'),
        (f, 7, 5, 25, "`[no block](<#^nope>)`: NOTE-002 has no block ^nope"),
        (f, 8, 40, 56, '`[a second](#fn2)`: NOTE-002 has no heading "fn2"'),
    ]
