"""``recordkit new KIND --title …``."""
from __future__ import annotations

import sys

import click

from .context import not_empty, pass_ctx


def _name_value(ctx, param, value):
    """A --field with no name (``--field =v``, ``--field " =v"``) is a usage
    error that says how to write one: it was "a NOTE has no field " (an
    empty name, not seen as one)."""
    for item in value:
        name, sep, _ = item.partition("=")
        if sep and not name.strip():
            raise click.BadParameter(f"{item!r} has no NAME: write NAME=VALUE, such as tags=reading",
                                     ctx=ctx, param=param)
    return value


@click.command("new")
@click.argument("kind", callback=not_empty("kind"))
@click.option("--title", required=True, help="The record's title.")
@click.option("--field", "fields", multiple=True, metavar="NAME=VALUE", callback=_name_value,
              help="A field (repeatable); lists and relations take comma-separated values, or a YAML list "
                   "(authors='[\"Park, K.\", \"Choe, Y.\"]'); a list field given again adds to it.")
@click.option("--folder", default=None, metavar="FOLDER",
              help="In a vault whose ids are paths or file names: the folder of the new note, inside the vault "
                   "(default: the kind's dir, else the vault's root).")
@click.option("--edit", is_flag=True, help="Open the new file in $EDITOR.")
@click.option("--dry-run", is_flag=True, help="Print the file that would be written; write nothing.")
@pass_ctx
def command(ctx, kind, title, fields, folder, edit, dry_run):
    """A new record of KIND with the next free id, from the kind's skeleton
    (required fields, expected sections, a promote_when stub for a theory).
    In a vault whose ids are paths or file names, a note named after its
    title (FOLDER/TITLE.md) with the fields given.

    KIND is a kind of the schema, in any case (LIT, NOTE, THEORY, CLAIM,
    QUESTION in the default one); a field a kind requires is given with
    --field.  Example:

    \b
      recordkit new THEORY --title "Conformal maps between encoders" --field source=LIT-849
    """
    from ..author.new import plan_new, plan_vault_new
    from ..author.plan import AuthorError
    from .rename import run_plan

    holder = {}

    def make():
        corpus = ctx.corpus
        if not corpus.schema.kind_ids:
            plan = plan_vault_new(corpus, kind, title, list(fields), folder)
        elif folder is not None:
            raise AuthorError("--folder is for a vault whose ids are paths or file names; a KIND-NNN record goes "
                              "to its kind's dir", usage=True)
        else:
            plan = plan_new(corpus, kind, title, list(fields))
        if not dry_run:
            plan.new_path.parent.mkdir(parents=True, exist_ok=True)
        holder["plan"] = plan
        return plan

    run_plan(ctx, make, dry_run)
    plan = holder.get("plan")
    if edit and plan is not None and not dry_run:
        try:
            click.edit(filename=str(plan.new_path))
        except click.UsageError as exc:
            click.echo(f"recordkit: {exc}", err=True)
            sys.exit(2)
        except click.ClickException as exc:     # the editor could not start, or failed
            from ..common.text import path_text, terminal_safe
            click.echo(terminal_safe(f"recordkit: {exc.format_message()}; the new record is written all the same: "
                                     f"{path_text(str(plan.new_path))}"), err=True)
            sys.exit(1)
