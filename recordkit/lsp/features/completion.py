"""Completion, schema-aware: ids in relations (only the kinds the relation
allows, never the record itself nor a target that would close an acyclic
relation's cycle), bare ids in prose on ``KIND-``, wikilinks after ``[[``
by id, title, alias or file name as the schema's ``links.resolve`` reads
them, front-matter keys per kind with their types, ``status:`` values from
the kind's vocabulary, tags, ``checks:`` ids and ``promote_when`` items;
in a ```query block, the tables and columns (:mod:`.queries`).

At most :data:`MAX_ITEMS` items, ``isIncomplete`` when more match (the
client asks again as the word grows); an item's documentation (the hover
text) comes with ``completionItem/resolve``.
"""
from __future__ import annotations

import re
from typing import NamedTuple

from lsprotocol import types as lsp

from ...common.order import id_sort_key
from .context import code_points, encoding_name, kept, line_of, units

#: the most items one answer holds
MAX_ITEMS = 200
#: how much of a title an item carries (the whole is in its documentation)
TITLE_CHARS = 60
#: the characters that ask for completion
TRIGGERS = ["[", "-", ":", " ", ",", "#"]

_KEY_RE = re.compile(r"^([A-Za-z_][\w-]*)$|^$")
_VALUE_RE = re.compile(r"^([A-Za-z_][\w-]*):\s*(.*)$")
_ITEM_RE = re.compile(r"^(\s*)(?:-\s*)?(.*)$")
_WIKI_RE = re.compile(r"!?\[\[([^\]|#\n]*)$")
_BARE_RE = re.compile(r"(?<![\w-])([A-Z][A-Z0-9_]*-\w*)$")
_SUB_RE = re.compile(r"\b(check|claim|kind|relation|status):\s*([\w.-]*)$")


class Entry(NamedTuple):
    """A record as completion offers it."""
    id: str
    kind: str | None
    status: str | None
    title: str
    aliases: tuple
    stem: str
    path_id: str
    key: str            # what a typed word is looked for in (lower case)


def entries(snap) -> list[Entry]:
    """Every record of the snapshot, in id order (kept per snapshot)."""
    def make():
        out = [entry_of(rid, rec) for rid, rec in snap.corpus.records.items()]
        out.sort(key=lambda e: id_sort_key(e.id))
        return out
    return kept(snap, "lsp.features.completion.entries", make)


def entry_of(rid: str, rec) -> Entry:
    aliases = tuple(rec.aliases)
    return Entry(rid, rec.kind, rec.status, rec.title, aliases, rec.path.stem, rec.path_id,
                 " ".join((rid, rec.title, *aliases, rec.path.stem)).lower())


def complete(snap, uri: str, pos: lsp.Position) -> lsp.CompletionList:
    """The completion list at ``pos`` of the document ``uri``."""
    doc = snap.document(uri)
    empty = lsp.CompletionList(is_incomplete=False, items=[])
    if doc is None:
        return empty
    text = doc.text
    enc = encoding_name(snap)
    line_text = line_of(text, pos.line + 1)
    col = code_points(line_text, pos.character, enc)
    before = line_text[:col]
    rec = snap.record(uri)
    fm = front_matter_lines(text)
    ctx = Place(snap, uri, rec, pos, before, enc)
    if fm is not None and fm[0] < pos.line < fm[1]:
        return front_matter(ctx, text, fm) or empty
    from . import queries
    got = queries.complete_in_block(snap, text, pos, before, enc)
    if got is not None:
        return got
    m = _WIKI_RE.search(before)
    if m is not None:
        return wikilinks(ctx, m.group(1))
    m = _BARE_RE.search(before)
    if m is not None:
        kind = m.group(1).split("-", 1)[0]
        if kind in snap.corpus.schema.kinds:
            return ids(ctx, m.group(1), kinds={kind})
    return empty


class Place:
    """Where completion was asked: the document, its record, the cursor and the line before it."""

    def __init__(self, snap, uri, rec, pos, before, enc):
        self.snap, self.uri, self.rec, self.pos, self.before, self.enc = snap, uri, rec, pos, before, enc

    @property
    def kind(self) -> str | None:
        if self.rec is not None and self.rec.kind:
            return self.rec.kind
        stem = self.snap.path_of(self.uri).stem
        return self.snap.corpus.schema.kind_of(stem)

    @property
    def own_id(self) -> str | None:
        return self.rec.id if self.rec is not None else self.snap.path_of(self.uri).stem

    def edit_range(self, word: str) -> lsp.Range:
        """The range of the ``word`` just typed before the cursor."""
        start = units(self.before[:len(self.before) - len(word)], self.enc)
        return lsp.Range(start=lsp.Position(line=self.pos.line, character=start), end=self.pos)


