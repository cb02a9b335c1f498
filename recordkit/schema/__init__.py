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
from fnmatch import fnmatchcase
from importlib import resources
from pathlib import Path
from ..config import symlink_loop

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


def _check_epochs(where: str, fields) -> None:
    """Each field's options are a mapping; a ``date`` field's ``epoch``
    option names a unit; only a date field has one."""
    if not isinstance(fields, dict):
        return
    for name, spec in fields.items():
        if not isinstance(spec, dict):
            raise SchemaError(f"{where}.{name} must be a mapping of the field's options (type, required, "
                              f"relation, ...), not {_show(spec)}")
        if not isinstance(spec, dict) or "epoch" not in spec:
            continue
        t = spec.get("type")
        if t != "date" and not (isinstance(t, list) and "date" in t):
            raise SchemaError(f"{where}.{name}.epoch: only a field of type date may have an epoch unit")
        if spec["epoch"] not in EPOCH_WORDS:
            raise SchemaError(f"{where}.{name}.epoch must be ms (milliseconds since 1970) or s (seconds), "
                              f"not {_show(spec['epoch'])}")


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
    #: the compiled ``id_pattern``, or None when the schema has none
    id_re: re.Pattern | None = field(init=False, repr=False)
    #: ``id_from``: ordered (source, argument) pairs: ("field", NAME), ("stem", None), ("path", None)
    id_from: tuple = field(init=False)
    #: ``kind_from``: ordered :class:`KindSource` entries
    kind_from: tuple = field(init=False)
    #: ``title_from``: ordered (source, argument) pairs: ("field", NAME), ("h1", None), ("stem", None)
    title_from: tuple = field(init=False)
    #: ``front_matter``: whether a file needs front matter to be a record
    #: (RK101); by default only when ``id_from`` reads nothing but fields
    front_matter_required: bool = field(init=False)
    #: ``links``: how link text is matched to records (the resolver reads it)
    links: "LinkSettings" = field(init=False)
    #: ``pages``: globs of files that are pages (an index, a template), not
    #: typed records: read for their links, linkable, but of no kind
    page_globs: tuple[str, ...] = field(init=False)
    #: ``unique``: the values no two records may share (RK111), as
    #: (source, argument) pairs: ("field", NAME) or ("pattern", GROUP)
    unique: tuple = field(init=False)
    #: ``tags.pattern``, compiled (RK206)
    tag_re: re.Pattern = field(init=False, repr=False)
    #: ``tags.inline``: a body's ``#tags`` are its record's tags too
    inline_tags: bool = field(init=False, repr=False, default=False)
    #: ``comments: [percent]``: Obsidian's ``%% … %%`` are comments
    percent_comments: bool = field(init=False, repr=False, default=False)
    #: ``line_breaks: true``: a single line break in a body is a line break
    #: on the site (Obsidian's reading view, its "Strict line breaks" off)
    line_breaks: bool = field(init=False, repr=False, default=False)
    #: ``claims_table.kinds``: the kinds whose records hold a claims table
    claims_kinds: tuple[str, ...] = field(init=False)
    #: the new ``derive`` form: relations derived from a field's value by a
    #: pattern with a ``target`` group (``derive`` keeps the older form)
    derive_patterns: list = field(init=False)
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
        _known_keys(raw)
        self.id_re = _id_pattern(raw)
        self.common_fields = dict(_mapping("fields", raw.get("fields"), "field name: its type and options"))
        _check_epochs("fields", self.common_fields)
        self.kinds = {}
        for name, k in _mapping("kinds", raw.get("kinds"), "kind name: its statuses, fields, ...").items():
            k = k or {}
            if not isinstance(k, dict):
                raise SchemaError(f"kinds.{name} must be a mapping (statuses, fields, ...)")
            for key in k:
                if key not in KIND_KEYS:
                    raise _unknown(f"kinds.{name}: ", key, KIND_KEYS)
            if not k.get("statuses"):
                raise SchemaError(f"kind {name} has no statuses")
            statuses = _names(f"kinds.{name}.statuses", k["statuses"], "[draft, final]", one_string=False)
            _mapping(f"kinds.{name}.fields", k.get("fields"), "field name: its type and options")
            _text_value(f"kinds.{name}.description", k.get("description"), "")
            _folder_value(f"kinds.{name}.dir", k.get("dir"))
            if not isinstance(k.get("sections") or [], list):
                raise SchemaError(f"kinds.{name}.sections must be a list of section titles, not "
                                  f"{_show(k['sections'])}")
            for s in k.get("sections") or []:
                if not (isinstance(s, str) or (isinstance(s, dict) and isinstance(s.get("title"), str))):
                    raise SchemaError(f"kinds.{name}.sections: each section is a title, or a mapping with a "
                                      f"title (and statuses), not {_show(s)}")
                if isinstance(s, dict):
                    _names(f"kinds.{name}.sections.{s['title']}.statuses", s.get("statuses"), "[final]",
                           one_string=False)
            if k.get("color") is not None and not valid_color(k["color"]):
                from ..common.text import yaml_text
                raise SchemaError(f"kinds.{name}.color: {yaml_text(k['color'])} is not a colour (use #rgb, "
                                  "#rrggbb, #rrggbbaa, rgb()/hsl() of numbers, or a CSS colour name)")
            _check_epochs(f"kinds.{name}.fields", k.get("fields"))
            sections = []
            for s in k.get("sections") or []:
                if isinstance(s, str):
                    s = {"title": s}
                sections.append(Section(s["title"], tuple(_names("", s.get("statuses"), "", one_string=False))))
            self.kinds[name] = Kind(name=name, statuses=tuple(statuses),
                                    fields=dict(k.get("fields") or {}), sections=tuple(sections),
                                    description=k.get("description", ""), color=k.get("color"),
                                    dir=k.get("dir") or name.lower())
        self.relations = {}
        for name, r in _mapping("relations", raw.get("relations"), "relation name: from, to, max, ...").items():
            r = r or {}
            if not isinstance(r, dict):
                raise SchemaError(f"relations.{name} must be a mapping (from, to, max, label, ...), not {_show(r)}")
            for key in r:
                if key not in RELATION_KEYS:
                    raise _unknown(f"relations.{name}: ", key, RELATION_KEYS)
            if "label" not in r:
                r = {**r, "label": f"{name} by"}
            r = {**r, "from": _names(f"relations.{name}.from", r.get("from"), "[NOTE, THEORY]") or None,
                 "to": _names(f"relations.{name}.to", r.get("to"), "[LIT]") or None,
                 "required_when": _names(f"relations.{name}.required_when", r.get("required_when"), "[active]"),
                 "label": _text_value(f"relations.{name}.label", r["label"], f"{name} by"),
                 "max": _count(f"relations.{name}.max", r.get("max"), None),
                 "min": _count(f"relations.{name}.min", r.get("min"), 0)}
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
        self.id_from = _sources(raw, "id_from", ("field", "stem", "path"), [("field", "id")])
        self.title_from = _sources(raw, "title_from", ("field", "h1", "stem"), [("field", "title")])
        self.kind_from = _kind_sources(raw, self.kinds)
        fm = raw.get("front_matter")
        if fm is None:
            self.front_matter_required = all(src == "field" for src, _ in self.id_from)
        elif fm in ("required", "optional"):
            self.front_matter_required = fm == "required"
        else:
            raise SchemaError(f"front_matter must be required or optional, not {_show(fm)}")
        self.links = _links(raw.get("links"))
        self.page_globs = _pages(raw.get("pages"))
        self.unique = _unique(raw.get("unique"), self.id_re)
        self.tag_re = _tag_pattern(raw.get("tags"))
        self.inline_tags = _inline_tags(raw.get("tags"))
        self.percent_comments = _comments(raw.get("comments"))
        lb = raw.get("line_breaks", False)
        if not isinstance(lb, bool):
            raise SchemaError(f"line_breaks must be true or false, not {_show(lb)}")
        self.line_breaks = lb
        self.derive, self.derive_patterns = _derive(raw.get("derive"))
        self.claims_kinds = _claims_kinds(raw.get("claims_table"), self.kinds)
        mention = _mapping("mention", raw.get("mention"), "relation, label")
        self.mention_relation = _text_value("mention.relation", mention.get("relation"), "mentions")
        self.mention_label = _text_value("mention.label", mention.get("label"), "Mentioned by")
        self.broken_statuses = tuple(_names("broken_statuses", raw.get("broken_statuses"), "[rejected]"))
        ct = raw.get("claims_table") or {}
        self.claims_section = _text_value("claims_table.section", ct.get("section"), "Claims")
        self.claims_columns = tuple(_names("claims_table.columns", ct["columns"], "[id, claim, strength, support]")
                                    if "columns" in ct else ("id", "claim", "strength", "support"))
        self.claims_strengths = tuple(_names("claims_table.strengths", ct["strengths"], "[strong, moderate, weak]")
                                      if "strengths" in ct else ("strong", "moderate", "weak"))
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
        if kinds:
            self.mention_targets_re = re.compile(r"-(?:%s)([0-9]{3,})(?![\w-])" % behind)
        else:
            # no kinds: a token is "-NNN", with the scanner's left boundary
            # (no word character or hyphen before it); the number is the only group
            self.mention_targets_re = re.compile(r"(?<![\w-])-([0-9]{3,})(?![\w-])")

    # -- lookups -----------------------------------------------------------
    @property
    def kind_ids(self) -> bool:
        """Whether ids are ``KIND-NNN`` tokens (an ``id_pattern`` with a
        ``kind`` group), as in the research record; else a vault's, whose
        ids are paths or file names (``rename`` moves a note, ``new`` names
        it after its title)."""
        return self.id_re is not None and "kind" in self.id_re.groupindex

    def kind_of(self, record_id: str) -> str | None:
        """The kind named by the ``kind`` group of ``id_pattern`` in an id, or
        None (a malformed id, no pattern, or a pattern without that group)."""
        m = self.id_re.match(record_id) if isinstance(record_id, str) and self.id_re is not None else None
        if m is None or "kind" not in self.id_re.groupindex:
            return None
        return m.group("kind")

    def id_matches(self, record_id) -> bool:
        """Whether ``record_id`` is of the schema's id pattern (always, when
        the schema has none)."""
        if self.id_re is None:
            return isinstance(record_id, str)
        return isinstance(record_id, str) and self.id_re.match(record_id) is not None

    def is_page(self, relpath: str) -> bool:
        """Whether the file at ``relpath`` (relative to the root,
        ``/``-separated) is one of the schema's ``pages``: a pattern with no
        ``/`` is matched against the file name, one with a ``/`` against the
        whole path; letter case is ignored (``README.md``, ``readme.md``)."""
        if not self.page_globs:
            return False
        memo = self._per_kind
        key = ("page", relpath)
        got = memo.get(key)
        if got is None:
            low = relpath.lower()
            name = low.rsplit("/", 1)[-1]
            got = any(fnmatchcase(low if "/" in g else name, g) for g in self.page_globs)
            memo[key] = got
        return got

    @property
    def id_pattern(self) -> str | None:
        """``id_pattern`` as written, or None."""
        return self.id_re.pattern if self.id_re is not None else None

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
                out[name] = {"type": ["string", "array", "null"], "items": {"type": "string"},
                             "list": True, "relation": True}
        for name in self.source_fields:
            out.setdefault(name, {})    # read for the id, kind or title: known, of any type
        return out

    def epoch_unit(self, kind, name: str) -> str | None:
        """The ``epoch`` unit ("ms" or "s") of the date field ``name`` for a
        record of ``kind`` (None: no such field, or a date written as a
        date)."""
        memo = self._per_kind
        key = ("epoch", (kind, name))
        if key not in memo:
            spec = self.fields_for(kind).get(name) if kind in self.kinds else self.common_fields.get(name)
            memo[key] = spec.get("epoch") if isinstance(spec, dict) else None
        return memo[key]

    def date_text(self, kind, name: str, value) -> str | None:
        """The value of the field ``name`` as ISO text: a date (or a
        date-time) as YAML read it, a string as written, a whole number of
        milliseconds or seconds where the field's spec says ``epoch:`` as
        its UTC date; None otherwise."""
        if isinstance(value, (_dt.date, _dt.datetime)):
            return value.isoformat()
        if isinstance(value, str):
            return value
        if isinstance(value, int) and not isinstance(value, bool):
            unit = self.epoch_unit(kind, name)
            if unit is not None:
                d = epoch_date(value, unit)
                return d.isoformat() if d is not None else None
        return None

    @property
    def source_fields(self) -> tuple[str, ...]:
        """The front-matter fields ``id_from``, ``kind_from``, ``title_from``
        and the pattern ``derive`` rules read."""
        names = [a for s, a in self.id_from + self.title_from if s == "field"]
        names += [k.arg for k in self.kind_from if k.source == "field"]
        names += [d.field for d in self.derive_patterns]
        return tuple(dict.fromkeys(names))

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
            props = self._json_schemas(kind)
            self._check_field_specs(kind, props)
            base = jsonschema.Draft202012Validator
            checker = base.TYPE_CHECKER.redefine("date", _is_date)
            cls = jsonschema.validators.extend(base, type_checker=checker)
            cache[kind] = cls({"type": "object", "properties": props})
        return cache[kind]

    def _json_schemas(self, kind: str) -> dict:
        """Each field of ``kind``: its options that are JSON Schema (not
        recordkit's own ``list``, ``relation``, ``epoch``, ``required: true``)."""
        return {name: {k: v for k, v in spec.items()
                       if k not in ("list", "relation", "epoch") and not (k == "required" and isinstance(v, bool))}
                for name, spec in self.fields_for(kind).items()}

    def _check_field_specs(self, kind: str, props: dict) -> None:
        """A SchemaError naming the first field of ``kind`` whose options are
        not valid JSON Schema (``type: strin``, ``minimum: "a"``, a
        ``pattern`` that does not compile).  Called where a validator is
        made, which a schema that loads does not otherwise check."""
        import jsonschema
        for name, spec in props.items():
            try:
                jsonschema.Draft202012Validator.check_schema(_date_as_string(spec))
                for pattern in _patterns(spec):
                    re.compile(pattern)
            except jsonschema.SchemaError as exc:
                path = ".".join(str(x) for x in exc.absolute_path)
                raise SchemaError(f"schema: field {name} of kind {kind}{': ' + path if path else ''}: not a valid "
                                  f"field type: {exc.message}") from None
            except re.error as exc:
                raise SchemaError(f"schema: field {name} of kind {kind}: pattern does not compile: {exc}") from None

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
            specs = self._json_schemas(kind)
            props = {name: {} if _mentions_date(spec) else spec for name, spec in specs.items()}
            try:
                check = fastjsonschema.compile({"type": "object", "properties": props})
            except Exception as exc:
                # options that are not JSON Schema: the field they belong to
                self._check_field_specs(kind, specs)
                raise SchemaError(f"schema: the fields of kind {kind} are not valid JSON Schema: {exc}") from None

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


