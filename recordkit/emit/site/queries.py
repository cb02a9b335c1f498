"""A record page's ```query blocks: run over a database of the published
records (and of them only: a query never sees a record kept out), shown as
tables with ids as links."""
from __future__ import annotations

import html
import os
import re
import shutil

from .changes import page_key
from .context import BuildContext
from .writer import digest, same_size

#: rows of a query block's table on a page
QUERY_ROW_LIMIT = 1000


def prepare(ctx: BuildContext) -> None:
    """The published records with a ```query block: their page depends
    on everything a query can read (every published record, the check
    results), so its key holds a digest of all of it; when one of them
    is to be rendered, the database of the published records is built
    once, before the helpers fork."""
    site = ctx.site
    records = site.corpus.records
    ctx.query_db = None
    ctx.query_dir = None
    ctx.query_keys = {}
    from ...sql.query import query_blocks
    q = [r for r in site.ids
         if (records[r].fence_infos is None or any("query" in f for f in records[r].fence_infos))
         and query_blocks(records[r])]
    if not q:
        return
    everything = digest(("\n".join(f"{r}\t{records[r].digest}" for r in site.ids) + repr(
        sorted((cid, r.verdict, r.stale, r.discrepancy, r.ran_at) for cid, r in site.data.results.items())))
        .encode("utf-8", "surrogatepass"))
    old_files = ctx.writer.old.files
    need = False
    for rid in q:
        key = digest((page_key(ctx, rid) + "|query|" + everything).encode("utf-8", "surrogatepass"))
        ctx.query_keys[rid] = key
        old = old_files.get(site.page_path(rid))
        if not (old and old.get("key") == key and same_size(ctx.writer.out / site.page_path(rid),
                                                             old.get("size"))):
            need = True
    if need:
        import tempfile
        from ...corpus.model import Corpus
        from ...sql.database import write_database
        corpus = site.corpus
        pc = Corpus(root=corpus.root, schema=corpus.schema, config=corpus.config)
        pc.files = [records[r] for r in site.ids]
        pc.records = {r: records[r] for r in site.ids}
        ctx.query_dir = tempfile.mkdtemp(prefix="recordkit-site-query-")
        ctx.query_db = os.path.join(ctx.query_dir, "published.sqlite")
        write_database(pc, ctx.query_db, fts=False, results=site.data.results)


def drop(ctx: BuildContext) -> None:
    if ctx.query_dir:
        shutil.rmtree(ctx.query_dir, ignore_errors=True)
        ctx.query_dir = ctx.query_db = None


def fill(ctx: BuildContext, rec, body: str) -> str:
    """Each ```query block of the body (rendered as code) replaced by
    its result as a table, ids as links; a failing query by an error
    box.  Blocks are matched to their SQL by content."""
    from ...sql.query import evaluate_blocks
    if ctx.query_db is None:
        return body
    results = evaluate_blocks(None, rec, path=ctx.query_db, limit=QUERY_ROW_LIMIT)
    by_sql: dict = {}
    for br in results:
        by_sql.setdefault(br.block.sql, []).append(br)

    def sub(m):
        sql = html.unescape(re.sub(r"<[^>]+>", "", m.group(1))).strip()
        found = by_sql.get(sql)
        if not found:
            return m.group(0)
        return _query_html(ctx, found.pop(0) if len(found) > 1 else found[0], m.group(0))
    return re.sub(r'<pre class="rk-code"><code class="language-query">(.*?)</code></pre>\n?', sub, body,
                  flags=re.S)


def _query_html(ctx: BuildContext, br, code_html: str) -> str:
    site = ctx.site
    esc = html.escape
    sql = f'<details class="rk-query-sql"><summary>SQL</summary>{code_html}</details>\n'
    if br.error is not None:
        return (f'<div class="rk-query rk-verdict-box v-fail rk-query-error" role="alert">'
                f'<strong>query failed</strong> (line {br.block.line}): {esc(site.scrub(br.error))}</div>\n{sql}')
    res = br.result

    def cell(v) -> str:
        if v is None:
            return ""
        if isinstance(v, bytes):
            return f"{len(v)} bytes"
        text = str(v)
        target = site.resolve(text) if text in site.corpus.records else None
        if target and target[0] == "link":
            return (f'<a class="rk-ref k-{esc(target[2] or "")}" href="{esc(ctx.renderer.prefix + target[1])}" '
                    f'data-id="{esc(text)}">{esc(text)}</a>')
        return esc(site.scrub(text))
    head = "".join(f"<th>{esc(c)}</th>" for c in res.columns)
    rows = "".join("<tr>" + "".join(f"<td>{cell(v)}</td>" for v in r) + "</tr>\n" for r in res.rows)
    n = len(res.rows)
    more = f" (the first {n})" if n >= QUERY_ROW_LIMIT else ""
    return (f'<div class="rk-query"><table class="rk-query-table"><thead><tr>{head}</tr></thead>\n'
            f'<tbody>\n{rows}</tbody></table>\n<p class="rk-query-count">{n} row{"s" if n != 1 else ""}{more}'
            f'</p>\n{sql}</div>\n')

