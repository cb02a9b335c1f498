"""``recordkit lint`` as a library: run the rules, filter, format, fix."""
from .engine import LintResult, lint, select_codes

__all__ = ["LintResult", "lint", "select_codes"]
