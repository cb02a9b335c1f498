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

import re
from pathlib import Path

from ..common.splice import apply_fixes
from ..common.textpos import offset_of
from ..corpus.model import Fix
from ..corpus.parse import parse_text
from .plan import PLACES_SHOWN, AuthorError, Change, Plan
from .retarget import replace_deep, retarget, token_re
from ..common.text import a_or_an, some_of
from ..graph import of as graph_of

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
    return rec.offset_of(line, col), rec.offset_of(el, ec)


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
    """The changes that fold ``old`` into ``into`` (raises :class:`AuthorError`).

    The references to OLD are rewritten one of two ways: in a vault (ids
    are paths or file names) every link that reaches OLD is relinked to
    reach INTO, as a rename relinks it; in a research record every
    ``OLD`` token becomes ``INTO``.  The rest is one path: INTO gains
    OLD's fields and body, and the record after is checked against the
    record before."""
    vault = _refuse(corpus, old, into)
    src, dst = corpus.records[old], corpus.records[into]
    schema = corpus.schema
    pattern = token_re(old)
    plan = Plan(root=Path(corpus.root))
    if vault:
        texts, moved_src, namer = _relink_vault(corpus, plan, old, into)
        body, left = moved_src[src.body_offset:], []
    else:
        texts, left = _rewrite_ids(corpus, plan, old, into, pattern)
        body = src.body
    into_text, copied, differing = _fold_fields(corpus, old, into, texts.get(dst.path, dst.text), pattern)
    into_text = _append_body(corpus, plan, old, into, into_text, body.strip("\r\n"), definitions=vault)
    if vault:
        head = parse_text(into_text, dst.path, dst.relpath, schema)[0].body_offset
        into_text = _retitled(into_text, head, dst.relpath, namer, src.title, dst.title)
    else:
        into_text = retarget(parse_text(into_text, dst.path, dst.relpath, schema)[0], old, into, pattern).text
    texts[dst.path] = into_text
    _verify(corpus, texts, old, into)
    return _planned(corpus, plan, texts, old, into, copied, differing, left)


def _refuse(corpus, old: str, into: str) -> bool:
    """An :class:`AuthorError` when ``old`` cannot be merged into ``into``:
    either is no record or has no front matter (outside a vault), they
    differ in kind, an id is of two files, or a relation would name INTO
    itself.  Else whether the record is a vault (ids are paths or file
    names, front matter optional: a note without any is merged too, INTO
    getting one when OLD brings fields)."""
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
    vault = not corpus.schema.kind_ids
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
    # INTO may not name OLD in its front matter: that would become a self-relation
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
    if vault:
        for rec in corpus.files:
            for rel, targets in (rec.relations or {}).items() if rec.ok and rec is not src else ():
                ids = [t.id for t in targets]
                if old in ids and into in ids:
                    raise AuthorError(f"{rec.relpath}: {rel} names both {old} and {into}; remove {old} from it "
                                      "first")
    return vault


