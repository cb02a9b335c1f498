"""Numeric checks: the ``@check`` decorator, discovery and the runner."""
from .registry import CheckSpec, check, REGISTRY

__all__ = ["CheckSpec", "check", "REGISTRY"]