def front_matter_lines(text: str) -> tuple[int, int] | None:
    """0-based lines of the front matter's opening and closing ``---``, or None."""
    if not text.startswith("---"):
        return None
    lines = text.split("\n")
    if lines[0].rstrip("\r") != "---":
        return None
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r") in ("---", "..."):
            return 0, i
    return 0, len(lines)


def parent_keys(text: str, line: int, indent: int) -> list[str]:
    """The keys enclosing a front-matter line (0-based), outermost first,
    read from the lines above with less indentation."""
    lines = text.split("\n")
    out = []
    for i in range(line - 1, 0, -1):
        s = lines[i].rstrip("\r")
        if not s.strip() or s.lstrip().startswith("#"):
            continue
        ind = len(s) - len(s.lstrip(" "))
        if ind < indent:
            m = re.match(r"^\s*(?:-\s*)?([A-Za-z_][\w-]*):", s)
            if m:
                out.append(m.group(1))
            indent = ind
            if ind == 0:
                break
    return out[::-1]


def front_matter(ctx: Place, text: str, fm) -> lsp.CompletionList | None:
    before = ctx.before
    m = _KEY_RE.match(before)
    if m is not None:
        return keys(ctx, before)
    m = _VALUE_RE.match(before)
    if m is not None:
        key, value = m.group(1), m.group(2)
        return value_items(ctx, [key], _last_item(value))
    m = _ITEM_RE.match(before)
    indent, rest = len(m.group(1)), m.group(2)
    path = parent_keys(text, ctx.pos.line, indent)
    if path and path[0] == "promote_when":
        return promote_when(ctx, rest, before)
    if path:
        return value_items(ctx, path, _last_item(rest))
    return None


def _last_item(value: str) -> str:
    """The item being typed in a value: after the last ``[``, ``,`` or quote."""
    return re.split(r"[\[,{\"']\s*", value)[-1].strip()


def keys(ctx: Place, word: str) -> lsp.CompletionList:
    """The fields a record of the kind may carry, with their types, those it has left out."""
    schema = ctx.snap.corpus.schema
    kind = ctx.kind
    fields = schema.fields_for(kind) if kind else dict(schema.common_fields)
    have = set((ctx.rec.meta or {}) if ctx.rec is not None and ctx.rec.ok else ())
    required = set(schema.required_fields(kind)) if kind else set()
    items = []
    rels = schema.relations_from(kind) if kind else {}
    for name, spec in fields.items():
        if name in have or not name.startswith(word):
            continue
        if name in rels:
            rel = rels[name]
            detail = f"relation → {' | '.join(rel.targets)}" + (" (required)" if rel.required else "")
        else:
            t = spec.get("type") if isinstance(spec, dict) else None
            detail = (" | ".join(t) if isinstance(t, list) else str(t or "any")) + \
                (" (required)" if name in required else "")
        items.append(lsp.CompletionItem(label=name, kind=lsp.CompletionItemKind.Field, detail=detail,
                                        sort_text=("0" if name in required else "1") + name,
                                        text_edit=lsp.TextEdit(range=ctx.edit_range(word), new_text=name + ": ")))
    return lsp.CompletionList(is_incomplete=False, items=items)


def value_items(ctx: Place, path: list[str], word: str) -> lsp.CompletionList | None:
    schema = ctx.snap.corpus.schema
    key = path[0]
    kind = ctx.kind
    if key == "status" and len(path) == 1:
        statuses = schema.kinds[kind].statuses if kind in schema.kinds else ()
        return words(ctx, word, statuses, lsp.CompletionItemKind.EnumMember, "status of " + (kind or "the record"))
    if key == "tags":
        return words(ctx, word, all_tags(ctx.snap), lsp.CompletionItemKind.Keyword, "tag")
    if key == "checks":
        return words(ctx, word, check_ids(ctx.snap), lsp.CompletionItemKind.Function, "numeric check")
    rel = schema.relations.get(key)
    if rel is not None:
        return relation_ids(ctx, key, word)
    return None


