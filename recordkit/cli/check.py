"""``recordkit check [ID…]``: run numeric checks and print a table of results."""
from __future__ import annotations

import json
import math
import os
import sys
import time
from pathlib import Path

import click

from ..common.text import path_text, terminal_safe
from .context import pass_ctx

_VERDICT_STYLE = {"pass": "green", "fail": "red", "error": "red", "timeout": "yellow", "crashed": "magenta"}
_MAX_ENTRIES = 20


class _Seconds(click.ParamType):
    """A time limit: a finite number of seconds > 0 (not 0, nan or inf,
    which would remove the limit)."""
    name = "seconds"

    def convert(self, value, param, ctx):
        import math
        try:
            v = float(value)
        except (TypeError, ValueError):
            self.fail(f"`{value}` is not a number of seconds", param, ctx)
        if not math.isfinite(v) or v <= 0:
            self.fail(f"{value} is not a time limit (a finite number of seconds > 0)", param, ctx)
        return v


@click.command("check")
@click.argument("ids", nargs=-1)
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Checks run at once (default: the number of CPUs).")
@click.option("--timeout", type=_Seconds(), default=60.0, show_default=True,
              help="Seconds a check may run before it is killed (a check's own timeout= wins).")
@click.option("--max-timeout", type=_Seconds(), default=None,
              help="Largest time limit of any check, its own timeout= included.")
@click.option("--memory", default="4G", show_default=True,
              help="Memory limit of each check: its processes together (e.g. 512M, 8G; 0 for none).")
@click.option("--pass-env", "pass_env", multiple=True, metavar="NAME",
              help="Let the checks see this environment variable (repeatable; NAME,NAME also works). "
                   "By default a check sees only PATH, locale, thread counts and PYTHONPATH.")