def _relink_vault(corpus, plan: Plan, old: str, into: str) -> tuple[dict, str, object]:
    """A vault's links to OLD, by its file name, path, title or alias (not
    an id token), rewritten as a rename rewrites them (author/relink), each
    to reach INTO: (path -> new text of each file changed, OLD's text with
    its links redone for INTO's file, the namer of INTO's links).  Counts
    the references in ``plan``; notes the links made plain text."""
    from .relink import body_edits, spliced, namer_for, relink_all
    schema, records = corpus.schema, corpus.records
    src, dst = records[old], records[into]
    # INTO as it will be: OLD's aliases join its own (a link by one of
    # them then reaches INTO as it is, and is left as written)
    target = dst
    theirs = src.aliases
    if theirs and isinstance(dst.meta, dict):
        import copy
        target = copy.copy(dst)
        target.meta = {**dst.meta, "aliases": dst.aliases + [a for a in theirs if a not in dst.aliases]}
    namer = namer_for(corpus, old, target)
    texts, plan.references = relink_all(corpus, src, namer, skip=(src, dst))
    for r in corpus.files:
        if r.path in texts:
            head = parse_text(texts[r.path], r.path, r.relpath, schema)[0].body_offset
            texts[r.path] = _retitled(texts[r.path], head, r.relpath, namer, src.title, dst.title)
    from ..corpus.resolve import resolver_for
    from .relink import derived_edits, front_matter_edits, property_edits
    before, settings = resolver_for(corpus), schema.links
    # INTO's links to OLD, and OLD's to INTO or to itself, would be links
    # of the merged note to itself: made plain text (_unlinks), the rest
    # of INTO's links to OLD rewritten as everywhere else
    unlinked, dropped = _unlinks(dst, dst.text, (old,), before, settings)
    edits = front_matter_edits(dst, dst.text, old, before, namer, settings) + \
        property_edits(dst, dst.text, old, before, namer, settings, schema) + \
        body_edits(dst, dst.text, old, before, namer, settings, None, records)
    if schema.derive_patterns:
        edits += derived_edits(dst, dst.text, old, before, namer, settings, schema)
    edits = _outside(edits, unlinked)
    plan.references += sum(len(e) == 3 for e in set(edits))
    if edits or unlinked:
        texts[dst.path] = spliced(dst.text, edits + unlinked)
    # OLD's body, read from INTO's file: its links to OLD reach INTO, its
    # relative links are redone from INTO's folder
    unlinked, more = _unlinks(src, src.text, (old, into), before, settings)
    dropped += more
    moved_src = spliced(src.text, _outside(body_edits(src, src.text, old, before, namer, settings, dst.relpath,
                                                      records), unlinked) + unlinked)
    if dropped:
        plan.notes.append(f"links of {old} and {into} to each other, now of {into} to itself, made plain text: "
                          + some_of(dropped, shown=PLACES_SHOWN))
    return texts, moved_src, namer


def _rewrite_ids(corpus, plan: Plan, old: str, into: str, pattern) -> tuple[dict, list]:
    """Every file but OLD's, each ``OLD`` token made ``INTO``, a relation
    item that would repeat INTO removed: (path -> new text of each file
    that names OLD, the places OLD is left as it is: in code or a link's
    address).  Counts the references in ``plan``."""
    schema, src = corpus.schema, corpus.records[old]
    texts: dict[Path, str] = {}
    left = []
    for rec in sorted(corpus.files, key=lambda r: r.relpath):
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
    return texts, left


def _fold_fields(corpus, old: str, into: str, into_text: str, pattern) -> tuple[str, list, list]:
    """INTO's text (``into_text``) with OLD's relations and list fields
    added to its own, and the fields it lacks copied over as OLD wrote
    them: (the text, the fields copied, the fields both have with other
    values, INTO's kept)."""
    schema = corpus.schema
    src, dst = corpus.records[old], corpus.records[into]
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
    return into_text, copied, differing


def _append_body(corpus, plan: Plan, old: str, into: str, into_text: str, body: str, definitions: bool) -> str:
    """``into_text`` with OLD's ``body`` appended under a "Merged from"
    heading.  With ``definitions`` (a vault), the link reference
    definitions that end each note are one block at the end, each label
    once (notes in ``plan`` say which were left out or now read otherwise)."""
    src, dst = corpus.records[old], corpus.records[into]
    eol = _eol(into_text)
    defs = ""
    if definitions:
        # the link reference definitions that end each note (Foam writes
        # one per wikilink there) are one block at the end of the merged
        # note, as Foam keeps them, each label once: not INTO's before the
        # merged text and OLD's after it
        head = parse_text(into_text, dst.path, dst.relpath, corpus.schema)[0].body_offset
        k = _trailing_definitions(into_text, head)
        mine, into_text = into_text[k:], into_text[:k]
        k = _trailing_definitions(body, 0)
        body, theirs = body[:k].strip("\r\n"), body[k:]
        defs, differ, taken = _merged_definitions(mine, theirs, into_text[head:], body)
        if differ:
            plan.notes.append(f"{old}'s definition{'s' if len(differ) != 1 else ''} of " + ", ".join(differ)
                              + f" left out: {into} defines {'them' if len(differ) != 1 else 'it'} otherwise")
        if taken:
            plan.notes.append(f"{into}'s definition{'s' if len(taken) != 1 else ''} of " + ", ".join(taken)
                              + f" now come{'s' if len(taken) == 1 else ''} after {old}'s text, which defines "
                              f"{'them' if len(taken) != 1 else 'it'} otherwise: {old}'s is the one read "
                              f"(rename the label in one of the two to keep both)")
        if defs:
            into_text = into_text.rstrip("\r\n") + eol if into_text.strip("\r\n") else into_text
    if body:
        if not into_text.endswith("\n"):
            into_text += eol
        heading = f"## Merged from “{src.title}”" if src.title else "## Merged"
        into_text += f"{eol}{heading}{eol}{eol}" + body.replace("\r\n", "\n").replace("\n", eol) + eol
    if defs:
        if not into_text.endswith("\n"):
            into_text += eol
        into_text += (eol if into_text.strip("\r\n") else "") + defs.replace("\r\n", "\n").replace("\n", eol) + eol
    return into_text


