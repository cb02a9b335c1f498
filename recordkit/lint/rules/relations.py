"""RK3xx: relations and mentions — targets exist, kinds fit, no cycles."""
from __future__ import annotations

from ...common.textpos import Positions
from ...corpus.resolve import mention_resolution, target_resolution
from ...graph.cycles import cycles
from ..involve import links_key
from ..registry import rule
from ...common.text import a_or_an


def _near(ctx, target: str, exclude: str | None = None) -> str:
    """" (did you mean X?)" for the existing id one edit away from ``target``
    (a digit or letter changed, dropped, added, or two swapped), or ""."""
    return ctx.near_id_hint(target, exclude)


@rule("RK301", "dangling-relation", "error")
def dangling_relation(ctx, rec):
    """A relation names a record that does not exist.

    ## What it does
    Checks every target of every front-matter relation (`source`, `extends`,
    `grounds`, ...) names a record in the record root, and suggests the
    closest existing id.  A target names a record by its id, or by what the
    schema's `links.resolve` adds (its path, file name, title or aliases); a
    value may be written as a wikilink (`"[[Note]]"`).  A target that
    matches several records is not reported here but by RK308.  On a
    record with no kind (RK110) only the relations any kind may have
    (`from: '*'`, or no `from`) are checked.  A link a `derive` pattern
    reads in a field (MADR's `status: superseded by
    [ADR-0009](0009-x.md)`) is checked too, when it is written as a link.

    ## Why is this bad
    A dangling relation is a claim of support that points at nothing: the
    graph loses the edge, backlinks miss it, and the lifecycle cannot see the
    evidence.

    ## Example
    ```yaml
    id: THEORY-798
    source: [LIT-894]
    ```

    ## Use instead
    ```yaml
    id: THEORY-798
    source: [LIT-849]
    ```
    """
    out = []
    records = ctx.records
    for rel, targets in rec.relations.items():
        r = ctx.schema.relations.get(rel)
        if r is None or (not rec.kind and "*" not in r.sources):
            # a record without a kind (RK110) is checked only on the
            # relations any record may have: a link it wrote still names
            # something, or nothing
            continue
        for t in targets:
            if t.id not in records and t.id != rec.id:
                res = target_resolution(ctx.corpus, rec, t) if t.text is not None else None
                if res is not None and not res.missing:
                    continue   # ambiguous: RK308 says which records it may mean
                what = ("is outside the record root" if res is not None and res.by == "outside"
                        else f"does not exist{_near(ctx, t.id, rec.id)}")
                out.append(ctx.diag("RK301", f"`{rel}` target {t.id} {what}", rec, t.pos, about=(t.id,)))
    if ctx.schema.derive_patterns and rec.kind:
        out += _dangling_derived(ctx, rec)
    return out


def _dangling_derived(ctx, rec) -> list:
    """A link a ``derive`` pattern reads (MADR's ``status: superseded by
    [ADR-0009](0009-nope.md)``) that names no record: the edge was dropped
    with nothing said.  Only a written link (wikilink, Markdown link) is a
    target that must exist; plain words are left alone."""
    from ...corpus.resolve import NUMBER_REF_RE, derived_refs, resolver_for
    out = []
    resolver = None
    by_number = "number" in ctx.schema.links.resolve
    for derive, i, _ref, target, form in derived_refs(rec, ctx.schema):
        numbered = form == "value" and by_number and NUMBER_REF_RE.match(target) is not None
        if form == "value" and not numbered:
            continue
        if resolver is None:
            resolver = resolver_for(ctx.corpus)
        res = resolver.resolve(target, from_path=rec.relpath, form=form)
        if res.target is None and not res.ambiguous:
            pos = rec.value_pos(*((derive.field,) if i is None else (derive.field, i)))
            d = ctx.diag("RK301", f"`{derive.relation}` target {target} (in `{derive.field}`) does not exist",
                         rec, pos, about=(target,))
            if numbered:
                # MADR's template's own `superseded by ADR-0123`: words that
                # name a decision by number, not a written link: a warning
                d.severity = "warning"
            out.append(d)
    return out


