"""Document symbols (the outline: the front matter's fields with the
relations' targets under them, the body's sections, the rows of a Claims
table) and workspace symbols (every record's id, title and aliases)."""
from __future__ import annotations

from lsprotocol import types as lsp

from ...markdown.sections import first_table, headings, section_text
from .context import Lines, encoding_name, kept, lsp_range, uri_of

#: the most workspace symbols one answer holds
MAX_SYMBOLS = 500

_SK = lsp.SymbolKind


def document_symbols(snap, uri: str) -> list[lsp.DocumentSymbol]:
    rec = snap.record(uri)
    if rec is None or not rec.ok:
        return []
    lines = Lines(rec.text)
    enc = encoding_name(snap)

    def rng(pos):
        return lsp_range(lines, pos, enc)
    out = []
    fields = []
    for key, value in (rec.meta or {}).items():
        kpos = rec.keys.get((key,))
        if kpos is None:
            continue
        vpos = rec.values.get((key,), kpos)
        whole = (kpos[0], kpos[1], max(vpos[2] or vpos[0], kpos[0]), vpos[3] if vpos[2] else kpos[3])
        children = []
        rel = (rec.relations or {}).get(key)
        if rel:
            for t in rel:
                children.append(lsp.DocumentSymbol(name=t.text or t.id, kind=_SK.Key, range=rng(t.pos),
                                                   selection_range=rng(t.pos),
                                                   detail=snap.corpus.records[t.id].title[:80]
                                                   if t.id in snap.corpus.records else "not found"))
        kind = _SK.Field if not rel else _SK.Interface
        detail = f"{len(rel)} target{'s' if len(rel) != 1 else ''}" if rel else _short(value)
        fields.append(lsp.DocumentSymbol(name=key, kind=kind, range=rng(whole), selection_range=rng(kpos),
                                         detail=detail, children=children or None))
    if fields:
        end = (rec.fm_end_line, 1, rec.fm_end_line, 4)
        fm = lsp.Range(start=lsp.Position(line=rec.fm_line - 1, character=0), end=rng(end).end)
        out.append(lsp.DocumentSymbol(name=rec.id or "front matter", kind=_SK.File, range=fm, selection_range=fm,
                                      detail=rec.title[:80], children=fields))
    out.extend(section_symbols(snap, rec, lines, enc))
    return out


def section_symbols(snap, rec, lines: Lines, enc: str) -> list[lsp.DocumentSymbol]:
    """The body's headings, nested by level; the Claims section holds its table's rows."""
    hs = headings(rec)
    n_lines = len(lines.lines)
    out: list = []
    stack: list = []
    schema = snap.corpus.schema
    for i, h in enumerate(hs):
        end_line = n_lines
        for later in hs[i + 1:]:
            if later.level <= h.level:
                end_line = later.line - 1
                break
        sym = lsp.DocumentSymbol(name=h.title, kind=_SK.Namespace if h.level <= 2 else _SK.Module,
                                 range=lsp.Range(start=lsp.Position(line=h.line - 1, character=0),
                                                 end=lsp.Position(line=max(end_line - 1, h.line - 1), character=0)),
                                 selection_range=lsp.Range(start=lsp.Position(line=h.line - 1, character=0),
                                                           end=lsp.Position(line=h.line - 1,
                                                                            character=len(lines.line(h.line)))),
                                 children=[])
        if h.title == schema.claims_section and rec.kind in (schema.claims_kinds or (rec.kind,)):
            sym.children.extend(claim_rows(rec, h.title, lines))
        while stack and stack[-1][0] >= h.level:
            stack.pop()
        (stack[-1][1].children if stack else out).append(sym)
        stack.append((h.level, sym))
    for s in _walk(out):
        if not s.children:
            s.children = None
    return out


def claim_rows(rec, title: str, lines: Lines) -> list[lsp.DocumentSymbol]:
    """A symbol per row of the section's first table (its id, its claim as the detail)."""
    got = section_text(rec, title)
    if got is None:
        return []
    text, first_line = got
    table = first_table(text, first_line)
    if table is None:
        return []
    header, rows = table
    out = []
    for row in rows:
        name = row.cells[0] if row.cells else ""
        claim = row.cells[1] if len(row.cells) > 1 else ""
        line = row.line
        r = lsp.Range(start=lsp.Position(line=line - 1, character=0),
                      end=lsp.Position(line=line - 1, character=len(lines.line(line))))
        out.append(lsp.DocumentSymbol(name=name or f"row {line}", kind=_SK.EnumMember, range=r, selection_range=r,
                                      detail=claim[:80]))
    return out


def _walk(symbols):
    for s in symbols:
        yield s
        if s.children:
            yield from _walk(s.children)


def _short(value) -> str:
    s = value if isinstance(value, str) else str(value)
    return s if len(s) <= 60 else s[:59] + "…"


def workspace_symbols(snap, query: str) -> list[lsp.WorkspaceSymbol]:
    """Records whose id, title or an alias holds every character of
    ``query`` in order (ids that start with it first), at most :data:`MAX_SYMBOLS`."""
    q = query.lower()
    table = kept(snap, "lsp.features.symbols.table", lambda: _table(snap))
    first, then = [], []
    for rid, key, rec in table:
        if not q or key.startswith(q):
            first.append(rec)
        elif q in key or _subsequence(q, key):
            then.append(rec)
        if len(first) >= MAX_SYMBOLS:
            break
    out = []
    for rec in (first + then)[:MAX_SYMBOLS]:
        out.append(lsp.WorkspaceSymbol(name=f"{rec.id} {rec.title}"[:120], kind=_kind_symbol(rec.kind),
                                       location=lsp.Location(uri=uri_of(snap, rec), range=lsp.Range(
                                           start=lsp.Position(line=0, character=0),
                                           end=lsp.Position(line=0, character=0))),
                                       container_name=" · ".join(x for x in (rec.kind, rec.status) if x) or None))
    return out


def _table(snap) -> list[tuple]:
    from ...common.order import id_sort_key
    out = [(rid, " ".join((rid, rec.title, *rec.aliases)).lower(), rec) for rid, rec in snap.corpus.records.items()]
    out.sort(key=lambda x: id_sort_key(x[0]))
    return out


def _subsequence(q: str, s: str) -> bool:
    it = iter(s)
    return all(ch in it for ch in q)


def _kind_symbol(kind: str | None) -> lsp.SymbolKind:
    return {"LIT": _SK.File, "NOTE": _SK.String, "THEORY": _SK.Class, "CLAIM": _SK.Boolean,
            "QUESTION": _SK.Event}.get(kind or "", _SK.Object)