def _verify(corpus, texts: dict, old: str, into: str) -> None:
    """An :class:`AuthorError` unless the graph after the merge holds every
    edge before (OLD read as INTO), with no new relation problem, no link
    lost, and INTO's title as it was."""
    src, dst = corpus.records[old], corpus.records[into]
    after = _corpus_after(corpus, texts, src)
    _check_graph(corpus, after, old, into)
    _check_mentions(corpus, after, old, into)
    _check_fragments(corpus, old, into)
    _check_lint(corpus, after, old, into)
    if after.records.get(into) is not None and after.records[into].title != dst.title:
        raise AuthorError(f"{into}'s title would become “{after.records[into].title}” (taken from the merged text's "
                          f"first heading, as {into} has no title of its own): give {into} a title first")


def _planned(corpus, plan: Plan, texts: dict, old: str, into: str, copied: list, differing: list,
             left: list) -> Plan:
    """``plan`` with its changes (each file whose text changes, OLD's file
    removed), its summary and its notes."""
    src = corpus.records[old]
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


def _outside(edits: list, spans: list) -> list:
    """``edits`` but those inside one of ``spans`` (a link made plain text)."""
    covers = _Covers(spans)
    return [e for e in edits if not covers.reach(e[0], e[1])]


class _Covers:
    """Which of a list of spans contain a position or a range, each asked in
    O(log n): the spans sorted by start, with the furthest end of those
    starting at or before each (one test per edit against every span was
    quadratic: 16,000 links took 27 s)."""

    def __init__(self, spans):
        ordered = sorted((s, t) for s, t, *_ in spans)
        self.starts = [s for s, _ in ordered]
        self.ends = []
        furthest = -1
        for _, t in ordered:
            furthest = max(furthest, t)
            self.ends.append(furthest)

    def reach(self, start: int, end: int) -> bool:
        """Whether a span holds ``start..end`` (its start at or before
        ``start``, its end at or after ``end``)."""
        from bisect import bisect_right
        k = bisect_right(self.starts, start) - 1
        return k >= 0 and self.ends[k] >= end


