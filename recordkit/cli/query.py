"""``recordkit query "SQL"`` (or the name of a configured query)."""
from __future__ import annotations

import sys

import click

from .context import echo_data, fast_exit, pass_ctx


@click.command("query")
@click.argument("sql", required=False)
@click.option("--format", "fmt", type=click.Choice(["table", "json", "csv"]), default="table", show_default=True)
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE", help="A value for :NAME in the SQL.")
@click.option("--list", "list_named", is_flag=True, help="List the named queries of the configuration.")
@click.option("--width", type=click.IntRange(min=0), default=60, show_default=True,
              help="Cut table cells at this many characters (0: never).")
@click.option("--timeout", type=click.FloatRange(min=0), default=60.0, show_default=True,
              help="Stop the query after this many seconds (0: never).")
@pass_ctx
def command(ctx, sql, fmt, params, list_named, width, timeout):
    """Read-only SQL over the record (tables: docs/query.md), or a named
    query of [tool.recordkit.queries].  The database is cached until the
    record changes.  Exit status 2 on an SQL error."""
    from ..sql.query import QueryError, named_queries, query_stream, write_csv, write_json, write_table
    config = ctx.config
    named = named_queries(config)
    if list_named or not sql:
        if not named:
            click.echo("No named queries: add them under [tool.recordkit.queries] (docs/query.md).",
                       err=not list_named)
            sys.exit(0 if list_named else 2)
        w = max(len(n) for n in named)
        for name, q in named.items():
            click.echo(f"{name.ljust(w)}  {q['description'] or ' '.join(q['sql'].split())}")
        sys.exit(0 if list_named else 2)
    values = {}
    for p in params:
        k, sep, v = p.partition("=")
        if not sep:
            click.echo(f"recordkit: --param {p}: write NAME=VALUE", err=True)
            sys.exit(2)
        values[k.strip()] = v
    try:
        from .export import row_analysis
        # the store of parsed records is saved while the helper fills its tables
        # (write_database)
        store = ctx.deferred_store()
        # written as the rows come (millions of rows are not held; the
        # table's cells wait in a temporary file for its widths)
        result = query_stream(config, sql, values,
                     corpus_loader=lambda: ctx.load_corpus(**row_analysis(config),
                                                           store=store if store is not None else False),
                     store=store, timeout=timeout or None)
        if fmt == "table":
            columns, rows = result
            if columns:
                n = write_table(columns, rows, lambda text: click.echo(text, nl=False), width or None)
            else:
                n = sum(1 for _ in rows)
            click.echo(f"({n} row{'s' if n != 1 else ''})")
        else:
            (write_json if fmt == "json" else write_csv)(*result, echo_data)
            if fmt == "json":
                click.echo("")
    except QueryError as exc:
        hint = ""
        if sql not in named and " " not in sql.strip():
            from difflib import get_close_matches
            near = get_close_matches(sql, list(named), n=1)
            hint = f" ({sql!r} is not a named query" + (f"; did you mean {near[0]}?)" if near else ")")
        click.echo(f"recordkit: SQL error: {exc}{hint}", err=True)
        sys.exit(2)
    fast_exit(0)
