"""``--format json``: ruff's JSON shape, one object per diagnostic, with the
fix's edits as rows and columns."""
from __future__ import annotations

import json

from ...common.paths import display_path
from ...common.text import path_text
from ...common.textpos import Positions

NAME = "json"


def render(diags, info) -> str:
    return json.dumps(to_json_objects(diags, info.rule_info, info.text_of), indent=2, ensure_ascii=False) + "\n"


def _fix_json(d, text_of, positions: dict):
    """``positions``: path -> :class:`Positions` of its text, kept over one render."""
    if d.fix is None:
        return None
    at = positions.get(d.path)
    if at is None:
        text = text_of(d.path)
        at = positions[d.path] = Positions(text) if text is not None else False
    if at is False:
        return {"message": d.fix.message, "applicability": d.fix.applicability, "edits": []}
    sl, sc = at.line_col(d.fix.start)
    el, ec = at.line_col(d.fix.end)
    return {"message": d.fix.message, "applicability": d.fix.applicability,
            "edits": [{"content": d.fix.content, "location": {"row": sl, "column": sc},
                       "end_location": {"row": el, "column": ec}}]}


def to_json_objects(diags, rule_info, text_of=lambda p: None) -> list[dict]:
    out = []
    positions: dict = {}
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
            "fix": _fix_json(d, text_of, positions),
            "url": info.get("url"),
        })
    return out