@rule("RK302", "relation-kind-not-allowed", "error")
def relation_kind_not_allowed(ctx, rec):
    """A relation's target is of a kind the relation does not allow.

    ## What it does
    Checks the kind of each existing target against the kinds the schema
    allows for that relation: a NOTE's `paper` is a LIT, a THEORY's `source`
    a LIT or NOTE, a CLAIM's `grounds` a THEORY, LIT, NOTE or CLAIM.

    ## Why is this bad
    The relation's meaning depends on what it joins: a THEORY "extending" a
    LIT says nothing the lifecycle or the site can use.

    ## Example
    ```yaml
    id: THEORY-798
    extends: [LIT-849]
    ```

    ## Use instead
    ```yaml
    id: THEORY-798
    source: [LIT-849]
    extends: [THEORY-175]
    ```
    """
    out = []
    records = ctx.records
    for rel_name, targets in rec.relations.items():
        rel = ctx.schema.relations.get(rel_name)
        if rel is None or rec.kind is None or not rel.allows_source(rec.kind):
            continue   # (a record with no kind is not checked against the schema's relations)
        for t in targets:
            tgt = records.get(t.id)
            if tgt is not None and tgt is not rec and tgt.kind is not None and not rel.allows_target(tgt.kind):
                out.append(ctx.diag("RK302", f"`{rel_name}` may point at {', '.join(rel.targets)}, "
                                             f"not at {t.id} ({a_or_an(tgt.kind)})", rec, t.pos, about=(t.id,)))
    return out


@rule("RK303", "self-relation", "error")
def self_relation(ctx, rec):
    """A record relates to itself.

    ## What it does
    Reports a relation whose target is the record itself: its own id, or,
    in a vault whose links resolve by path, file name, title or alias
    (`links.resolve`), any of those (`up: "[[Sleep spindles]]"` in
    `Sleep spindles.md`).  The targets are compared once the links are
    resolved, as the graph has them.  A relation a `derive` pattern reads
    from a field is checked too (MADR's `status: superseded by
    [ADR-0003](0003-….md)` in 0003 itself), as the graph drops such a loop.

    ## Why is this bad
    A theory that extends itself, or a claim grounded on itself, is circular
    by construction.

    ## Example
    ```yaml
    id: CLAIM-193
    grounds: [CLAIM-193]
    ```

    ## Use instead
    Ground the claim on the theory, note or work it rests on.
    """
    if not rec.kind:
        return None    # the schema's relations are not checked on a record without a kind (RK110)
    # ``t.id`` is the record a target names once the corpus's links are
    # resolved (resolve_links, at the end of the load), else the value as written
    out = []
    for rel, targets in rec.relations.items():
        for t in targets:
            if t.id == rec.id:
                said = "" if t.text is None or t.text == rec.id else f" ({t.text})"
                out.append(ctx.diag("RK303", f"`{rel}` names the record itself{said}", rec, t.pos))
    if ctx.schema.derive_patterns:
        out += _derived_self(ctx, rec)
    return out


def _derived_self(ctx, rec) -> list:
    """RK303 for a relation a ``derive`` pattern reads from a field
    (``status: superseded by [ADR-0003](0003-….md)`` in 0003 itself): the
    graph drops such an edge, so only this rule says so."""
    from ...corpus.resolve import resolver_for
    from ...markdown.links import value_link
    out = []
    settings = ctx.schema.links
    settings = type(settings)(settings.resolve, settings.case_sensitive, settings.wikilink_order, True,
                              settings.mentions)     # as the derived edges read their targets
    for derive in ctx.schema.derive_patterns:
        values = rec.meta.get(derive.field)
        items = list(enumerate(values)) if isinstance(values, list) else [(None, values)]
        for i, value in items:
            if not isinstance(value, str):
                continue
            for m in derive.regex.finditer(value):
                ref = (m.group("target") or "").strip()
                if not ref:
                    continue
                text, form = value_link(ref, settings)
                if resolver_for(ctx.corpus).resolve(text, from_path=rec.relpath, form=form).target == rec.id:
                    pos = rec.value_pos(derive.field) if i is None else rec.value_pos(derive.field, i)
                    out.append(ctx.diag("RK303", f"`{derive.field}` makes `{derive.relation}` name the record "
                                                 f"itself ({ref})", rec, pos))
    return out


