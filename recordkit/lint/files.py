"""The lint of a few files of a loaded record: what ``recordkit lint``
finds located in them, without running the rules over every record.

A language server asks this after each edit: the record rules run on the
edited records only, the loader's findings are read for them, and the
corpus-scope rules (duplicate ids, cycles, isolated records, query blocks),
which must see the whole record, run when asked (``corpus_rules``) or
separately (:func:`corpus_findings`), so an edit need not wait for them.
Every diagnostic comes from the registered rules and goes through the same
:func:`~recordkit.lint.engine.apply_config` as the full lint: for the files
given, :func:`lint_files` equals ``lint(corpus)`` restricted to them.
"""
from __future__ import annotations

from pathlib import Path

from ..corpus.model import Diagnostic
from ..corpus.store.wire import unpack
from .context import LintContext
from .engine import apply_config, check_codes, chosen_codes
from .registry import all_rules


def _codes(corpus, select=None, ignore=None) -> set[str]:
    check_codes(corpus.config)
    return chosen_codes(corpus.config, select, ignore)


def lint_files(corpus, paths, *, ctx: LintContext | None = None, check_results=None, select=None, ignore=None,
               corpus_rules: bool = True) -> dict[Path, list[Diagnostic]]:
    """``path -> its diagnostics`` (sorted) for each of ``paths`` (every
    path given is a key, an empty list when the file is clean or not in the
    record).  ``ctx``: a :class:`LintContext` of ``corpus`` to share
    between calls on the same corpus (its analyses, such as the lifecycle,
    are worked out once).  ``corpus_rules``: also run the corpus-scope
    rules (the whole record's work) and keep what they find in ``paths``."""
    paths = [Path(p) for p in paths]
    wanted = set(paths)
    rules = all_rules()
    codes = _codes(corpus, select, ignore)
    if ctx is None:
        ctx = LintContext(corpus, check_results=check_results)
    out: list[Diagnostic] = []
    load_codes = {c for c, r in rules.items() if r.scope == "load"}
    for d in corpus.diagnostics:
        if d.path in wanted and (d.code in codes or d.code not in load_codes):
            if d.code in rules:
                d.severity = rules[d.code].severity
            out.append(d)
    recs = [r for r in (corpus.by_path(p) for p in paths) if r is not None and r.ok]
    record_rules = [r for c, r in rules.items() if c in codes and r.scope == "record"]
    local_key = ("local-rules",) + tuple(r.code for r in record_rules if r.local)
    local = corpus.analyses.get(local_key)
    for rec in recs:
        run = record_rules
        if local is not None and rec.path in local:   # the local rules ran where the file was parsed
            run = [r for r in record_rules if not r.local]
            if local[rec.path]:
                out.extend(unpack(t, rec.path) for t in local[rec.path])
        for rule in run:
            got = rule.func(ctx, rec)
            if got:
                out.extend(got)
    if corpus_rules:
        for rule in (r for c, r in rules.items() if c in codes and r.scope == "corpus"):
            got = rule.func(ctx)
            if got:
                out.extend(d for d in got if d.path in wanted)
    return _by_path(apply_config([d for d in out if d.code in codes], corpus), paths)


def corpus_findings(corpus, *, ctx: LintContext | None = None, check_results=None, select=None,
                    ignore=None) -> dict[Path, list[Diagnostic]]:
    """What the corpus-scope rules find, ``path -> diagnostics`` (sorted;
    only the files with some), after the configuration's severities and
    suppressions."""
    rules = all_rules()
    codes = _codes(corpus, select, ignore)
    if ctx is None:
        ctx = LintContext(corpus, check_results=check_results)
    out: list[Diagnostic] = []
    for rule in (r for c, r in rules.items() if c in codes and r.scope == "corpus"):
        got = rule.func(ctx)
        if got:
            out.extend(got)
    diags = apply_config([d for d in out if d.code in codes], corpus)
    return _by_path(diags, sorted({d.path for d in diags}, key=str))


def _by_path(diags: list[Diagnostic], paths) -> dict[Path, list[Diagnostic]]:
    got: dict[Path, list[Diagnostic]] = {Path(p): [] for p in paths}
    for d in diags:
        if d.path in got:
            got[d.path].append(d)
    for v in got.values():
        v.sort(key=Diagnostic.sort_key)
    return got
