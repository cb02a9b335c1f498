"""RK6xx: the claims table of the kinds the schema's ``claims_table.kinds``
names (a NOTE's by default)."""
from __future__ import annotations

from ...common.didyoumean import near_words
from ...common.text import shown
from ...markdown.sections import first_table, section_text
from ..registry import rule


def _claims_table(ctx, rec):
    key = id(rec)
    if key in ctx.claims_tables:
        return ctx.claims_tables[key]
    found = None
    if rec.kind and rec.kind in ctx.schema.claims_kinds:
        sec = section_text(rec, ctx.schema.claims_section)
        if sec is not None:
            found = first_table(*sec)
    ctx.claims_tables[key] = found
    return found


@rule("RK601", "claims-table-columns", "warning", local=True)
def claims_table_columns(ctx, rec):
    """A Claims table lacks the columns id, claim, strength, support.

    ## What it does
    Finds the first table under the "Claims" heading of a record whose kind
    has a claims table (the schema's `claims_table.kinds`: NOTE by default)
    and checks its header has the columns `id`, `claim`, `strength` and
    `support` (the schema's `claims_table.columns`; case is ignored; other
    columns may follow).

    ## Why is this bad
    Each row of the table is a claim the note makes about its paper, with how
    strongly the paper supports it and where; the site and the claim rules
    read the table by these column names.

    ## Example
    ```markdown
    ## Claims
    | # | what | how sure |
    |---|------|----------|
    | C1 | ... | strong |
    ```

    ## Use instead
    ```markdown
    ## Claims
    | id | claim | strength | support |
    |----|-------|----------|---------|
    | C1 | Equal softmax distributions fix the embedding up to an invertible linear map | strong | Thm 2.2 |
    ```
    """
    found = _claims_table(ctx, rec)
    if not found:
        return None
    header, _ = found
    have = [c.lower() for c in header.cells]
    missing = [c for c in ctx.schema.claims_columns if c not in have]
    if missing:
        return [ctx.diag("RK601", f"claims table lacks column{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
                                  f"(has {', '.join(header.cells)})", rec,
                         (header.line, header.cols[0] if header.cols else 1, header.line,
                          (header.cols[-1] + len(header.cells[-1])) if header.cols else 1))]
    return None


@rule("RK602", "claims-table-strength", "error", local=True)
def claims_table_strength(ctx, rec):
    """A Claims-table strength is not strong, moderate or weak.

    ## What it does
    Checks the `strength` cell of each row of a claims table (a NOTE's, or
    of the kinds the schema's `claims_table.kinds` names) is one of the
    schema's strengths (strong, moderate, weak by default).

    ## Why is this bad
    Strength is how much weight the record may put on the claim; a free-form
    value ("pretty solid") cannot be compared or filtered.

    ## Example
    ```markdown
    | C4 | The embeddings are far from linear equivalence | likely | Table 1 |
    ```

    ## Use instead
    ```markdown
    | C4 | The embeddings are far from linear equivalence | moderate | Table 1 |
    ```
    """
    found = _claims_table(ctx, rec)
    if not found:
        return None
    header, rows = found
    have = [c.lower() for c in header.cells]
    if "strength" not in have:
        return None
    k = have.index("strength")
    allowed = ctx.schema.claims_strengths
    out = []
    for row in rows:
        if k >= len(row.cells):
            continue
        v = row.cells[k]
        if v.strip().lower().strip("*_ ") not in allowed:
            near = near_words(v.lower(), allowed)
            hint = f" (did you mean {near[0]}?)" if near else ""
            col = row.cols[k]
            out.append(ctx.diag("RK602", f"strength {shown(v.strip())} is not one of {', '.join(allowed)}{hint}", rec,
                                (row.line, col, row.line, col + len(v))))
    return out
