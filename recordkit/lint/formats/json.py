"""``--format json``: ruff's JSON shape, one object per diagnostic, with the
fix's edits as rows and columns."""
from __future__ import annotations

import json

from ...common.paths import display_path
from ...common.text import path_text
from ...common.textpos import line_col

NAME = "json"


def render(diags, info) -> str:
    return json.dumps(to_json_objects(diags, info.rule_info, info.text_of), indent=2, ensure_ascii=False) + "\n"


def _fix_json(d, text_of):
    if d.fix is None:
        return None
    text = text_of(d.path)
    if text is None:
        return {"message": d.fix.message, "applicability": d.fix.applicability, "edits": []}
    sl, sc = line_col(text, d.fix.start)
    el, ec = line_col(text, d.fix.end)
    return {"message": d.fix.message, "applicability": d.fix.applicability,
            "edits": [{"content": d.fix.content, "location": {"row": sl, "column": sc},
                       "end_location": {"row": el, "column": ec}}]}


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
