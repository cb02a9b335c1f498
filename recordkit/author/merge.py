"""``recordkit merge OLD INTO``: fold one record into another.

Every reference to OLD across the record becomes one to INTO (as a rename
does; a relation that would then name INTO twice keeps one item); OLD's
relations and list fields (tags, checks, ...) are added to INTO's, a field
INTO lacks is copied over as OLD wrote it, OLD's body is appended to INTO's
under a "Merged from" heading (so its mentions move too), and OLD's file is
removed.  Refused when it would make a record relate to itself, close a
cycle, exceed a relation's maximum, or lose a backlink (the graph after is
checked against the graph before, OLD read as INTO).
"""
from __future__ import annotations

from pathlib import Path

from ..common.splice import apply_fixes
from ..common.textpos import offset_of
from ..corpus.model import Fix
from ..corpus.parse import parse_text
from .plan import PLACES_SHOWN, AuthorError, Change, Plan
from .retarget import replace_deep, retarget, token_re
from ..common.text import a_or_an, some_of

#: OLD's fields that describe OLD itself and are not carried over
_OWN = ("id", "title", "status", "status_note", "created", "updated", "lint", "promote_when")


def _scalar(value: str) -> str:
    """A YAML flow scalar for a list item, quoted only when it must be."""
    from .new import _scalar as scalar
    return scalar(value)


def _eol(text: str) -> str:
    nl = text.find("\n")
    return "\r\n" if nl > 0 and text[nl - 1] == "\r" else "\n"


def _span(rec, *path) -> tuple[int, int]:
    line, col, el, ec = rec.value_pos(*path)
    return offset_of(rec.text, line, col), offset_of(rec.text, el, ec)


def _remove_item(rec, name: str, i: int) -> Fix:
    """A fix that removes item ``i`` of the list ``name`` (flow or block style)."""
    text = rec.text
    s, e = _span(rec, name, i)
    k = s - 1
    while k >= 0 and text[k] in " \t":
        k -= 1
    if k >= 0 and text[k] == "-":            # block item: its whole line
        ls = text.rfind("\n", 0, k) + 1
        le = text.find("\n", e)
        return Fix(ls, len(text) if le < 0 else le + 1, "")
    n = len(rec.meta[name])
    if i + 1 < n:                              # flow: up to the next item
        return Fix(s, _span(rec, name, i + 1)[0], "")
    return Fix(_span(rec, name, i - 1)[1], e, "")   # the last: from the previous item's end


def _append_items(rec, name: str, items: list[str]) -> Fix:
    """A fix that appends ``items`` to the list (or scalar) field ``name``,
    or adds the field before the closing ``---`` when it is absent."""
    text = rec.text
    eol = _eol(text)
    value = rec.meta.get(name)
    if name not in rec.meta or value is None:
        if name in rec.meta:   # `name:` with no value: the list goes after the colon
            kl, kc, kel, kec = rec.key_pos(name)
            colon = text.find(":", offset_of(text, kel, kec)) + 1
            return Fix(colon, colon, " [" + ", ".join(items) + "]")
        close = offset_of(text, rec.fm_end_line, 1)
        return Fix(close, close, f"{name}: [{', '.join(items)}]{eol}")
    if isinstance(value, list):
        if not value:
            s, e = _span(rec, name)
            return Fix(s, e, "[" + ", ".join(items) + "]")
        s, e = _span(rec, name, len(value) - 1)
        k = s - 1
        while k >= 0 and text[k] in " \t":
            k -= 1
        if k >= 0 and text[k] == "-":
            ls = text.rfind("\n", 0, k) + 1
            prefix = text[ls:s]
            le = text.find("\n", e)
            at = len(text) if le < 0 else le + 1
            lines = "".join(f"{prefix}{x}{eol}" for x in items)
            if le < 0:
                lines = eol + lines
            return Fix(at, at, lines)
        return Fix(e, e, "".join(f", {x}" for x in items))
    s, e = _span(rec, name)                    # a scalar becomes a flow list
    return Fix(s, e, "[" + ", ".join([text[s:e]] + items) + "]")


def _field_block(rec, name: str) -> str:
    """The lines of the top-level field ``name`` as written (key, value,
    comments up to the next top-level key)."""
    text = rec.text
    tops = sorted((pos[0], key[0]) for key, pos in rec.keys.items() if len(key) == 1)
    line = rec.keys[(name,)][0]
    after = [ln for ln, _ in tops if ln > line]
    end_line = after[0] if after else rec.fm_end_line
    return text[offset_of(text, line, 1):offset_of(text, end_line, 1)]


