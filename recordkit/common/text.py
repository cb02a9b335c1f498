"""Text for people: values in messages spelt as YAML, not as Python reprs, and
text made safe to print on a terminal.

Messages and listings quote what a user wrote in a file; they show it as the
user would write it (``2026-01-01``, ``[a, b]``, ``{a: 1}``, ``null``), never
as ``datetime.date(2026, 1, 1)`` or ``{'a': 1}``.  Anything printed on a
terminal goes through :func:`terminal_safe` first, so a title holding an ESC
sequence or a bidi override shows as visible escapes instead of recolouring,
moving the cursor or reordering the line.
"""
from __future__ import annotations

import datetime as _dt
import re
from typing import Any

#: integers beyond this lose digits in JavaScript (and in many JSON readers)
_JSON_SAFE_INT = 2**53 - 1


def int_text(value: int) -> str:
    """An integer as text.  Python refuses to write an integer of more than
    4,300 decimal digits (a front matter can hold one written in hex, which
    YAML reads without that limit): such a one is written in hex, as YAML
    reads it back."""
    try:
        return str(value)
    except ValueError:
        return hex(value)


def plain_key(key: Any) -> str:
    """A front-matter key as text, spelt as YAML would (``true``, ``null``,
    ``2026-01-01``), never as a Python repr."""
    if isinstance(key, str):
        return key
    plain = to_plain(key)
    if isinstance(plain, str):
        return plain
    if plain is None:
        return "null"
    if isinstance(plain, bool):
        return "true" if plain else "false"
    if isinstance(plain, (int, float)):
        return str(plain)
    import json
    return json.dumps(plain, ensure_ascii=False)   # a list or mapping used as a key


def to_plain(value: Any) -> Any:
    """A front-matter value made JSON-ready, keeping its meaning: the one
    conversion every JSON output (``show --format json``, the content index,
    the graph page, the exports) goes through.

    Keys become strings (``1``, ``true``, ``null``, ``2026-01-01``), dates and
    times ISO strings (with their offset), sets sorted lists, ``!!binary``
    bytes their base64 text, integers too large for a JSON reader's double
    and NaN/infinity their YAML spelling as strings; anything else that is
    not JSON becomes its text.
    """
    if value is None or isinstance(value, (str, bool)):
        return value
    if isinstance(value, int):
        return value if -_JSON_SAFE_INT <= value <= _JSON_SAFE_INT else int_text(value)
    if isinstance(value, float):
        if value != value:
            return ".nan"
        if value in (float("inf"), float("-inf")):
            return ".inf" if value > 0 else "-.inf"
        return value
    if isinstance(value, (_dt.date, _dt.datetime, _dt.time)):
        return value.isoformat()
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            key = name = plain_key(k)
            n = 1
            while key in out:      # 1 and "1" are two YAML keys but would be one JSON name
                n += 1
                key = f"{name} ({n})"
            out[key] = to_plain(v)
        return out
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((to_plain(v) for v in value), key=lambda v: (type(v).__name__, str(v)))
    if isinstance(value, (bytes, bytearray)):
        import base64
        return base64.b64encode(bytes(value)).decode("ascii")
    return str(value)


