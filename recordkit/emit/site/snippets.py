"""A short piece of a body shown as text (a backlink's sentence, a hover
preview's first paragraph) without the syntax that :func:`.markdown.plain_text`
leaves, because it is not Markdown's: Obsidian's callout markers
(``> [!tip] Title``: the title stays), ``%%comments%%``, ``==highlight==``
marks, footnote references (``[^1]``), raw HTML tags (``<kbd>``: the text
stays), and math, which is shown as the text it renders to, near enough
(``$\\lim_{x \\to 0} \\frac{a}{b}$`` -> ``lim_x → 0 a/b``): TeX's
commands as their symbols (``\\alpha`` α, ``\\to`` →, ``\\int`` ∫), named
functions by their names, braces and spacing commands dropped.

Applied to a sentence or a paragraph before :func:`.markdown.plain_text`;
each step runs only when the text holds its marker (``[!``, ``%%``, ``==``,
``[^``, ``<``, ``$``), so prose pays a few ``in`` tests.
"""
from __future__ import annotations

import re

_CALLOUT = re.compile(r"\[![A-Za-z][\w-]*\][+-]?[ \t]*")
_COMMENT = re.compile(r"%%.*?(?:%%|\Z)", re.S)
#: a highlight's marks: "==" that opens (before a character) or closes
#: (after one) a highlight; "a == b" stays
_HIGHLIGHT = re.compile(r"(?<=[^\s=])==(?!=)|(?<!=)==(?=[^\s=])")
_FOOTNOTE = re.compile(r"\[\^[^\]\s]+\]")
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
#: display math (``$$…$$``), then inline math (``$…$``: no space inside
#: either end, no digit after the closing ``$``, as Obsidian and pandoc read it).
#: Every pattern here takes a bounded length after its opening mark (or
#: stops at the next one), so a long paragraph of marks that never close
#: costs linear time (a preview reads a paragraph of any length)
_MATH = re.compile(r"\$\$([^$]{1,2000}?)\$\$|(?<![\\$])\$(?=[^\s$])([^$\n]{1,300}?)(?<=[^\s\\])\$(?![\d$])")
_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_SQRT = re.compile(r"\\sqrt\s*\{([^{}]*)\}")
_COMMAND = re.compile(r"\\([A-Za-z]+)|\\(.)")
#: commands that lay out, and show nothing of their own
_SILENT = {"left", "right", "big", "Big", "bigg", "Bigg", "displaystyle", "textstyle", "mathrm", "mathbf",
           "mathit", "mathsf", "mathtt", "mathcal", "mathbb", "boldsymbol", "operatorname", "text", "textrm",
           "textbf", "textit", "limits", "nolimits"}
_SPACES = {"quad", "qquad", "space", ",", ";", ":", " ", "!", ">"}


def _symbol(name: str) -> str:
    """The character TeX's ``\\name`` stands for, or the name (``lim``,
    ``sin``: functions are written as their names)."""
    try:
        from latex2mathml.symbols_parser import convert_symbol
        code = convert_symbol("\\" + name)
    except Exception:       # (an older latex2mathml, or no table entry: the name)
        code = None
    if code:
        try:
            return "".join(chr(int(c, 16)) for c in code.split("-") if c)
        except ValueError:
            pass
    return name


def tex_text(tex: str) -> str:
    """TeX math as the text it shows, near enough for a line of prose."""
    t = tex
    if "\\" in t:
        t = _FRAC.sub(r"\1/\2", t)
        t = _SQRT.sub(r"√\1", t)

        def command(m):
            name = m.group(1)
            if name is None:
                ch = m.group(2)
                return " " if ch in _SPACES else ch       # \{ \} \% \$ \_ are the characters
            if name in _SILENT:
                return ""
            if name in _SPACES:
                return " "
            sym = _symbol(name)
            # (a name before a letter keeps a space: "\\sin x" is "sin x", not "sinx")
            return f"{sym} " if len(sym) > 1 and m.string[m.end():m.end() + 2].strip()[:1].isalpha() else sym
        t = _COMMAND.sub(command, t)
    t = t.replace("{", "").replace("}", "").replace("&", " ").replace("~", " ")
    return " ".join(t.split())


def _math(m) -> str:
    return tex_text(m.group(1) if m.group(1) is not None else m.group(2))


def snippet_source(text: str) -> str:
    """``text`` (Markdown) without the syntax plain text must not show:
    see the module's documentation."""
    if "[!" in text:
        text = _CALLOUT.sub("", text)
    if "%%" in text:
        text = _COMMENT.sub("", text)
    if "==" in text:
        text = _HIGHLIGHT.sub("", text)
    if "[^" in text:
        text = _FOOTNOTE.sub("", text)
    if "<" in text:
        text = _TAG.sub("", text)
    if "$" in text:
        text = _MATH.sub(_math, text)
    return text