def plan_merge(corpus, old: str, into: str) -> Plan:
    """The changes that fold ``old`` into ``into`` (raises :class:`AuthorError`)."""
    records = corpus.records
    for rid in (old, into):
        if rid not in records:
            from ..common.didyoumean import IdIndex
            near = IdIndex(records).closest(rid)
            raise AuthorError(f"no record {rid} under {corpus.root}" + (f" (did you mean {near}?)" if near else ""),
                              usage=True)
    if old == into:
        raise AuthorError(f"cannot merge {old} into itself", usage=True)
    src, dst = records[old], records[into]
    schema = corpus.schema
    # a vault (ids are paths or file names, front matter optional): a note
    # without front matter is merged too (INTO gets one when OLD brings fields)
    vault = not schema.kind_ids
    for rid, r in ((old, src), (into, dst)):
        if not r.has_front_matter and not vault:
            raise AuthorError(f"{rid} ({r.relpath}) has no front matter, which a merge edits: add one "
                              "(a '---' line, its fields, a '---' line) first", usage=True)
    if src.kind != dst.kind:
        def what(kind):
            return a_or_an(kind) if kind is not None else "of no kind"
        raise AuthorError(f"{old} is {what(src.kind)} and {into} {what(dst.kind)}: merge records of one kind",
                          usage=True)
    for rid in (old, into):
        dup = [r.relpath for r in corpus.files if r.ok and r.id == rid]
        if len(dup) > 1:
            raise AuthorError(f"{rid} is the id of {len(dup)} files ({', '.join(dup)}); make it unique first")
    pattern = token_re(old)

    # 1. INTO may not name OLD in its front matter: that would become a self-relation
    for rel, targets in dst.relations.items():
        for t in targets:
            if t.id == old:
                raise AuthorError(f"{into} names {old} in {rel} (line {t.pos[0]}): merging would make {into} "
                                  f"relate to itself; remove that relation first")
    for rel, targets in src.relations.items():
        for t in targets:
            if t.id == into:
                raise AuthorError(f"{old} names {into} in {rel} (line {t.pos[0]}): merging would make {into} "
                                  f"relate to itself; remove that relation first")

    plan = Plan(root=Path(corpus.root))
    texts: dict[Path, str] = {}
    left = []
    # a vault (ids are paths or file names): links name OLD by its file name,
    # path, title or alias, not as an id token; they are rewritten as a
    # rename rewrites them (author/relink), each to reach INTO
    if vault:
        from .relink import body_edits, spliced, namer_for, relink_all
        for rec in corpus.files:
            for rel, targets in (rec.relations or {}).items() if rec.ok and rec is not src else ():
                ids = [t.id for t in targets]
                if old in ids and into in ids:
                    raise AuthorError(f"{rec.relpath}: {rel} names both {old} and {into}; remove {old} from it "
                                      "first")
        # INTO as it will be: OLD's aliases join its own (a link by one of
        # them then reaches INTO as it is, and is left as written)
        target = dst
        theirs = src.aliases
        if theirs and isinstance(dst.meta, dict):
            import copy
            target = copy.copy(dst)
            target.meta = {**dst.meta, "aliases": dst.aliases + [a for a in theirs if a not in dst.aliases]}
        namer = namer_for(corpus, old, target)
        texts, plan.references = relink_all(corpus, src, namer, skip=(src,))
        # OLD's body, read from INTO's file: its links to OLD reach INTO, its
        # relative links are redone from INTO's folder
        from ..corpus.resolve import link_settings, resolver_for
        moved_src = spliced(src.text, body_edits(src, src.text, old, resolver_for(corpus), namer,
                                                   link_settings(schema), dst.relpath, records))
    # 2. every other file: OLD -> INTO, a relation item that would repeat INTO removed
    for rec in sorted(corpus.files, key=lambda r: r.relpath) if not vault else ():
        if rec is src or old not in rec.text:
            continue
        base = rec
        if rec.ok:
            fixes = []
            for rel, targets in rec.relations.items():
                ids = [t.id for t in targets]
                if old in ids and into in ids and isinstance(rec.meta.get(rel), list):
                    values = rec.meta[rel]
                    fixes += [_remove_item(rec, rel, i) for i, v in enumerate(values)
                              if isinstance(v, str) and v.strip() == old]
            if fixes:
                text1, skipped = apply_fixes(rec.text, fixes)
                if skipped:   # pragma: no cover - items do not overlap
                    raise AuthorError(f"{rec.relpath}: overlapping edits; merge by hand")
                base, _ = parse_text(text1, rec.path, rec.relpath, schema)
        got = retarget(base, old, into, pattern)
        left.extend(f"{rec.relpath}:{line}" for line in got.left)
        texts[rec.path] = got.text
        plan.references += got.count

    # 3. INTO gains OLD's relations, list fields, missing fields and body
    into_text = texts.get(dst.path, dst.text)
    bare = not dst.has_front_matter            # (a vault's note: an empty front matter to edit, gone if still empty)
    if bare:
        into_text = "---\n---\n" + into_text
    cur, _ = parse_text(into_text, dst.path, dst.relpath, schema)
    fixes = []
    copied, differing = [], []
    for key in src.meta or {}:
        if key in _OWN or key in schema.relations and key not in src.relations:
            continue
        theirs = src.meta[key]
        if key not in cur.meta:
            block = _field_block(src, key).replace("\r\n", "\n")       # (in INTO's line endings)
            fixes.append(Fix(*(2 * [offset_of(cur.text, cur.fm_end_line, 1)]), block.replace("\n", _eol(cur.text))))
            copied.append(key)
        elif key in schema.relations or isinstance(theirs, list):
            items = theirs if isinstance(theirs, list) else [theirs]
            mine = cur.meta.get(key)
            mine = mine if isinstance(mine, list) else ([] if mine is None else [mine])
            keep = [replace_deep(x, pattern, into) for x in items if isinstance(x, str)]
            new_items = [x for x in dict.fromkeys(keep) if x not in mine and x != into]
            rel = schema.relations.get(key)
            if rel is not None and rel.max is not None and len(mine) + len(new_items) > rel.max:
                raise AuthorError(f"{into}'s {key} would name {len(mine) + len(new_items)} records "
                                  f"({', '.join(map(str, mine + new_items))}); it allows {rel.max}")
            if new_items:
                fixes.append(_append_items(cur, key, [_scalar(x) for x in new_items]))
        elif cur.meta[key] != theirs:
            differing.append(key)
    close = offset_of(cur.text, cur.fm_end_line, 1)    # new fields go before the closing line, in order
    tail = [f for f in fixes if f.start == f.end == close]
    fixes = [f for f in fixes if f not in tail] + ([Fix(close, close, "".join(f.content for f in tail))] if tail else [])
    into_text, skipped = apply_fixes(cur.text, fixes)
    if bare and into_text.startswith("---\n---\n"):
        into_text = into_text[len("---\n---\n"):]
    if skipped:   # pragma: no cover
        raise AuthorError(f"{dst.relpath}: overlapping edits; merge by hand")
    eol = _eol(into_text)
    body = (moved_src[src.body_offset:] if vault else src.body).strip("\r\n")
    if body:
        if not into_text.endswith("\n"):
            into_text += eol
        heading = f"## Merged from “{src.title}”" if src.title else "## Merged"
        into_text += f"{eol}{heading}{eol}{eol}" + body.replace("\r\n", "\n").replace("\n", eol) + eol
    if not vault:
        into_text = retarget(parse_text(into_text, dst.path, dst.relpath, schema)[0], old, into, pattern).text
    texts[dst.path] = into_text

    # 4. check: the graph after holds every edge before (OLD read as INTO), no new relation problem
    after = _corpus_after(corpus, texts, src)
    _check_graph(corpus, after, old, into)
    _check_mentions(corpus, after, old, into)
    _check_fragments(corpus, old, into)
    _check_lint(corpus, after, old, into)
    if after.records.get(into) is not None and after.records[into].title != dst.title:
        raise AuthorError(f"{into}'s title would become “{after.records[into].title}” (taken from the merged text's "
                          f"first heading, as {into} has no title of its own): give {into} a title first")

    for rec in corpus.files:
        if rec.path in texts and texts[rec.path] != rec.text:
            plan.changes.append(Change(rec.path, rec.text, texts[rec.path]))
    plan.changes.append(Change(src.path, src.text, None))
    plan.summary = (f"{old} merged into {into}: {plan.rel(src.path)} removed, "
                    f"{plan.references} reference{'s' if plan.references != 1 else ''} now name {into}")
    if copied:
        plan.notes.append(f"copied from {old} to {into}: {', '.join(copied)}")
    if differing:
        plan.notes.append(f"{old} and {into} differ in {', '.join(differing)}: {into}'s values kept")
    if left:
        plan.notes.append(f"{old} inside code or a link's address (not a reference, left as it is): "
                          + some_of(left, shown=PLACES_SHOWN))
    return plan


