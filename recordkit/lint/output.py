"""Diagnostic output formats: text, json, github, sarif, and --statistics."""
from __future__ import annotations

import json
import os
from pathlib import Path

from .. import __version__
from ..text import path_text, terminal_safe

SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
GITHUB_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def display_path(path, cwd: Path | None = None) -> str:
    """The file name relative to the current directory, '/'-separated (a
    byte of it that is not UTF-8 shown as ``\\xff``)."""
    cwd = cwd or Path.cwd()
    try:
        rel = os.path.relpath(path, cwd)
    except ValueError:  # another drive on Windows
        rel = str(path)
    return path_text(rel.replace(os.sep, "/"))


def _fix_json(d, text_of):
    if d.fix is None:
        return None
    text = text_of(d.path)
    if text is None:
        return {"message": d.fix.message, "applicability": "safe", "edits": []}
    sl, sc = _line_col(text, d.fix.start)
    el, ec = _line_col(text, d.fix.end)
    return {"message": d.fix.message, "applicability": "safe",
            "edits": [{"content": d.fix.content, "location": {"row": sl, "column": sc},
                       "end_location": {"row": el, "column": ec}}]}


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return line, col


def to_json_objects(diags, rule_info, text_of=lambda p: None) -> list[dict]:
    out = []
    for d in diags:
        info = rule_info(d.code)
        out.append({
            "code": d.code,
            "name": info.get("name"),
            "severity": d.severity,
            "message": path_text(d.message),      # a message may quote a file name
            "filename": display_path(d.path),
            "location": {"row": d.line, "column": d.col},
            "end_location": {"row": d.end_line or d.line, "column": d.end_col or d.col},
            "fix": _fix_json(d, text_of),
            "url": info.get("url"),
        })
    return out


def format_text(diags, *, show_fixes: bool = True) -> str:
    lines = []
    for d in diags:
        mark = " [*]" if (d.fix is not None and show_fixes) else ""
        # one line per diagnostic, and nothing from a file (a title's ESC
        # sequence, a bidi override, a line break) acts on the terminal
        lines.append(terminal_safe(f"{display_path(d.path)}:{d.line}:{d.col}: {d.code}{mark} {d.message}",
                                   keep_newlines=False))
    return "\n".join(lines)


def summary(diags, files: int) -> str:
    n = {"error": 0, "warning": 0, "info": 0}
    for d in diags:
        n[d.severity] = n.get(d.severity, 0) + 1
    fixable = sum(d.fix is not None for d in diags)
    if not diags:
        return f"All checks passed ({files} files)."
    parts = [f"{n['error']} error{'s' if n['error'] != 1 else ''}",
             f"{n['warning']} warning{'s' if n['warning'] != 1 else ''}",
             f"{n['info']} info"]
    s = f"Found {', '.join(parts)} in {files} files."
    if fixable:
        s += f"\n[*] {fixable} fixable with `recordkit lint --fix`."
    return s


def _gh_escape(s: str, prop: bool = False) -> str:
    s = s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        s = s.replace(":", "%3A").replace(",", "%2C")
    return s


def format_github(diags) -> str:
    lines = []
    for d in diags:
        level = GITHUB_LEVEL.get(d.severity, "error")
        props = (f"file={_gh_escape(display_path(d.path), True)},line={d.line},col={d.col},"
                 f"endLine={d.end_line or d.line},endColumn={d.end_col or d.col},title={d.code}")
        lines.append(f"::{level} {props}::{_gh_escape(terminal_safe(d.code + ' ' + path_text(d.message)))}")
    return "\n".join(lines)


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


def format_statistics(diags, rule_info) -> str:
    counts: dict[str, int] = {}
    for d in diags:
        counts[d.code] = counts.get(d.code, 0) + 1
    fixable = {d.code for d in diags if d.fix is not None}
    lines = []
    for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        info = rule_info(code)
        lines.append(f"{n:6d}\t{code}\t{'[*]' if code in fixable else '   '}\t{info.get('name', '')}")
    return "\n".join(lines)
