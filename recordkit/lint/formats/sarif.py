"""``--format sarif``: SARIF 2.1.0, for code-scanning tools."""
from __future__ import annotations

import json

from ...common.paths import display_path
from ...common.text import path_text
from ...version import __version__

NAME = "sarif"
SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def render(diags, info) -> str:
    return format_sarif(diags, info.rules) + "\n"


def format_sarif(diags, rules: dict) -> str:
    used = sorted({d.code for d in diags} | set(rules))
    rule_index = {c: i for i, c in enumerate(used)}
    driver_rules = []
    for c in used:
        r = rules.get(c)
        driver_rules.append({
            "id": c,
            "name": r.name if r else c,
            "shortDescription": {"text": r.summary if r else c},
            "fullDescription": {"text": r.doc if r else c},
            "helpUri": r.url if r else None,
            "defaultConfiguration": {"level": SARIF_LEVEL.get(r.severity if r else "error", "error")},
        })
    results = []
    for d in diags:
        results.append({
            "ruleId": d.code,
            "ruleIndex": rule_index[d.code],
            "level": SARIF_LEVEL.get(d.severity, "error"),
            "message": {"text": path_text(d.message)},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": display_path(d.path)},
                "region": {"startLine": d.line, "startColumn": d.col,
                           "endLine": d.end_line or d.line, "endColumn": d.end_col or d.col}}}],
        })
    doc = {
        "version": "2.1.0",
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "runs": [{"tool": {"driver": {"name": "recordkit", "version": __version__,
                                      "informationUri": "https://pypi.org/project/recordkit/",
                                      "rules": driver_rules}},
                  "results": results}],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False)