def _corpus_after(corpus, texts: dict, removed):
    """The corpus as it would be after the merge (``removed``: OLD)."""
    from ..corpus.loader import with_texts
    after = with_texts(corpus, {**texts, removed.path: None})
    kept = [r for r in corpus.files if r is not removed]
    for rec, now in zip(kept, after.files):
        if rec.ok and not now.ok:
            raise AuthorError(f"{rec.relpath}: the merged front matter would not parse; merge by hand")
    return after


def _edges(corpus, old=None, into=None) -> set:
    from ..graph.build import iter_edges
    out = set()
    for u, v, d in iter_edges(corpus.graph):
        if old is not None:
            u = into if u == old else u
            v = into if v == old else v
        if u != v:
            # a derived edge by what it is derived from: LIT-861's reference
            # 1512.03385 citing OLD must still cite INTO, not only another
            # of its references (the pair alone hid the loss)
            out.add((u, v, d["relation"], d["origin"], str(d.get("via")) if d["origin"] == "derived" else ""))
    return out


def _check_graph(before, after, old: str, into: str) -> None:
    lost = _edges(before, old, into) - _edges(after)
    if lost:
        shown = ", ".join(f"{u} -{rel}({origin}{', via ' + via if via else ''})-> {v}"
                          for u, v, rel, origin, via in sorted(lost)[:5])
        why = ""
        if any(origin == "derived" for _, _, _, origin, _ in lost):
            why = (f" ({old}'s identifier is not copied where {into} has its own, so a reference citing {old} by "
                   f"it would name no record: give {into} that identifier, or drop one of the two, first)")
        raise AuthorError(f"merging would lose {len(lost)} link{'s' if len(lost) != 1 else ''}: {shown}"
                          + (" …" if len(lost) > 5 else "") + why)