def words(ctx: Place, word: str, choices, kind, detail: str) -> lsp.CompletionList:
    items = [lsp.CompletionItem(label=w, kind=kind, detail=detail,
                                text_edit=lsp.TextEdit(range=ctx.edit_range(word), new_text=w))
             for w in choices if w and w.lower().startswith(word.lower())]
    return lsp.CompletionList(is_incomplete=len(items) > MAX_ITEMS, items=items[:MAX_ITEMS])


def relation_ids(ctx: Place, relation: str, word: str) -> lsp.CompletionList:
    """Ids for a relation's target: the kinds it allows, not the record
    itself, not a record that reaches it by an acyclic relation."""
    schema = ctx.snap.corpus.schema
    rel = schema.relations[relation]
    kinds = None if "*" in rel.targets else set(rel.targets)
    exclude = {ctx.own_id}
    if rel.acyclic and ctx.own_id:
        exclude |= reaching(ctx.snap, relation, ctx.own_id)
    return ids(ctx, word, kinds=kinds, exclude=exclude)


def reaching(snap, relation: str, rid: str) -> set[str]:
    """The records from which ``rid`` is reached by ``relation``'s edges
    (naming one of them from ``rid`` would close a cycle)."""
    incoming = kept(snap, f"lsp.features.completion.incoming.{relation}", lambda: _incoming(snap.corpus, relation))
    seen, todo = set(), [rid]
    while todo:
        for src in incoming.get(todo.pop(), ()):
            if src not in seen:
                seen.add(src)
                todo.append(src)
    return seen


