"""Time the language features' plain functions on a generated record
(``python bench/generate.py /tmp/b10k --count 10000``), as the server calls
them on one snapshot: p50/p95 over N requests each (the first request of a
kind, which builds what the snapshot keeps, reported apart).

    python bench/lsp_features.py /tmp/b10k [N] [--plant 500]

``--plant K`` first writes a line mentioning one record into K other files
of the (generated, disposable) record, so that references and rename are
timed for a record with K in-links (issue 32: 500).
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "lsp"))

from lsprotocol import types as lsp  # noqa: E402

from featurekit import Snap, load  # noqa: E402
from recordkit.lsp.features import completion, definition, hover, rename, symbols  # noqa: E402


def timed(fn, n):
    first = time.perf_counter()
    fn(0)
    first = time.perf_counter() - first
    out = []
    for i in range(1, n + 1):
        t = time.perf_counter()
        fn(i)
        out.append(time.perf_counter() - t)
    out.sort()
    return first, statistics.median(out), out[int(len(out) * 0.95) - 1]


def main() -> None:
    args = sys.argv[1:]
    plant = 0
    if "--plant" in args:
        i = args.index("--plant")
        plant = int(args[i + 1])
        del args[i:i + 2]
    root = Path(args[0])
    n = int(args[1]) if len(args) > 1 else 50
    if plant:
        files = sorted(root.rglob("*.md"))
        target = files[0].stem
        for p in files[1:plant + 1]:
            text = p.read_text(encoding="utf-8")
            if f"planted {target}" not in text:
                p.write_text(text + f"\nThe planted {target} mention.\n", encoding="utf-8")
    if not (root / "recordkit.toml").exists() and not (root / "pyproject.toml").exists():
        (root / "recordkit.toml").write_text('root = "."\n', encoding="utf-8")
    t = time.perf_counter()
    snap = Snap(load(root))
    print(f"load {time.perf_counter() - t:.2f} s, {len(snap.corpus.records)} records")
    recs = [r for r in snap.corpus.records.values() if r.relations][:n + 1]
    refs = [(r, next(t for ts in r.relations.values() for t in ts)) for r in recs]

    def pos_of(i):
        rec, t = refs[i % len(refs)]
        return snap.uri_of(rec.path), lsp.Position(line=t.pos[0] - 1, character=t.pos[1])
    from recordkit.lsp.features.context import index_of
    index = index_of(snap)
    t = time.perf_counter()
    index.sources("x")
    print(f"in-links of every record {1000 * (time.perf_counter() - t):.0f} ms (once per snapshot, then carried)")
    most = max(snap.corpus.records, key=lambda rid: len(index.sources(rid)))
    rows = {
        "hover": lambda i: hover.hover(snap, *pos_of(i)),
        "completion (relation)": lambda i: completion.relation_ids(
            completion.Place(snap, pos_of(i)[0], refs[i % len(refs)][0], pos_of(i)[1], "", "utf-16"),
            next(iter(refs[i % len(refs)][0].relations)), ""),
        "completion (bare KIND-)": lambda i: completion.ids(
            completion.Place(snap, pos_of(i)[0], refs[i % len(refs)][0], pos_of(i)[1], "LIT-1", "utf-16"), "LIT-1",
            kinds={"LIT"}),
        "definition": lambda i: definition.definition(snap, *pos_of(i)),
        "references (most-linked)": lambda i: definition.grouped_references(snap, most),
        "workspace symbols": lambda i: symbols.workspace_symbols(snap, "theory"),
        "document symbols": lambda i: symbols.document_symbols(snap, pos_of(i)[0]),
    }
    print(f"most-linked record {most}: {len(index.references(most))} references in {len(index.sources(most))} files")
    for name, fn in rows.items():
        first, p50, p95 = timed(fn, n)
        print(f"{name:28s} first {first * 1000:7.1f} ms   p50 {p50 * 1000:6.1f} ms   p95 {p95 * 1000:6.1f} ms")
    kind = snap.schema.kind_of(most)
    for i in range(3):
        new = f"{kind}-{999990 + i}"
        t = time.perf_counter()
        plan = rename.plan_for(snap, most, new)
        t1 = time.perf_counter()
        edit = rename.plan_edit(snap, plan)
        t2 = time.perf_counter()
        print(f"rename {most} -> {new}: {len(edit.document_changes)} changes, plan {t1 - t:.2f} s + edit "
              f"{t2 - t1:.2f} s = {t2 - t:.2f} s")
    front_matter_edit(snap, recs[0])


def front_matter_edit(snap, rec) -> None:
    """The first hover after an edit of a record's front matter (its status),
    the graph carried from the last snapshot and updated, against building
    it from nothing."""
    from recordkit.graph import of as graph_of
    from recordkit.lsp.features.carry import Carry
    from recordkit.lsp.features.graphs import ensure_graph
    carry = Carry()
    carry.prepare(snap)
    t = time.perf_counter()
    graph_of(snap.corpus)
    print(f"graph built {1000 * (time.perf_counter() - t):.0f} ms")
    status = rec.status
    other = next(s for s in snap.schema.kinds[rec.kind].statuses if s != status)
    target = next(r for r in snap.corpus.records if r not in rec.mention_targets and r != rec.id)
    edits = {"a status edit": rec.text.replace(f"status: {status}", f"status: {other}", 1),
             f"a mention of {target} added": rec.text + f"\nSee {target}.\n"}
    for what, text in edits.items():
        s2 = Snap(snap.corpus, {rec.path: text})
        t = time.perf_counter()
        carry.prepare(s2)
        t1 = time.perf_counter()
        ensure_graph(s2)
        t2 = time.perf_counter()
        uri = s2.uri_of(rec.path)
        hover.hover(s2, uri, lsp.Position(line=1, character=5))
        t3 = time.perf_counter()
        print(f"after {what}: carry {1000 * (t1 - t):.0f} ms, graph updated {1000 * (t2 - t1):.0f} ms, "
              f"first hover {1000 * (t3 - t1):.0f} ms (updated graph: {s2.corpus.kept_graph is not None})")


if __name__ == "__main__":
    main()
