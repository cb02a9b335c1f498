"""``recordkit graph``: the interactive page, or a standard export."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from .context import fast_exit, pass_ctx


@click.command("graph")
@click.option("--html", "html_file", type=click.Path(dir_okay=False), default=None,
              help="Write one self-contained interactive page to FILE.")
@click.option("--format", "fmt", type=click.Choice(["json", "graphml", "gexf", "dot"]), default=None,
              help="Export the graph in a standard format.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="File to write the export to (default: standard output).")
@click.option("--focus", default=None, help="Open the page focused on this record.")
@click.option("--depth", type=click.IntRange(0, 20), default=1, show_default=True,
              help="Hops around --focus to show.")
@pass_ctx
def command(ctx, html_file, fmt, output, focus, depth):
    """Draw the record's graph: --html FILE, or --format json|graphml|gexf|dot."""
    if not html_file and not fmt:
        click.echo("recordkit: give --html FILE or --format FORMAT", err=True)
        sys.exit(2)
    from ..common.writes import check_output_file
    if html_file:
        check_output_file(html_file, "html")
    if output:
        check_output_file(output)
    corpus = ctx.corpus
    if focus:
        from .show import record_argument
        focus = record_argument(corpus, focus, "recordkit", "--focus ")
    if focus and focus not in corpus.records:
        click.echo(f"recordkit: --focus {focus}: no such record", err=True)
        sys.exit(2)
    from ..views.index import build_index
    index = build_index(corpus)
    if html_file:
        import jinja2

        from ..emit.graph_page import write_graph_html
        from ..emit.templates import describe_error
        try:
            write_graph_html(index, html_file, title=f"{corpus.config.site_title} — graph", focus=focus,
                             depth=depth, templates=corpus.config.templates)
        except jinja2.TemplateError as exc:
            click.echo(f"recordkit: template error: {describe_error(exc)}", err=True)
            sys.exit(2)
        except ValueError as exc:  # a template part that cannot be inlined
            click.echo(f"recordkit: {exc}", err=True)
            sys.exit(2)
        click.echo(f"wrote {html_file} ({len(index['nodes'])} records, {len(index['links'])} links)", err=True)
    if fmt:
        from ..common.writes import atomic_write
        from ..emit.graph_formats import export_string
        text = export_string(corpus, fmt, index=index)
        if output:
            atomic_write(Path(output), text)
            click.echo(f"wrote {output}", err=True)
        else:
            click.echo(text)
    fast_exit(0)