def _unlinks(rec, text: str, targets: tuple, before, settings) -> tuple[list, list]:
    """The edits (start, end, replacement; offsets in ``text``, ``rec``'s)
    that make plain text of each link of ``rec``'s body to one of
    ``targets`` as a whole note (no ``#heading`` or ``^block``): after the
    merge it would be a link of the merged note to itself.  Such a link
    reaches nothing (the reader is there) and Foam shows it as a link all
    the same, so it is not rewritten to a self-link; nor dropped, which
    would cut words out of a sentence: it becomes the words the reader saw
    (its label, or its target as written; a Markdown link's text).  An
    embed on a line of its own is dropped with its line (what it showed is
    in the merged note now).  A link reference definition of such a link
    is dropped, and the ``[text][label]`` links that used one become their
    text.  A link to a heading or block stays a link (and Foam's definition
    of it, labelled ``[note#heading]``): it still goes somewhere, within
    the note.  Also returns where each link was (``file:line``), for a
    note."""
    from ..markdown.anchors import markdown_fragment
    from ..markdown.blocks import code_ranges, in_ranges
    from ..markdown.links import MD_DEF_AT_RE, WIKI_LABEL_FIRST_RE, WIKI_RE, link_form, link_spans, markdown_destination
    base = rec.body_offset
    body = text[base:]
    code = code_ranges(body)
    label_first = settings.wikilink_order == "label-first"

    def reaches(target: str, form: str) -> bool:
        return before.resolve(target, from_path=rec.relpath, form=form).target in targets

    def section(label: str) -> bool:
        """Whether a definition is Foam's of a link to a heading or block."""
        name = label.rsplit("|", 1)[-1] if label_first else label.split("|", 1)[0]
        return "#" in name or "^" in name

    def whole_line(ws: int, we: int) -> tuple[int, int]:
        ls = body.rfind("\n", 0, ws) + 1
        le = body.find("\n", we)
        return ls, len(body) if le < 0 else le + 1

    out, labels, spans, at = [], [], [], []     # (at: where each link made plain text starts)
    for ws, we, target, label, form in link_spans(body, settings):
        spans.append((ws, we))
        if code and in_ranges(code, ws):
            continue
        if form == "markdown":
            d = markdown_destination(body, ws, we)
            if d is None or markdown_fragment(d.group(1)) or not reaches(target, "markdown"):
                continue
            if d.re is not MD_DEF_AT_RE:       # (a definition: below)
                out.append((ws, we, label))
                at.append(ws)
            continue
        m = (WIKI_LABEL_FIRST_RE if label_first else WIKI_RE).match(body, ws + 1 if form == "embed" else ws)
        g = 2 if label_first else 1
        if m is None or body[m.end(g):m.end(g) + 1] in ("#", "^") or not reaches(target, link_form(target)):
            continue
        ls, le = whole_line(ws, we)
        at.append(ws)
        if form == "embed" and not (body[ls:ws] + body[we:le]).strip():
            if body[ls - 2:ls] in ("\n\n", "") and body[le:le + 1] == "\n":
                le += 1                 # (a paragraph of its own: one blank line stays between its neighbours)
            out.append((ls, le, ""))
        else:
            shown = m.group(3 - g)
            out.append((ws, we, (shown if shown and shown.strip() else m.group(g)).rstrip("\\").strip()))
    # the definitions of such links: ``[note]: note.md``, and Foam's without .md (``[note]: note "Note"``)
    for ls, le, m in _definition_lines(body, code):
        target, fragment = _definition_target(m.group(2))
        if target is None or fragment or section(m.group(1)) or not reaches(target, "markdown"):
            continue
        labels.append(m.group(1))
        out.append((ls, le, ""))
    # the ``[text][label]``, ``[label][]`` and ``[label]`` links that used a definition dropped
    # (one pass for every label: a pass a label was quadratic in a note of many)
    keys = {_label_key(label) for label in labels}
    if keys:
        covers = _Covers([(a, b - 1) for a, b in spans])     # (a start inside a link: a <= s < b)
        for m in _LABEL_USE_RE.finditer(body):
            used = m.group(2) if m.group(2) is not None else m.group(3)
            if _label_key(used) not in keys:
                continue
            s, e = m.span()
            if body[s - 1:s] in ("!", "]", "\\") or covers.reach(s, s) or (code and in_ranges(code, s)):
                continue
            out.append((s, e, m.group(1) if m.group(1) is not None else m.group(3)))
            at.append(s)
    lines, n, last = set(), rec.body_line, 0
    for s in sorted(at):                # (lines counted on from the last: not from the top for each)
        n += body.count("\n", last, s)
        last = s
        lines.add(n)
    where = [f"{rec.relpath}:{n}" for n in sorted(lines)]
    return sorted({(base + s, base + e, new) for s, e, new in out}), where


#: a use of a link reference definition: ``[text][label]`` (groups 1, 2),
#: ``[label][]`` or ``[label]`` not followed by ``[``, ``(`` or ``:`` (group 3)
_LABEL_USE_RE = re.compile(r"\[([^\[\]\n]*)\]\[([^\[\]\n]+)\]|\[([^\[\]\n]+)\](?:\[\]|(?![\[(:]))")

#: a line of a link reference definition (its label: group 1), as
#: :func:`~recordkit.corpus.mentions.definitions` reads one
_DEF_LINE_RE = re.compile(r" {0,3}\[([^\[\]\n^][^\[\]\n]{0,998})\]:[ \t]*(<[^<>\n]{0,2048}>|[^\s<>]{1,2048})"
                          r"(?:[ \t]+(\"[^\"\n]{0,2048}\"|'[^'\n]{0,2048}'|\([^()\n]{0,2048}\)))?[ \t]*\r?")


