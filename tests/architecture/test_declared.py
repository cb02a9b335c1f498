"""Declared data: every attribute a Record, Corpus or Schema carries is
declared (a dataclass field, or for a Record a slot), so no module keeps
state on them on the side; and the public API of docs/api.md exists."""
from __future__ import annotations

import dataclasses
import importlib
import re
from functools import cached_property

import pytest

import recordkit
from conftest import REPO
from recordkit.corpus.model import Record


def _declared(cls) -> set[str]:
    names = {f.name for f in dataclasses.fields(cls)}
    names |= {n for n, v in vars(cls).items() if isinstance(v, cached_property)}
    return names


@pytest.fixture(scope="module")
def used_corpus():
    """The example record after everything has asked it questions: a lint,
    the graph, backlinks, the lifecycle, a description, the content index."""
    from recordkit.lint import lint
    from recordkit.views.describe import describe
    from recordkit.views.index import build_index
    c = recordkit.load(REPO / "records")
    lint(c)
    c.backlinks("LIT-849")
    c.near_ids("THEORY-79")
    c.by_path(REPO / "records" / "lit" / "LIT-849.md")
    for rid in list(c.records)[:10]:
        describe(c, rid)
    build_index(c)
    for rec in c.files:
        rec.mentions, rec.keys
    return c


def test_a_record_has_no_attribute_on_the_side(used_corpus):
    rec = used_corpus.records["THEORY-798"]
    assert not hasattr(rec, "__dict__"), "Record has slots: every attribute is a declared field"
    with pytest.raises(AttributeError):
        rec._analysis = 1
    assert rec.code is not None and rec.fence_infos is not None and rec.mention_re is not None


def test_corpus_and_schema_carry_only_declared_attributes(used_corpus):
    assert set(vars(used_corpus)) <= _declared(type(used_corpus)), set(vars(used_corpus)) - _declared(type(used_corpus))
    schema = used_corpus.schema
    assert set(vars(schema)) <= _declared(type(schema)), set(vars(schema)) - _declared(type(schema))


def test_a_helpers_record_is_a_declared_type():
    from recordkit.corpus.store.wire import ParsedRecord, flat, unflat
    from recordkit.schema import load_schema
    from recordkit.corpus.parse import read_record
    path = REPO / "records" / "theory" / "THEORY-798.md"
    rec, diags = read_record(path, "theory/THEORY-798.md", load_schema(), keep_bytes=True)
    sent = flat(rec, diags)
    assert len(sent) == len(ParsedRecord._fields)
    got = ParsedRecord._make(sent)
    assert (got.id, got.kind, got.relpath, got.content) == (rec.id, rec.kind, rec.relpath, path.read_bytes())
    back, _ = unflat(got, rec.mention_re, path)
    assert isinstance(back, Record) and back.text == rec.text and back.meta == rec.meta


def test_a_record_keeps_its_storage_behind_its_source():
    """The file's content, digest and stat are the record's ``source``
    (:mod:`recordkit.corpus.source`); later stages' results are not on the
    record (they are in ``corpus.analyses``)."""
    names = {f.name for f in dataclasses.fields(Record)}
    assert "source" in names
    assert not names & {"_text", "_raw", "_body", "file_bytes", "_line_starts", "digest", "stat",
                        "analysis", "no_fix", "mention_spots"}
    assert len(names) <= 26, sorted(names)


def test_the_public_api_of_the_issue_works():
    from recordkit import check, measures  # noqa: F401
    c = recordkit.load(REPO / "records")
    assert "THEORY-798" in c.records and c.graph.number_of_nodes() == len(c.records)
    assert c.backlinks("LIT-849")['Cited as "paper" by'] == ["NOTE-652", "NOTE-804", "NOTE-811"]
    assert callable(check) and callable(measures.m_svd)


def test_every_name_docs_api_lists_exists():
    text = (REPO / "docs" / "api.md").read_text(encoding="utf-8")
    names = set(re.findall(r"`(recordkit(?:\.\w+)+)", text))
    # names written relative to a heading's package: `numeric.store.load_results`, `lint.fix.fix_corpus`
    names |= {"recordkit." + n for n in re.findall(r"`((?:numeric|lint|graph|views|lifecycle)\.\w+(?:\.\w+)*)", text)}
    assert len(names) > 15
    missing = []
    for name in sorted(names):
        parts = name.split(".")
        for i in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:i]))
            except ModuleNotFoundError:
                continue
            try:
                for attr in parts[i:]:
                    obj = getattr(obj, attr)
            except AttributeError:
                missing.append(name)
            break
        else:
            missing.append(name)
    assert missing == []
