"""Values a schema's fields may hold that JSON Schema cannot say: colours
(a kind's ``color``, put in the graph page's style attributes), dates and
date-times written as text, and dates written as a number of seconds or
milliseconds since 1970 (a ``date`` field's ``epoch`` option), and a
template's placeholders (``<% tp.date.now() %>``, ``{{date}}``), which are
no value yet."""
from __future__ import annotations

import datetime as _dt
import re


#: the CSS named colours (CSS Color 4), and ``transparent``
CSS_COLOR_NAMES = frozenset("""
aliceblue antiquewhite aqua aquamarine azure beige bisque black blanchedalmond blue blueviolet brown
burlywood cadetblue chartreuse chocolate coral cornflowerblue cornsilk crimson cyan darkblue
darkcyan darkgoldenrod darkgray darkgreen darkgrey darkkhaki darkmagenta darkolivegreen darkorange
darkorchid darkred darksalmon darkseagreen darkslateblue darkslategray darkslategrey darkturquoise
darkviolet deeppink deepskyblue dimgray dimgrey dodgerblue firebrick floralwhite forestgreen fuchsia
gainsboro ghostwhite gold goldenrod gray green greenyellow grey honeydew hotpink indianred indigo
ivory khaki lavender lavenderblush lawngreen lemonchiffon lightblue lightcoral lightcyan
lightgoldenrodyellow lightgray lightgreen lightgrey lightpink lightsalmon lightseagreen lightskyblue
lightslategray lightslategrey lightsteelblue lightyellow lime limegreen linen magenta maroon
mediumaquamarine mediumblue mediumorchid mediumpurple mediumseagreen mediumslateblue
mediumspringgreen mediumturquoise mediumvioletred midnightblue mintcream mistyrose moccasin
navajowhite navy oldlace olive olivedrab orange orangered orchid palegoldenrod palegreen
paleturquoise palevioletred papayawhip peachpuff peru pink plum powderblue purple rebeccapurple red
rosybrown royalblue saddlebrown salmon sandybrown seagreen seashell sienna silver skyblue slateblue
slategray slategrey snow springgreen steelblue tan teal thistle tomato turquoise violet wheat white
whitesmoke yellow yellowgreen transparent
""".split())

_NUM = r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:%|deg)?"
_COLOR_RE = re.compile(
    r"#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})"
    rf"|(?:rgb|hsl)a?\(\s*{_NUM}(?:\s*[,/ ]\s*{_NUM}){{2,3}}\s*\)")


def valid_color(value) -> bool:
    """Whether ``value`` is a colour the graph page may put in a style
    attribute as it is: ``#rgb``, ``#rgba``, ``#rrggbb``, ``#rrggbbaa``, ``rgb()``,
    ``rgba()``, ``hsl()`` or ``hsla()`` of numbers only, or a CSS colour name.
    Nothing else (no ``url(...)``, no ``;``) can reach the page."""
    if not isinstance(value, str):
        return False
    return value.lower() in CSS_COLOR_NAMES or _COLOR_RE.fullmatch(value) is not None


def _is_date(checker, value) -> bool:
    if isinstance(value, _dt.date):
        return True
    return isinstance(value, str) and is_date_text(value)


def is_date_text(value: str) -> bool:
    """Whether ``value`` is an ISO date (``2026-02-03``) or date and time
    (``2026-02-03T14:05``, ``2026-02-03 14:05:30+01:00``).  YAML reads a
    time without seconds as text, and Obsidian's "Date & time" property is
    written so: it is a date with its time, not a wrong date."""
    try:
        _dt.date.fromisoformat(value)
        return True
    except ValueError:
        pass
    if len(value) < 16 or value[10:11] not in ("T", " "):
        return False
    try:
        _dt.datetime.fromisoformat(value)
        return True
    except ValueError:
        return False


#: the units a ``date`` field's ``epoch`` option may name
EPOCH_WORDS = {"ms": "milliseconds", "s": "seconds"}


def epoch_date(value, unit: str) -> _dt.date | None:
    """The UTC date of ``value``, a whole number of ``unit`` ("ms" or "s")
    since 1970-01-01, or None when it is not one (a boolean, a float, out
    of range)."""
    if isinstance(value, bool) or not isinstance(value, int) or unit not in EPOCH_WORDS:
        return None
    seconds = value / 1000 if unit == "ms" else value
    try:
        return _dt.datetime.fromtimestamp(seconds, _dt.timezone.utc).date()
    except (OverflowError, OSError, ValueError):
        return None


#: a whole value that is one template placeholder: Templater's ``<% … %>``,
#: the core Templates plugin's (and Foam's, Hugo archetypes') ``{{ … }}``
_PLACEHOLDER_RE = re.compile(r"\s*(?:<%[\s\S]*?%>|\{\{[^{}\n]*\}\})\s*\Z")


def is_placeholder(value) -> bool:
    """Whether ``value`` is a template's placeholder, filled when a note is
    made from the template (``date: <% tp.date.now() %>``, ``created:
    "{{date}}"``): no value of any type yet, so no type is checked of it."""
    if not isinstance(value, str) or ("<%" not in value and "{{" not in value):
        return False
    return _PLACEHOLDER_RE.match(value) is not None
