"""Property test of ``rename`` in an Obsidian-style vault: on drawn vaults
(notes in folders, names shared across folders, links by file name, path,
title, alias, in any case, with headings, labels, embeds, relative Markdown
links plain, URL-encoded or in angle brackets, front-matter values, links in
code), renaming a drawn note to a drawn name either is refused with nothing
written, or, read again from disk by the loader, gives every note the links
it had (the renamed note's under its new id), with the renamed note's bytes
under its new name and every byte outside the links it rewrote unchanged."""
from __future__ import annotations

import pytest
import posixpath
import re
import shutil
from pathlib import Path
from urllib.parse import quote

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recordkit.author.plan import AuthorError
from recordkit.author.relink import plan_vault_rename
from recordkit.config import load_config
from recordkit.corpus.loader import load

FOLDERS = ["", "A", "B", "A/Deep"]
NAMES = ["Alpha", "alpha beta", "Gamma", "Index", "Été", "x-1"]
NEW_NAMES = ["Alpha", "Delta", "Index", "new name", "Ünï", "Gamma", "A/Index", "B/Fresh", "A/Deep/Alpha"]


@st.composite
def vaults(draw):
    notes = draw(st.lists(st.tuples(st.sampled_from(FOLDERS), st.sampled_from(NAMES)), min_size=2, max_size=6,
                          unique=True))
    paths = [posixpath.join(f, n) + ".md" if f else n + ".md" for f, n in notes]
    files = {}
    for i, p in enumerate(paths):
        lines = []
        fm = {}
        if draw(st.booleans()):
            fm["aliases"] = f"[Nick {i}]"
        if draw(st.booleans()):
            fm["title"] = f"Title {i}"
        for _ in range(draw(st.integers(0, 5))):
            q = draw(st.sampled_from(paths))
            stem = q[:-3].rsplit("/", 1)[-1]
            rel = posixpath.relpath(q, posixpath.dirname(p) or ".")
            k = paths.index(q)
            form = draw(st.integers(0, 11))
            link = [f"[[{stem}]]", f"[[{stem.upper()}|label]]", f"![[{stem}#Heading]]", f"[[{q[:-3]}]]",
                    f"[see]({quote(rel)})", f"[see](<{rel}#top>)", f"[[Nick {k}]]", f"[[Title {k}]]",
                    f"`[[{stem}]]`", f"[[{stem}.md]]", f"[root](/{quote(q)})", f"[[{stem}^b1]]"][form]
            lines.append(f"Text {link} more.")
        if draw(st.booleans()):
            q = draw(st.sampled_from(paths))
            fm["up"] = f'"[[{q[:-3].rsplit("/", 1)[-1]}]]"'
        head = "".join(f"{k}: {v}\n" for k, v in fm.items())
        files[p] = (f"---\n{head}---\n" if head else "") + "\n".join(lines) + "\n"
    pick = draw(st.integers(0, len(paths) - 1))
    new = draw(st.sampled_from(NEW_NAMES))
    return files, paths[pick], new