@rule("RK304", "relation-cycle", "error", scope="corpus")
def relation_cycle(ctx):
    """A cycle in an acyclic relation (the cycle is listed).

    ## What it does
    For each relation the schema marks acyclic (`extends`, `grounds`), finds
    the cycles among records, and reports each once, at the relation item
    that closes it.

    ## Why is this bad
    "A grounds B grounds A" means neither is grounded; a lifecycle that
    follows `extends` would never end.

    ## Example
    ```yaml
    # THEORY-004.md
    extends: [THEORY-008]
    # THEORY-008.md
    extends: [THEORY-004]
    ```

    ## Use instead
    Decide which theory is the more general one; only the other extends it.
    """
    out = []
    records = ctx.records
    for name, rel in ctx.schema.relations.items():
        if not rel.acyclic:
            continue
        succ: dict[str, dict] = {}   # dicts as ordered sets: the cycle named is the same every run
        pos = {}
        for rid, rec in records.items():
            if not rec.kind:
                continue    # relations of a record without a kind are not checked (RK110)
            for t in rec.relations.get(name, ()):
                if t.id in records and t.id != rid:
                    succ.setdefault(rid, {})[t.id] = None
                    pos.setdefault((rid, t.id), t.pos)
        for comp, cyc in cycles(succ):
            ids = [u for u, _ in cyc] + [cyc[0][0]]
            u, v = cyc[-1]
            rec = records[u]
            # about every record of the strongly connected component: an edit
            # to any of them may close or open this cycle
            out.append(ctx.diag("RK304", f"cycle in `{name}`: {' → '.join(ids)}", rec, pos[(u, v)],
                                about=sorted(comp)))
    return out


@rule("RK305", "dangling-mention", "warning")
def dangling_mention(ctx, rec):
    """The body mentions an id that does not exist.

    ## What it does
    Checks every link in the body (outside code spans, code blocks, HTML
    comments and links' addresses) names an existing record: `KIND-NNN` tokens (when
    `links.mentions` is on), `[[ID]]` wikilinks with their `#heading`,
    `^block` and `|label`, `![[embeds]]`, and with `links.markdown_links`
    Markdown links to `.md` files (inline, and link reference definitions
    `[label]: file.md`, which `[text][label]` links use).  A link names a
    record by its id, or by what `links.resolve` adds (path, file name,
    title, aliases); one that
    matches several records is reported by RK308, and links to attachments
    (`![[figure.png]]`) are not checked, nor Dendron's wildcard references
    (`![[journal.2020.*]]`: every note of a level), links into another
    vault (`[[dendron://other-vault/note]]`; one into the vault loaded
    names its note as any link does) and, with `links.sigils`, a `#tag` or
    `@name` that has no note (`tags.tag`, `user.name`) of its own.  A link
    whose path leaves the record root (`[[../../Other vault/Note]]`,
    `[a](../../x.md)` with no file there) is said to be outside the record
    root: nothing there is read (a Markdown link to a file that is there
    is not reported), and it names no note of the root by its file name.

    ## Why is this bad
    A mention is a link on the site and an edge in the graph; one that names
    nothing is a dead link, often a typo for the record that was meant.  In
    an Obsidian vault a link to a note not written yet is how the vault
    grows: the preset makes it info, and `lint --statistics` then names the
    most-wanted notes (those the most notes link to).

    ## Example
    ```markdown
    As THEORY-715 argues ...
    ```

    ## Use instead
    ```markdown
    As THEORY-175 argues ...
    ```
    Or, for an id quoted on purpose, put it in a code span: `THEORY-715`, or
    silence it with `<!-- recordkit: ignore RK305 -->` on the line before.
    """
    records = ctx.records
    out = []
    for t in rec.mention_targets:
        if t not in records:
            break
    else:
        return out   # (the positions are worked out only for a record that has a dangling mention)
    for m in rec.mentions:
        if m.target not in records:
            if m.form == "tag":
                continue   # a #tag or @name with no note of its own: a tag, a name (links.sigils)
            res = mention_resolution(ctx.corpus, rec, m) if m.text is not None else None
            if res is not None and not res.missing:
                continue   # ambiguous: RK308 says which records it may mean
            if res is not None and res.by == "outside":
                # a path that leaves the root: nothing there is read (the
                # file may well exist), so "does not exist" would be untrue
                what = "link" if m.form == "markdown" else m.form
                msg = f"{what} to {m.target}, which is outside the record root"
            elif m.form == "markdown":
                msg = f"link to {m.target}, which does not exist"
            else:
                what = "mention" if m.form == "bare" else m.form
                msg = f"{what} of {m.target}, which does not exist{_near(ctx, m.target, rec.id)}"
            out.append(ctx.diag("RK305", msg, rec, (m.line, m.col, m.line, m.end_col), about=(m.target,)))
    return out


