"""The server's per-edit path is incremental (``corpus.loader.with_edits``,
``LintContext.carried``, ``Lifecycle.carried``, the workspace's last
record): for a seeded series of random edits — ids renamed (to a new id, to
a taken one, back), statuses, relation targets, ``promote_when`` items, body
links, a check block, a front matter broken and mended, a file reverted to
its saved text — the diagnostics of the open documents (and, every few
edits, of every file) equal those of a from-scratch lint of the same texts:
``with_texts`` of the record on disk and a fresh lint context, every link
resolved again and every analysis worked out again.  On a generated record
with planted defects and on an Obsidian vault (where an edited title or
alias changes what other notes' links name)."""
from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from recordkit.corpus.loader import with_edits, with_texts
from recordkit.lint.files import lint_files
from recordkit.lsp.workspace import Workspace, uri_of

from lspkit import REPO, copy_vault

STATUSES = ["proposed", "active", "retired", "refuted", "supported", "draft", "final", "rejected", "open"]


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    sys.path.insert(0, str(REPO / "bench"))
    from generate import generate
    out = tmp_path_factory.mktemp("incr")
    generate(out / "records", 120, seed=3, defects=0.05)
    (out / "recordkit.toml").write_text('root = "records"\ncache_dir = "cache"\n', encoding="utf-8")
    return out


def key(d) -> tuple:
    fix = None if d.fix is None else repr(d.fix)
    return (str(d.path), d.code, d.line, d.col, d.end_line, d.end_col, d.severity, d.message, d.record, fix,
            tuple(d.about))


def from_scratch(ws: Workspace, paths) -> dict:
    texts = {}
    for doc in ws.documents.values():
        rec = ws.base.by_path(doc.path)
        if rec is None or doc.text != rec.text:
            texts[doc.path] = doc.text
    corpus = with_texts(ws.base, texts, add=True) if texts else ws.base
    got = lint_files(corpus, paths, check_results=ws.check_results)
    return {p: [key(d) for d in ds] for p, ds in got.items()}


def incremental(ws: Workspace, paths) -> dict:
    snap = ws.snapshot()
    got = lint_files(snap.corpus, paths, ctx=snap.lint_context())
    return {p: [key(d) for d in ds] for p, ds in got.items()}


class Editor:
    """Random edits of a record's front matter and body, line by line."""

    def __init__(self, ws: Workspace, seed: int):
        self.ws = ws
        self.rnd = random.Random(seed)
        self.ids = sorted(ws.base.records)
        self.version = 0

    def text_of(self, path: Path) -> str:
        doc = self.ws.documents.get(uri_of(path))
        return doc.text if doc is not None else path.read_text(encoding="utf-8")

    def put(self, path: Path, text: str) -> None:
        self.version += 1
        self.ws.change(uri_of(path), text, self.version)

    def some_id(self) -> str:
        r = self.rnd.random()
        return self.rnd.choice(self.ids) if r < 0.7 else f"NOTE-{self.rnd.randint(900, 999)}"

    def edit(self, path: Path) -> str:
        text = self.text_of(path)
        lines = text.split("\n")
        end = lines.index("---", 1) if lines[:1] == ["---"] and "---" in lines[1:] else 0
        rnd = self.rnd
        what = rnd.choice(["id", "status", "relation", "promote", "body", "check", "break", "revert", "field"])
        fm = range(1, end)

        def rows(pred):
            return [i for i in fm if pred(lines[i])]
        if what == "id" and rows(lambda s: s.startswith("id: ")):
            i = rows(lambda s: s.startswith("id: "))[0]
            lines[i] = "id: " + rnd.choice([self.some_id(), lines[i][4:] + "7", self.ws.base.by_path(path).id
                                             if self.ws.base.by_path(path) and self.ws.base.by_path(path).ok
                                             else lines[i][4:]])
        elif what == "status" and rows(lambda s: s.startswith("status: ")):
            i = rows(lambda s: s.startswith("status: "))[0]
            lines[i] = "status: " + rnd.choice(STATUSES)
        elif what == "relation" and rows(lambda s: s.endswith("]") and ": [" in s):
            i = rnd.choice(rows(lambda s: s.endswith("]") and ": [" in s))
            name = lines[i].split(":", 1)[0]
            lines[i] = f"{name}: [{', '.join(self.some_id() for _ in range(rnd.randint(0, 3)))}]"
        elif what == "relation" and end:
            lines.insert(end, f"{rnd.choice(['source', 'extends', 'bears_on', 'promoted_by'])}: [{self.some_id()}]")
        elif what == "promote" and rows(lambda s: s.lstrip().startswith("- ")):
            i = rnd.choice(rows(lambda s: s.lstrip().startswith("- ")))
            indent = lines[i][:len(lines[i]) - len(lines[i].lstrip())]
            lines[i] = indent + rnd.choice([f"- claim: {self.some_id()}", "- check: no-such-check",
                                            "- record: {kind: NOTE, relation: bears_on, status: final}",
                                            "- record: {kind: NOTE, relation: bears_on}"])
        elif what == "body":
            lines.insert(rnd.randint(end + 1, len(lines)), rnd.choice(
                [f"As {self.some_id()} shows.", f"See [[{self.some_id()}]].", "Plain words.", "[[LIT-"]))
        elif what == "check":
            lines += ["", "```python check id=incr-check-1", "def check():", "    return 1.0", "```"]
        elif what == "break" and end:
            lines.insert(1, "bad: [unclosed")
        elif what == "revert":
            lines = path.read_text(encoding="utf-8").split("\n")
        elif what == "field" and end:
            lines.insert(end, rnd.choice(["promote_when: {summary: prose only}", "tags: [x, y]", "promoted_by: "
                                          + self.some_id()]))
        self.put(path, "\n".join(lines))
        return what


