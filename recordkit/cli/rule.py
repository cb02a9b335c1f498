"""``recordkit rule CODE`` / ``recordkit rule --all``."""
from __future__ import annotations

import json
import sys

import click


@click.command("rule")
@click.argument("code", required=False)
@click.option("--all", "show_all", is_flag=True, help="Every rule.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True)
def command(code, show_all, fmt):
    """What a rule checks, why, an example (CODE or kebab name)."""
    from ..lint.docs import render_rule, rules_markdown
    from ..lint.registry import all_rules, get_rule
    if show_all:
        rules = list(all_rules().values())
    elif code:
        r = get_rule(code)
        if r is None:
            from ..common.didyoumean import hint, near_words
            names = list(all_rules()) + [x.name for x in all_rules().values()]
            click.echo(f"recordkit: no rule {code}{hint(near_words(code, names, n=3))}", err=True)
            sys.exit(2)
        rules = [r]
    else:
        click.echo("recordkit: give a rule CODE, or --all", err=True)
        sys.exit(2)
    if fmt == "json":
        click.echo(json.dumps([{"code": r.code, "name": r.name, "severity": r.severity, "fixable": r.fixable, "fix": r.fix,
                                "summary": r.summary, "doc": r.doc, "url": r.url} for r in rules], indent=2))
    elif fmt == "markdown" and show_all:
        click.echo(rules_markdown(), nl=False)
    else:
        click.echo("\n".join(render_rule(r) for r in rules))
