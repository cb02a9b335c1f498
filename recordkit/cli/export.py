"""``recordkit export --sqlite FILE``."""
from __future__ import annotations

import click

from .context import fast_exit, pass_ctx


def row_analysis(config) -> dict:
    """Load options that have the parse helpers work out each record's
    database rows too (see :class:`recordkit.sql.database.RowAnalysis`)."""
    from ..schema import load_schema
    from ..sql.database import RowAnalysis
    schema = load_schema(config.schema)
    return {"schema": schema, "analyze": RowAnalysis(schema)}


@click.command("export")
@click.option("--sqlite", "sqlite_file", type=click.Path(dir_okay=False), required=True,
              help="Write the record as a SQLite database (tables: docs/query.md).")
@click.option("--no-fts", is_flag=True, help="Leave out the full-text index (records_fts).")
@pass_ctx
def command(ctx, sqlite_file, no_fts):
    """The record as a SQLite database, for Datasette, sqlite3, pandas, DuckDB."""
    from ..common.writes import check_output_file
    from ..sql.database import write_database
    check_output_file(sqlite_file, "sqlite")
    # the store of parsed records is saved while the helper fills its tables
    # (write_database)
    store = ctx.deferred_store()
    corpus = ctx.load_corpus(**row_analysis(ctx.config), store=store if store is not None else False)
    path = write_database(corpus, sqlite_file, fts=not no_fts, store=store)
    click.echo(f"Wrote {path} ({len(corpus.records)} records)", err=True)
    fast_exit(0)