@rule("RK308", "ambiguous-link", "warning")
def ambiguous_link(ctx, rec):
    """A link matches more than one record.

    ## What it does
    Checks every front-matter relation value and every link of the body
    (wikilink, embed, Markdown link, bare id) that names no record by
    itself: when its text matches two or more records equally well (two
    files of the same name in different folders, two notes with the same
    title or alias) it reports the link and lists the records it may mean.
    The keys a link is matched against, and in which order, are the
    schema's `links.resolve` (`id`, `path`, `stem`, `title`, `aliases`).
    With `links.same_folder` (Obsidian), a name two notes share is the one
    in the linking note's own folder when one is there, as Obsidian opens
    it: that link is not ambiguous.

    ## Why is this bad
    recordkit cannot tell which record is meant, so the link is left out of
    the graph, backlinks and the site; an editor may pick one of them
    silently, and another tool the other.

    ## Example
    ```markdown
    <!-- projects/alpha/Meeting.md and projects/beta/Meeting.md both exist -->
    See [[Meeting]] for the decision.
    ```

    ## Use instead
    Write as much of the path as tells them apart (the shortest unambiguous
    path, as Obsidian and Foam write it):
    ```markdown
    See [[alpha/Meeting]] for the decision.
    ```
    """
    records = ctx.records
    out = []
    corpus = ctx.corpus
    for rel, targets in rec.relations.items():
        for t in targets:
            if t.id in records or t.text is None:
                continue
            res = target_resolution(corpus, rec, t)
            if res.ambiguous:
                out.append(ctx.diag("RK308", f"`{rel}` target {t.id} is ambiguous: {_candidates(ctx, res)}",
                                    rec, t.pos, about=res.candidates))
    for t in rec.mention_targets:
        if t not in records:
            break
    else:
        return out
    for m in rec.mentions:
        if m.target in records or m.text is None:
            continue
        res = mention_resolution(corpus, rec, m)
        if res.ambiguous:
            what = "link" if m.form == "markdown" else "mention" if m.form == "bare" else m.form
            out.append(ctx.diag("RK308", f"{what} {m.target} is ambiguous: {_candidates(ctx, res)}",
                                rec, (m.line, m.col, m.line, m.end_col), about=res.candidates))
    return out


def _may_name_part(rec, markdown_links: bool) -> bool:
    """Whether ``rec`` may hold a link to a heading or block (a quick test
    of its bytes: False means it holds none)."""
    from ...markdown.anchors import may_name_part
    return may_name_part(rec.source.peek(), markdown_links)


def _may_link_itself(rec) -> bool:
    """Whether ``rec`` may hold a Markdown link to a part of itself
    (``](#``, ``](<#``: a quick test of its bytes)."""
    source = rec.source
    return source.contains(b"](#") or source.contains(b"](<#")


