"""RK7xx: ``query`` blocks in record bodies run without error.

A fenced block opened with ```` ```query ```` holds SQL over the record's
database (docs/query.md); ``recordkit show`` prints its result and a site
renders it as a table.  These rules run each block read-only against the
cached database (built once per state of the record).
"""
from __future__ import annotations

from ..registry import rule


def may_hold_queries(rec) -> bool:
    """A fast prefilter: the loader keeps the text after every fence of the
    body; without it, search the body."""
    infos = getattr(rec, "fence_infos", None)
    if infos is None:
        infos = rec.__dict__.get("_fence_infos")
    if infos is None:
        return "query" in rec.body
    return any(i.split(None, 1)[:1] == ["query"] for i in infos)


@rule("RK701", "query-block-failed", "error", scope="corpus")
def query_block_failed(ctx):
    """A `query` block's SQL fails (a syntax error, an unknown table or column, a write).

    ## What it does
    Runs the SQL of every fenced block opened with ```` ```query ```` in a
    record's body against the record's database (the tables of
    `recordkit export --sqlite`, described in docs/query.md), read-only,
    and reports SQLite's error at the block's opening line.  An empty block
    is reported too, and so is a block that runs longer than 5 seconds (it
    is stopped: a recursive query with no end would hang every lint) or
    makes a value over 64 MB.

    ## Why is this bad?
    `recordkit show` and the site print a query block's result in place of
    the block; a block that fails shows an error instead of the table the
    reader expects, and nobody notices until they look at that page.

    ## Example
    ````markdown
    ```query
    SELECT id, titel FROM records WHERE kind = 'THEORY'
    ```
    ````

    ## Use instead
    ````markdown
    ```query
    SELECT id, title FROM records WHERE kind = 'THEORY'
    ```
    ````
    """
    from ...sql.query import database_for, evaluate_blocks, query_blocks
    recs = [r for r in ctx.corpus.files if r.ok and may_hold_queries(r) and query_blocks(r)]
    if not recs:
        return []
    path = database_for(ctx.corpus)
    out = []
    for rec in recs:
        for b in evaluate_blocks(ctx.corpus, rec, path=path, limit=1):
            if b.error:
                out.append(ctx.diag("RK701", f"query block fails: {b.error}", rec,
                                    (b.block.line, b.block.col, b.block.line, b.block.end_col)))
    return out