DEFAULT_ID_PATTERN = r"^(?P<kind>[A-Z][A-Z0-9_]*)-(?P<number>[0-9]{3,})$"
#: today's tag rule (RK206): kebab case
DEFAULT_TAG_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
LINK_SOURCES = ("id", "path", "stem", "title", "aliases")
WIKILINK_ORDERS = ("target-first", "label-first")


def _show(value) -> str:
    from ..common.text import yaml_text
    return yaml_text(value)


def _mapping(where: str, value, what: str) -> dict:
    """``value`` (None: empty) if it is a mapping, else a SchemaError at ``where``."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise SchemaError(f"{where} must be a mapping ({what}), not {_show(value)}")
    return value


def _names(where: str, value, example: str, one_string: bool = True) -> list:
    """``value`` (None: empty; one string: a list of it, unless not
    ``one_string``) if it is a list of strings, else a SchemaError at
    ``where``.  Statuses are never one string: a kind's statuses written
    ``statuses: queued`` were read as the letters q, u, e, u, e, d."""
    if value is None:
        return []
    if isinstance(value, str):
        if not one_string:
            raise SchemaError(f"{where} must be a list of names, such as {example}, not {_show(value)} "
                              f"(write [{value}] for one)")
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SchemaError(f"{where} must be a list of names, such as {example}, not {_show(value)}")
    return value


def _text_value(where: str, value, default: str) -> str:
    if value is None:
        return default
    if not isinstance(value, str):
        raise SchemaError(f"{where} must be a string, not {_show(value)}")
    return value


def _folder_value(where: str, value) -> None:
    """A kind's ``dir``: a folder under the record root (``recordkit new``
    writes there), so no absolute path and no ``..``."""
    _text_value(where, value, "")
    if not value:
        return
    import posixpath
    import ntpath
    parts = value.replace("\\", "/").split("/")
    if posixpath.isabs(value) or ntpath.isabs(value) or ".." in parts:
        raise SchemaError(f"{where} must be a folder under the record root (such as lit or notes/lit), not "
                          f"{_show(value)}: `recordkit new` would write outside the record")


def _count(where: str, value, default):
    """A relation's ``max`` or ``min``: a non-negative integer (or None for no bound)."""
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SchemaError(f"{where} must be a whole number of at least 0, not {_show(value)}")
    return value