@rule("RK309", "missing-anchor", "warning")
def missing_anchor(ctx, rec):
    """A link names a heading or block its target does not have.

    ## What it does
    Checks every link of the body (outside code spans, code blocks and HTML
    comments) that names a part of a record: a heading (`[[Note#Some
    heading]]`, `![[Note#Some heading]]`), an Obsidian block
    (`[[Note#^block-id]]`, `[[Note^block-id]]`), on the same page
    (`[[#Heading]]`, `[[#^block-id]]`, `[text](#heading)`), with or
    without a `|label`, Dendron's ranges (`![[Note#start:#end]]`: both
    ends; `#start:#*` and `#*`, where `*` names no heading), and with
    `links.markdown_links` a Markdown link to
    a `.md` file with a `#fragment`.  The target must have that heading or block, as the site
    finds it: a heading whose text as its page shows it (a link in it by
    its label, `&amp;` as `&`) is the link's, case and punctuation aside
    (the heading's id is the link's slug), or a block id (`^block-id` ending a paragraph or a
    list item, or alone after a table, quote or list).  A link whose target
    is missing or ambiguous is reported by RK305 or RK308 instead, and links
    to attachments are not checked.

    ## Why is this bad
    The link promises a place in the target that is not there: the site
    links to the top of the target's page, and an embed shows a link there
    instead of the part, so the reader lands far from what was meant.  It
    is often a heading renamed after the link was written.

    ## Example
    ```markdown
    As [[THEORY-175#What it predicts]] puts it ...
    ```

    ## Use instead
    ```markdown
    As [[THEORY-175#What is asserted]] puts it ...
    ```
    Or give the target the heading (or the `^block-id`) the link names.
    """
    settings = ctx.schema.links
    other = _may_name_part(rec, settings.markdown_links)
    # (a Markdown link to the page itself, ``[text](#heading)``, counts
    # whatever the settings: the site links it)
    if not other and not _may_link_itself(rec):
        return None
    from ...markdown.anchors import same_page_links, wikilink_fragment
    records = ctx.records
    order = settings.wikilink_order
    body = rec.body
    at = Positions(body)
    out = []
    for m in rec.mentions if other else ():
        if m.form in ("bare", "tag"):
            continue
        target = records.get(m.target)
        if target is None:
            continue      # missing (RK305) or ambiguous (RK308)
        s = at.offset_of(m.line - rec.body_line + 1, m.col)
        written = body[s:s + (m.end_col - m.col)]
        frag = _markdown_fragment(written) if m.form == "markdown" else \
            wikilink_fragment(written.lstrip("!")[2:-2], order)
        lacks = ctx.anchors_of(target).lacks(frag) if frag else None
        if lacks:
            out.append(ctx.diag("RK309", _missing_part(written, m.target, lacks), rec,
                                (m.line, m.col, m.line, m.end_col), about=(m.target,)))
    if "[[" in body or "](" in body:
        own = None
        for s, e, frag in same_page_links(body, rec.code, order):
            if own is None:
                own = ctx.anchors_of(rec)
            lacks = own.lacks(frag)
            if lacks:
                line, col = at.line_col(s)
                line += rec.body_line - 1           # (the body's first line is the file's body_line)
                out.append(ctx.diag("RK309", _missing_part(body[s:e], rec.id, lacks), rec,
                                    (line, col, line, col + (e - s))))
    return out


def _markdown_fragment(written: str) -> str | None:
    """The ``#fragment`` of a Markdown link (``[text](other.md#heading)``),
    URL-decoded, as the site reads it, or None."""
    from ...markdown.anchors import markdown_fragment
    from ...markdown.links import markdown_destination
    d = markdown_destination(written, 0, len(written))
    return None if d is None else markdown_fragment(d.group(1))


def _missing_part(written: str, target: str, frag: str) -> str:
    """"`[[Note#Heading]]`: NOTE-123 has no heading "Heading"" (or "no block ^b1")."""
    if len(written) > 80:
        written = written[:79] + "…"
    what = f"block {frag}" if frag.startswith("^") else f'heading "{frag}"'
    return f"`{written}`: {target} has no {what}"


