"""``recordkit rename OLD NEW`` and ``recordkit merge OLD INTO``."""
from __future__ import annotations

import sys

import click

from ..common.text import terminal_safe
from .context import not_empty, pass_ctx


def run_plan(ctx, make_plan, dry_run: bool) -> None:
    """Show or make a plan of :mod:`recordkit.author`; exit 1 (2 for bad
    arguments) with a message when it is refused."""
    from ..author.plan import AuthorError, recover_journal
    from ..common.transaction import TransactionError
    config = ctx.config
    try:
        if not dry_run:
            done = recover_journal(config)
            if done:
                click.echo(terminal_safe(f"recordkit: an interrupted write was found in {config.cache_dir} and {done}"),
                           err=True)
        plan = make_plan()
        for note in plan.notes:
            click.echo(terminal_safe(f"note: {note}"), err=True)
        if dry_run:
            diff = plan.diff()
            # a record's ESC sequence or bidi override is shown, not obeyed, on a terminal
            click.echo(terminal_safe(diff) if sys.stdout.isatty() else diff, nl=False)
            # a file renamed is one file changed (its old name removed, its new one written)
            n = len({c.path for c in plan.changes}) - sum(1 for c in plan.changes if c.renamed_from is not None)
            click.echo(terminal_safe(f"Would change {n} file{'' if n == 1 else 's'}: {plan.summary}"), err=True)
            return
        plan.apply(config.cache_dir)
    except AuthorError as exc:
        click.echo(terminal_safe(f"recordkit: {exc}"), err=True)
        sys.exit(2 if exc.usage else 1)
    except TransactionError as exc:
        click.echo(terminal_safe(f"recordkit: nothing was changed: {exc}"), err=True)
        sys.exit(1)
    click.echo(terminal_safe(plan.summary))


@click.command("rename")
@click.argument("old", callback=not_empty("id"))
@click.argument("new", callback=not_empty("id"))
@click.option("--dry-run", is_flag=True, help="Print the changes as a unified diff; write nothing.")
@pass_ctx
def command(ctx, old, new, dry_run):
    """Give record OLD the id NEW: its file, its id, and every relation,
    mention and wikilink that names it, in one all-or-nothing write.  OLD
    may be an id, a path, a file name, a title or an alias.  In a vault
    whose ids are paths or file names, NEW is the note's new file name (or
    path), and the links to it are rewritten in the form they were written."""
    from ..author.rename import plan_rename
    from ..schema import load_schema
    schema = load_schema(ctx.config.schema)
    if not schema.kind_ids:
        # a vault: ids are paths or file names, and a rename moves the note
        from ..author.relink import plan_vault_rename
        from .show import record_argument
        corpus = ctx.corpus
        old = record_argument(corpus, old, "recordkit rename")
        run_plan(ctx, lambda: plan_vault_rename(corpus, old, new), dry_run)
        return
    if not schema.id_matches(old):
        # not an id: a path, a file name, a title or an alias, found as
        # `show` finds it (this loads the record; an id needs only the
        # files that name it)
        from .show import record_argument
        old = record_argument(ctx.corpus, old, "recordkit rename")
    run_plan(ctx, lambda: plan_rename(ctx.config, schema, old, new, files=ctx.record_files()), dry_run)