def _regex(key: str, pattern) -> re.Pattern:
    """The schema value ``pattern`` (at ``key``) compiled, or a
    configuration error naming the key."""
    if not isinstance(pattern, str) or not pattern:
        raise SchemaError(f"{key} must be a regular expression written as a string, not {_show(pattern)}")
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise SchemaError(f"{key} {pattern} is not a valid regular expression: {exc}") from exc


def _id_pattern(raw: dict) -> re.Pattern | None:
    if "id_pattern" not in raw or raw["id_pattern"] is None:
        return None
    return _regex("id_pattern", raw["id_pattern"])


#: the keys a schema file may have at its top, and in its ``graph``,
#: ``mention`` and ``claims_table`` mappings
TOP_KEYS = ("extends", "replace", "id_pattern", "id_from", "kind_from", "title_from", "front_matter", "pages",
            "unique", "links", "tags", "fields", "kinds", "relations", "derive", "mention", "broken_statuses",
            "graph", "claims_table", "comments", "line_breaks")
KIND_KEYS = ("statuses", "fields", "sections", "description", "color", "dir")
RELATION_KEYS = ("from", "to", "max", "min", "required", "required_when", "acyclic", "symmetric", "builds_on",
                 "label", "color")
SUB_KEYS = {"graph": ("faded_statuses", "tentative_statuses"),
            "mention": ("relation", "label"),
            "claims_table": ("section", "columns", "strengths", "kinds")}


