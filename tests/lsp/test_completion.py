"""Completion: relation-aware ids (no self, no cycle-closing target), keys
per kind, statuses, tags, promote_when items, bare KIND-, wikilinks by
title/alias in a vault, query-block tables/columns, resolve."""
from __future__ import annotations

import pytest
from lsprotocol import types as lsp

from featurekit import research_copy, snap_of, vault_copy, Snap
from recordkit.lsp.features import completion


@pytest.fixture(scope="module")
def snap(tmp_path_factory):
    return snap_of(research_copy(tmp_path_factory.mktemp("comp")))


def labels(got):
    return [i.label for i in got.items]


def test_extends_offers_theories_only_never_itself_nor_a_cycle(snap):
    # THEORY-798 extends THEORY-175: from THEORY-175, extending THEORY-798 would close the cycle
    rec = snap.corpus.records["THEORY-175"]
    text = rec.text.replace("\nsource:", "\nextends: [THEORY-]\nsource:", 1)
    s = Snap(snap.corpus, {rec.path: text})
    line = text.split("\n").index("extends: [THEORY-]")
    got = labels(completion.complete(s, s.uri("THEORY-175"), lsp.Position(line=line, character=17)))
    assert got and all(x.startswith("THEORY-") for x in got)
    assert "THEORY-175" not in got and "THEORY-798" not in got


def test_source_offers_the_kinds_it_allows_with_title_kind_status(snap):
    got = completion.complete(snap, snap.uri("THEORY-798"), snap.at("THEORY-798", "source: [LIT-849", shift=len("source: [LIT-")))
    assert got.items and {i.label.split("-")[0] for i in got.items} <= {"LIT", "NOTE"}
    item = next(i for i in got.items if i.label == "LIT-849")
    assert "LIT" in item.detail and item.label_details.description
    assert completion.resolve(snap, item).documentation.value.startswith("**LIT-849**")


def test_keys_statuses_tags_and_promote_when(snap):
    u = snap.uri("THEORY-798")
    keys = {i.label: i.detail for i in completion.complete(snap, u, snap.at("THEORY-798", "created:", shift=0)).items}
    assert keys["promoted_by"].startswith("relation") and keys["updated"] == "date" and "title" not in keys
    st = labels(completion.complete(snap, u, snap.at("THEORY-798", "status: proposed", shift=len("status: "))))
    assert st == ["proposed", "active", "retired", "rejected"]
    tags = labels(completion.complete(snap, u, snap.at("THEORY-798", "tags: [", shift=len("tags: ["))))
    assert "representation-learning" in tags
    pw = labels(completion.complete(snap, u, snap.at("THEORY-798", "    - record", shift=6)))
    assert "check: var-diff-identity" in pw and "record: {kind: NOTE, relation: bears_on, status: final}" in pw


def test_bare_kind_prefix_in_prose(snap):
    got = completion.complete(snap, snap.uri("THEORY-798"), snap.at("THEORY-798", "NOTE-652", shift=5))
    assert got.items and all(i.label.startswith("NOTE-") for i in got.items)
    assert len(got.items) <= completion.MAX_ITEMS


def test_obsidian_wikilinks_by_file_name_title_and_alias(tmp_path):
    s = snap_of(vault_copy("obsidian", tmp_path / "v"))
    rec = next(r for r in s.corpus.records.values() if "[[" in r.body)
    text = rec.text + "\nSee [[why we\n"
    s2 = Snap(s.corpus, {rec.path: text})
    line = text.split("\n").index("See [[why we")
    got = completion.complete(s2, s2.uri_of(rec.path), lsp.Position(line=line, character=len("See [[why we")))
    assert "Why We Sleep" in labels(got)


def test_query_block_tables_and_columns(snap):
    rec = snap.corpus.records["THEORY-798"]
    text = rec.text + "\n```query\nSELECT r. FROM records r\n```\n"
    s = Snap(snap.corpus, {rec.path: text})
    line = text.split("\n").index("SELECT r. FROM records r")
    got = labels(completion.complete(s, s.uri("THEORY-798"), lsp.Position(line=line, character=len("SELECT r."))))
    assert "title" in got and "status" in got
    got = labels(completion.complete(s, s.uri("THEORY-798"), lsp.Position(line=line, character=len("SELECT r. FROM re"))))
    assert got == ["records", "relations", "requirements"] or "records" in got
