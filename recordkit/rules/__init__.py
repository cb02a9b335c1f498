"""Lint rules.  Each rule is a small function registered with :func:`rule`;
its docstring is its documentation ("What it does / Why is this bad /
Example / Use instead"), printed by ``recordkit rule CODE``.

Rules live in modules by family: ``files`` (RK1xx), ``fields`` (RK2xx),
``relations`` (RK3xx), ``lifecycle`` (RK4xx), ``checks`` (RK5xx),
``tables`` (RK6xx).  Importing this package registers them all.
"""
from .base import RULES, LintContext, Rule, rule, get_rule, all_rules

__all__ = ["RULES", "LintContext", "Rule", "rule", "get_rule", "all_rules"]