def _unknown(where: str, key, known) -> SchemaError:
    from ..common.didyoumean import near_words
    near = near_words(str(key), known)
    hint = f" (did you mean {near[0]}?)" if near else ""
    return SchemaError(f"{where}unknown key {_show(key)}{hint}: the known keys are {', '.join(known)}")


def _known_keys(raw: dict) -> None:
    """Every key at the schema's top, and in its ``graph``, ``mention`` and
    ``claims_table``, is one recordkit reads: a misspelt one would be
    ignored without a word."""
    for key in raw:
        if key not in TOP_KEYS:
            raise _unknown("", key, TOP_KEYS)
    for name, known in SUB_KEYS.items():
        value = raw.get(name)
        if value is None:
            continue
        if not isinstance(value, dict):
            raise SchemaError(f"{name} must be a mapping ({', '.join(known)}), not {_show(value)}")
        for key in value:
            if key not in known:
                raise _unknown(f"{name}: ", key, known)
    graph = raw.get("graph") or {}
    for key in SUB_KEYS["graph"]:
        v = graph.get(key)
        if v is not None and (not isinstance(v, list) or not all(isinstance(x, str) for x in v)):
            raise SchemaError(f"graph.{key} must be a list of statuses, not {_show(v)}")


def _pages(value) -> tuple[str, ...]:
    """``pages``: a list of file globs (lower-cased for matching)."""
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise SchemaError(f"pages must be a list of file globs (README.md, index.md, 'drafts/*.md'), "
                          f"not {_show(value)}")
    out = []
    for i, g in enumerate(value):
        if not isinstance(g, str) or not g.strip():
            raise SchemaError(f"pages[{i}]: {_show(g)} is not a file glob: write one such as README.md "
                              "or 'templates/*.md'")
        g = g.strip().lstrip("/")
        if g.startswith("./"):
            g = g[2:]
        out.append(g.lower())
    return tuple(out)


