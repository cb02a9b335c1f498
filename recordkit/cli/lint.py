"""``recordkit lint [PATH…]``."""
from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import click

from .context import fast_exit, not_empty, pass_ctx
from ..lint.formats import formats


def _split(values) -> list[str]:
    out = []
    for v in values or ():
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return out


@click.command("lint")
@click.argument("paths", nargs=-1, type=click.Path(), callback=not_empty("path", blank=False))
@click.option("--format", "fmt", type=click.Choice(list(formats())), default=None,
              help="Output format (default: github under GitHub Actions, else text).")
@click.option("--select", multiple=True, help="Rule codes or prefixes to enable (comma-separated; ALL).")
@click.option("--ignore", multiple=True, help="Rule codes or prefixes to disable (comma-separated).")
@click.option("--fix", is_flag=True, help="Apply the safe fixes to the files (those that keep their meaning).")
@click.option("--unsafe-fixes", is_flag=True,
              help="Also apply (with --fix, --diff) and count the unsafe fixes, which may change the meaning.")
@click.option("--diff", is_flag=True, help="Show the fixes as a unified diff without writing.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when errors are found.")
@click.option("--statistics", is_flag=True, help="Count diagnostics by rule instead of listing them.")
@click.option("--no-cache", is_flag=True, help="Neither read nor write the lint cache (nor the store of parsed records).")
@click.option("--run-checks", is_flag=True, help="Run the numeric checks first, refreshing their results.")
@click.option("-q", "--quiet", is_flag=True, help="Print diagnostics only, no summary.")
@click.option("-v", "--verbose", is_flag=True,
              help="Also say (on stderr) which folders were not walked (skip_dirs) and how many files were read.")
@pass_ctx
def command(ctx, paths, fmt, select, ignore, fix, unsafe_fixes, diff, exit_zero, statistics, no_cache, run_checks,
            quiet, verbose):
    """Lint the record: report diagnostics (those that involve PATHs, when given).

    The whole record is linted (relations need it).  With PATHs, a
    diagnostic is reported when it is in one of the files or folders, or
    when it concerns something one of them holds or held in git's HEAD: a
    relation to an id a deleted or renamed file held, a cycle through one of
    its records, a check a deleted module defined.  PATHs may be deleted
    files (pass both sides of a rename).  With PATHs, --fix and --diff fix
    (and count) only the diagnostics reported: the other files stay as they
    are.  Exit status: 0 no error, 1 errors found, 2 usage or configuration
    error.
    """
    started_ns = time.time_ns()   # before any record file is read (see cache.unchanged_hashes)
    from ..lint.engine import filter_paths, lint_root, unknown_codes
    from ..lint.formats import FormatInfo, format_statistics, render
    from ..lint.registry import all_rules

    select_l, ignore_l = _split(select), _split(ignore)
    bad = unknown_codes(select_l + ignore_l)
    if bad:
        click.echo(f"recordkit: unknown rule code or prefix: {', '.join(bad)} (see `recordkit rule --all`)", err=True)
        sys.exit(2)
    if fmt is None:
        fmt = "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    from ..lint.involve import given_path
    targets = [given_path(p) for p in paths]

    if no_cache:
        ctx.use_store = False   # neither the lint cache nor the store of parsed records
    if run_checks:
        from ..numeric.runner import run_checks as _run
        _run(ctx.corpus, quiet=True)

    if verbose:
        _say_what_is_read(ctx.config)
    use_cache = not (no_cache or fix or diff)
    result = lint_root(ctx.config, select=select_l, ignore=ignore_l, use_cache=use_cache,
                       files=ctx.record_files(), loader=ctx.load_corpus, started_ns=started_ns)
    diags = result.diagnostics
    keep = None
    if targets:
        from ..common.paths import display_path
        from ..common.text import terminal_safe
        from ..lint.engine import involving_keys
        from ..schema import load_schema
        unknown: list = []
        keys = involving_keys(ctx.config, targets, load_schema(ctx.config.schema), unknown=unknown)
        for p in unknown:
            click.echo(f"recordkit: {display_path(p)} does not exist (nor in git's HEAD): nothing to lint there",
                       err=True)
        # a PATH outside the record (a typo'd folder, a note of another
        # vault) is said, as a missing one is: the lint of nothing there
        # printed "All checks passed" as if it had been read
        inside = [Path(ctx.config.root).resolve(), Path(ctx.config.checks).resolve()]
        for t in targets:
            if os.path.lexists(t) and not any(t == f or t.is_relative_to(f) or f.is_relative_to(t) for f in inside):
                click.echo(terminal_safe(f"recordkit: {display_path(t)} is outside the record root "
                                         f"{display_path(inside[0])} and the checks folder: nothing to lint there"),
                           err=True)

        def keep(ds):
            return filter_paths(ds, targets, keys)
        diags = keep(diags)
    if fix or diff:
        # with PATHs, only the diagnostics they keep are fixed (and counted): a
        # pre-commit hook passes the staged files, and the others stay as they are
        diags = _fix(ctx, diags, diff=diff, select=select_l, ignore=ignore_l, unsafe=unsafe_fixes, keep=keep)
        if keep is not None:
            diags = keep(diags)
    info = FormatInfo(rules=all_rules(), files=result.files, cached=result.cached, quiet=quiet,
                      text_of=_text_reader(), unsafe_fixes=unsafe_fixes)
    # with --diff, standard output is the patch alone (git apply reads it): the
    # diagnostics left go to standard error
    if statistics:
        click.echo(format_statistics(diags, info.rule_info, unsafe_fixes), err=diff)
    else:
        click.echo(render(fmt, diags, info), nl=False, err=diff)
    errors = sum(d.severity == "error" for d in diags)
    fast_exit(0 if exit_zero or errors == 0 else 1)