def _definition_lines(body: str, code: list):
    """(start, end, match of :data:`_DEF_LINE_RE`) of each line of ``body``
    that is a link reference definition, outside ``code`` (``end``: after
    its line break; a line break of either kind: a note may be CRLF).  A
    definition cannot interrupt a paragraph: a line after a paragraph's is
    its text."""
    from ..markdown.blocks import CLOSES_BLOCK_RE, HEADING_LINE_RE, in_ranges
    pos, prev = 0, ""
    for line in body.split("\n"):
        start, pos = pos, min(pos + len(line) + 1, len(body))
        m = _DEF_LINE_RE.fullmatch(line)
        opens = not prev.strip() or _DEF_LINE_RE.fullmatch(prev) or HEADING_LINE_RE.match(prev.rstrip("\r") + "\n") \
            or CLOSES_BLOCK_RE.match(prev.rstrip("\r"))
        prev = line
        if m is not None and opens and not (code and in_ranges(code, start)):
            yield start, pos, m


def _definition_target(dest: str) -> tuple[str | None, bool]:
    """The ``.md`` file a definition's destination names (URL-decoded; one
    of Foam's, without ``.md``, names the file of that name), or None; and
    whether it names a heading or block of it (``#…``)."""
    from urllib.parse import unquote
    from ..markdown.links import markdown_target
    dest = dest[1:-1] if dest.startswith("<") and dest.endswith(">") else dest
    target = markdown_target(dest)
    if target is None:
        path = dest.split("#", 1)[0].split("?", 1)[0]
        if path and markdown_target(path + ".md") is not None:
            target = unquote(path) + ".md"
    return target, "#" in dest


def _label_key(label: str) -> str:
    """A definition's label as CommonMark matches it (case and runs of spaces aside)."""
    return " ".join(label.split()).casefold()


def _retitled(text: str, base: int, from_path: str, namer, old_title: str | None, new_title: str | None) -> str:
    """``text`` (of a note the merge changed, its body from ``base``) with
    each link reference definition that names INTO now (``namer``'s) and
    was Foam's for OLD given INTO's title for OLD's (Foam titles one
    with its note's: ``[old]: old "Old"`` became ``[into]: into "Old"``,
    and Foam writes ``"Into"``), and one that repeats an earlier one of
    its label and destination removed (the note linked to both)."""
    from ..markdown.blocks import code_ranges
    body = text[base:]
    if "]:" not in body:
        return text
    edits, seen = [], set()
    for start, end, m in _definition_lines(body, code_ranges(body)):
        target, _ = _definition_target(m.group(2))
        if target is None or not namer.reaches(target, from_path, "markdown"):
            continue
        key = (_label_key(m.group(1)), m.group(2))
        if key in seen:
            edits.append((base + start, base + end, ""))
            continue
        seen.add(key)
        title = m.group(3)
        if title and old_title and new_title and old_title != new_title and title[1:-1] == old_title:
            edits.append((base + start + m.start(3) + 1, base + start + m.end(3) - 1, new_title))
    from .relink import spliced
    return spliced(text, edits) if edits else text


def _trailing_definitions(text: str, start: int) -> int:
    """Where the block of link reference definitions (and blank lines) that
    ends ``text`` begins (``len(text)``: none); ``start``: where the body
    does.  A definition line right after a paragraph's is its text (a
    definition cannot interrupt a paragraph), and ends the search."""
    from ..markdown.blocks import CLOSES_BLOCK_RE, HEADING_LINE_RE, code_ranges, in_ranges
    lines = text[start:].split("\n")
    pos = len(text) + 1
    at = len(text)
    first = None
    for i in range(len(lines) - 1, -1, -1):
        line = lines[i]
        pos -= len(line) + 1
        if not line.strip():
            continue
        if not _DEF_LINE_RE.fullmatch(line):
            break
        first, at = i, pos
    if first is None:
        return len(text)
    # the block's first definition must start a block of its own
    while first > 0 and lines[first - 1].strip() and not HEADING_LINE_RE.match(lines[first - 1] + "\n") \
            and not CLOSES_BLOCK_RE.match(lines[first - 1].rstrip("\r")):
        nxt = next((j for j in range(first, len(lines)) if not lines[j].strip()), None)
        if nxt is None:
            return len(text)
        at += sum(len(x) + 1 for x in lines[first:nxt])
        first = next((j for j in range(nxt, len(lines)) if lines[j].strip()), None)
        if first is None:
            return len(text)
        at += sum(len(x) + 1 for x in lines[nxt:first])
    code = code_ranges(text[start:])
    return len(text) if code and in_ranges(code, at - start) else at