def _unique(value, id_re) -> tuple:
    """``unique``: ``field:NAME`` (a front-matter field) or ``pattern:GROUP``
    (a named group of ``id_pattern``, read from each record's id)."""
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise SchemaError(f"unique must be a list of field:NAME or pattern:GROUP, not {_show(value)}")
    out = []
    for i, item in enumerate(value):
        name, sep, arg = item.partition(":") if isinstance(item, str) else ("", "", "")
        name, arg = name.strip(), arg.strip()
        if not sep or name not in ("field", "pattern") or not arg:
            raise SchemaError(f"unique[{i}]: {_show(item)} is not a value to keep unique: use field:NAME "
                              "(a front-matter field) or pattern:GROUP (a group of id_pattern)")
        if name == "pattern":
            if id_re is None:
                raise SchemaError(f"unique[{i}]: {item} names a group of id_pattern, but the schema has no "
                                  "id_pattern")
            if arg not in id_re.groupindex:
                groups = ", ".join(id_re.groupindex) or "none"
                raise SchemaError(f"unique[{i}]: id_pattern has no group named {arg} (its groups: {groups})")
        pair = (name, arg)
        if pair in out:
            raise SchemaError(f"unique names {item} twice")
        out.append(pair)
    return tuple(out)


def _sources(raw: dict, key: str, allowed: tuple[str, ...], default: list) -> tuple:
    """``id_from`` / ``title_from``: a list of ``field:NAME`` or a plain source
    name, as ``(source, argument)`` pairs."""
    value = raw.get(key)
    if value is None:
        return tuple(default)
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value:
        raise SchemaError(f"{key} must be a list of sources ({', '.join(_source_forms(allowed))}), "
                          f"not {_show(value)}")
    out = []
    for i, item in enumerate(value):
        if not isinstance(item, str):
            raise SchemaError(f"{key}[{i}]: {_show(item)} is not a source: use one of "
                              f"{', '.join(_source_forms(allowed))}")
        name, sep, arg = item.partition(":")
        name, arg = name.strip(), arg.strip()
        if name == "field" and "field" in allowed:
            if not arg:
                raise SchemaError(f"{key}[{i}]: `field:` needs the name of a front-matter field, as in field:id")
            out.append(("field", arg))
        elif name in allowed and name != "field" and not sep:
            out.append((name, None))
        else:
            raise SchemaError(f"{key}[{i}]: {_show(item)} is not a source: use one of "
                              f"{', '.join(_source_forms(allowed))}")
    return tuple(out)


def _source_forms(allowed) -> list[str]:
    return ["field:NAME" if a == "field" else a for a in allowed]


@dataclass(frozen=True)
class KindSource:
    """One entry of ``kind_from``.  ``source``: "pattern" (``arg`` the group
    of ``id_pattern``), "field" (``arg`` the field name), "folder" (``arg``
    the folder's depth, 1 = top level), "prefix" (``arg`` the separator) or
    "default" (``arg`` the kind).  ``map``: lower-cased value -> kind."""
    source: str
    arg: object
    map: dict | None = None


_KIND_SOURCE_KEYS = ("pattern", "field", "folder", "prefix", "default")


def _kind_sources(raw: dict, kinds: dict) -> tuple:
    value = raw.get("kind_from")
    if value is None:
        value = [{"pattern": "kind"}]
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        raise SchemaError(f"kind_from must be a list of sources ({{pattern: GROUP}}, {{field: NAME, map: ...}}, "
                          f"{{folder: N, map: ...}}, {{prefix: SEP, map: ...}}, {{default: KIND}}), not {_show(value)}")
    known = ", ".join(kinds) or "none"
    out = []
    for i, item in enumerate(value):
        where = f"kind_from[{i}]"
        if not isinstance(item, dict):
            raise SchemaError(f"{where}: {_show(item)} is not a source: write a mapping such as {{field: type}}")
        sources = [k for k in _KIND_SOURCE_KEYS if k in item]
        extra = sorted(set(item) - set(_KIND_SOURCE_KEYS) - {"map"})
        if len(sources) != 1 or extra:
            what = f"unknown key(s) {', '.join(map(str, extra))}" if extra else (
                "more than one source" if sources else "no source")
            raise SchemaError(f"{where}: {what}: name one of {', '.join(_KIND_SOURCE_KEYS)} (and, but for "
                              "pattern and default, an optional map)")
        src = sources[0]
        arg = item[src]
        if src == "pattern":
            if not isinstance(arg, str) or not arg.isidentifier():
                raise SchemaError(f"{where}.pattern must name a group of id_pattern, such as kind, "
                                  f"not {_show(arg)}")
        elif src == "field":
            if not isinstance(arg, str) or not arg.strip():
                raise SchemaError(f"{where}.field must be the name of a front-matter field, not {_show(arg)}")
        elif src == "folder":
            if isinstance(arg, bool) or not isinstance(arg, int) or arg < 1:
                raise SchemaError(f"{where}.folder must be a folder depth, 1 for the top-level folder under "
                                  f"the root, not {_show(arg)}")
        elif src == "prefix":
            if not isinstance(arg, str) or not arg:
                raise SchemaError(f"{where}.prefix must be the separator that ends the prefix, such as '.', "
                                  f"not {_show(arg)}")
        elif src == "default":
            if not isinstance(arg, str) or arg not in kinds:
                raise SchemaError(f"{where}.default: {_show(arg)} is not a kind of the schema (kinds: {known})")
        mapping = None
        if "map" in item:
            if src in ("pattern", "default"):
                raise SchemaError(f"{where}: a map is for field, folder and prefix sources, not {src}")
            m = item["map"]
            if not isinstance(m, dict):
                raise SchemaError(f"{where}.map must be a mapping of values to kinds, not {_show(m)}")
            mapping = {}
            for k, v in m.items():
                if not isinstance(v, str) or v not in kinds:
                    raise SchemaError(f"{where}.map: {_show(k)}: {_show(v)} is not a kind of the schema "
                                      f"(kinds: {known})")
                mapping[str(k).strip().lower()] = v
        out.append(KindSource(src, arg, mapping))
    return tuple(out)