def _incoming(corpus, relation: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for rec in corpus.records.values():
        for t in (rec.relations or {}).get(relation, ()):
            out.setdefault(t.id, []).append(rec.id)
    return out


def ids(ctx: Place, word: str, kinds: set | None = None, exclude=frozenset()) -> lsp.CompletionList:
    """Record ids matching ``word``: those whose id starts with it, in id
    order, then those that hold it in the title, aliases or file name (looked
    for only while fewer than :data:`MAX_ITEMS` ids matched)."""
    needle = word.lower()
    table = entries(ctx.snap)

    def wanted(e):
        return (kinds is None or e.kind in kinds) and e.id not in exclude
    found = []
    for e in table:
        if e.id.lower().startswith(needle) and wanted(e):
            found.append(e)
            if len(found) > MAX_ITEMS:
                break
    if len(found) <= MAX_ITEMS and needle:
        for e in table:
            if needle in e.key and not e.id.lower().startswith(needle) and wanted(e):
                found.append(e)
                if len(found) > MAX_ITEMS:
                    break
    rng = ctx.edit_range(word)
    items = [id_item(e, e.id, rng, i) for i, e in enumerate(found[:MAX_ITEMS])]
    return lsp.CompletionList(is_incomplete=len(found) > MAX_ITEMS, items=items)


def id_item(e: Entry, insert: str, rng: lsp.Range, i: int, label: str | None = None) -> lsp.CompletionItem:
    return lsp.CompletionItem(
        label=label or insert, kind=lsp.CompletionItemKind.Reference,
        label_details=lsp.CompletionItemLabelDetails(description=e.title[:TITLE_CHARS]),
        detail=" · ".join(x for x in (e.id if label else None, e.kind, e.status) if x),
        filter_text=f"{insert} {e.title[:TITLE_CHARS]}", sort_text=f"{i:05d}",
        text_edit=lsp.TextEdit(range=rng, new_text=insert), data={"id": e.id})


def wikilinks(ctx: Place, word: str) -> lsp.CompletionList:
    """``[[`` targets: what the schema's ``links.resolve`` reads (id, file
    name, path, title, aliases), the first key a record answers to first."""
    settings = ctx.snap.corpus.schema.links
    order = settings.resolve
    fold = (lambda s: s) if settings.case_sensitive else str.lower
    needle = fold(word)
    first, then = [], []
    for e in entries(ctx.snap):
        if e.id == ctx.own_id:
            continue
        for key in order:
            for name in names_of(e, key):
                if not name:
                    continue
                n = fold(name)
                if n.startswith(needle):
                    first.append((e, name, key))
                elif needle in n:
                    then.append((e, name, key))
    found = first + then
    rng = ctx.edit_range(word)
    items = []
    for i, (e, name, key) in enumerate(found[:MAX_ITEMS]):
        label = name if key != "id" else None
        item = id_item(e, name, rng, i, label=label)
        if key in ("title", "aliases"):
            item.detail = f"{key[:-1] if key == 'aliases' else key} of {e.id}" + (f" · {e.kind}" if e.kind else "")
        items.append(item)
    return lsp.CompletionList(is_incomplete=len(found) > MAX_ITEMS, items=items)


def names_of(e: Entry, key: str) -> tuple:
    if key == "id":
        return (e.id,)
    if key == "stem":
        return (e.stem,)
    if key == "path":
        return (e.path_id,) if e.path_id != e.stem else ()
    if key == "title":
        return (e.title,)
    if key == "aliases":
        return e.aliases
    return ()


def all_tags(snap) -> list[str]:
    """Every tag the record uses, the most used first."""
    def make():
        counts: dict[str, int] = {}
        for rec in snap.corpus.records.values():
            for t in rec.tags:
                counts[t] = counts.get(t, 0) + 1
        return sorted(counts, key=lambda t: (-counts[t], t))
    return kept(snap, "lsp.features.completion.tags", make)


def check_ids(snap) -> list[str]:
    """The ids of the record's numeric checks (found without running them)."""
    from ...numeric.discover import discover_all
    return kept(snap, "lsp.features.completion.checks", lambda: sorted(discover_all(snap.corpus).checks))


def promote_when(ctx: Place, rest: str, before: str) -> lsp.CompletionList:
    """Items of a ``promote_when``'s ``requires`` list, and the values inside one."""
    schema = ctx.snap.corpus.schema
    m = _SUB_RE.search(before)
    if m is not None:
        what, word = m.group(1), m.group(2)
        if what == "check":
            return words(ctx, word, check_ids(ctx.snap), lsp.CompletionItemKind.Function, "numeric check")
        if what == "claim":
            return ids(ctx, word, kinds={k for k in schema.kinds if k == "CLAIM"} or None)
        if what == "kind":
            return words(ctx, word, list(schema.kinds), lsp.CompletionItemKind.Class, "kind")
        if what == "relation":
            return words(ctx, word, [n for n, r in schema.relations.items() if ctx.kind and r.allows_target(ctx.kind)],
                         lsp.CompletionItemKind.Property, "relation")
        statuses = sorted({s for k in schema.kinds.values() for s in k.statuses if s})
        return words(ctx, word, statuses, lsp.CompletionItemKind.EnumMember, "status")
    word = rest.strip()
    items = []
    for text, detail in requirement_templates(ctx):
        if text.startswith(word):
            items.append(lsp.CompletionItem(label=text, kind=lsp.CompletionItemKind.Snippet, detail=detail,
                                            text_edit=lsp.TextEdit(range=ctx.edit_range(word), new_text=text)))
    return lsp.CompletionList(is_incomplete=False, items=items[:MAX_ITEMS])


def requirement_templates(ctx: Place) -> list[tuple[str, str]]:
    """``check:`` of each known check, ``record:`` of each relation that may
    point at this kind, ``claim:`` — the grammar of docs/lifecycle.md."""
    schema = ctx.snap.corpus.schema
    out = [(f"check: {c}", "this numeric check passes") for c in check_ids(ctx.snap)]
    for name, rel in schema.relations.items():
        if ctx.kind and rel.allows_target(ctx.kind):
            for src in rel.sources:
                if src == "*":
                    continue
                done = {"final"} if "final" in (schema.kinds[src].statuses if src in schema.kinds else ()) else set()
                out.append((f"record: {{kind: {src}, relation: {name}}}", f"some {src} points here by {name}"))
                for s in done:
                    out.append((f"record: {{kind: {src}, relation: {name}, status: {s}}}",
                                f"some {s} {src} points here by {name}"))
    if "CLAIM" in schema.kinds:
        out.append(("claim: CLAIM-", "that claim is supported"))
    return out


def resolve(snap, item: lsp.CompletionItem) -> lsp.CompletionItem:
    """``completionItem/resolve``: the record's hover text as the item's documentation."""
    data = item.data if isinstance(item.data, dict) else None
    rid = data.get("id") if data else None
    if rid and rid in snap.corpus.records:
        from .hover import record_markdown
        text = record_markdown(snap, rid)
        if text:
            item.documentation = lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text)
    return item
