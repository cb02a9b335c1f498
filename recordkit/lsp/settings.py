"""The server's settings: from ``initializationOptions`` and from
``workspace/didChangeConfiguration`` (either the settings themselves or
under a ``recordkit`` key), e.g.::

    {"recordkit": {"debounce": 150, "lintOn": "type", "diagnostics": "auto",
                   "features": {"hover": false}}}

``debounce``: milliseconds from the last keystroke to the lint of the
unsaved text (0–1000, default 150); ``lintOn``: ``"type"`` (as you type)
or ``"save"``; ``diagnostics``: ``"auto"`` (pull where the client declares
``textDocument/diagnostic``, else push), ``"push"``, ``"pull"`` or
``"off"``; ``features``: a feature name -> false turns it off (to run
beside another Markdown server such as marksman).
"""
from __future__ import annotations

from dataclasses import dataclass, field

DEBOUNCE_DEFAULT_MS = 150
DEBOUNCE_MAX_MS = 1000


@dataclass
class Settings:
    debounce_ms: int = DEBOUNCE_DEFAULT_MS
    lint_on: str = "type"
    diagnostics: str = "auto"
    features: dict = field(default_factory=dict)

    def update(self, raw) -> list[str]:
        """Take what ``raw`` sets; the problems found, in words (a value
        out of range or of the wrong type is left as it was)."""
        problems: list[str] = []
        if not isinstance(raw, dict):
            return problems
        if isinstance(raw.get("recordkit"), dict):
            raw = raw["recordkit"]
        if "debounce" in raw:
            v = raw["debounce"]
            if isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= DEBOUNCE_MAX_MS:
                self.debounce_ms = int(v)
            else:
                problems.append(f"debounce: {v!r} is not a number of milliseconds from 0 to {DEBOUNCE_MAX_MS}")
        if "lintOn" in raw:
            v = raw["lintOn"]
            if v in ("type", "save"):
                self.lint_on = v
            else:
                problems.append(f"lintOn: {v!r} is not \"type\" or \"save\"")
        if "diagnostics" in raw:
            v = raw["diagnostics"]
            if v in ("auto", "push", "pull", "off"):
                self.diagnostics = v
            else:
                problems.append(f"diagnostics: {v!r} is not \"auto\", \"push\", \"pull\" or \"off\"")
        if isinstance(raw.get("features"), dict):
            self.features.update({str(k): bool(v) for k, v in raw["features"].items()})
        return problems

    def enabled(self, feature: str) -> bool:
        """Whether the feature (``"hover"``, ``"completion"``, ``"diagnostics"``, …) is on."""
        if feature == "diagnostics" and self.diagnostics == "off":
            return False
        return self.features.get(feature, True)