@dataclass(frozen=True)
class LinkSettings:
    """``links``: how a link's text is matched to a record (the resolver's
    settings).  The defaults are the research record's: ids only, exact."""
    resolve: tuple[str, ...] = ("id",)
    case_sensitive: bool = True
    wikilink_order: str = "target-first"
    markdown_links: bool = False
    mentions: bool = True
    #: a Markdown link's path without an extension names the note
    #: ``path.md`` (``[a](Note%20One)``: Obsidian resolves it)
    markdown_extensionless: bool = False
    #: ``((sigil, prefix), ...)``: ``#name`` (``@name``) in a body links to
    #: the note ``prefix + name`` when there is one (Dendron's ``#tag`` is
    #: ``[[tags.tag]]``, ``@name`` ``[[user.name]]``)
    sigils: tuple = ()


def _links(value) -> LinkSettings:
    if value is None:
        return LinkSettings()
    if not isinstance(value, dict):
        raise SchemaError(f"links must be a mapping (resolve, case_sensitive, wikilink_order, markdown_links, "
                          f"mentions), not {_show(value)}")
    known = ("resolve", "case_sensitive", "wikilink_order", "markdown_links", "mentions", "markdown_extensionless",
             "sigils")
    extra = sorted(str(k) for k in value if k not in known)
    if extra:
        raise SchemaError(f"links: unknown key(s) {', '.join(extra)} (known: {', '.join(known)})")
    kw = {}
    if "resolve" in value:
        r = value["resolve"]
        if isinstance(r, str):
            r = [r]
        if not isinstance(r, list) or not r or any(x not in LINK_SOURCES for x in r):
            raise SchemaError(f"links.resolve must be a list of {', '.join(LINK_SOURCES)}, "
                              f"not {_show(value['resolve'])}")
        if len(set(r)) != len(r):
            raise SchemaError(f"links.resolve names a source twice: {_show(r)}")
        kw["resolve"] = tuple(r)
    for key in ("case_sensitive", "markdown_links", "mentions", "markdown_extensionless"):
        if key in value:
            if not isinstance(value[key], bool):
                raise SchemaError(f"links.{key} must be true or false, not {_show(value[key])}")
            kw[key] = value[key]
    if "wikilink_order" in value:
        if value["wikilink_order"] not in WIKILINK_ORDERS:
            raise SchemaError(f"links.wikilink_order must be {' or '.join(WIKILINK_ORDERS)}, "
                              f"not {_show(value['wikilink_order'])}")
        kw["wikilink_order"] = value["wikilink_order"]
    if "sigils" in value:
        sig = value["sigils"]
        if not isinstance(sig, dict) or any(k not in ("#", "@") or not isinstance(v, str) or not v.strip()
                                             for k, v in sig.items()):
            raise SchemaError(f"links.sigils must map '#' or '@' to the prefix of the notes they name "
                              f"({{'#': tags., '@': user.}}), not {_show(sig)}")
        kw["sigils"] = tuple(sorted(sig.items()))
    return LinkSettings(**kw)


def _tag_pattern(value) -> re.Pattern:
    if value is None:
        return re.compile(DEFAULT_TAG_PATTERN)
    if not isinstance(value, dict):
        raise SchemaError(f"tags must be a mapping (pattern, inline), not {_show(value)}")
    extra = sorted(str(k) for k in value if k not in ("pattern", "inline"))
    if extra:
        raise SchemaError(f"tags: unknown key(s) {', '.join(extra)} (known: pattern, inline)")
    if not isinstance(value.get("inline", False), bool):
        raise SchemaError(f"tags.inline must be true or false, not {_show(value.get('inline'))}")
    return _regex("tags.pattern", value.get("pattern", DEFAULT_TAG_PATTERN))


def _comments(value) -> bool:
    """``comments``: a list of the comment syntaxes beyond HTML's a body
    has; ``percent`` (Obsidian's ``%% … %%``) is the one there is."""
    if value is None:
        return False
    if not isinstance(value, list) or not all(v == "percent" for v in value):
        raise SchemaError(f"comments must be a list of comment syntaxes (percent: Obsidian's %% … %%), "
                          f"not {_show(value)}")
    return "percent" in value


def _inline_tags(value) -> bool:
    """``tags.inline``: whether ``#tag`` in a body is a tag of its note (as
    Obsidian and Foam read one)."""
    return bool(value.get("inline")) if isinstance(value, dict) else False


