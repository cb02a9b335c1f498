"""Definition, references (grouped by label, exact spans), document links,
hover, document and workspace symbols, call and type hierarchy: the plain
functions on a copy of records/ and of the Obsidian vault."""
from __future__ import annotations

import pytest
from lsprotocol import types as lsp

from featurekit import research_copy, snap_of, vault_copy
from recordkit.lsp.features import definition, hierarchy, hover, symbols


@pytest.fixture(scope="module")
def snap(tmp_path_factory):
    return snap_of(research_copy(tmp_path_factory.mktemp("nav")))


@pytest.fixture(scope="module")
def obsidian(tmp_path_factory):
    return snap_of(vault_copy("obsidian", tmp_path_factory.mktemp("obs") / "v"))


def test_definition_from_a_relation_a_wikilink_and_a_bare_id(snap):
    u = snap.uri("THEORY-798")
    for needle in ("LIT-849]", "[[LIT-849", "NOTE-652"):
        got = definition.definition(snap, u, snap.at("THEORY-798", needle))
        want = "LIT-849" if "LIT" in needle else "NOTE-652"
        assert [x.uri for x in got] == [snap.uri(want)], needle
    assert definition.definition(snap, u, lsp.Position(line=30, character=0)) == []


def test_references_are_grouped_by_label_with_exact_spans(snap):
    groups = definition.grouped_references(snap, "THEORY-175")
    assert list(groups)[0] == "Extended by" and list(groups)[-1] == "Mentioned by"
    text = snap.corpus.records["THEORY-798"].text.split("\n")
    (loc,) = groups["Extended by"]
    assert loc.uri == snap.uri("THEORY-798")
    line = text[loc.range.start.line]
    assert line[loc.range.start.character:loc.range.end.character] == "THEORY-175"
    flat = definition.references(snap, snap.uri("THEORY-798"), snap.at("THEORY-798", "THEORY-175"))
    assert len(flat) == sum(len(v) for v in groups.values())


def test_utf16_positions_around_wide_characters(tmp_path):
    root = research_copy(tmp_path)
    p = root / "records" / "theory" / "THEORY-798.md"
    text = p.read_text(encoding="utf-8").replace("[[LIT-849]]: Moschella", "é—😀 [[LIT-849]]: Moschella", 1)
    p.write_text(text, encoding="utf-8")
    for enc, shift in (("utf-16", 5), ("utf-8", 10), ("utf-32", 4)):
        s = snap_of(root, encoding=enc)
        links = [x for x in definition.document_links(s, s.uri("THEORY-798")) if x.range.start.line == 27]
        assert links[0].range.start.character == shift, enc


def test_hover_on_a_record_and_on_a_rule_code(snap):
    h = hover.hover(snap, snap.uri("THEORY-798"), snap.at("THEORY-798", "THEORY-175"))
    v = h.contents.value
    assert "**THEORY-175** · THEORY · active" in v and "Standing: **unestablished**" in v
    assert "Extended by 1" in v and "relrep-invariance-class" in v and "Moschella" in v
    rec = snap.corpus.records["THEORY-798"]
    doc = rec.text.replace("## Source", "<!-- recordkit: ignore RK305 -->\n## Source", 1)
    s2 = type(snap)(snap.corpus, {rec.path: doc})
    line = doc.split("\n").index("<!-- recordkit: ignore RK305 -->")
    got = hover.hover(s2, s2.uri("THEORY-798"), lsp.Position(line=line, character=25))
    assert "undefined-mention" in got.contents.value or "RK305" in got.contents.value


def test_hover_and_definition_by_title_and_alias_in_an_obsidian_vault(obsidian):
    rec = next(r for r in obsidian.corpus.records.values() if "[[" in r.body and r.mentions)
    m = next(m for m in rec.mentions if m.target in obsidian.corpus.records)
    got = definition.definition(obsidian, obsidian.uri_of(rec.path),
                                lsp.Position(line=m.line - 1, character=m.col + 1))
    assert got and got[0].uri == obsidian.uri_of(obsidian.corpus.records[m.target].path)


def test_document_symbols_hold_fields_relations_sections_and_claims_rows(snap):
    syms = symbols.document_symbols(snap, snap.uri("NOTE-738"))
    fm = syms[0]
    bears = next(s for s in fm.children if s.name == "bears_on")
    assert "THEORY-002" in [c.name for c in bears.children]
    claims = next(s for s in syms if s.name == "Claims")
    assert [c.name for c in claims.children][:2] == ["C1", "C2"]


def test_workspace_symbols_by_id_title_and_alias(snap, obsidian):
    assert symbols.workspace_symbols(snap, "THEORY-79")[0].name.startswith("THEORY-798")
    assert any(s.name.startswith("LIT-849") for s in symbols.workspace_symbols(snap, "relative representations"))
    assert symbols.workspace_symbols(obsidian, "why we sleep")


def test_call_and_type_hierarchy(snap):
    u = snap.uri("THEORY-798")
    (item,) = hierarchy.prepare_call(snap, u, snap.at("THEORY-798", "THEORY-175"))
    incoming = {c.from_.name: c for c in hierarchy.incoming_calls(snap, item)}
    assert "THEORY-798" in incoming and incoming["THEORY-798"].from_ranges
    outgoing = [c.to.name for c in hierarchy.outgoing_calls(snap, item)]
    assert "LIT-849" in outgoing
    (t,) = hierarchy.prepare_type(snap, u, snap.at("THEORY-798", "id: THEORY", shift=5))
    assert [x.name for x in hierarchy.supertypes(snap, t)] == ["THEORY-175"]
    (t175,) = hierarchy.prepare_type(snap, u, snap.at("THEORY-798", "THEORY-175"))
    assert "THEORY-798" in [x.name for x in hierarchy.subtypes(snap, t175)]
