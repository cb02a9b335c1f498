"""Run the rules over a loaded corpus; select, suppress and filter what they find."""
from __future__ import annotations

import fnmatch
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..config import Config
from ..corpus.model import Diagnostic
from ..corpus.store.wire import PackedDiagnostic, pack, unpack
from ..runtime import batch, split, spread, workers
from . import cache
from .context import LintContext, LocalCorpus
from .registry import all_rules

if TYPE_CHECKING:
    from ..corpus.model import Corpus


@dataclass
class LintResult:
    """What a lint found: ``diagnostics`` (sorted), how many ``files`` it
    read, whether they came from the lint cache (``cached``), and the
    ``corpus`` it linted (None when the cache answered)."""
    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: int = 0
    cached: bool = False
    corpus: "Corpus | None" = None

    @property
    def errors(self) -> int:
        return sum(d.severity == "error" for d in self.diagnostics)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for d in self.diagnostics:
            out[d.code] = out.get(d.code, 0) + 1
        return dict(sorted(out.items()))


def select_codes(select: list[str] | None, ignore: list[str] | None) -> set[str]:
    """Rule codes chosen by ruff-style prefixes: ``RK3`` selects RK301..RK399,
    ``ALL`` everything; ``ignore`` removes codes after ``select``.  A more
    specific prefix wins, as in ruff (``--select RK3 --ignore RK30`` keeps
    none of RK30x; ``--ignore RK3 --select RK301`` keeps RK301)."""
    rules = all_rules()
    codes = list(rules)
    chosen: dict[str, tuple[int, bool]] = {}
    for c in codes:
        chosen[c] = (0, True)   # default: every rule, at specificity 0
    if select:
        for c in codes:
            chosen[c] = (0, False)
    for prefixes, on in ((select or [], True), (ignore or [], False)):
        for p in prefixes:
            p = p.strip().upper()
            spec = 0 if p == "ALL" else len(p)
            for c in codes:
                if p == "ALL" or c.startswith(p):
                    cur = chosen[c][0]
                    if spec >= cur:
                        chosen[c] = (spec, on)
    return {c for c, (_, on) in chosen.items() if on}


def unknown_codes(prefixes: list[str]) -> list[str]:
    rules = all_rules()
    bad = []
    for p in prefixes:
        q = p.strip().upper()
        if not q or q != "ALL" and not any(c.startswith(q) for c in rules):
            bad.append(p if q else repr(p))      # (a blank one would match every rule)
    return bad


def check_codes(config) -> None:
    """A ConfigError naming the first value of the configuration's
    ``[lint]`` code lists (``select``, ``extend-select``, ``ignore``,
    ``per-file-ignores``, the keys of ``severity``) that is no rule code or
    prefix, as ``lint --select`` says it (codes and prefixes in any case,
    ``ALL`` for every rule), with the file and the key's line.  Such a code
    used to be dropped in silence: ``select = ["RK2O1"]`` linted nothing."""
    from ..config import ConfigError, code_lists
    for at, what, codes in code_lists(config):
        bad = unknown_codes(codes)
        if bad:
            raise ConfigError(f"{at}: {what}: unknown rule code or prefix: {', '.join(bad)} "
                              f"(see `recordkit rule --all`)")


class LocalRules:
    """The chosen local rules (see :class:`recordkit.lint.registry.Rule`) as a
    function of one record, for :func:`recordkit.load`'s ``analyze``: they
    then run where each file is parsed, on every core, and
    :func:`run_rules` reads what they found instead of running them again.
    Diagnostics travel packed (:class:`~recordkit.corpus.store.wire.PackedDiagnostic`:
    they pickle several times faster than the dataclass)."""

    def __init__(self, schema, config, codes: set[str]):
        rules = all_rules()
        self.rules = [r for c, r in rules.items() if c in codes and r.scope == "record" and r.local]
        self.key = ("local-rules",) + tuple(r.code for r in self.rules)
        self.ctx = LintContext(LocalCorpus(schema, config))
        self.schema = schema

    def before_fork(self) -> None:
        """Called by the loader before it forks helpers: build what every
        process would otherwise build for itself (the field validators, and
        jsonschema, which takes 50 ms to import)."""
        for kind in self.schema.kinds:
            self.schema.fast_validator(kind)
            self.schema.validator(kind)

    def __call__(self, rec) -> list[PackedDiagnostic]:
        ctx = self.ctx
        ctx.forget_records()   # what rules keep per record (by id) must not outlive it
        out = []
        for r in self.rules:
            found = r.func(ctx, rec)
            if found:
                out.extend(map(pack, found))
        return out