@dataclass(frozen=True)
class DerivePattern:
    """A relation derived from a field's value: where ``regex`` (with a
    ``target`` group) matches the value of ``field`` (a string, or each
    string of a list), the target's text is resolved as a link."""
    relation: str
    field: str
    regex: re.Pattern


def _derive(value) -> tuple[list, list]:
    """``derive``: (the entries of the older form, as dicts; the
    :class:`DerivePattern` entries of the new form)."""
    if value is None:
        return [], []
    if not isinstance(value, list):
        raise SchemaError(f"derive must be a list of rules, not {_show(value)}")
    old, new = [], []
    for i, item in enumerate(value):
        where = f"derive[{i}]"
        if not isinstance(item, dict):
            raise SchemaError(f"{where}: {_show(item)} is not a rule: write a mapping")
        rel = item.get("relation")
        if not isinstance(rel, str) or not rel:
            raise SchemaError(f"{where}.relation must name the relation the rule makes, not {_show(rel)}")
        if "pattern" in item or "field" in item:
            extra = sorted(str(k) for k in item if k not in ("relation", "field", "pattern"))
            if extra:
                raise SchemaError(f"{where}: unknown key(s) {', '.join(extra)} (a pattern rule has relation, "
                                  "field, pattern)")
            f, pattern = item.get("field"), item.get("pattern")
            if not isinstance(f, str) or not f:
                raise SchemaError(f"{where}.field must name a front-matter field, not {_show(f)}")
            regex = _regex(f"{where}.pattern", pattern)
            if "target" not in regex.groupindex:
                raise SchemaError(f"{where}.pattern {pattern} has no group named target: name the part that "
                                  "names the record, as in (?P<target>.+)")
            new.append(DerivePattern(rel, f, regex))
        else:
            extra = sorted(str(k) for k in item if k not in ("relation", "from_field", "match_fields", "kind"))
            if extra:
                raise SchemaError(f"{where}: unknown key(s) {', '.join(extra)} (a rule has relation, from_field, "
                                  "match_fields, kind; or relation, field, pattern)")
            ff, mf = item.get("from_field"), item.get("match_fields")
            if not isinstance(ff, str) or not ff:
                raise SchemaError(f"{where}.from_field must name a front-matter field, not {_show(ff)}")
            if not isinstance(mf, list) or not mf or not all(isinstance(x, str) for x in mf):
                raise SchemaError(f"{where}.match_fields must be a list of field names, not {_show(mf)}")
            if item.get("kind") is not None and not isinstance(item["kind"], str):
                raise SchemaError(f"{where}.kind must be a kind's name, not {_show(item['kind'])}")
            old.append(dict(item))
    return old, new


def _claims_kinds(ct, kinds: dict) -> tuple[str, ...]:
    if ct is None:
        ct = {}
    if not isinstance(ct, dict):
        raise SchemaError(f"claims_table must be a mapping (section, columns, strengths, kinds), not {_show(ct)}")
    if "kinds" not in ct:
        return tuple(k for k in ("NOTE",) if k in kinds)
    value = ct["kinds"]
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise SchemaError(f"claims_table.kinds must be a list of kinds, not {_show(value)}")
    for k in value:
        if not isinstance(k, str) or k not in kinds:
            raise SchemaError(f"claims_table.kinds: {_show(k)} is not a kind of the schema "
                              f"(kinds: {', '.join(kinds) or 'none'})")
    return tuple(value)


def _date_as_string(spec):
    """``spec`` with the type ``date`` (ours, not JSON Schema's) read as ``string``."""
    if isinstance(spec, dict):
        out = {k: _date_as_string(v) for k, v in spec.items()}
        t = spec.get("type")
        if t == "date":
            out["type"] = "string"
        elif isinstance(t, list):
            out["type"] = ["string" if x == "date" else x for x in t]
        return out
    if isinstance(spec, list):
        return [_date_as_string(v) for v in spec]
    return spec


def _patterns(spec):
    """Every ``pattern`` string in a field's options."""
    if isinstance(spec, dict):
        for k, v in spec.items():
            if k == "pattern" and isinstance(v, str):
                yield v
            else:
                yield from _patterns(v)
    elif isinstance(spec, list):
        for v in spec:
            yield from _patterns(v)


def _mentions_date(spec) -> bool:
    if isinstance(spec, dict):
        t = spec.get("type")
        if t == "date" or (isinstance(t, list) and "date" in t):
            return True
        return any(_mentions_date(v) for v in spec.values())
    if isinstance(spec, list):
        return any(_mentions_date(v) for v in spec)
    return False


PRESET_PREFIX = "preset:"


def default_schema_raw() -> dict:
    text = resources.files("recordkit.schema").joinpath("default.yaml").read_text(encoding="utf-8")
    return yaml.load(text, Loader=SafeLoader)


def preset_names() -> list[str]:
    """The presets shipped with recordkit (``recordkit/schema/presets/NAME.yaml``)."""
    folder = resources.files("recordkit.schema").joinpath("presets")
    try:
        return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".yaml"))
    except (OSError, FileNotFoundError):  # pragma: no cover - a broken install
        return []


def is_preset(spec) -> bool:
    return isinstance(spec, str) and spec.startswith(PRESET_PREFIX)