@click.option("--no-cache", "--force", "no_cache", is_flag=True,
              help="Run every selected check, even those with a current cached result.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("-q", "--quiet", is_flag=True, help="No progress bar; only the failures and the summary.")
@click.option("-v", "--verbose", is_flag=True, help="Print every check's report and claim under the table.")
@click.option("--list", "list_only", is_flag=True, help="List the checks found, with their last result; run nothing.")
@pass_ctx
def command(ctx, ids, jobs, timeout, max_timeout, memory, pass_env, no_cache, fmt, quiet, verbose, list_only):
    """Run the record's numeric checks and print measured discrepancy against tolerance.

    IDs are check ids, or record ids (meaning the checks that record cites
    or holds); with none, every check runs.  Each check runs in its own
    process tree, in a temporary folder, with a minimal environment, a time
    limit and a memory limit for the whole tree (docs/checks.md says what
    this does and does not protect against).  A result is reused from the
    cache (.recordkit/checks.json) while the check's source is unchanged;
    the table marks it "(cached)".

    A check's own report (a ``report`` attribute on the function) is printed
    under the table when the check is named on the command line, or with
    --verbose.

    Exit status: 0 when every check passes, 1 when any fails, raises, times
    out or crashes (or a check module cannot be read), 2 for a usage error
    such as an unknown or duplicated check id.
    """
    from ..numeric.discover import citations, discover_all
    from ..numeric.store import load_results
    from ..numeric.runner import CheckSelectionError, parse_size, run_checks, select
    if any(not i.strip() for i in ids):
        # a script's `recordkit check "$ID"` with $ID unset would run every check
        raise click.BadParameter("an empty id: give a check or record id (none at all runs every check)",
                                 param_hint="IDS")
    try:
        mem = parse_size(memory)
    except (ValueError, OverflowError):
        raise click.BadParameter(f"{memory} is not a size such as 512M or 4G", param_hint="--memory")
    pass_env = tuple(n.strip() for item in pass_env for n in item.split(",") if n.strip())
    corpus = ctx.corpus
    disc = discover_all(corpus)
    cited = citations(corpus, disc.checks)
    for p in disc.problems:
        click.echo(_t(f"recordkit: {_rel(p.path)}:{p.line}: {p.message}"), err=True)

    if list_only:
        results = load_results(corpus, disc.checks)
        _print_list(disc, cited, results, fmt)
        return

    try:
        specs = select(corpus, ids, disc, on_duplicate="error")
    except CheckSelectionError as exc:
        click.echo(f"recordkit: {exc}", err=True)
        sys.exit(2)
    if not specs:
        folder = Path(corpus.config.checks)
        where = (f"no folder {_rel(folder)}" if not folder.exists()
                 else f"no @check in {_rel(folder)}/*.py" if folder.is_dir() else f"{_rel(folder)} is not a folder")
        click.echo(f"recordkit: no numeric checks found ({where}, and no ```python check``` blocks under "
                   f"{_rel(corpus.root)}); docs/checks.md says how to write one", err=True)
        if fmt == "json":
            click.echo("[]")        # a JSON reader gets an empty list, not an empty output
        sys.exit(1 if disc.problems else 0)

    show_bar = not quiet and sys.stderr.isatty() and len(specs) > 0
    t0 = time.monotonic()
    if show_bar:
        with click.progressbar(length=len(specs), label="Running checks", file=sys.stderr,
                               show_pos=True, show_eta=False,
                               item_show_func=lambda r: r.id if r else None) as bar:
            results = run_checks(corpus, [s.id for s in specs], jobs=jobs, timeout=timeout, memory=mem,
                                 pass_env=pass_env, max_timeout=max_timeout,
                                 use_cache=not no_cache, discovery=disc, progress=lambda r: bar.update(1, r),
                                 on_duplicate="error")
    else:
        results = run_checks(corpus, [s.id for s in specs], jobs=jobs, timeout=timeout, memory=mem,
                             pass_env=pass_env, max_timeout=max_timeout,
                             use_cache=not no_cache, discovery=disc, on_duplicate="error")
    elapsed = time.monotonic() - t0

    if fmt == "json":
        click.echo(json.dumps([_json(r, cited) for r in results.values()], indent=2, ensure_ascii=False))
    else:
        named = set(ids)
        show_report = {cid for cid in results if verbose or cid in named
                       or (results[cid].path and results[cid].form == "block" and results[cid].path in named)}
        for rid in named & set(corpus.records):     # a record named: its checks count as named
            show_report |= {cid for cid, recs in cited.items() if rid in recs}
        _print_table(results, cited, quiet=quiet)
        _print_details(results, show_report, verbose=verbose)
        click.echo(_summary(results, elapsed))
    bad = any(r.verdict != "pass" for r in results.values())
    sys.exit(1 if bad or (disc.problems and not ids) else 0)


# -- text output ----------------------------------------------------------------

def _fmt(x) -> str:
    if x is None:
        return "—"
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    if x == 0:
        return "0"
    return f"{x:.3g}"


def _records(ids: list[str], n: int = 3) -> str:
    if not ids:
        return "—"
    return ", ".join(ids[:n]) + (f" +{len(ids) - n}" if len(ids) > n else "")


def _print_table(results, cited, quiet=False) -> None:
    rows = []
    for r in results.values():
        if quiet and r.verdict == "pass":
            continue
        secs = f"{r.seconds:.2f}" + (" (cached)" if r.cached else "")
        rows.append((_t(r.id), _records(cited.get(r.id, [])), _fmt(r.discrepancy), _fmt(r.tolerance),
                     r.verdict, secs, r))
    if not rows:
        return
    head = ("check", "records", "discrepancy", "tolerance", "verdict", "seconds")
    w = [max([len(head[i])] + [len(row[i]) for row in rows]) for i in range(6)]
    name_w = w[0] + 2 + w[1]      # an entry's name spans the check and records columns
    line = "  ".join(h.ljust(w[i]) if i not in (2, 3) else h.rjust(w[i]) for i, h in enumerate(head))
    click.echo(click.style(line.rstrip(), bold=True))
    for row in rows:
        r = row[6]
        cells = [row[0].ljust(w[0]), row[1].ljust(w[1]), row[2].rjust(w[2]), row[3].rjust(w[3]),
                 click.style(row[4].ljust(w[4]), fg=_VERDICT_STYLE.get(r.verdict)), row[5]]
        click.echo("  ".join(cells).rstrip())
        if r.discrepancies and len(r.discrepancies) > 1:
            items = list(r.discrepancies.items())
            tol = r.tolerance if r.tolerance is not None else math.inf
            for k, v in items[:_MAX_ENTRIES]:
                over = not (math.isfinite(v) and v <= tol)
                name = _short("  · " + _t(str(k)), name_w)
                value = _fmt(v)
                if len(value) > w[2]:
                    value = value[:w[2]]
                click.echo(f"{name.ljust(name_w)}  {value.rjust(w[2])}" + ("  ✗" if over else ""))
            if len(items) > _MAX_ENTRIES:
                click.echo(f"  · … {len(items) - _MAX_ENTRIES} more entries (--format json shows them all)")


def _short(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _print_details(results, show_report, verbose=False) -> None:
    for r in results.values():
        if r.verdict == "fail":
            click.echo("")
            if r.discrepancy is not None and math.isfinite(r.discrepancy):
                what = f"measured {r.discrepancy:.6g} > tolerance {r.tolerance:.6g}"
                if r.discrepancies and r.worst is not None:
                    over = sum(1 for v in r.discrepancies.values() if not (math.isfinite(v) and v <= r.tolerance))
                    what += f" (entry `{r.worst}`; {over} of {len(r.discrepancies)} entries above tolerance)"
            else:
                what = r.message
            click.echo(click.style(f"FAIL {_t(r.id)}", fg="red", bold=True) + _t(f" ({_rel(r.path)}:{r.line}): {what}"))
        elif r.verdict != "pass":
            click.echo("")
            click.echo(click.style(f"{r.verdict.upper()} {_t(r.id)}", fg=_VERDICT_STYLE[r.verdict], bold=True)
                       + _t(f" ({_rel(r.path)}:{r.line}): {r.message}"))
            # (a traceback that is the message again, a bad return value's
            # "TypeError: ...", is not printed twice)
            if r.traceback and r.traceback.strip() != (r.message or "").strip():
                for l in r.traceback.splitlines():
                    click.echo(_t("    " + _rel_in(l)))
        if verbose and r.claim:
            click.echo(_t(f"\n{r.id}: {r.claim}"))
        if r.report and r.id in show_report:
            click.echo("")
            click.echo(click.style(f"── {_t(r.id)} report ──", bold=True))
            click.echo(_t(r.report.rstrip("\n")))


def _summary(results, elapsed: float) -> str:
    from collections import Counter
    c = Counter(r.verdict for r in results.values())
    n = len(results)
    parts = [f"{c['pass']} passed"]
    for v, word in (("fail", "failed"), ("error", "raised"), ("timeout", "timed out"), ("crashed", "crashed")):
        if c[v]:
            parts.append(f"{c[v]} {word}")
    ncached = sum(r.cached for r in results.values())
    cached = f", {ncached} cached" if ncached else ""
    return f"\n{n} check{'s' if n != 1 else ''}: {', '.join(parts)}{cached} in {elapsed:.1f} s"


def _print_list(disc, cited, results, fmt) -> None:
    rows = []
    for cid in sorted(disc.checks):
        s = disc.checks[cid]
        r = results.get(cid)
        state = "never run" if r is None else (f"{r.verdict} (stale)" if r.stale else r.verdict)
        rows.append({"id": cid, "form": s.form, "file": _rel(s.path), "line": s.line, "tolerance": s.tolerance,
                     "claim": s.claim, "records": cited.get(cid, []), "last": state,
                     "duplicate": cid in disc.duplicates})
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    for row in rows:
        dup = "  [defined more than once]" if row["duplicate"] else ""
        click.echo(_t(f"{row['id']}  {row['form']}  {row['file']}:{row['line']}  tolerance {_fmt(row['tolerance'])}"
                      f"  last: {row['last']}  records: {_records(row['records'], 6)}{dup}"))
        if row["claim"]:
            click.echo(_t(f"    {row['claim']}"))


# -- json ---------------------------------------------------------------------------

def _json(r, cited) -> dict:
    from ..numeric.results import num_out
    return {
        "id": r.id, "verdict": r.verdict, "discrepancy": num_out(r.discrepancy),
        "discrepancies": None if r.discrepancies is None else {k: num_out(v) for k, v in r.discrepancies.items()},
        "worst": r.worst, "tolerance": num_out(r.tolerance), "seconds": r.seconds, "cached": r.cached,
        "message": r.message or None, "traceback": r.traceback, "records": cited.get(r.id, []),
        "claim": r.claim, "form": r.form, "filename": _rel(r.path), "line": r.line, "report": r.report,
    }


def _t(text) -> str:
    """Text from a check or a record, safe to print on a terminal."""
    return terminal_safe(str(text))


def _rel(path) -> str:
    try:
        return path_text(Path(os.path.relpath(path)).as_posix())
    except ValueError:
        return path_text(str(path))


def _rel_in(line: str) -> str:
    """A traceback line with an absolute path shown relative to the cwd when shorter."""
    cwd = os.getcwd() + os.sep
    return line.replace(cwd, "")