def _candidates(ctx, res) -> str:
    """"it matches the stem of a/Note.md and b/Note.md"."""
    records = ctx.records
    from ...common.text import NAMES_SHOWN, some_of
    # (the first few: a link to one of thousands of notes that share a title
    # in each of them named every one, a quadratic output)
    paths = [records[c].relpath if c in records else c for c in res.candidates[:NAMES_SHOWN + 1]]
    what = {"id": "the id", "path": "the end of the path", "stem": "the file name", "title": "the title",
            "aliases": "an alias"}.get(res.by, "")
    shown = some_of(paths, total=len(res.candidates), last=" and ")
    return f"it matches {what} of {shown}; write more of the path to say which"


@rule("RK306", "too-many-targets", "error", local=True)
def too_many_targets(ctx, rec):
    """A relation has more targets than it allows.

    ## What it does
    Checks relations the schema limits (a NOTE's `paper`, a THEORY's
    `promoted_by`: one each) have at most that many targets; reports the
    first one too many.

    ## Why is this bad
    "The paper this note reads" is one paper; a note of two papers should be
    two notes, or name the second in its body.

    ## Example
    ```yaml
    id: NOTE-652
    paper: [LIT-849, LIT-363]
    ```

    ## Use instead
    ```yaml
    id: NOTE-652
    paper: LIT-849
    ```
    """
    if not rec.kind:
        return None    # the schema's relations are not checked on a record without a kind (RK110)
    out = []
    for rel_name, targets in rec.relations.items():
        rel = ctx.schema.relations.get(rel_name)
        if rel is None or rel.max is None or len(targets) <= rel.max:
            continue
        out.append(ctx.diag("RK306", f"`{rel_name}` allows at most {rel.max} target{'s' if rel.max != 1 else ''}, "
                                     f"found {len(targets)}", rec, targets[rel.max].pos))
    return out


@rule("RK307", "isolated-record", "info", scope="corpus")
def isolated_record(ctx):
    """A record has no relation in or out.

    ## What it does
    Reports a record that no edge of the graph touches: no front-matter
    relation, no derived `cites`, no body mention, in either direction.
    With `links.sigils` (Dendron's `#tag` and `@name`), a body's `#foo` and
    `@ana` are links, and a tag note that a note's `tags:` names (`tags.foo`
    for `tags: [foo]`) is linked from that note, as Dendron links it.

    ## Why is this bad
    It is not wrong, but an isolated record is one nothing in the record
    builds on or refers to: often a note that was never connected to the
    theory it was read for.

    ## Example
    A queued LIT that no note reads and no other work cites.

    ## Use instead
    Relate it (a NOTE's `paper`, a THEORY's `source`), or mention it where it
    matters.
    """
    from ...graph.edges import linked_ids
    linked = linked_ids(ctx.corpus)
    if len(linked) < len(ctx.records):
        linked = linked | _tagged_notes(ctx)
    return [ctx.diag("RK307", "no relation in or out of this record", rec, rec.value_pos("id"),
                     about=(links_key(rid),))
            for rid, rec in ctx.records.items() if rid not in linked]


def _tagged_notes(ctx) -> set:
    """With ``links.sigils`` mapping ``#`` to a prefix (Dendron's
    ``tags.``): the tag notes a front-matter tag names, and the notes that
    carry it.  Dendron links ``tags: [foo]`` to ``tags.foo`` as it does
    ``#foo`` in the text (a body's ``#foo`` is a link already): the tag
    note is what the tag is, not an isolated note."""
    from ...corpus.resolve import resolver_for
    prefix = dict(ctx.schema.links.sigils).get("#")
    if not prefix:
        return set()
    resolver = resolver_for(ctx.corpus)
    out: set = set()
    for rid, rec in ctx.records.items():
        for tag in rec.tags:
            got = resolver.resolve(prefix + tag).target
            if got is not None and got != rid:
                out.update((rid, got))
    return out
