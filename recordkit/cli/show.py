"""``recordkit show ID``."""
from __future__ import annotations

import sys

import click

from . import pass_ctx
from ..text import json_text


@click.command("show")
@click.argument("record_id")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@pass_ctx
def command(ctx, record_id, fmt):
    """One record: fields, relations, typed backlinks, mentions, checks."""
    from ..show import describe, format_text
    corpus = ctx.corpus
    info = describe(corpus, record_id)
    if info is None:
        from difflib import get_close_matches
        near = get_close_matches(record_id, list(corpus.records), n=3)
        hint = f" (did you mean {', '.join(near)}?)" if near else ""
        click.echo(f"recordkit: no record {record_id} under {corpus.root}{hint}", err=True)
        sys.exit(2)
    if fmt == "json":
        click.echo(json_text(info, indent=2))
    else:
        click.echo(format_text(info))
