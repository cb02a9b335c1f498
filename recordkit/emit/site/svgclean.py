"""An SVG made safe to serve from the site: it may be opened on its own
(a link, a new tab), where no Content-Security-Policy of a page guards it,
so its copy carries nothing that runs or loads.

An allow-list over the parsed XML (the standard library's parser, with no
document type: a ``<!DOCTYPE``/``<!ENTITY`` is refused, so no entity is
ever expanded): the drawing elements of SVG 1.1/2 are kept with their
presentation attributes; ``<script>``, ``<foreignObject>`` (HTML inside),
``<style>`` (CSS can load), animation of links and everything of another
namespace are dropped, as is every ``on*`` handler, every ``href`` that is
not a fragment of the file itself (``#id``) or an inline raster image, and
every attribute value with ``javascript:`` or a ``url(...)`` that is not
``url(#id)``.  What cannot be parsed is refused (None): its copy is then
:data:`EMPTY`, a drawing of nothing.

(nh3/ammonia, the HTML sanitizer, was not used: it parses HTML, lower-cases
SVG's camel-case names (``viewBox``) and drops namespaced attributes.)
"""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET

SVG = "http://www.w3.org/2000/svg"
XLINK = "http://www.w3.org/1999/xlink"
XML = "http://www.w3.org/XML/1998/namespace"

#: drawing elements kept (in the SVG namespace)
ELEMENTS = frozenset("""
svg g a defs symbol use title desc path rect circle ellipse line polyline polygon text tspan textPath
linearGradient radialGradient stop clipPath mask pattern marker image switch view
filter feBlend feColorMatrix feComponentTransfer feComposite feConvolveMatrix feDiffuseLighting
feDisplacementMap feDistantLight feDropShadow feFlood feFuncA feFuncB feFuncG feFuncR feGaussianBlur
feImage feMerge feMergeNode feMorphology feOffset fePointLight feSpecularLighting feSpotLight feTile
feTurbulence
""".split())
_HREF_OK = re.compile(r"#[^\s]*\Z|data:image/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/=\s]*\Z", re.I)
_URL_RE = re.compile(r"url\s*\(\s*['\"]?\s*([^)'\"]*)", re.I)
_BAD_VALUE = re.compile(r"javascript:|vbscript:|@import|expression\s*\(", re.I)


def _value_ok(value: str) -> bool:
    squeezed = re.sub(r"[\s\x00-\x1f]+", "", value)
    if _BAD_VALUE.search(squeezed):
        return False
    return all(u.strip().startswith("#") for u in _URL_RE.findall(value))


def _clean(el: ET.Element) -> None:
    for child in list(el):
        tag = child.tag if isinstance(child.tag, str) else ""
        ns, _, name = tag[1:].partition("}") if tag.startswith("{") else ("", "", tag)
        if ns != SVG or name not in ELEMENTS:
            el.remove(child)
            continue
        _clean_attributes(child)
        _clean(child)


def _clean_attributes(el: ET.Element) -> None:
    for key in list(el.attrib):
        ns, _, name = key[1:].partition("}") if key.startswith("{") else ("", "", key)
        value = el.attrib[key]
        keep = ns in ("", XLINK, XML) and not name.lower().startswith("on") and _value_ok(value)
        if keep and name == "href":
            keep = bool(_HREF_OK.match(value.strip()))
        if keep and name == "style":
            keep = "url(" not in value.lower() or _value_ok(value)
        if not keep:
            del el.attrib[key]


#: what stands for an SVG that cannot be read safely: an empty drawing
#: (the page's ``<img>`` still finds a file)
EMPTY = (b'<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1">'
         b'<title>not shown: this SVG could not be read safely</title></svg>')


def sanitize(data: bytes) -> bytes | None:
    """``data`` (an SVG file's bytes) with nothing that runs or loads, or
    None when it is no SVG this can read safely."""
    low = data.lower()
    if b"<!doctype" in low or b"<!entity" in low:
        return None
    try:
        root = ET.fromstring(data)
    except (ET.ParseError, ValueError, RecursionError):
        return None
    if root.tag != f"{{{SVG}}}svg":
        return None
    _clean_attributes(root)
    _clean(root)
    ET.register_namespace("", SVG)
    ET.register_namespace("xlink", XLINK)
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="utf-8", xml_declaration=False)