def _links(base: Path):
    corpus = load(config=load_config(base))
    return corpus, {rid: (list(r.mention_targets), {k: [t.id for t in ts] for k, ts in (r.relations or {}).items()})
                    for rid, r in corpus.records.items()}


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(vaults())
def test_a_vault_rename_keeps_every_link_or_writes_nothing(tmp_path_factory, drawn):
    files, old_path, new = drawn
    base = tmp_path_factory.mktemp("vault")
    for rel, text in files.items():
        (base / "v" / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / "v" / rel).write_text(text, encoding="utf-8")
    (base / "recordkit.toml").write_text('root = "v"\nschema = "preset:obsidian"\n')
    corpus, before = _links(base)
    old = old_path[:-3]
    disk = {p.relative_to(base / "v").as_posix(): p.read_bytes() for p in (base / "v").rglob("*.md")}
    try:
        plan = plan_vault_rename(corpus, old, new)
    except AuthorError:
        return                              # refused: nothing was written (a plan writes only when applied)
    plan.apply(base / ".recordkit")
    after_corpus, after = _links(base)
    new_id = plan.new_path.relative_to(base / "v").as_posix()[:-3]
    want = {}
    for rid, (mentions, rels) in before.items():
        ren = lambda t: new_id if t == old else t
        want[ren(rid)] = ([ren(t) for t in mentions], {k: [ren(t) for t in v] for k, v in rels.items()})
    for rid, (mentions, rels) in after.items():
        # a link that named no note may now name the renamed one (the plan says so)
        w = want[rid]
        assert [t if t == a or not (a not in before and t == new_id) else a for t, a in zip(mentions, w[0])] \
            == w[0], rid
        assert rels == w[1] or all(x == y or (y not in before and x == new_id)
                                   for k in rels for x, y in zip(rels[k], w[1][k])), rid
    assert set(after) == set(want)
    now = {p.relative_to(base / "v").as_posix(): p.read_bytes() for p in (base / "v").rglob("*.md")}
    assert set(now) == set(disk) - {old_path} | {new_id + ".md"}
    # outside the links rewritten, every byte is as it was: the texts with
    # their links' targets masked are equal
    mask = re.compile(r"(\[\[)[^\]|#^]*|(\]\()[^)]*")
    for rel, data in now.items():
        was = disk[old_path if rel == new_id + ".md" else rel]
        assert mask.sub(r"\1\2", data.decode()) == mask.sub(r"\1\2", was.decode()), rel


PIECES = ["[[", "]]", "|", "\\|", "#", "^", "](", "(", ")", "<", ">", "%20", "`", "```\n", "    ", "\n", "\n\n",
          "---\n", ":", '"', "'", "!", "é", "Alpha", "alpha", "A/Alpha", "Gamma", ".md", " ", "x", "[", "]", "/",
          "../", "[a](Alpha.md)", "[[Alpha]]", "[[A/Alpha|l]]", "![[Gamma#h]]"]
TEXT = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(st.sampled_from(["Alpha.md", "A/Alpha.md", "Gamma.md", "A/Beta.md", "B/Gamma.md"]),
                       st.tuples(st.sampled_from(["", "up: ", "up: \"", "related: ['", "aliases: ["]), TEXT, TEXT),
                       min_size=2),
       st.sampled_from(["Delta", "A/Delta", "Gamma", "new é name"]), st.booleans())
def test_hostile_notes_are_renamed_or_merged_or_refused(tmp_path_factory, notes, new, merge):
    """Messy notes (unclosed links, stray brackets, pipes, fences, broken
    front matter): a rename or a merge either is refused (AuthorError,
    nothing written) or leaves every other note's links as they were, read
    back from disk; never an exception of another kind."""
    from recordkit.author.merge import plan_merge
    base = tmp_path_factory.mktemp("hostile")
    for rel, (key, value, body) in notes.items():
        (base / "v" / rel).parent.mkdir(parents=True, exist_ok=True)
        head = f"---\n{key}{value}\n---\n" if key or value else ""
        (base / "v" / rel).write_text(head + body + "\n", encoding="utf-8")
    (base / "recordkit.toml").write_text('root = "v"\nschema = "preset:obsidian"\n')
    corpus, before = _links(base)
    ids = sorted(corpus.records)
    if len(ids) < 2:
        return
    old, other = ids[0], ids[-1]
    try:
        plan = plan_merge(corpus, old, other) if merge else plan_vault_rename(corpus, old, new)
    except AuthorError:
        return
    plan.apply(base / ".recordkit")
    _, after = _links(base)
    target = other if merge else plan.new_path.relative_to(base / "v").as_posix()[:-3]
    for rid, (mentions, _) in before.items():
        if rid in (old, other):
            continue
        got = after[rid][0]
        want = [target if t == old else t for t in mentions]
        assert all(g == w or (w not in before and g == target) for g, w in zip(got, want)) and \
            len(got) == len(want), rid