def _local_diagnostics(rec, found: list) -> list[Diagnostic]:
    return [unpack(t, rec.path) for t in found]


def run_rules(corpus, codes: set[str], check_results=None, jobs: int | None = None) -> list[Diagnostic]:
    """Every diagnostic the chosen rules find, before suppression.  When the
    corpus was loaded with :class:`LocalRules` for these codes, the local
    rules' findings are read from the records.  ``jobs``: processes to run
    the record rules on (default as for :func:`recordkit.load`)."""
    rules = all_rules()
    ctx = LintContext(corpus, check_results=check_results)
    out: list[Diagnostic] = []
    load_codes = {c for c, r in rules.items() if r.scope == "load"}
    for d in corpus.diagnostics:
        if d.code in codes or d.code not in load_codes:
            if d.code in rules:
                d.severity = rules[d.code].severity
            out.append(d)
    record_rules = [r for c, r in rules.items() if c in codes and r.scope == "record"]
    corpus_rules = [r for c, r in rules.items() if c in codes and r.scope == "corpus"]
    recs = [r for r in corpus.files if r.ok]
    local_key = ("local-rules",) + tuple(r.code for r in record_rules if r.local)
    local = corpus.analyses.get(local_key)
    if local is not None and all(r.path in local for r in recs):
        record_rules = [r for r in record_rules if not r.local]
        for rec in recs:
            found = local[rec.path]
            if found:
                out.extend(_local_diagnostics(rec, found))
    def corpus_level():
        found_all = []
        for rule in corpus_rules:
            found = rule.func(ctx)
            if found:
                found_all.extend(found)
        return found_all

    out.extend(_record_rules(ctx, record_rules, recs, jobs, corpus_level))
    return [d for d in out if d.code in codes]


def _record_rules(ctx, rules, recs, jobs: int | None, also) -> list[Diagnostic]:
    """The record rules' findings on ``recs``, then ``also()``'s.  On a large
    record a forked helper takes part of the records (it inherits the loaded
    corpus, works out what the rules share, such as the lifecycle analysis,
    on its own, and sends back its findings as tuples) while this process
    does the rest and ``also()``."""
    def run(part):
        found_all = []
        for rule in rules:
            f = rule.func
            for rec in part:
                found = f(ctx, rec)
                if found:
                    found_all.extend(found)
        return found_all

    n = workers(len(recs), name="lint.rules") if jobs is None else jobs
    if n <= 1 or not rules:
        return run(recs) + also()
    # this process also runs the corpus rules: the helpers take
    # ``tuning.HELPERS_SHARE["lint.rules"]`` of the records together
    parts = split(recs, n, name="lint.rules")
    from .cache import SHARED_ABOUT

    def in_helper(part):
        # a long ``about`` (an ambiguous link's candidates) shared by many
        # diagnostics is sent once: the pickler keeps no memo, and thousands
        # of copies of thousands of ids made the transfer quadratic
        table: list = []
        index: dict = {}
        packed = []
        for d in run(part):
            t = pack(d)
            if len(d.about) > SHARED_ABOUT:
                ref = index.get(id(d.about))
                if ref is None:
                    ref = index[id(d.about)] = len(table)
                    table.append(d.about)
                t = t._replace(about=ref)
            packed.append(t)
        return packed, table
    results = spread(in_helper, parts, name="lint.rules", first=lambda part: run(part) + also())
    out = list(results[0])
    by_path = {str(rec.path): rec.path for part in parts[1:] for rec in part}
    for got, table in results[1:]:
        for t in got:
            if isinstance(t.about, int):
                t = t._replace(about=table[t.about])
            out.append(unpack(t, by_path.get(t.path) or Path(t.path)))
    return out


