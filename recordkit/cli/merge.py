"""``recordkit merge OLD INTO``."""
from __future__ import annotations

import click

from .context import not_empty, pass_ctx


@click.command("merge")
@click.argument("old", callback=not_empty("id"))
@click.argument("into", callback=not_empty("id"))
@click.option("--dry-run", is_flag=True, help="Print the changes as a unified diff; write nothing.")
@pass_ctx
def command(ctx, old, into, dry_run):
    """Fold record OLD into INTO: every reference to OLD names INTO, OLD's
    relations, list fields and body move to INTO, and OLD's file is removed
    (refused when that would make a self-relation, a cycle, or lose a link).
    OLD and INTO may each be an id, a path, a file name, a title or an
    alias."""
    from ..author.merge import plan_merge
    from .rename import run_plan
    from .show import record_argument
    corpus = ctx.corpus
    old = record_argument(corpus, old, "recordkit merge")
    into = record_argument(corpus, into, "recordkit merge", "INTO ")
    run_plan(ctx, lambda: plan_merge(corpus, old, into), dry_run)