def _preset_text(spec: str) -> str:
    name = spec[len(PRESET_PREFIX):].strip()
    names = preset_names()
    if name not in names:
        raise SchemaError(f"unknown preset {_show(spec)}: the presets are "
                          f"{', '.join(PRESET_PREFIX + n for n in names) or 'none'}")
    return resources.files("recordkit.schema").joinpath("presets", name + ".yaml").read_text(encoding="utf-8")


def _layer(spec, where: str) -> tuple[str, str, dict]:
    """(name, text, mapping) of one schema file or preset."""
    if is_preset(spec):
        text = _preset_text(spec)
        name = spec.strip()
    else:
        p = Path(spec)
        name = str(p)
        from ..common.reading import NotAFile, read_regular_file
        try:
            text = read_regular_file(p).decode("utf-8")
        except NotAFile as exc:     # a named pipe would hang the read, /dev/zero never end it
            raise SchemaError(f"{p}: cannot read the schema file{where}: {exc}") from None
        except OSError as exc:
            # (the reason alone: the exception's own text repeats the path)
            raise SchemaError(f"{p}: cannot read the schema file{where or ' (the configuration names it: schema = ...)'}"
                              f": {exc.strerror or exc}") from exc
        except UnicodeDecodeError as exc:
            raise SchemaError(f"{p}: cannot read the schema file{where}: it is not UTF-8 text ({exc.reason} at "
                              f"byte {exc.start})") from exc
    # as a front matter is read: nesting too deep for the C composer (which
    # would kill the process), and aliases that expand without bound, are
    # refused before anything walks them
    from ..markdown.yamlguard import AliasBomb, compose
    try:
        loader, node = compose(text, SafeLoader)
        try:
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        raise SchemaError(f"{name}: the schema file is not valid YAML: {exc}") from exc
    except AliasBomb as exc:
        mark = exc.node.start_mark
        what = str(exc).replace("front matter", "the schema file", 1)
        raise SchemaError(f"{name}:{mark.line + 1}:{mark.column + 1}: {what}") from None
    except (RecursionError, ValueError, TypeError, OverflowError) as exc:
        raise SchemaError(f"{name}: the schema file cannot be read: {exc}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise SchemaError(f"{name}: the schema file must be a mapping")
    return name, text, data


def schema_layers(spec) -> list[tuple[str, str, dict]]:
    """The files a schema is made of, the base first: ``spec`` (a path or
    ``preset:NAME``) and what its ``extends:`` names, transitively.  Each is
    (name, text, mapping).  The default schema is not listed."""
    chain = []
    seen = set()
    where = ""
    while spec is not None:
        if not is_preset(spec) and symlink_loop(spec):
            raise SchemaError(f"{spec}: cannot read the schema file{where}: it is a symbolic link loop (a link "
                              "that leads, through links, back to itself)")
        key = spec.strip() if is_preset(spec) else str(Path(spec).resolve())
        if key in seen:
            raise SchemaError(f"extends: {' -> '.join(n for n, _, _ in reversed(chain))} -> {spec} goes round "
                              "in a circle")
        seen.add(key)
        name, text, data = _layer(spec, where)
        chain.append((name, text, data))
        ext = data.get("extends")
        if ext is None:
            break
        if not isinstance(ext, str) or not ext.strip():
            raise SchemaError(f"{name}: extends must name a preset (preset:NAME) or a schema file, "
                              f"not {_show(ext)}")
        if is_preset(ext):
            spec = ext.strip()
        else:
            base = Path(name).parent if not is_preset(name) else Path.cwd()
            q = Path(ext)
            spec = q if q.is_absolute() else base / q
        where = f" (named by extends: in {name})"
    return list(reversed(chain))


def schema_fingerprint_texts(spec) -> list:
    """The texts of every file the schema ``spec`` is made of (for a cache
    key): a changed base file changes it."""
    if spec is None:
        return []
    try:
        return [[name, text] for name, text, _ in schema_layers(spec)]
    except SchemaError as exc:
        return [["<error>", str(exc)]]


def load_schema(path: str | Path | None = None) -> Schema:
    """The default schema, with the user file at ``path`` merged over it.

    ``path`` may also be ``preset:NAME``, a schema shipped in
    ``recordkit/schema/presets/``.  A file (or preset) that says
    ``extends: preset:NAME`` (or ``extends: FILE``) is merged over that one,
    which is merged over the default schema; ``replace: true`` in a file
    starts it from an empty schema instead of what it extends."""
    raw = default_schema_raw()
    source = "default"
    if path:
        for name, _text, user in schema_layers(path):
            user = dict(user)
            user.pop("extends", None)
            replace = user.pop("replace", False)
            if replace not in (True, False):
                raise SchemaError(f"{name}: replace must be true or false, not {_show(replace)}")
            raw = user if replace else _merge(raw, user)
        source = str(path)
    try:
        return Schema(raw, source=source)
    except SchemaError as exc:
        if path and source not in str(exc):
            raise SchemaError(f"{source}: {exc}") from None
        raise


__all__ = ["Schema", "SchemaError", "Relation", "Kind", "Section", "KindSource", "LinkSettings", "DerivePattern",
           "load_schema", "preset_names", "schema_layers"]
