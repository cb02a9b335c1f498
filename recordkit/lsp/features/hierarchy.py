"""The record's relations as a call hierarchy (incoming: the records that
point at one by a front-matter relation, or mention it; outgoing: its own
relations' targets), and ``extends`` as a type hierarchy (supertypes: what a
theory extends; subtypes: what extends it).  Each call carries the exact
spans of the references (``fromRanges``), in the file that makes them."""
from __future__ import annotations

from lsprotocol import types as lsp

from .context import RecordLines, encoding_name, index_of, lsp_range, uri_of
from .definition import target_at

#: the relation the type hierarchy follows
EXTENDS = "extends"


def item(snap, rid: str) -> lsp.CallHierarchyItem | None:
    rec = snap.corpus.records.get(rid)
    if rec is None:
        return None
    top = lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=0, character=0))
    own = rec.values.get(("id",))
    sel = lsp_range(RecordLines(rec), own, encoding_name(snap)) if own else top
    return lsp.CallHierarchyItem(name=rid, kind=lsp.SymbolKind.Class if rec.kind == "THEORY" else lsp.SymbolKind.Object,
                                 uri=uri_of(snap, rec), range=sel, selection_range=sel,
                                 detail=" · ".join(x for x in (rec.status, rec.title[:60]) if x),
                                 data={"id": rid})


def prepare_call(snap, uri: str, pos: lsp.Position) -> list[lsp.CallHierarchyItem] | None:
    rid = target_at(snap, uri, pos)
    got = item(snap, rid) if rid else None
    return [got] if got else None


def _id_of(it) -> str | None:
    data = getattr(it, "data", None)
    if isinstance(data, dict) and data.get("id"):
        return data["id"]
    return getattr(it, "name", None)


def incoming_calls(snap, it: lsp.CallHierarchyItem, *, mentions: bool = True) -> list[lsp.CallHierarchyIncomingCall]:
    """The records that point at ``it``, each with the spans of its references, grouped per record."""
    rid = _id_of(it)
    by_source: dict = {}
    enc = encoding_name(snap)
    for rec, ref in index_of(snap).references(rid):
        if ref.origin == "body" and not mentions:
            continue
        by_source.setdefault(rec.id, (rec, []))[1].append(ref)
    out = []
    for src, (rec, refs) in by_source.items():
        frm = item(snap, src)
        if frm is None:
            continue
        lines = RecordLines(rec)
        out.append(lsp.CallHierarchyIncomingCall(from_=frm, from_ranges=[lsp_range(lines, r.pos, enc) for r in refs]))
    return out


def outgoing_calls(snap, it: lsp.CallHierarchyItem) -> list[lsp.CallHierarchyOutgoingCall]:
    """The records ``it`` points at (relations, then mentions), with the spans in its own file."""
    rid = _id_of(it)
    rec = snap.corpus.records.get(rid)
    if rec is None:
        return []
    lines = RecordLines(rec)
    enc = encoding_name(snap)
    by_target: dict = {}
    for ref in index_of(snap).refs(rec):
        if ref.target is None or ref.origin == "id" or ref.target == rid:
            continue
        by_target.setdefault(ref.target, []).append(ref)
    out = []
    for target, refs in by_target.items():
        to = item(snap, target)
        if to is not None:
            out.append(lsp.CallHierarchyOutgoingCall(to=to, from_ranges=[lsp_range(lines, r.pos, enc) for r in refs]))
    return out


def _type_item(snap, rid: str) -> lsp.TypeHierarchyItem | None:
    c = item(snap, rid)
    if c is None:
        return None
    return lsp.TypeHierarchyItem(name=c.name, kind=c.kind, uri=c.uri, range=c.range, selection_range=c.selection_range,
                                 detail=c.detail, data=c.data)


def prepare_type(snap, uri: str, pos: lsp.Position) -> list[lsp.TypeHierarchyItem] | None:
    rid = target_at(snap, uri, pos)
    if not rid or EXTENDS not in snap.corpus.schema.relations:
        return None
    rec = snap.corpus.records.get(rid)
    rel = snap.corpus.schema.relations[EXTENDS]
    if rec is None or not rel.allows_source(rec.kind or ""):
        return None
    got = _type_item(snap, rid)
    return [got] if got else None


def supertypes(snap, it: lsp.TypeHierarchyItem) -> list[lsp.TypeHierarchyItem]:
    """What the record ``extends``."""
    rec = snap.corpus.records.get(_id_of(it))
    if rec is None:
        return []
    return [x for t in (rec.relations or {}).get(EXTENDS, ()) if (x := _type_item(snap, t.id)) is not None]


def subtypes(snap, it: lsp.TypeHierarchyItem) -> list[lsp.TypeHierarchyItem]:
    """The records that ``extends`` it."""
    rid = _id_of(it)
    out = []
    seen = set()
    for rec, ref in index_of(snap).references(rid):
        if ref.relation == EXTENDS and ref.origin == "frontmatter" and rec.id not in seen:
            seen.add(rec.id)
            got = _type_item(snap, rec.id)
            if got is not None:
                out.append(got)
    return out
