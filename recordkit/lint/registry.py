"""The rule registry and the context rules run in."""
from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass, field
from typing import Callable

from ..corpus.model import Diagnostic, Fix, Pos, Record

SEVERITIES = ("error", "warning", "info")


@dataclass
class Rule:
    """A lint rule.

    ``scope`` is ``record`` (``func(ctx, record)``, run for each loaded
    record), ``corpus`` (``func(ctx)``, run once) or ``load`` (reported by
    the loader; the function only documents it).

    ``local``: a record rule that reads only the record, the schema and the
    configuration (never ``ctx.records`` or ``ctx.corpus``).  The lint may
    run it in the process that parsed the file, on every core; with
    ``ctx.records`` it raises there.
    """
    code: str
    name: str
    severity: str
    func: Callable
    scope: str = "record"
    fixable: bool = False
    summary: str = ""
    doc: str = ""
    local: bool = False

    @property
    def url(self) -> str:
        return docs_url(self.code, self.name)


def docs_url(code: str, name: str) -> str:
    return f"docs/rules.md#{code.lower()}-{name}"


RULES: dict[str, Rule] = {}

_FAMILIES = ("files", "fields", "relations", "lifecycle", "checks", "tables", "queries")


def rule(code: str, name: str, severity: str, *, scope: str = "record", fixable: bool = False,
         local: bool = False):
    """Register a rule.  The function's docstring's first line is the summary."""
    if severity not in SEVERITIES:
        raise ValueError(f"bad severity {severity!r} for {code}")

    def deco(func: Callable) -> Callable:
        doc = inspect.getdoc(func) or ""
        summary = doc.split("\n", 1)[0].strip()
        if local and scope != "record":
            raise ValueError(f"{code}: only a record rule can be local")
        RULES[code] = Rule(code, name, severity, func, scope, fixable, summary, doc, local)
        return func

    return deco


def _load_all() -> None:
    for fam in _FAMILIES:
        try:
            importlib.import_module(f"{__package__}.rules.{fam}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__package__}.rules.{fam}":
                raise


def all_rules() -> dict[str, Rule]:
    if not RULES or not getattr(all_rules, "_loaded", False):
        _load_all()
        all_rules._loaded = True
    return dict(sorted(RULES.items()))


def get_rule(code_or_name: str) -> Rule | None:
    rules = all_rules()
    key = code_or_name.strip()
    if key.upper() in rules:
        return rules[key.upper()]
    for r in rules.values():
        if r.name == key:
            return r
    return None


@dataclass(eq=False)
class LintContext:
    """What rules see: the corpus, its schema and configuration, the numeric
    check results (loaded lazily from the cache), and a shared scratch space
    for values several rules need (``memo``)."""
    corpus: object
    check_results: object = None          # a recordkit.numeric results mapping, or None (unknown)
    memo: dict = field(default_factory=dict)

    @property
    def schema(self):
        return self.corpus.schema

    @property
    def config(self):
        return self.corpus.config

    @property
    def records(self) -> dict[str, Record]:
        return self.corpus.records

    def diag(self, code: str, message: str, rec: Record, pos: Pos, fix: Fix | None = None) -> Diagnostic:
        line, col, end_line, end_col = pos
        r = RULES[code]
        return Diagnostic(code, message, rec.path, line, col, end_line, end_col,
                          severity=r.severity, record=rec.id, fix=fix)

    def cached(self, key: str, compute: Callable):
        if key not in self.memo:
            self.memo[key] = compute()
        return self.memo[key]


class LocalCorpus:
    """What a local rule may see of the corpus: its schema and configuration.
    Used where a file is parsed, before the rest of the record is known."""

    def __init__(self, schema, config):
        self.schema = schema
        self.config = config

    def __getattr__(self, name):
        raise RuntimeError(f"a local rule asked for corpus.{name}, which is not known where files are parsed")