_PLAIN_OK = re.compile(r"[^\s\-?:,\[\]{}#&*!|>'\"%@`][^\n#:,\[\]{}]*")
_YAML_WORDS = frozenset({"null", "~", "true", "false", "yes", "no", "on", "off", "y", "n"})


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return int_text(value)
    if isinstance(value, float):
        return str(value)
    s = str(value)
    if (s and _PLAIN_OK.fullmatch(s) and s == s.strip() and s.lower() not in _YAML_WORDS
            and not _looks_numeric(s)):
        return s
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _looks_numeric(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


def yaml_text(value: Any, limit: int = 80) -> str:
    """``value`` as short flow-style YAML (``[a, b]``, ``{a: 1}``,
    ``2026-01-01``, ``null``), cut to about ``limit`` characters."""
    text = _flow(to_plain(value), limit)
    return text if len(text) <= limit else text[: max(limit - 1, 1)] + "…"


def _flow(value: Any, limit: int) -> str:
    if isinstance(value, dict):
        parts = []
        size = 0
        for k, v in value.items():
            parts.append(f"{_scalar(k)}: {_flow(v, limit)}" if v is not None else _scalar(k))
            size += len(parts[-1]) + 2
            if size > limit:
                break
        return "{" + ", ".join(parts) + "}"
    if isinstance(value, list):
        parts = []
        size = 0
        for v in value:
            parts.append(_flow(v, limit))
            size += len(parts[-1]) + 2
            if size > limit:
                break
        return "[" + ", ".join(parts) + "]"
    return _scalar(value)


def kind_of(value: Any) -> str:
    """What YAML made of a value, in words: "a mapping", "a date", ..."""
    import datetime as _dt
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, (set, frozenset)):
        return "a set"
    if isinstance(value, (bytes, bytearray)):
        return "binary data"
    if isinstance(value, _dt.datetime):
        return "a date and time"
    if isinstance(value, _dt.date):
        return "a date"
    return a_or_an(type(value).__name__)


# C0 controls but tab and newline, DEL, C1 controls, and the Unicode
# formatting characters that reorder or hide text (bidi embeddings,
# overrides and isolates, the line/paragraph separators).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                     "\ud800-\udfff]")
_UNSAFE_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                          "\ud800-\udfff]")


def _escape(m: re.Match) -> str:
    ch = m.group()
    o = ord(ch)
    if 0xDC80 <= o <= 0xDCFF:      # a byte of a file name that is not UTF-8 (surrogateescape)
        return f"\\x{o - 0xDC00:02x}"
    if o <= 0xFF:
        return {"\t": "\\t", "\n": "\\n", "\r": "\\r"}.get(ch, f"\\x{o:02x}")
    return f"\\u{o:04x}"


# what XML 1.0 cannot hold: C0 controls but tab, newline and carriage
# return, the two non-characters U+FFFE and U+FFFF, lone surrogates
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def xml_safe(text: str) -> str:
    """``text`` with every character XML 1.0 cannot hold (a control
    character a YAML ``"\\x01"`` gave a title) written as a visible escape
    such as ``\\x01``, so a GraphML or GEXF file stays well-formed."""
    if text.isascii() and text.isprintable():
        return text
    return _NOT_XML.sub(_escape, text)


def terminal_safe(text: str, *, keep_newlines: bool = True) -> str:
    """``text`` with every control character (an ESC sequence's ESC, C1
    controls, bidi overrides, a non-UTF-8 file name's bytes) shown as a
    visible escape such as ``\\x1b``.  Newlines and tabs stay unless
    ``keep_newlines`` is false (a one-line field such as a title)."""
    pattern = _UNSAFE if keep_newlines else _UNSAFE_LINE
    if text.isascii() and text.isprintable():
        return text
    return pattern.sub(_escape, text)


def path_text(name: str) -> str:
    """A file name for a message or a JSON document: a byte that is not
    UTF-8 (kept by the file system decoder as a lone surrogate, which no
    UTF-8 output can carry) shown as ``\\xff``."""
    if name.isascii():
        return name
    try:
        name.encode("utf-8")
        return name
    except UnicodeEncodeError:
        try:
            return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        except UnicodeEncodeError:     # a lone surrogate that is no file-name byte (a YAML "\\ud800")
            return name.encode("utf-8", "backslashreplace").decode("utf-8")


def shown(value: Any) -> str:
    """A value quoted in a message: its YAML text in backticks, and what
    YAML made of it when the braces of a flow mapping were surely not meant
    (``read: {2026-01-01}`` is a mapping whose key is a date)."""
    text = f"`{yaml_text(value)}`"
    if isinstance(value, dict) and value and all(v is None for v in value.values()):
        text += " (the braces make this a mapping)"
    return text


def json_text(value: Any, **dumps_options) -> str:
    """``json.dumps(value, ensure_ascii=False, ...)`` that any UTF-8 output
    can carry: a string holding a lone surrogate (an id taken from a file
    name that is not UTF-8) is written as :func:`path_text` shows it."""
    import json
    text = json.dumps(value, ensure_ascii=False, **dumps_options)
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return json.dumps(_texts(value), ensure_ascii=False, **dumps_options)


