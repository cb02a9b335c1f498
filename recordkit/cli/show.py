"""``recordkit show ID``."""
from __future__ import annotations

import json
import sys

import click

from . import pass_ctx


@click.command("show")
@click.argument("record_id")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@pass_ctx
def command(ctx, record_id, fmt):
    """One record: fields, relations, typed backlinks, mentions, checks."""
    from ..views.describe import describe, format_text
    corpus = ctx.corpus
    info = describe(corpus, record_id)
    if info is None:
        from difflib import get_close_matches
        near = get_close_matches(record_id, list(corpus.records), n=3)
        hint = f" (did you mean {', '.join(near)}?)" if near else ""
        click.echo(f"recordkit: no record {record_id} under {corpus.root}{hint}", err=True)
        sys.exit(2)
    from ..emit.query import evaluate_blocks, format_query_blocks
    blocks = evaluate_blocks(corpus, corpus.get(record_id))
    if blocks:
        info["queries"] = [b.to_dict() for b in blocks]
    if fmt == "json":
        click.echo(json.dumps(info, indent=2, ensure_ascii=False, default=str))
    else:
        click.echo(format_text(info) + format_query_blocks(blocks))
