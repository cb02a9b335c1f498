"""What one snapshot's features kept, carried to the next: the answers
equal those worked out from nothing, and the graph is kept only when the
edit changes none of it."""
from __future__ import annotations

import pytest

from featurekit import Snap, research_copy, snap_of
from recordkit.graph import of as graph_of
from recordkit.lsp.features import completion, definition
from recordkit.lsp.features.carry import Carry
from recordkit.lsp.features.context import index_of


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return snap_of(research_copy(tmp_path_factory.mktemp("carry"))).corpus


def warm(carry, snap):
    carry.prepare(snap)
    definition.grouped_references(snap, "LIT-849")
    graph_of(snap.corpus)


def test_a_prose_edit_keeps_the_graph_and_the_answers(base):
    carry = Carry()
    rec = base.records["THEORY-798"]
    warm(carry, Snap(base))
    s = Snap(base, {rec.path: rec.text + "\nMore prose, no link.\n"})
    carry.prepare(s)
    assert s.corpus.kept_graph is base.kept_graph
    fresh = Snap(base, {rec.path: rec.text + "\nMore prose, no link.\n"})
    assert definition.grouped_references(s, "LIT-849") == definition.grouped_references(fresh, "LIT-849")
    assert completion.entries(s) == completion.entries(fresh)


def test_a_new_link_is_counted_and_the_graph_made_again(base):
    carry = Carry()
    rec = base.records["THEORY-798"]
    warm(carry, Snap(base))
    assert not any(loc.uri.endswith("THEORY-798.md") for loc in
                   definition.grouped_references(Snap(base), "QUESTION-027").get("Mentioned by", []))
    text = rec.text + "\nSee QUESTION-027.\n"
    s = Snap(base, {rec.path: text})
    carry.prepare(s)
    assert s.corpus.kept_graph is None
    got = definition.grouped_references(s, "QUESTION-027")["Mentioned by"]
    assert any(loc.uri.endswith("THEORY-798.md") for loc in got)
    fresh = Snap(base, {rec.path: text})
    assert sorted(r.id for r in index_of(s).sources("QUESTION-027")) == \
        sorted(r.id for r in index_of(fresh).sources("QUESTION-027"))


def test_a_front_matter_edit_updates_the_graph_on_first_hover(base):
    from recordkit.lsp.features import hover
    from recordkit.lsp.features.graphs import ensure_graph
    carry = Carry()
    rec = base.records["THEORY-798"]
    warm(carry, Snap(base))
    text = rec.text.replace("status: proposed", "status: refuted", 1) + "\nSee QUESTION-027.\n"
    assert text != rec.text + "\nSee QUESTION-027.\n"
    s = Snap(base, {rec.path: text})
    carry.prepare(s)
    assert s.corpus.kept_graph is None
    u = s.uri("LIT-849")
    pos = s.at("LIT-849", "id: LIT-849", shift=5)
    got = hover.hover(s, u, pos)
    g = s.corpus.kept_graph
    assert g is not None and g is not base.kept_graph
    assert g.nodes["LIT-849"] is base.kept_graph.nodes["LIT-849"]      # updated, not built: shared
    assert g.nodes["THEORY-798"]["status"] == "refuted"
    fresh = Snap(base, {rec.path: text})
    assert got == hover.hover(fresh, u, pos)
    assert sorted(g.edges(keys=True)) == sorted(graph_of(fresh.corpus).edges(keys=True))
    # a second edit chains from the updated graph
    s2 = Snap(base, {rec.path: text + "\nAnd LIT-250.\n"})
    carry.prepare(s2)
    ensure_graph(s2)
    assert s2.corpus.kept_graph is not None and s2.corpus.kept_graph.nodes["LIT-849"] is g.nodes["LIT-849"]
