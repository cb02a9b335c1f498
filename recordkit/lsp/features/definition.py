"""Go to definition, find references (grouped by relation label, each with
its exact span) and document links, from any reference form the schema
resolves: a bare id, a wikilink, a Markdown link, a relation target in front
matter, a record's own ``id:``.  The references are the corpus's own
(:func:`recordkit.lsp.features.context.record_refs`: the relations' targets
and the body's mentions, as :mod:`recordkit.corpus.resolve` resolved them)."""
from __future__ import annotations

from lsprotocol import types as lsp

from .context import RecordLines, encoding_name, index_of, location, lsp_range, ref_at, uri_of, whole_file


def definition(snap, uri: str, pos: lsp.Position) -> list[lsp.Location]:
    """Where the record named under the cursor is (its file's start)."""
    _, ref = ref_at(snap, uri, pos)
    if ref is None or ref.target is None:
        return []
    rec = snap.corpus.records.get(ref.target)
    return [whole_file(snap, rec)] if rec is not None else []


def target_at(snap, uri: str, pos: lsp.Position) -> str | None:
    """The id of the record the cursor names: a reference's target, or the
    file's own record when the cursor is on no reference."""
    rec, ref = ref_at(snap, uri, pos)
    if ref is not None:
        return ref.target
    return rec.id if rec is not None and rec.ok else None


def label_order(schema) -> dict[str, tuple[int, str]]:
    """relation -> (its place, its backlink label), the mention relation last."""
    out = {name: (i, r.label) for i, name in enumerate(schema.relations) for r in [schema.relations[name]]}
    out[schema.mention_relation] = (len(out), schema.mention_label)
    return out


def grouped_references(snap, rid: str, *, include_declaration: bool = False) -> dict[str, list[lsp.Location]]:
    """label -> locations of the references to ``rid``, labels in the
    schema's order ("Cited as source by", …, "Mentioned by"), each location
    the exact span of the id, wikilink or link as written."""
    order = label_order(snap.corpus.schema)
    enc = encoding_name(snap)
    found = index_of(snap).references(rid, include_own=include_declaration)
    per_file: dict = {}
    groups: dict[str, list] = {}
    for rec, ref in found:
        got = per_file.get(rec.path)
        if got is None:
            got = per_file[rec.path] = (RecordLines(rec), uri_of(snap, rec))
        lines, where = got
        place, label = order.get(ref.relation, (len(order), f"{ref.relation} by"))
        if ref.origin == "id":
            place, label = -1, "Declared"
        groups.setdefault((place, label), []).append(lsp.Location(uri=where, range=lsp_range(lines, ref.pos, enc)))
    return {label: locs for (_, label), locs in sorted(groups.items())}


def references(snap, uri: str, pos: lsp.Position, include_declaration: bool = False) -> list[lsp.Location]:
    """Every reference to the record under the cursor (or to the file's own
    record), grouped by relation label in the schema's order."""
    rid = target_at(snap, uri, pos)
    if rid is None:
        return []
    out = []
    for locs in grouped_references(snap, rid, include_declaration=include_declaration).values():
        out.extend(locs)
    return out


def document_links(snap, uri: str) -> list[lsp.DocumentLink]:
    """A link for every reference of the file that names a record (bare
    ids, wikilinks, Markdown links, relation targets)."""
    rec = snap.record(uri)
    if rec is None:
        return []
    records = snap.corpus.records
    lines = RecordLines(rec)
    enc = encoding_name(snap)
    out = []
    for ref in index_of(snap).refs(rec):
        if ref.target is None or ref.origin == "id":
            continue
        target = records[ref.target]
        out.append(lsp.DocumentLink(range=lsp_range(lines, ref.pos, enc), target=uri_of(snap, target)))
    return out


__all__ = ["definition", "references", "grouped_references", "document_links", "target_at", "location"]
