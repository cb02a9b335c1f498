"""RK3xx: relations and mentions — targets exist, kinds fit, no cycles."""
from __future__ import annotations

from ...graph.cycles import cycles
from ..involve import links_key
from ..registry import rule


def _near(ctx, target: str, exclude: str | None = None) -> str:
    """" (did you mean X?)" for the existing id one edit away from ``target``
    (a digit or letter changed, dropped, added, or two swapped), or ""."""
    return ctx.near_id_hint(target, exclude)


@rule("RK301", "dangling-relation", "error")
def dangling_relation(ctx, rec):
    """A relation names a record that does not exist.

    ## What it does
    Checks every target of every front-matter relation (`source`, `extends`,
    `grounds`, ...) is the id of a record in the record root, and suggests
    the closest existing id.

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
    if not rec.kind:
        return None    # the schema's relations are not checked on a record without a kind (RK110)
    out = []
    records = ctx.records
    for rel, targets in rec.relations.items():
        if rel not in ctx.schema.relations:
            continue
        for t in targets:
            if t.id not in records and t.id != rec.id:
                out.append(ctx.diag("RK301", f"`{rel}` target {t.id} does not exist{_near(ctx, t.id, rec.id)}", rec, t.pos,
                                    about=(t.id,)))
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
                                             f"not at {t.id} (a {tgt.kind})", rec, t.pos, about=(t.id,)))
    return out


@rule("RK303", "self-relation", "error", local=True)
def self_relation(ctx, rec):
    """A record relates to itself.

    ## What it does
    Reports a relation whose target is the record's own id.

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
    return [ctx.diag("RK303", f"`{rel}` names the record itself", rec, t.pos)
            for rel, targets in rec.relations.items() for t in targets if t.id == rec.id]


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
    Checks every `KIND-NNN` token and `[[ID]]` wikilink in the body (outside
    code spans, code blocks and HTML comments) names an existing record.

    ## Why is this bad
    A mention is a link on the site and an edge in the graph; one that names
    nothing is a dead link, often a typo for the record that was meant.

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
            what = "wikilink" if m.form == "wikilink" else "mention"
            out.append(ctx.diag("RK305", f"{what} of {m.target}, which does not exist{_near(ctx, m.target, rec.id)}",
                                rec, (m.line, m.col, m.line, m.end_col), about=(m.target,)))
    return out


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
    return [ctx.diag("RK307", "no relation in or out of this record", rec, rec.value_pos("id"),
                     about=(links_key(rid),))
            for rid, rec in ctx.records.items() if rid not in linked]