def _merged_definitions(mine: str, theirs: str, body: str, moved: str = "") -> tuple[str, list[str], list[str]]:
    """One block of link reference definitions from INTO's (``mine``, as
    they were laid out) and OLD's (``theirs``), each label once (the
    first, as CommonMark reads them: a second is dead text): OLD's go after
    INTO's last (before Foam's ``[//end]`` marker, when INTO has its
    markers; OLD's own markers are left out then).  ``body``: INTO's text
    before its block (a label defined there is taken).  Also returns the
    labels of OLD's left out because INTO's name another destination, and
    the labels of INTO's block that ``moved`` (OLD's text, which comes
    before the block now) defines otherwise: its definition comes first
    and is the one read, so INTO's links of that label change."""
    from ..markdown.links import definitions

    key = _label_key
    seen = {key(label): None for _, _, _, label, _ in definitions(body, md_only=False)}
    in_moved = {}
    for s, e, _, label, _ in definitions(moved, md_only=False) if "]:" in moved else ():
        m = _DEF_LINE_RE.match(moved, s)
        in_moved.setdefault(key(label), m.group(2) if m is not None else None)
    taken = []
    out, differ = [], []
    for line in mine.strip("\r\n").split("\n") if mine.strip() else []:
        m = _DEF_LINE_RE.fullmatch(line)
        if m is not None:
            if key(m.group(1)) in seen:
                continue
            seen[key(m.group(1))] = m.group(2)
            was = in_moved.get(key(m.group(1)))
            if was is not None and was != m.group(2) and not key(m.group(1)).startswith("//"):
                taken.append(f"[{m.group(1)}]")
        out.append(line)
    markers = any(key(x).startswith("//") for x in seen)
    end = next((i for i, line in enumerate(out) if line.lstrip().lower().startswith("[//end]")), len(out))
    while end > 0 and not out[end - 1].strip():
        end -= 1
    added = []
    for line in theirs.strip("\r\n").split("\n") if theirs.strip() else []:
        m = _DEF_LINE_RE.fullmatch(line)
        if m is None or (markers and key(m.group(1)).startswith("//")):
            continue
        k = key(m.group(1))
        if k in seen:
            if seen[k] is not None and seen[k] != m.group(2) and not k.startswith("//"):
                differ.append(f"[{m.group(1)}]")
            continue
        seen[k] = m.group(2)
        added.append(line)
    out[end:end] = added
    return "\n".join(out), differ, taken


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
    for u, v, d in iter_edges(graph_of(corpus)):
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
    from ..common.textpos import Positions
    from ..markdown.anchors import markdown_fragment, wikilink_fragment
    from ..markdown.native import anchors as body_anchors
    from ..markdown.links import markdown_destination
    dst = before.records[into]
    order = before.schema.links.wikilink_order
    anchors = None
    for rec in before.files:
        if not rec.ok or old not in rec.mention_targets:
            continue
        body = rec.body
        at = Positions(body).offset_of     # many questions about one body
        for m in rec.mentions:
            if m.target != old or m.form == "bare":
                continue
            s = at(m.line - rec.body_line + 1, m.col)
            written = body[s:s + (m.end_col - m.col)]
            if m.form == "markdown":
                d = markdown_destination(written, 0, len(written))
                frag = markdown_fragment(d.group(1)) if d is not None else None
            else:
                frag = wikilink_fragment(written.lstrip("!")[2:-2], order)
            if not frag:
                continue
            if anchors is None:
                anchors = body_anchors(dst.body, before.schema.mention_re)
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

