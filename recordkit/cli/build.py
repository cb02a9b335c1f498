"""``recordkit build``: publish the record as a static site."""
from __future__ import annotations

import sys

import click

from ..common.text import terminal_safe
from .context import fast_exit, pass_ctx


@click.command("build")
@click.option("-o", "--out", type=click.Path(file_okay=False), default=None,
              help="Folder to write the site to (default: site.out of the configuration, else ./site).")
@click.option("--dates", type=click.Choice(["fields", "git"]), default=None,
              help="Dates of records: from updated/created (fields), or from one git log pass (git).")
@click.option("--jobs", "-j", type=click.IntRange(1, 64), default=None, help="Processes to render with.")
@click.option("--force", is_flag=True,
              help="Write into a non-empty folder that holds no recordkit site (its files of the site's "
                   "names are replaced, and listed).")
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors.")
@pass_ctx
def command(ctx, out, dates, jobs, force, quiet):
    """Build the static site: a page per record, lists, search, graph."""
    from ..emit.site import build_site
    from ..emit.site.build import TemplateFailed
    from ..emit.site.writer import NotASite
    # a missing record root is said as every other command says it (where
    # the root came from, how to give another), not as "is not a folder"
    ctx.check_root()
    try:
        report = build_site(ctx.config, out, dates=dates, jobs=jobs, force=force,
                            progress=sys.stderr.isatty() and not quiet)
    except (NotASite, TemplateFailed) as exc:
        click.echo(f"recordkit: {exc}", err=True)
        sys.exit(2)
    if not quiet:
        click.echo(f"wrote {report.out}: {report.summary()}", err=True)
        if report.replaced:
            shown = ", ".join(report.replaced[:5]) + (f" and {len(report.replaced) - 5} more"
                                                       if len(report.replaced) > 5 else "")
            click.echo(terminal_safe(f"note: --force: {len(report.replaced)} file(s) the folder held before were "
                                     f"replaced: {shown}"), err=True)
        for path, what in report.unusable_templates:
            click.echo(terminal_safe(f"note: {path} is {what}, not a file: not read, the package's template or "
                                     f"asset of that name is used"), err=True)
        for line in report.url_warnings[:20]:
            click.echo(terminal_safe(f"warning: {line}"), err=True)
        if len(report.url_warnings) > 20:
            click.echo(f"warning: and {len(report.url_warnings) - 20} more URL warnings", err=True)
        for path, line, col, target, why in report.attachments_refused:
            click.echo(terminal_safe(f"warning: {path}:{line}:{col}: attachment {target} not published: {why}"),
                       err=True)
        if report.unreadable:
            n = report.unreadable
            click.echo(f"note: {n} file{'s' if n != 1 else ''} of the record could not be read and "
                       f"{'are' if n != 1 else 'is'} not in the site (run `recordkit lint`)", err=True)
    fast_exit(0)
