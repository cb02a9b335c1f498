"""``--format text`` (the default): ``path:line:col: CODE message``, then a
summary line."""
from __future__ import annotations

from ...common.paths import display_path
from ...common.text import terminal_safe

NAME = "text"


def render(diags, info) -> str:
    out = []
    if diags:
        out.append(format_text(diags))
    if not info.quiet:
        out.append(summary(diags, info.files) + (" (cached)" if info.cached else ""))
    return "".join(line + "\n" for line in out)


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
