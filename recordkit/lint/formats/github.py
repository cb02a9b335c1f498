"""``--format github``: GitHub Actions workflow commands (annotations); the
default under GitHub Actions."""
from __future__ import annotations

from ...common.paths import display_path
from ...common.text import path_text, terminal_safe

NAME = "github"
GITHUB_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def render(diags, info) -> str:
    return format_github(diags) + "\n" if diags else ""


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