def apply_config(diags: list[Diagnostic], corpus, severity: dict[str, str] | None = None) -> list[Diagnostic]:
    """Severity overrides, then suppressions: inline comments, a record's
    ``lint: {ignore: [...]}``, and per-file ignores of the configuration."""
    cfg = corpus.config
    sev = {k.strip().upper(): v for k, v in cfg.severity.items()}
    if severity:
        sev.update({k.strip().upper(): v for k, v in severity.items()})
    if sev:
        sev = severities(sev)
    own = getattr(corpus.schema, "lint_severity", None)
    if own:
        # the schema's severities (a vault preset's RK305: info), under the configuration's
        sev = {**severities(dict(own)), **sev}
    by_path = corpus.file_at
    pfi = []
    for pattern, codes in cfg.per_file_ignores.items():
        pfi.append((pattern, [c.upper() for c in codes]))
    out = []
    for d in diags:
        if d.code in sev:
            d.severity = sev[d.code]
        rec = by_path(d.path)
        if rec is not None:
            if _matches(d.code, rec.suppressions.get(d.line, ())):
                continue
            lint_opts = rec.get("lint")
            if isinstance(lint_opts, dict):
                ign = lint_opts.get("ignore")
                if isinstance(ign, list) and _matches(d.code, [str(x) for x in ign]):
                    continue
        if pfi:
            rel_root = _rel(d.path, corpus.root)
            rel_base = _rel(d.path, cfg.base)
            if any(_matches(d.code, codes) and (fnmatch.fnmatch(rel_root, pat) or fnmatch.fnmatch(rel_base, pat))
                   for pat, codes in pfi):
                continue
        out.append(d)
    return out


def severities(by_prefix: dict[str, str]) -> dict[str, str]:
    """``code -> severity`` for every rule a key of ``by_prefix`` (codes,
    prefixes, ``ALL``; upper case) names, the most specific key winning, as
    in :func:`select_codes`: ``{RK3 = "error", RK305 = "info"}``."""
    out: dict[str, tuple[int, str]] = {}
    for p, level in by_prefix.items():
        spec = 0 if p == "ALL" else len(p)
        for c in all_rules():
            if (p == "ALL" or c.startswith(p)) and spec >= out.get(c, (-1, ""))[0]:
                out[c] = (spec, level)
    return {c: level for c, (_, level) in out.items()}


def _matches(code: str, prefixes) -> bool:
    return any(code.startswith(p.strip().upper()) for p in prefixes)


def _rel(path: Path, base: Path) -> str:
    try:
        return Path(path).resolve().relative_to(Path(base).resolve()).as_posix()
    except ValueError:
        return Path(path).as_posix()


def filter_paths(diags: list[Diagnostic], paths: list[Path] | None, keys: set[str] | None = None) -> list[Diagnostic]:
    """The diagnostics that involve ``paths``: located in (or under) one of
    them, or about a key one of them holds or held (``keys``, from
    :func:`recordkit.lint.involve.path_keys`); see :mod:`recordkit.lint.involve`."""
    from .involve import involved
    return involved(diags, paths, keys)


def involving_keys(corpus_or_config, paths, schema=None, unknown: list | None = None) -> set[str]:
    """The keys ``paths`` hold now or held in git's HEAD (see
    :mod:`recordkit.lint.involve`); ``unknown`` receives the paths that
    exist neither now nor in HEAD."""
    from .involve import given_path, path_keys
    config = getattr(corpus_or_config, "config", corpus_or_config)
    root = Path(config.root).resolve()
    if any(Path(p).is_dir() and root.is_relative_to(Path(p).resolve()) for p in paths):
        return set()   # every diagnostic is in a record file, so under this folder: no key adds one
    if schema is None:
        schema = getattr(corpus_or_config, "schema", None)
        if schema is None:
            from ..schema import load_schema
            schema = load_schema(config.schema)
    return path_keys([given_path(p) for p in paths], root=config.root, checks=config.checks, schema=schema,
                     unknown=unknown, max_size=config.max_file_size)


def chosen_codes(config, select=None, ignore=None, schema=None) -> set[str]:
    """The codes a lint with these options runs: the configuration's
    ``select``/``ignore``, then the command line's.  The configuration's
    ``extend-select`` adds to its ``select`` (to every rule when it has
    none), as in ruff; a ``--select`` on the command line replaces both.
    The ``schema``'s ``lint.ignore`` (a vault preset's RK208) turns a rule
    off unless a select names that very code."""
    named = {c.strip().upper() for c in list(select or []) + list(config.select or [])
             + list(getattr(config, "extend_select", None) or [])}
    if not select:
        extend = list(getattr(config, "extend_select", None) or [])
        select = (list(config.select or ["ALL"]) + extend) if extend else config.select
    own = [c for c in getattr(schema, "lint_ignore", ()) if c not in named]
    return select_codes(select or None, list(config.ignore) + list(ignore or []) + own)


