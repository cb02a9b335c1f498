"""The record schema as data: kinds, fields, statuses, relations.

The default schema ships as ``default.yaml`` beside this module.  A user file
is merged over it (see :func:`load_schema`), so a record with a new kind or
relation works without code changes.
"""
from __future__ import annotations

import copy
import datetime as _dt
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import yaml

try:  # the C loader is several times faster
    from yaml import CSafeLoader as SafeLoader
except ImportError:  # pragma: no cover
    from yaml import SafeLoader  # type: ignore


class SchemaError(Exception):
    """The schema file is unreadable or inconsistent (a configuration error)."""


@dataclass
class Relation:
    name: str
    sources: tuple[str, ...]          # kinds that may declare it ('*' = any)
    targets: tuple[str, ...]          # kinds it may point at ('*' = any)
    label: str
    max: int | None = None
    min: int = 0
    required: bool = False
    required_when: tuple[str, ...] = ()
    acyclic: bool = False
    symmetric: bool = False
    builds_on: bool = False

    def allows_source(self, kind: str) -> bool:
        return "*" in self.sources or kind in self.sources

    def allows_target(self, kind: str) -> bool:
        return "*" in self.targets or kind in self.targets


@dataclass
class Section:
    title: str
    statuses: tuple[str, ...] = ()    # empty = every status


@dataclass
class Kind:
    name: str
    statuses: tuple[str, ...]
    fields: dict[str, dict]           # own fields (not the common ones)
    sections: tuple[Section, ...] = ()
    description: str = ""
    color: str | None = None
    dir: str | None = None


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
    if isinstance(value, str):
        try:
            _dt.date.fromisoformat(value)
            return True
        except ValueError:
            return False
    return False


