"""The lint's output formats: one module of this folder per format, with
``NAME`` (what ``--format`` takes) and ``render(diagnostics, info) -> str``
(the whole output, every line ended).  :data:`FORMATS`, the table of them,
is made by importing every module here, so a new format is one new file.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ...common.plugins import import_folder

FOLDER = Path(__file__).resolve().parent


@dataclass
class FormatInfo:
    """What a format may need besides the diagnostics."""
    rules: dict = field(default_factory=dict)       # code -> Rule, every rule
    files: int = 0                                   # files linted
    cached: bool = False                             # the diagnostics came from the lint cache
    quiet: bool = False                              # diagnostics only, no summary
    text_of: Callable = lambda path: None            # path -> the file's text, or None
    unsafe_fixes: bool = False                       # --unsafe-fixes: unsafe fixes count as available

    def rule_info(self, code: str) -> dict:
        r = self.rules.get(code)
        return {"name": r.name, "url": r.url} if r else {}


def formats(package: str = __name__, folder: str | Path = FOLDER) -> dict:
    """NAME -> module, for every format module of ``folder``, by name."""
    out = {}
    for mod in import_folder(package, folder):
        if mod.NAME in out:
            raise ValueError(f"two output formats are named {mod.NAME!r}: {out[mod.NAME].__name__}, {mod.__name__}")
        out[mod.NAME] = mod
    return dict(sorted(out.items()))


def render(name: str, diags, info: FormatInfo) -> str:
    """The output of format ``name``."""
    return formats()[name].render(diags, info)


def format_statistics(diags, rule_info, unsafe_fixes: bool = False) -> str:
    """``--statistics``: how many diagnostics of each rule, most first;
    ``[*]`` marks a rule with a fix ``--fix`` would apply; then, where links
    to notes not written yet are info (a vault), the most-wanted notes."""
    counts: dict[str, int] = {}
    for d in diags:
        counts[d.code] = counts.get(d.code, 0) + 1
    fixable = {d.code for d in diags if d.fix is not None and (d.fix.safe or unsafe_fixes)}
    lines = []
    for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        info = rule_info(code)
        lines.append(f"{n:6d}\t{code}\t{'[*]' if code in fixable else '   '}\t{info.get('name', '')}")
    from ..wanted import format_most_wanted
    wanted = format_most_wanted(diags)      # a vault's links to notes not written yet (RK305 as info)
    return "\n".join(lines + ([wanted] if wanted else []))
