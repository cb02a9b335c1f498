"""LINT: ``recordkit lint`` as a library: run the rules, select, suppress,
format, fix.  :func:`lint` lints a loaded corpus; :func:`lint_root` does
what the command does (the lint cache included)."""
from .engine import LintResult, lint, lint_root, select_codes

__all__ = ["LintResult", "lint", "lint_root", "select_codes"]