def entangled(corpus, rnd, n: int) -> list[Path]:
    """``n`` files to open: theories with a ``promote_when`` and what their
    standing hangs on (the records pointing at them, the claims they name,
    what they build on), so that an edit of one changes another's
    diagnostics; random files when the record has none."""
    out: list[Path] = []
    theories = [r for r in corpus.files if r.ok and r.get("promote_when") is not None]
    rnd.shuffle(theories)
    for t in theories:
        near = [r.path for r in corpus.files if r.ok and any(x.id == t.id for ts in r.relations.values() for x in ts)]
        near += [corpus.records[x.id].path for ts in t.relations.values() for x in ts if x.id in corpus.records]
        for p in [t.path] + near[:2]:
            if p not in out:
                out.append(p)
        if len(out) >= n:
            return out[:n]
    rest = [r.path for r in corpus.files if r.path not in out]
    return out + rnd.sample(rest, n - len(out))


def run_edits(folder: Path, steps: int, seed: int, open_n: int = 6, every: int = 5) -> dict:
    ws = Workspace.at(folder)
    ws.load()
    files = sorted(r.path for r in ws.base.files)
    rnd = random.Random(seed)
    opened = entangled(ws.base, rnd, open_n)
    for p in opened:
        ws.open(uri_of(p), p.read_text(encoding="utf-8"), 0)
    ed = Editor(ws, seed)
    kinds: dict[str, int] = {}
    incremental_made = 0
    for step in range(steps):
        path = rnd.choice(opened)
        what = ed.edit(path)
        kinds[what] = kinds.get(what, 0) + 1
        paths = opened if step % every else files
        got = incremental(ws, paths)
        want = from_scratch(ws, paths)
        assert got == want, f"step {step}: after a {what!r} edit of {path.name}"
        applied = ws.applied
        if applied is not None and applied.corpus is not ws.base:
            incremental_made += 1
    return {"kinds": kinds, "incremental": incremental_made}


def test_random_edits_equal_a_lint_from_scratch(generated):
    got = run_edits(generated, steps=60, seed=11)
    # every kind of edit was made, and the record was made incrementally
    assert {"id", "status", "relation", "promote", "body", "check", "break", "revert"} <= set(got["kinds"])
    assert got["incremental"] > 20


def test_random_edits_of_a_vault_equal_a_lint_from_scratch(tmp_path):
    folder = copy_vault("obsidian", tmp_path / "obsidian")
    run_edits(folder, steps=40, seed=5, open_n=5, every=4)


def test_with_edits_keeps_the_rest_and_refuses_what_it_cannot_do(generated, tmp_path):
    ws = Workspace.at(generated)
    ws.load()
    base = ws.base
    rec = next(r for r in base.files if r.ok and r.id.startswith("THEORY-"))
    other = next(r for r in base.files if r.ok and r is not rec)
    new = with_edits(base, {rec.path: rec.text + "\nMore words.\n"})
    assert new is not None and new.by_path(other.path) is other      # shared, not copied
    assert new.by_path(rec.path) is not rec and new.records[rec.id] is new.by_path(rec.path)
    assert [r.path for r in new.files] == [r.path for r in base.files]
    assert with_edits(base, {rec.path: rec.text}) is base             # nothing changed
    assert with_edits(base, {rec.path: None}) is None                 # a file gone: with_texts does it
    assert with_edits(base, {tmp_path / "new.md": "---\nid: NOTE-1\n---\n"}) is None
    # an id renamed: the records are those of a corpus read from scratch, in order
    renamed = with_edits(base, {rec.path: rec.text.replace(f"id: {rec.id}", "id: THEORY-9999", 1)})
    scratch = with_texts(base, {rec.path: rec.text.replace(f"id: {rec.id}", "id: THEORY-9999", 1)})
    assert list(renamed.records) == list(scratch.records)
    assert rec.id not in renamed.records and "THEORY-9999" in renamed.records


def test_the_id_index_updated_answers_as_one_built_again():
    from recordkit.common.didyoumean import IdIndex
    rnd = random.Random(4)
    ids = {f"{k}-{rnd.randint(1, 400):03d}" for k in ("LIT", "NOTE", "THEORY") for _ in range(150)}
    index = IdIndex(ids)
    for _ in range(30):
        gone = set(rnd.sample(sorted(ids), 2))
        new = {f"NOTE-{rnd.randint(1, 400):03d}", f"LIT-{rnd.randint(1, 400):03d}"} - ids
        index, ids = index.updated(gone, new), (ids - gone) | new
        fresh = IdIndex(ids)
        for probe in [f"{k}-{rnd.randint(1, 400):03d}" for k in ("LIT", "NOTE", "THEORY") for _ in range(10)]:
            assert index.nearest(probe, n=3) == fresh.nearest(probe, n=3), probe
