"""``--format sarif``: SARIF 2.1.0, for code-scanning tools."""
from __future__ import annotations

import json

from ...common.text import path_text
from ...common.textpos import Positions
from ...version import __version__

NAME = "sarif"
SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def render(diags, info) -> str:
    return format_sarif(diags, info.rules, info.text_of) + "\n"


def _fixes(d, text_of, positions: dict) -> list[dict]:
    """The diagnostic's fix as a SARIF ``fix``: the replacement, with its
    applicability (``safe``/``unsafe``) in the property bag.  ``positions``:
    path -> :class:`Positions` of its text, kept over one render."""
    f = d.fix
    if f is None:
        return []
    fix = {"description": {"text": f.message or d.message}, "properties": {"applicability": f.applicability},
           "artifactChanges": []}
    at = positions.get(d.path)
    if at is None:
        text = text_of(d.path)
        at = positions[d.path] = Positions(text) if text is not None else False
    if at is not False:
        sl, sc = at.line_col(f.start)
        el, ec = at.line_col(f.end)
        fix["artifactChanges"].append({
            "artifactLocation": {"uri": _uri(d.path)},
            "replacements": [{"deletedRegion": {"startLine": sl, "startColumn": sc, "endLine": el, "endColumn": ec},
                              "insertedContent": {"text": f.content}}]})
    return [fix]


def _uri(path) -> str:
    """A file as a SARIF ``uri``: a relative URI reference, its path
    percent-encoded from the file name's bytes (``my note#1?.md`` read as
    a fragment and a query otherwise; a name that is not UTF-8 keeps its
    bytes, ``%FF``)."""
    import os
    from urllib.parse import quote
    try:
        rel = os.path.relpath(path)
    except ValueError:  # pragma: no cover - another drive on Windows
        rel = str(path)
    return quote(os.fsencode(rel.replace(os.sep, "/")), safe="/")


def format_sarif(diags, rules: dict, text_of=lambda path: None) -> str:
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
            "properties": {"fix": r.fix if r else None},
        })
    results = []
    positions: dict = {}
    for d in diags:
        fixes = _fixes(d, text_of, positions)
        results.append({
            "ruleId": d.code,
            "ruleIndex": rule_index[d.code],
            "level": SARIF_LEVEL.get(d.severity, "error"),
            "message": {"text": path_text(d.message)},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": _uri(d.path)},
                "region": {"startLine": d.line, "startColumn": d.col,
                           "endLine": d.end_line or d.line, "endColumn": d.end_col or d.col}}}],
            **({"fixes": fixes} if fixes else {}),
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
