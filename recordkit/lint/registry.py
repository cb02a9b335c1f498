"""The rule registry: a rule registers itself with :func:`rule`; the rules
are every function so decorated in the modules of ``lint/rules/``, which
:func:`all_rules` imports (:func:`recordkit.common.plugins.import_folder`),
so a new rule is one new file there, or one new function in a file there.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..common.plugins import import_folder
from ..common.registry import Registry

SEVERITIES = ("error", "warning", "info")
#: what a rule's fixes are, as in ruff: every fix ``safe`` (keeps the
#: meaning; ``lint --fix`` applies it), every fix ``unsafe`` (may change the
#: meaning; applied only with ``--unsafe-fixes``), or ``sometimes`` (each
#: fix says which it is: the rule's documentation says when)
FIX_KINDS = ("safe", "unsafe", "sometimes")


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
    fix: str | None = None             # None (no fix), or one of FIX_KINDS
    summary: str = ""
    doc: str = ""
    local: bool = False

    @property
    def fixable(self) -> bool:
        return self.fix is not None

    @property
    def url(self) -> str:
        return docs_url(self.code, self.name)


def docs_url(code: str, name: str) -> str:
    return f"docs/rules.md#{code.lower()}-{name}"


RULES_FOLDER = Path(__file__).resolve().parent / "rules"


def rule(code: str, name: str, severity: str, *, scope: str = "record", fix: str | None = None,
         local: bool = False):
    """Register a rule.  The function's docstring's first line is the
    summary.  ``fix``: whether the rule's fixes are ``safe``, ``unsafe`` or
    ``sometimes`` one and sometimes the other (None: it has none)."""
    if severity not in SEVERITIES:
        raise ValueError(f"bad severity {severity!r} for {code}")
    if fix is not None and fix not in FIX_KINDS:
        raise ValueError(f"bad fix kind {fix!r} for {code}: one of {', '.join(FIX_KINDS)}")

    def deco(func: Callable) -> Callable:
        doc = inspect.getdoc(func) or ""
        summary = doc.split("\n", 1)[0].strip()
        if local and scope != "record":
            raise ValueError(f"{code}: only a record rule can be local")
        if code in RULES and RULES[code].func.__qualname__ != func.__qualname__:
            raise ValueError(f"{code} is registered twice: {RULES[code].func.__qualname__} and {func.__qualname__}")
        RULES[code] = Rule(code, name, severity, func, scope, fix, summary, doc, local)
        return func

    return deco


def discover_rules(package: str = f"{__package__}.rules", folder: str | Path = RULES_FOLDER) -> None:
    """Import every rule module of ``folder`` (the package ``package``);
    each registers its rules as it is imported."""
    import_folder(package, folder)


#: every rule registered so far, by code (every rule of ``lint/rules/``
#: once :func:`all_rules` has imported them)
RULES: Registry = Registry("lint rule", discover=lambda: discover_rules())


def all_rules() -> dict[str, Rule]:
    """Every registered rule, by code, in code order."""
    return dict(sorted(RULES.complete().items()))


def get_rule(code_or_name: str) -> Rule | None:
    rules = all_rules()
    key = code_or_name.strip()
    if key.upper() in rules:
        return rules[key.upper()]
    for r in rules.values():
        if r.name == key:
            return r
    return None
