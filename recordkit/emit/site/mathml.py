"""TeX math to MathML at build time (no JavaScript in the page).

latex2mathml does the conversion; its output is then parsed and written out
again through an allow-list of MathML elements and attributes, because the
converter passes some input through as markup (``\\text{<b>}`` gives a
``<b>`` element, ``\\href{javascript:…}`` an ``href`` attribute).  Math that
cannot be converted is shown as its source in a ``<code>`` element.
"""
from __future__ import annotations

import html
import re
import xml.etree.ElementTree as ET
from functools import lru_cache

ELEMENTS = frozenset("""math mrow mi mn mo ms mtext mspace msub msup msubsup munder mover munderover
mfrac msqrt mroot mstyle merror mpadded mphantom mfenced menclose mtable mtr mtd mlabeledtr
mmultiscripts mprescripts none semantics annotation""".split())
ATTRIBUTES = frozenset("""display mathvariant stretchy fence separator lspace rspace accent accentunder
columnalign rowalign columnspacing rowspacing columnlines rowlines frame framespacing equalrows
equalcolumns width height depth linethickness minsize maxsize movablelimits symmetric largeop form
scriptlevel displaystyle notation align open close separators bevelled numalign denomalign
mathsize""".split())

_STRAY_AMP = re.compile(r"&(?!#?[0-9A-Za-z]+;)")
_NS = "{http://www.w3.org/1998/Math/MathML}"


def _write(el, out: list) -> None:
    tag = el.tag[len(_NS):] if el.tag.startswith(_NS) else el.tag
    if tag not in ELEMENTS:
        raise ValueError(f"element {tag} not allowed")
    attrs = "".join(f' {k}="{html.escape(v)}"' for k, v in sorted(el.attrib.items()) if k in ATTRIBUTES)
    out.append(f"<{tag}{attrs}>")
    if el.text:
        out.append(html.escape(el.text, quote=False))
    for child in el:
        _write(child, out)
        if child.tail:
            out.append(html.escape(child.tail, quote=False))
    out.append(f"</{tag}>")


@lru_cache(maxsize=4096)
def tex_to_mathml(tex: str, display: bool = False) -> str:
    """MathML for ``tex``; the escaped source in a code element when it
    cannot be converted."""
    try:
        from latex2mathml.converter import convert
        raw = convert(tex, display="block" if display else "inline")
        root = ET.fromstring(_STRAY_AMP.sub("&amp;", raw))
        out: list = []
        _write(root, out)
        text = "".join(out)
        # the xmlns is implied in HTML; write the element plainly
        return text
    except Exception:  # any failure of the converter: show the source
        cls = "rk-math-error"
        return f'<code class="{cls}" title="math that could not be rendered">{html.escape(tex)}</code>'