def _texts(value: Any) -> Any:
    if isinstance(value, str):
        return value if value.isascii() else path_text(value)
    if isinstance(value, (list, tuple)):
        return [_texts(v) for v in value]
    if isinstance(value, dict):
        return {_texts(k): _texts(v) for k, v in value.items()}
    return value


# -- "a" or "an" ---------------------------------------------------------------
#: letters whose names start with a vowel sound ("an F", "an HTML page", "an MVP")
_AN_LETTERS = frozenset("AEFHILMNORSX")
#: consonant pairs a word may start with ("a SCRATCH note" is read as a word)
_ONSETS = ("BL", "BR", "CH", "CL", "CR", "DR", "FL", "FR", "GL", "GR", "KN", "PH", "PL", "PR", "RH", "SC", "SH",
           "SK", "SL", "SM", "SN", "SP", "SQ", "ST", "SW", "TH", "TR", "TW", "WH", "WR")
#: words whose "h" is silent
_SILENT_H = ("hour", "honest", "honor", "honour", "heir")


def _initialism(word: str) -> bool:
    """Whether an upper-case ``word`` is read letter by letter (ADR, HTML,
    MVP) rather than as a word (LIT, NOTE, SCRATCH)."""
    letters = "".join(ch for ch in word if ch.isalpha())
    if not letters.isupper() or not letters.isascii():
        return False
    if len(letters) <= 2:      # UI, AI, ML, HR
        return True
    if letters[0] in "AEIOU":
        # ADR, OKR: a vowel and no other vowel after it; IDEA, ESSAY, USER: words
        return not any(ch in "AEIOUY" for ch in letters[1:])
    if letters[1] in "AEIOUY":
        return False
    return not (letters[:2] in _ONSETS and any(ch in "AEIOUY" for ch in letters[2:]))


def article(word: str) -> str:
    """"a" or "an" before ``word``, by its sound: "an ADR", "an HTML file",
    "an idea", "a USER", "a LIT", "a NOTE", "a unit", "an hour"."""
    w = str(word).strip().lstrip("`'\"(")
    if not w or not w[0].isalpha():
        return "a"
    if _initialism(w):
        return "an" if w[0].upper() in _AN_LETTERS else "a"
    low = w.lower()
    if low[0] in "aeio":
        return "an"
    if low[0] == "u":
        # "a user", "a unit", "a union" (you-); "an update", "an umbrella", "an unknown"
        if len(low) > 2 and low[1] not in "aeiou" and low[2] in "aeiouy" and low[1] not in "dmnpgt":
            return "a"
        if low.startswith(("uni", "usa", "use", "usu", "ute", "uti", "uto", "ure", "uri", "uro")):
            return "a"
        return "an"
    if low.startswith(_SILENT_H):
        return "an"
    return "a"


def a_or_an(word) -> str:
    """``word`` with its article: "an ADR", "a NOTE"."""
    return f"{article(word)} {word}"


#: how many names a message lists before it counts the rest
NAMES_SHOWN = 3


def some_of(names, total: int | None = None, shown: int = NAMES_SHOWN, last: str = ", ") -> str:
    """The first ``shown`` of ``names`` joined, and how many more there are
    (``total``: how many there are, when ``names`` holds only the first
    few; give ``shown + 1`` of them so that four are all named rather than
    "and 1 more"): ``a, b, c and 1,234 more``.  A message about one of thousands of
    files that listed every other one made a lint's output quadratic (20,000
    copies of one id: 24 GB).  ``last``: what joins the last two when all
    are shown (", " or " and ")."""
    names = list(names)
    n = len(names) if total is None else total
    names = names[:shown + 1]
    if n <= len(names) and n <= shown + 1:      # all of them ("and 1 more" would take as long)
        names = names[:n]
        return ", ".join(names[:-1]) + (last if len(names) > 1 else "") + names[-1] if names else ""
    return ", ".join(names[:shown]) + f" and {n - shown:,} more"
