"""The record's edges worked out from its records, without networkx.

:mod:`recordkit.graph.build` builds the networkx graph from the records; what
needs only a part of it (which records are linked, the derived ``cites``
edges, the id order) lives here, so that linting a record never imports
networkx (0.13 s) nor builds the graph (0.4 s on 10,000 records).
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..corpus.model import Corpus


def derived_edges(corpus: "Corpus") -> list:
    """Edges the schema derives from fields: by default a LIT's
    ``references`` that match another LIT's ``arxiv`` or ``doi`` become
    ``cites`` edges; a rule with ``field`` and ``pattern`` makes an edge of
    every match of its pattern in the field's value, to the record the
    pattern's ``target`` group names (resolved as any link is)."""
    out = []
    for rid, target, rule, field_name, i, ref in _derived(corpus):
        pos = corpus.records[rid].value_pos(field_name, i)
        out.append((rid, target, {"relation": rule["relation"], "origin": "derived",
                                  "line": pos[0], "col": pos[1], "via": str(ref)}))
    return out


def _derived(corpus: "Corpus"):
    """(source, target, derive rule, field, index in it, reference) of every
    derived edge, without positions (which may cost a second YAML parse)."""
    schema = corpus.schema
    for rule in schema.derive:
        index = derive_index(corpus, rule)
        for rid, r in corpus.records.items():
            yield from derived_of(rid, r, rule, index)
    for rule in schema.derive_patterns:
        yield from derived_by_pattern(corpus, rule)


def derive_index(corpus: "Corpus", rule) -> dict[str, str]:
    """A ``derive`` rule's index: each normalized ``match_fields`` value ->
    the first record (in the corpus's order) that holds it."""
    kind = rule.get("kind")
    index: dict[str, str] = {}
    for rid, r in corpus.records.items():
        if kind and r.kind != kind:
            continue
        for f in rule.get("match_fields", []):
            v = r.get(f)
            if isinstance(v, (str, int, float)):
                index.setdefault(normalize_ref(str(v)), rid)
    return index


def derive_refs(r, rule) -> list | None:
    """The references a record's ``from_field`` lists for a ``derive`` rule
    (None: the record is not of the rule's kind, or lists none)."""
    kind = rule.get("kind")
    if kind and r.kind != kind:
        return None
    refs = r.get(rule["from_field"])
    if isinstance(refs, str):
        refs = [refs]
    return refs if isinstance(refs, list) else None


def derived_of(rid: str, r, rule, index: dict):
    """The derived edges of one record by a ``derive`` rule (see :func:`_derived`)."""
    refs = derive_refs(r, rule)
    if refs is None:
        return
    src_field = rule["from_field"]
    declared = {t.id for t in r.relations.get(rule["relation"], [])}
    for i, ref in enumerate(refs):
        if not isinstance(ref, (str, int, float)):
            continue
        target = index.get(normalize_ref(str(ref)))
        if target and target != rid and target not in declared:
            yield rid, target, rule, src_field, i, ref


def derived_by_pattern(corpus: "Corpus", rule):
    """The edges of a ``{relation, field, pattern}`` derive rule (the
    schema's ``DerivePattern``): each match
    of ``pattern`` in the field's value (a string, or each string of a list)
    names its target in the group ``target``: an id, a ``[[wikilink]]`` or a
    Markdown link, resolved by the corpus's resolver."""
    from ..corpus.resolve import resolver_for
    from ..markdown.links import value_link
    pattern, field_name, relation = rule.regex, rule.field, rule.relation
    as_dict = {"relation": relation, "field": field_name, "pattern": pattern.pattern}
    settings = corpus.schema.links
    settings = type(settings)(settings.resolve, settings.case_sensitive, settings.wikilink_order, True,
                              settings.mentions)
    resolver = resolver_for(corpus)
    for rid, r in corpus.records.items():
        values = r.get(field_name)
        if isinstance(values, str):
            values = [values]
        if not isinstance(values, list):
            continue
        declared = None
        for i, value in enumerate(values):
            if not isinstance(value, str):
                continue
            for m in pattern.finditer(value):
                ref = m.group("target")
                if not ref or not ref.strip():
                    continue
                text, form = value_link(ref.strip(), settings)
                target = resolver.resolve(text, from_path=r.relpath, form=form).target
                if target is None or target == rid:
                    continue
                if declared is None:
                    declared = {t.id for t in r.relations.get(relation, [])}
                if target not in declared:
                    yield rid, target, as_dict, field_name, i, ref.strip()


_REF_PREFIXES = ("https://arxiv.org/abs/", "http://arxiv.org/abs/", "arxiv:", "https://doi.org/",
                 "http://doi.org/", "doi:")
_ARXIV_RE = re.compile(r"(\d{4}\.\d{4,5})(v\d+)?")


@lru_cache(maxsize=65536)   # the same works are cited by many records
def normalize_ref(ref: str) -> str:
    """``arXiv:2209.15430v2`` and ``https://arxiv.org/abs/2209.15430`` name the
    same work as ``2209.15430``; DOIs compare case-insensitively."""
    low = ref.strip().lower()
    if low.startswith(_REF_PREFIXES):
        for prefix in _REF_PREFIXES:
            if low.startswith(prefix):
                low = low[len(prefix):]
                break
    m = _ARXIV_RE.fullmatch(low)
    return m.group(1) if m else low


def linked_ids(corpus: "Corpus") -> set[str]:
    """Ids of the records some edge of :func:`build_graph`'s graph touches (in
    either direction), worked out from the records without building it: the
    lint needs only this of the graph, and building it costs 0.4 s on a
    10,000-file record.  tests/test_load.py checks it against the graph."""
    records = corpus.records
    ids = set(records)   # set & set runs in C over the smaller side
    out: set[str] = set()
    add = out.add
    for rid, r in records.items():
        named = set(r.mention_targets)
        for targets in r.relations.values():
            for t in targets:
                named.add(t.id)
        if named:
            named.discard(rid)
            hit = named & ids
            if hit:
                out |= hit
                add(rid)
    for u, v, *_ in _derived(corpus):
        add(u)
        add(v)
    return out
