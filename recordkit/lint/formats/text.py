"""``--format text`` (the default): ``path:line:col: CODE message``, then a
summary line."""
from __future__ import annotations

from ...common.paths import display_path
from ...common.text import terminal_safe

NAME = "text"


def render(diags, info) -> str:
    out = []
    if diags:
        out.append(format_text(diags, unsafe_fixes=info.unsafe_fixes))
    if not info.quiet:
        out.append(summary(diags, info.files, unsafe_fixes=info.unsafe_fixes) + (" (cached)" if info.cached else ""))
    return "".join(line + "\n" for line in out)


def format_text(diags, *, show_fixes: bool = True, unsafe_fixes: bool = False) -> str:
    """One line per diagnostic; ``[*]`` marks one whose fix ``--fix`` would
    apply (an unsafe fix only with ``unsafe_fixes``), as ruff marks them."""
    lines = []
    for d in diags:
        mark = " [*]" if (d.fix is not None and show_fixes and (d.fix.safe or unsafe_fixes)) else ""
        # one line per diagnostic, and nothing from a file (a title's ESC
        # sequence, a bidi override, a line break) acts on the terminal
        lines.append(terminal_safe(f"{display_path(d.path)}:{d.line}:{d.col}: {d.code}{mark} {d.message}",
                                   keep_newlines=False))
    return "\n".join(lines)


def summary(diags, files: int, *, unsafe_fixes: bool = False) -> str:
    """The summary line, and what ``--fix`` would do, in ruff's words: the
    fixes it would apply, and the unsafe ones it would not ("hidden": they
    need ``--unsafe-fixes``)."""
    n = {"error": 0, "warning": 0, "info": 0}
    for d in diags:
        n[d.severity] = n.get(d.severity, 0) + 1
    if not diags:
        return f"All checks passed ({files} files)."
    safe = sum(d.fix is not None and d.fix.safe for d in diags)
    unsafe = sum(d.fix is not None and not d.fix.safe for d in diags)
    parts = [f"{n['error']} error{'s' if n['error'] != 1 else ''}",
             f"{n['warning']} warning{'s' if n['warning'] != 1 else ''}",
             f"{n['info']} info"]
    s = f"Found {', '.join(parts)} in {files} files."
    if unsafe_fixes:
        if safe + unsafe:
            s += f"\n[*] {safe + unsafe} fixable with `recordkit lint --fix --unsafe-fixes`."
        return s
    hidden = (f"{unsafe} hidden fix{'es' if unsafe != 1 else ''} can be enabled with the `--unsafe-fixes` option"
              if unsafe else "")
    if safe:
        s += f"\n[*] {safe} fixable with `recordkit lint --fix`" + (f" ({hidden})." if hidden else ".")
    elif hidden:
        s += f"\nNo fixes available ({hidden})."
    return s