def _merge(base: dict, over: dict) -> dict:
    out = dict(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


@dataclass
class Schema:
    raw: dict
    source: str = "default"
    kinds: dict[str, Kind] = field(init=False)
    relations: dict[str, Relation] = field(init=False)
    common_fields: dict[str, dict] = field(init=False)
    id_re: re.Pattern = field(init=False, repr=False)
    mention_relation: str = field(init=False)
    mention_label: str = field(init=False)
    derive: list = field(init=False)
    broken_statuses: tuple[str, ...] = field(init=False)
    claims_section: str = field(init=False)
    claims_columns: tuple[str, ...] = field(init=False)
    claims_strengths: tuple[str, ...] = field(init=False)
    #: see :attr:`mention_re` and :attr:`mention_targets_re`
    mention_re: re.Pattern = field(init=False, repr=False)
    mention_targets_re: re.Pattern = field(init=False, repr=False)
    # caches: per-kind lookups, compiled validators (the schema is not
    # changed after it is loaded)
    _per_kind: dict = field(init=False, repr=False, default_factory=dict)
    _validators: dict = field(init=False, repr=False, default_factory=dict)
    _fast: dict = field(init=False, repr=False, default_factory=dict)

    def __post_init__(self) -> None:
        raw = self.raw
        pattern = raw.get("id_pattern", r"^(?P<kind>[A-Z][A-Z0-9_]*)-(?P<number>[0-9]{3,})$")
        if not isinstance(pattern, str):
            raise SchemaError("id_pattern must be a regular expression written as a string")
        try:
            self.id_re = re.compile(pattern)
        except re.error as exc:
            raise SchemaError(f"id_pattern is not a valid regular expression: {exc}") from exc
        if "kind" not in self.id_re.groupindex:
            raise SchemaError(f"id_pattern {pattern} has no group named kind: name the part of an id that "
                              "gives its kind, as in ^(?P<kind>[A-Z]+)-(?P<number>[0-9]{3,})$")
        self.common_fields = dict(raw.get("fields") or {})
        self.kinds = {}
        for name, k in (raw.get("kinds") or {}).items():
            k = k or {}
            if not isinstance(k, dict):
                raise SchemaError(f"kinds.{name} must be a mapping (statuses, fields, ...)")
            if not k.get("statuses"):
                raise SchemaError(f"kind {name} has no statuses")
            if k.get("color") is not None and not valid_color(k["color"]):
                from ..common.text import yaml_text
                raise SchemaError(f"kinds.{name}.color: {yaml_text(k['color'])} is not a colour (use #rgb, "
                                  "#rrggbb, #rrggbbaa, rgb()/hsl() of numbers, or a CSS colour name)")
            sections = []
            for s in k.get("sections") or []:
                if isinstance(s, str):
                    s = {"title": s}
                sections.append(Section(s["title"], tuple(s.get("statuses") or ())))
            self.kinds[name] = Kind(name=name, statuses=tuple(k["statuses"]),
                                    fields=dict(k.get("fields") or {}), sections=tuple(sections),
                                    description=k.get("description", ""), color=k.get("color"),
                                    dir=k.get("dir") or name.lower())
        self.relations = {}
        for name, r in (raw.get("relations") or {}).items():
            r = r or {}
            if "label" not in r:
                r = {**r, "label": f"{name} by"}
            for side in ("from", "to"):
                for kd in r.get(side) or ["*"]:
                    if kd != "*" and kd not in self.kinds:
                        raise SchemaError(f"relation {name}: '{side}' names kind {kd}, which the schema lacks")
            self.relations[name] = Relation(
                name=name, sources=tuple(r.get("from") or ["*"]), targets=tuple(r.get("to") or ["*"]),
                label=r["label"], max=r.get("max"), min=int(r.get("min", 0)),
                required=bool(r.get("required", False)),
                required_when=tuple(r.get("required_when") or ()), acyclic=bool(r.get("acyclic", False)),
                symmetric=bool(r.get("symmetric", False)), builds_on=bool(r.get("builds_on", False)))
        self.mention_relation = (raw.get("mention") or {}).get("relation", "mentions")
        self.mention_label = (raw.get("mention") or {}).get("label", "Mentioned by")
        self.derive = list(raw.get("derive") or [])
        self.broken_statuses = tuple(raw.get("broken_statuses") or ())
        ct = raw.get("claims_table") or {}
        self.claims_section = ct.get("section", "Claims")
        self.claims_columns = tuple(ct.get("columns", ("id", "claim", "strength", "support")))
        self.claims_strengths = tuple(ct.get("strengths", ("strong", "moderate", "weak")))
        # ``mention_re`` matches ``KIND-NNN`` tokens of this schema's kinds.  The
        # left boundary (no word character or hyphen before the token) is
        # checked by the scanner: a look-behind here makes the search 6x slower.
        alternation = "|".join(sorted((re.escape(k) for k in self.kinds), key=len, reverse=True))
        self.mention_re = re.compile(r"(?:%s)-[0-9]{3,}(?![\w-])" % alternation)
        # ``mention_targets_re``: the same tokens, left boundary included, in a
        # form whose search is led by the literal ``-`` (so it runs at the
        # speed of a plain substring search): the kind is checked by a
        # look-behind once a ``-`` is found.  Groups: one per kind (the one
        # that matched holds it), then the number.
        kinds = sorted(self.kinds, key=len, reverse=True)
        behind = "|".join(r"(?<=(?<![\w-])(%s)-)" % re.escape(k) for k in kinds)
        self.mention_targets_re = re.compile(r"-(?:%s)([0-9]{3,})(?![\w-])" % behind)

    # -- lookups -----------------------------------------------------------
    def kind_of(self, record_id: str) -> str | None:
        """The kind named by an id's prefix, or None when the id is malformed."""
        m = self.id_re.match(record_id) if isinstance(record_id, str) else None
        return m.group("kind") if m else None

    def _memo(self, what: str, kind: str, compute):
        # per-kind lookups run for every record on every lint: worked out once
        # (the schema is not changed after it is loaded; callers must not
        # change what these return)
        memo = self._per_kind
        key = (what, kind)
        if key not in memo:
            memo[key] = compute(kind)
        return memo[key]

    def relations_from(self, kind: str) -> dict[str, Relation]:
        """The relations a record of ``kind`` may declare (shared: do not change it)."""
        return self._memo("relations_from", kind, self._relations_from)

    def _relations_from(self, kind: str) -> dict[str, Relation]:
        return {n: r for n, r in self.relations.items() if r.allows_source(kind)}

    def fields_for(self, kind: str) -> dict[str, dict]:
        """Every field a record of ``kind`` may carry: common, own, relations
        (shared: do not change it)."""
        return self._memo("fields_for", kind, self._fields_for)

    def _fields_for(self, kind: str) -> dict[str, dict]:
        out = dict(self.common_fields)
        k = self.kinds.get(kind)
        if k:
            out.update(k.fields)
        for name, rel in self.relations_from(kind).items():
            if name not in out:
                out[name] = {"type": ["string", "array"], "items": {"type": "string"},
                             "list": True, "relation": True}
        return out

    def required_fields(self, kind: str) -> list[str]:
        """Required fields of ``kind``, relations included (shared: do not change it)."""
        return self._memo("required_fields", kind, self._required_fields)

    def _required_fields(self, kind: str) -> list[str]:
        out = [n for n, f in self.fields_for(kind).items() if f.get("required") is True]
        out += [n for n, r in self.relations_from(kind).items() if r.required and n not in out]
        return out

    def validator(self, kind: str):
        """A compiled JSON-Schema validator for a kind's front matter."""
        cache = self._validators
        if kind not in cache:
            import jsonschema
            props = {}
            for name, spec in self.fields_for(kind).items():
                props[name] = {k: v for k, v in spec.items()
                               if k not in ("list", "relation") and not (k == "required" and isinstance(v, bool))}
            base = jsonschema.Draft202012Validator
            checker = base.TYPE_CHECKER.redefine("date", _is_date)
            cls = jsonschema.validators.extend(base, type_checker=checker)
            cache[kind] = cls({"type": "object", "properties": props})
        return cache[kind]

    def fast_validator(self, kind: str):
        """A compiled yes/no check of a kind's front matter (fastjsonschema,
        ~30x faster than jsonschema's ``is_valid``); only a record it rejects
        goes to :meth:`validator` for the detailed errors.  ``date`` fields
        are left to the date rule, as JSON has no date type."""
        cache = self._fast
        if kind not in cache:
            try:
                import fastjsonschema
            except ImportError:  # pragma: no cover - a declared dependency
                v = self.validator(kind)
                cache[kind] = v.is_valid
                return cache[kind]
            props = {}
            for name, spec in self.fields_for(kind).items():
                spec = {k: v for k, v in spec.items()
                        if k not in ("list", "relation") and not (k == "required" and isinstance(v, bool))}
                props[name] = {} if _mentions_date(spec) else spec
            check = fastjsonschema.compile({"type": "object", "properties": props})

            def is_valid(data, _check=check):
                try:
                    _check(data)
                    return True
                except fastjsonschema.JsonSchemaException:
                    return False
                except Exception:  # a value fastjsonschema cannot handle: ask jsonschema
                    return False

            cache[kind] = is_valid
        return cache[kind]

    def to_dict(self) -> dict:
        return copy.deepcopy(self.raw)


def _mentions_date(spec) -> bool:
    if isinstance(spec, dict):
        t = spec.get("type")
        if t == "date" or (isinstance(t, list) and "date" in t):
            return True
        return any(_mentions_date(v) for v in spec.values())
    if isinstance(spec, list):
        return any(_mentions_date(v) for v in spec)
    return False


def default_schema_raw() -> dict:
    text = resources.files("recordkit.schema").joinpath("default.yaml").read_text(encoding="utf-8")
    return yaml.load(text, Loader=SafeLoader)


def load_schema(path: str | Path | None = None) -> Schema:
    """The default schema, with the user file at ``path`` merged over it."""
    raw = default_schema_raw()
    source = "default"
    if path:
        p = Path(path)
        try:
            user = yaml.load(p.read_text(encoding="utf-8"), Loader=SafeLoader) or {}
        except (OSError, UnicodeDecodeError) as exc:
            raise SchemaError(f"{p}: cannot read the schema file: {exc}") from exc
        except yaml.YAMLError as exc:
            raise SchemaError(f"{p}: the schema file is not valid YAML: {exc}") from exc
        if not isinstance(user, dict):
            raise SchemaError(f"{p}: the schema file must be a mapping")
        if user.pop("replace", False):
            raw = user
        else:
            raw = _merge(raw, user)
        source = str(p)
    return Schema(raw, source=source)


__all__ = ["Schema", "SchemaError", "Relation", "Kind", "Section", "load_schema"]