def _say_what_is_read(config) -> None:
    """``--verbose``: the record root, the folders ``skip_dirs`` kept out
    (those found under the root, and the patterns), the files read."""
    from ..common.paths import display_path
    from ..common.text import terminal_safe
    from ..corpus.loader import iter_files
    root = Path(config.root)
    skipped: list[str] = []
    files = iter_files(root, config.exclude, config.skip_dirs, skipped=skipped) if root.is_dir() else []
    notes = [n for n in getattr(config, "walk_notes", ()) if "template folder" in n]
    tool = {"/" + n.split("/ (", 1)[0] for n in notes}     # (settle_walk adds them as /FOLDER)
    pats = "[" + ", ".join(f'"{p}"' for p in config.skip_dirs if p not in tool) + "]"
    click.echo(terminal_safe(f"recordkit: reading {len(files)} file{'s' if len(files) != 1 else ''} under "
                             f"{display_path(root)}"), err=True)
    # the file is named only when it sets skip_dirs: the default is not its
    # doing, nor a schema's (a vault preset reads `_` folders); a template
    # folder the vault's settings name is said with the setting
    if config.file is not None and "skip_dirs" in config.raw:
        where = f"{config.file.name}: skip_dirs = {pats}"
    elif getattr(config, "skip_dirs_from", ""):
        where = f"skip_dirs of the schema {config.skip_dirs_from} = {pats}"
    else:
        where = f"the default skip_dirs = {pats}"
    if notes:
        where += "; the vault's " + ", ".join(notes)
    click.echo(terminal_safe(f"recordkit: folders not walked ({where}): "
                             + (", ".join(skipped) if skipped else "none found")), err=True)


def _check_results(corpus):
    from ..numeric.store import load_results
    return load_results(corpus)


def _text_reader():
    """path -> the file's text (None when unreadable), each file read once,
    decoded as the loader decodes it (its bytes as UTF-8, line breaks as
    they are: a fix's offsets count a CRLF as two characters)."""
    texts: dict = {}

    def text_of(p):
        if p not in texts:
            try:
                texts[p] = Path(p).read_bytes().decode("utf-8")
            except (OSError, UnicodeDecodeError):
                texts[p] = None
        return texts[p]

    return text_of


def _fix(ctx, diags, *, diff: bool, select, ignore, unsafe: bool = False, keep=None):
    """Apply (or, with --diff, show) the safe fixes, and the unsafe ones
    with ``unsafe``; return the diagnostics that remain.  ``keep``: the
    PATHs' filter (diagnostics -> those kept): only their fixes are applied."""
    from ..common.paths import display_path
    from ..common.splice import unified_diff
    from ..lint.engine import lint
    from ..lint.fix import fix_corpus

    def lint_fn(corpus):
        got = lint(corpus, select=select or None, ignore=ignore, check_results=_check_results(corpus)).diagnostics
        return got if keep is None else keep(got)

    report, corpus = fix_corpus(ctx.corpus, lint_fn, write=not diff, unsafe=unsafe)
    for path in report.refused:
        why = report.reasons.get(path, "the fixed text would not parse")
        click.echo(f"recordkit: not fixing {display_path(path)}: {why}", err=True)
    for path, f, why in report.dropped:
        what = f" ({f.message})" if f.message else ""
        click.echo(f"recordkit: leaving out the fix{what} in {display_path(path)}: {why}", err=True)
    for path in report.removed_temps:
        click.echo(f"recordkit: removed {display_path(path)}, left by an interrupted write", err=True)
    for path in report.changed:
        if path not in report.conflicts:
            click.echo(f"recordkit: {display_path(path)} changed while fixing; fixed the new text", err=True)
    for path in report.conflicts:
        click.echo(f"recordkit: not fixing {display_path(path)}: it kept changing while fixing (another "
                   f"program is writing it); left as it is, run --fix again", err=True)
    n = report.fixed
    k = report.unsafe_left
    left = (f" ({k} unsafe fix{'es' if k != 1 else ''} not applied: "
            f"{'they are' if k != 1 else 'it is'} enabled with the `--unsafe-fixes` option)") if k else ""
    if diff:
        from .context import echo_data
        for path, before in report.originals.items():
            echo_data(unified_diff(display_path(path), before, report.texts[path]))
        click.echo(f"Would fix {n} diagnostic{'s' if n != 1 else ''}{left}.", err=True)
        return diags
    if n or k:
        click.echo(f"Fixed {n} diagnostic{'s' if n != 1 else ''}{left}.", err=True)
    ctx._corpus = corpus
    return lint_fn(corpus)
