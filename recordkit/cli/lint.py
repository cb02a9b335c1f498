"""``recordkit lint [PATH…]``."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from . import pass_ctx


def _split(values) -> list[str]:
    out = []
    for v in values or ():
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return out


def _rule_info_fn():
    from ..rules import all_rules
    rules = all_rules()

    def info(code):
        r = rules.get(code)
        return {"name": r.name, "url": r.url} if r else {}

    return info, rules


def _check_results(corpus):
    try:
        from ..numeric.results import load_results
    except ImportError:
        return None
    return load_results(corpus)


@click.command("lint")
@click.argument("paths", nargs=-1, type=click.Path(exists=True))
@click.option("--format", "fmt", type=click.Choice(["text", "json", "github", "sarif"]), default=None,
              help="Output format (default: github under GitHub Actions, else text).")
@click.option("--select", multiple=True, help="Rule codes or prefixes to enable (comma-separated; ALL).")
@click.option("--ignore", multiple=True, help="Rule codes or prefixes to disable (comma-separated).")
@click.option("--fix", is_flag=True, help="Apply safe mechanical fixes to the files.")
@click.option("--diff", is_flag=True, help="Show the fixes as a unified diff without writing.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when errors are found.")
@click.option("--statistics", is_flag=True, help="Count diagnostics by rule instead of listing them.")
@click.option("--no-cache", is_flag=True, help="Neither read nor write the lint cache.")
@click.option("--run-checks", is_flag=True, help="Run the numeric checks first, refreshing their results.")
@click.option("-q", "--quiet", is_flag=True, help="Print diagnostics only, no summary.")
@pass_ctx
def command(ctx, paths, fmt, select, ignore, fix, diff, exit_zero, statistics, no_cache, run_checks, quiet):
    """Lint the record: report diagnostics (for PATHs only, when given).

    The whole record is loaded (relations need it) but only diagnostics in
    the given files or folders are reported.  Exit status: 0 no error,
    1 errors found, 2 usage or configuration error.
    """
    from ..lint.engine import filter_paths, lint, unknown_codes
    from ..lint import output

    select_l, ignore_l = _split(select), _split(ignore)
    bad = unknown_codes(select_l + ignore_l)
    if bad:
        click.echo(f"recordkit: unknown rule code or prefix: {', '.join(bad)} (see `recordkit rule --all`)", err=True)
        sys.exit(2)
    if fmt is None:
        fmt = "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"
    config = ctx.config
    targets = [Path(p).resolve() for p in paths]

    if run_checks:
        from ..numeric.runner import run_checks as _run
        _run(ctx.corpus, quiet=True)

    diags = None
    key = None
    files_count = 0
    use_cache = not (no_cache or fix or diff)
    if use_cache:
        from ..corpus import iter_files
        from ..lint import cache
        files = iter_files(config.root, config.exclude) if config.root.is_dir() else []
        files_count = len(files)
        hashes = cache.file_hashes(files, config.cache_dir)
        from ..schema import default_schema_raw
        schema_raw = _schema_fingerprint(config)
        key = cache.lint_key(config, schema_raw, {"select": select_l, "ignore": ignore_l}, hashes)
        diags = cache.load(config.cache_dir, key)
    from_cache = diags is not None

    if diags is None:
        corpus = ctx.corpus
        result = lint(corpus, select=select_l or None, ignore=ignore_l, check_results=_check_results(corpus))
        diags = result.diagnostics
        files_count = result.files
        if fix or diff:
            diags = _fix(ctx, diags, diff=diff, select=select_l, ignore=ignore_l)
        if use_cache and key is not None:
            from ..lint import cache
            cache.store(config.cache_dir, key, diags)

    diags = filter_paths(diags, targets)
    rule_info, rules = _rule_info_fn()
    if statistics:
        click.echo(output.format_statistics(diags, rule_info))
    elif fmt == "json":
        texts = {}

        def text_of(p):
            if p not in texts:
                try:
                    texts[p] = Path(p).read_text(encoding="utf-8")
                except (OSError, UnicodeDecodeError):
                    texts[p] = None
            return texts[p]

        import json
        click.echo(json.dumps(output.to_json_objects(diags, rule_info, text_of), indent=2, ensure_ascii=False))
    elif fmt == "github":
        if diags:
            click.echo(output.format_github(diags))
    elif fmt == "sarif":
        click.echo(output.format_sarif(diags, rules))
    else:
        if diags:
            click.echo(output.format_text(diags))
        if not quiet:
            click.echo(output.summary(diags, files_count) + (" (cached)" if from_cache else ""))
    errors = sum(d.severity == "error" for d in diags)
    sys.exit(0 if exit_zero or errors == 0 else 1)


def _schema_fingerprint(config) -> dict:
    from ..schema import default_schema_raw
    raw = {"default": default_schema_raw()}
    if config.schema is not None:
        try:
            raw["user"] = config.schema.read_text(encoding="utf-8")
        except OSError:
            raw["user"] = None
    return raw


def _fix(ctx, diags, *, diff: bool, select, ignore, passes: int = 4):
    """Apply fixes file by file, re-linting between passes (a fix that
    overlaps another waits for the next pass).  A file is written only when
    its fixed text still parses; each write is atomic."""
    from ..corpus import load
    from ..edit import apply_fixes, atomic_write, unified_diff
    from ..lint.engine import lint
    from ..lint.output import display_path
    from ..parse import parse_text

    corpus = ctx.corpus
    fixed_total = 0
    originals: dict[Path, str] = {}
    current: dict[Path, str] = {}
    for _ in range(passes):
        by_file: dict[Path, list] = {}
        for d in diags:
            if d.fix is not None:
                by_file.setdefault(Path(d.path), []).append(d.fix)
        if not by_file:
            break
        progressed = False
        for path, fixes in by_file.items():
            rec = corpus.by_path(path)
            if rec is None or not rec.ok:
                continue
            before = rec.text
            after, skipped = apply_fixes(before, fixes)
            if after == before:
                continue
            _, pd = parse_text(after, rec.path, rec.relpath, corpus.schema)
            if any(d.code in ("RK101", "RK102", "RK104") for d in pd):
                click.echo(f"recordkit: not fixing {display_path(path)}: the fixed text would not parse", err=True)
                continue
            originals.setdefault(path, before)
            current[path] = after
            fixed_total += len(fixes) - len(skipped)
            progressed = True
            if not diff:
                atomic_write(path, after)
        if not progressed:
            break
        if diff:
            # re-lint the edited texts in memory
            corpus = _reload_with(ctx, current)
        else:
            corpus = load(ctx.config.root, config=ctx.config, schema=corpus.schema)
        diags = lint(corpus, select=select or None, ignore=ignore, check_results=_check_results(corpus)).diagnostics
    if diff:
        for path, before in originals.items():
            click.echo(unified_diff(display_path(path), before, current[path]), nl=False)
        click.echo(f"Would fix {fixed_total} diagnostic{'s' if fixed_total != 1 else ''}.", err=True)
        # report the diagnostics as they stand on disk
        return lint(ctx.corpus, select=select or None, ignore=ignore,
                    check_results=_check_results(ctx.corpus)).diagnostics
    if fixed_total:
        click.echo(f"Fixed {fixed_total} diagnostic{'s' if fixed_total != 1 else ''}.", err=True)
    ctx._corpus = corpus
    return diags


def _reload_with(ctx, texts: dict[Path, str]):
    """A corpus where the given files hold the given texts (for --diff)."""
    from ..corpus import Corpus
    from ..parse import parse_text
    base = ctx.corpus
    c = Corpus(root=base.root, schema=base.schema, config=base.config)
    for rec in base.files:
        if rec.path in texts:
            new, diags = parse_text(texts[rec.path], rec.path, rec.relpath, base.schema)
            c.files.append(new)
            c.diagnostics.extend(diags)
            rec = new
        else:
            c.files.append(rec)
            c.diagnostics.extend(d for d in base.diagnostics if d.path == rec.path)
        if rec.ok and rec.id not in c.records:
            c.records[rec.id] = rec
    return c