def _check_mentions(before, after, old: str, into: str) -> None:
    """Every body link of every other record names after the merge what it
    named before (OLD read as INTO), link by link: the graph holds one edge
    for many links, so a link lost beside a kept one showed in no edge (a
    vault's ``[[Alpha]]`` is not an id token, and is not rewritten)."""
    from collections import Counter
    lost = []
    for rec in before.files:
        if not rec.ok or rec.id in (old, into):
            continue
        now = after.records.get(rec.id)
        if now is None:
            continue
        missing = Counter(into if t == old else t for t in rec.mention_targets) - Counter(now.mention_targets)
        if missing:
            lost.append((rec.id, sum(missing.values())))
    if lost:
        n = sum(k for _, k in lost)
        raise AuthorError(f"merging would lose {n} link{'s' if n != 1 else ''} of the body of "
                          + some_of([f"{rid} ({k})" for rid, k in lost], shown=PLACES_SHOWN, last=" and ")
                          + f": links to {old} by a name that is not its id (a title, an alias, a path) are not "
                          "rewritten; change them by hand first")


def _check_fragments(before, old: str, into: str) -> None:
    """A link to a heading or block of OLD (``[[Alpha#Sec]]``, ``[[Alpha#^b1]]``)
    reaches INTO's after the merge: when INTO has one of that name
    already, the link would land on INTO's own section, not the merged
    text (the first of two headings of one name wins; a block id twice is
    no block).  Refused, naming the link."""
    from ..common.textpos import offset_of as at
    from ..corpus.anchors import body_anchors, markdown_fragment, markdown_parser, wikilink_fragment
    from ..corpus.mentions import markdown_destination
    from ..corpus.resolve import link_settings
    dst = before.records[into]
    order = link_settings(before.schema).wikilink_order
    anchors = None
    for rec in before.files:
        if not rec.ok or old not in rec.mention_targets:
            continue
        body = rec.body
        for m in rec.mentions:
            if m.target != old or m.form == "bare":
                continue
            s = at(body, m.line - rec.body_line + 1, m.col)
            written = body[s:s + (m.end_col - m.col)]
            if m.form == "markdown":
                d = markdown_destination(written, 0, len(written))
                frag = markdown_fragment(d.group(1)) if d is not None else None
            else:
                frag = wikilink_fragment(written.lstrip("!")[2:-2], order)
            if not frag:
                continue
            if anchors is None:
                anchors = body_anchors(dst.body, markdown_parser(before.schema.mention_re, order))
            if anchors.has(frag):
                raise AuthorError(f"{rec.relpath}:{m.line}: {written} would reach {into}'s own "
                                  f"{'block' if frag.startswith('^') else 'heading'} “{frag}” after the merge, "
                                  "not the merged text: rename one of the two first")


def _check_lint(before, after, old: str, into: str) -> None:
    from ..lint.engine import lint
    codes = ["RK1", "RK2", "RK3"]
    pat = token_re(old)

    def keyed(result):
        return {(d.code, pat.sub(into, d.message)) for d in result.diagnostics if d.severity == "error"}
    new = keyed(lint(after, select=codes, jobs=1)) - keyed(lint(before, select=codes, jobs=1))
    if new:
        raise AuthorError("merging would create " + "; ".join(f"{c} {m}" for c, m in sorted(new)))