def lint(corpus, *, paths=None, select=None, ignore=None, check_results=None, jobs: int | None = None) -> LintResult:
    """Lint ``corpus``: the library entry point of ``recordkit lint``.

    ``paths``: report only the diagnostics that involve these files or
    folders (which may no longer exist): see :mod:`recordkit.lint.involve`.

    For speed on a large record, load it with
    ``recordkit.load(..., analyze=LocalRules(schema, config, chosen_codes(config, select, ignore)))``:
    the local rules then run on every core while the files are parsed."""
    cfg = corpus.config
    check_codes(cfg)
    codes = chosen_codes(cfg, select, ignore, corpus.schema)
    diags = run_rules(corpus, codes, check_results, jobs)
    diags = apply_config(diags, corpus)
    if paths:
        diags = filter_paths(diags, paths, involving_keys(corpus, paths))
    diags.sort(key=Diagnostic.sort_key)
    return LintResult(diags, files=len(corpus.files))


def lint_root(config: Config, *, select=None, ignore=None, use_cache: bool = True, files: list[Path] | None = None,
              check_results=None, loader=None, started_ns: int | None = None) -> LintResult:
    """Lint the record ``config`` names, as ``recordkit lint`` does: read
    the answer from the lint cache when no input changed, else load the
    record with the chosen local rules run where each file is parsed (on
    every core), lint it, and store the answer.

    ``files``: :func:`recordkit.corpus.iter_files` of the root, when the
    caller has it.  ``check_results``: None loads the stored ones.
    ``loader``: called as ``loader(schema=..., analyze=...)`` instead of
    :func:`recordkit.load` (the command line keeps its corpus this way).
    ``started_ns``: ``time.time_ns()`` from before the caller could have
    read any record file (the lint cache must know: see
    :func:`recordkit.lint.cache.unchanged_hashes`); default: now.
    The result's ``corpus`` is None when the cache answered."""
    if started_ns is None:
        started_ns = time.time_ns()
    from ..config import resolved_root
    check_codes(config)
    root = resolved_root(config)        # (a ConfigError for a symbolic link loop)
    from ..corpus.toolsettings import settle_walk
    settle_walk(config)
    if files is None:
        from ..corpus.loader import iter_files
        files = iter_files(root, config.exclude, config.skip_dirs) if root.is_dir() else []
    options = {"select": list(select or []), "ignore": list(ignore or [])}
    if use_cache:
        hashes = cache.unchanged_hashes(files, config.cache_dir)
        if hashes is not None:
            diags = cache.load(config.cache_dir, cache.lint_key(config, cache.schema_fingerprint(config), options,
                                                               hashes))
            if diags is not None:
                return LintResult(diags, files=len(files), cached=True)
    # a cache miss: everything below is needed only now (the answer read
    # from the cache must not wait for these imports)
    from ..corpus.loader import load as load_corpus
    from ..numeric.store import load_results
    from ..schema import config_layers, load_schema
    layers, error = config_layers(config)
    if error is not None:
        raise error
    schema = load_schema(config.schema, layers)
    analyze = LocalRules(schema, config, chosen_codes(config, select or None, ignore, schema))
    if loader is None:
        corpus = load_corpus(root, config=config, schema=schema, files=files, analyze=analyze, store=use_cache)
    else:
        corpus = loader(schema=schema, analyze=analyze)
    with batch():
        result = lint(corpus, select=select or None, ignore=ignore,
                      check_results=load_results(corpus) if check_results is None else check_results)
    result.corpus = corpus
    if use_cache:
        hashes = cache.store_hashes(corpus, config.cache_dir, started_ns)
        from ..corpus.resolve import files_consulted
        cache.store(config.cache_dir, cache.lint_key(config, cache.schema_fingerprint(config), options, hashes),
                    result.diagnostics, files_consulted(corpus))
    return result
