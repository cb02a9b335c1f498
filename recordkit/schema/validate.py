"""A schema file, as YAML reads it, checked key by key: one small checker
per key (``kinds``, ``relations``, ``links``, ``unique``, ...), each
raising a :class:`SchemaError` that names the key and says what to write,
and returning the key's value as plain data.  :class:`~.model.Schema`
calls them in order and makes its objects of what they return."""
from __future__ import annotations

import re

from .values import EPOCH_WORDS, valid_color


class SchemaError(Exception):
    """The schema file is unreadable or inconsistent (a configuration error)."""


DEFAULT_ID_PATTERN = r"^(?P<kind>[A-Z][A-Z0-9_]*)-(?P<number>[0-9]{3,})$"
#: today's tag rule (RK206): kebab case
DEFAULT_TAG_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
LINK_SOURCES = ("id", "path", "stem", "title", "aliases", "number")
WIKILINK_ORDERS = ("target-first", "label-first")

#: the keys a schema file may have at its top, and in its ``graph``,
#: ``mention`` and ``claims_table`` mappings
TOP_KEYS = ("extends", "replace", "id_pattern", "id_from", "kind_from", "title_from", "front_matter", "pages",
            "unique", "links", "tags", "fields", "kinds", "relations", "derive", "mention", "broken_statuses",
            "graph", "claims_table", "comments", "line_breaks", "raw_html", "skip_dirs", "lint")
KIND_KEYS = ("statuses", "fields", "sections", "description", "color", "dir", "open_statuses")
RELATION_KEYS = ("from", "to", "max", "min", "required", "required_when", "acyclic", "symmetric", "builds_on",
                 "label", "color")
SUB_KEYS = {"graph": ("faded_statuses", "tentative_statuses"),
            "mention": ("relation", "label"),
            "claims_table": ("section", "columns", "strengths", "kinds")}

# -- helpers: a value of a shape, or a SchemaError that names its key -----------

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


def _entry(where: str, value, what: str, keys) -> dict:
    """One entry of ``kinds`` or ``relations`` (``where``: ``kinds.NOTE``):
    :func:`_mapping` of ``value`` (empty when it is empty or false: ``NOTE:``
    with nothing after it), with no key outside ``keys``."""
    value = _mapping(where, value or None, what)
    for key in value:
        if key not in keys:
            raise _unknown(f"{where}: ", key, keys)
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
                          f"{_show(value)}: `recordkit new` would write outside the record root")


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


def _unknown(where: str, key, known) -> SchemaError:
    from ..common.didyoumean import near_words
    near = near_words(str(key), known)
    hint = f" (did you mean {near[0]}?)" if near else ""
    return SchemaError(f"{where}unknown key {_show(key)}{hint}: the known keys are {', '.join(known)}")


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


# -- the checkers, one per key, in the order Schema calls them -----------------

def known_keys(raw: dict) -> None:
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


def id_pattern(raw: dict) -> re.Pattern | None:
    """``id_pattern``, compiled (None: the schema has none)."""
    if "id_pattern" not in raw or raw["id_pattern"] is None:
        return None
    return _regex("id_pattern", raw["id_pattern"])


def common_fields(raw: dict) -> dict:
    """``fields``: the fields every kind has (name: type and options)."""
    fields = dict(_mapping("fields", raw.get("fields"), "field name: its type and options"))
    _check_epochs("fields", fields)
    return fields


def kinds(raw: dict) -> dict:
    """``kinds``: kind name -> its mapping, each checked by :func:`kind`."""
    return _mapping("kinds", raw.get("kinds"), "kind name: its statuses, fields, ...")


def kind(name: str, k) -> dict:
    """``kinds.NAME``: the arguments of its :class:`~.model.Kind` but the
    name, ``sections`` as (title, statuses) pairs."""
    k = _entry(f"kinds.{name}", k, "statuses, fields, ...", KIND_KEYS)
    if not k.get("statuses"):
        raise SchemaError(f"kind {name} has no statuses")
    statuses = _names(f"kinds.{name}.statuses", k["statuses"], "[draft, final]", one_string=False)
    _mapping(f"kinds.{name}.fields", k.get("fields"), "field name: its type and options")
    _text_value(f"kinds.{name}.description", k.get("description"), "")
    _folder_value(f"kinds.{name}.dir", k.get("dir"))
    if not isinstance(k.get("open_statuses", False), bool):
        raise SchemaError(f"kinds.{name}.open_statuses must be true or false, not {_show(k['open_statuses'])}")
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
        sections.append((s["title"], tuple(_names("", s.get("statuses"), "", one_string=False))))
    return dict(statuses=tuple(statuses), fields=dict(k.get("fields") or {}), sections=sections,
                description=k.get("description", ""), color=k.get("color"), dir=k.get("dir") or name.lower(),
                open_statuses=bool(k.get("open_statuses", False)))


def relations(raw: dict) -> dict:
    """``relations``: relation name -> its mapping, each checked by :func:`relation`."""
    return _mapping("relations", raw.get("relations"), "relation name: from, to, max, ...")


def relation(name: str, r, kinds: dict) -> dict:
    """``relations.NAME``: the arguments of its :class:`~.model.Relation`
    but the name; the kinds it names must be of ``kinds``."""
    r = _entry(f"relations.{name}", r, "from, to, max, label, ...", RELATION_KEYS)
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
            if kd != "*" and kd not in kinds:
                raise SchemaError(f"relation {name}: '{side}' names kind {kd}, which the schema lacks")
    return dict(sources=tuple(r.get("from") or ["*"]), targets=tuple(r.get("to") or ["*"]),
                label=r["label"], max=r.get("max"), min=int(r.get("min", 0)),
                required=bool(r.get("required", False)),
                required_when=tuple(r.get("required_when") or ()), acyclic=bool(r.get("acyclic", False)),
                symmetric=bool(r.get("symmetric", False)), builds_on=bool(r.get("builds_on", False)))


def sources(raw: dict, key: str, allowed: tuple[str, ...], default: list) -> tuple:
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


_KIND_SOURCE_KEYS = ("pattern", "field", "folder", "prefix", "default")


def kind_sources(raw: dict, kinds: dict) -> tuple:
    """``kind_from``: the arguments of each :class:`~.model.KindSource`."""
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
        out.append((src, arg, mapping))
    return tuple(out)


def front_matter(raw: dict, id_from: tuple) -> bool:
    """``front_matter``: whether a file needs front matter to be a record;
    by default only when ``id_from`` reads nothing but fields."""
    fm = raw.get("front_matter")
    if fm is None:
        return all(src == "field" for src, _ in id_from)
    if fm in ("required", "optional"):
        return fm == "required"
    raise SchemaError(f"front_matter must be required or optional, not {_show(fm)}")


def links(value) -> dict:
    """``links``: the arguments of its :class:`~.model.LinkSettings`."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise SchemaError(f"links must be a mapping (resolve, case_sensitive, wikilink_order, markdown_links, "
                          f"mentions), not {_show(value)}")
    known = ("resolve", "case_sensitive", "wikilink_order", "markdown_links", "mentions", "markdown_extensionless",
             "sigils", "same_folder")
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
    for key in ("case_sensitive", "markdown_links", "mentions", "markdown_extensionless", "same_folder"):
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
    return kw


def _listed(value, must: str) -> list:
    """A key that takes a list or one string: None is [], a string is a list
    of itself, anything else is an error that says ``must`` and what it was."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list):
        raise SchemaError(f"{must}, not {_show(value)}")
    return value


def pages(value) -> tuple[str, ...]:
    """``pages``: a list of file globs (lower-cased for matching)."""
    value = _listed(value, "pages must be a list of file globs (README.md, index.md, 'drafts/*.md')")
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


def unique(value, id_re) -> tuple:
    """``unique``: ``field:NAME`` (a front-matter field) or ``pattern:GROUP``
    (a named group of ``id_pattern``, read from each record's id)."""
    value = _listed(value, "unique must be a list of field:NAME or pattern:GROUP")
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


_TAG_KEYS = ("pattern", "inline", "case_sensitive", "nested")


def tag_pattern(value) -> re.Pattern:
    if value is None:
        return re.compile(DEFAULT_TAG_PATTERN)
    if not isinstance(value, dict):
        raise SchemaError(f"tags must be a mapping ({', '.join(_TAG_KEYS)}), not {_show(value)}")
    extra = sorted(str(k) for k in value if k not in _TAG_KEYS)
    if extra:
        raise SchemaError(f"tags: unknown key(s) {', '.join(extra)} (known: {', '.join(_TAG_KEYS)})")
    for key in _TAG_KEYS[1:]:
        if not isinstance(value.get(key, False), bool):
            raise SchemaError(f"tags.{key} must be true or false, not {_show(value.get(key))}")
    return _regex("tags.pattern", value.get("pattern", DEFAULT_TAG_PATTERN))


def inline_tags(value) -> bool:
    """``tags.inline``: whether ``#tag`` in a body is a tag of its note (as
    Obsidian and Foam read one)."""
    return bool(value.get("inline")) if isinstance(value, dict) else False


def tag_reading(value) -> tuple[bool, bool]:
    """``(tags.case_sensitive, tags.nested)``: whether ``Tag`` and ``tag``
    are two tags (true unless the schema says false: Obsidian's are one),
    and whether ``a/b`` is a tag under ``a`` (false unless said)."""
    if not isinstance(value, dict):
        return True, False
    return value.get("case_sensitive", True) is not False, value.get("nested", False) is True


def comments(value) -> bool:
    """``comments``: a list of the comment syntaxes beyond HTML's a body
    has; ``percent`` (Obsidian's ``%% … %%``) is the one there is."""
    if value is None:
        return False
    if not isinstance(value, list) or not all(v == "percent" for v in value):
        raise SchemaError(f"comments must be a list of comment syntaxes (percent: Obsidian's %% … %%), "
                          f"not {_show(value)}")
    return "percent" in value


def line_breaks(raw: dict) -> bool | str:
    """``line_breaks``: true, false, or ``obsidian`` (as the vault's
    ``.obsidian/app.json`` says: a line break unless its
    ``strictLineBreaks`` is true)."""
    lb = raw.get("line_breaks", False)
    if not isinstance(lb, bool) and lb != "obsidian":
        raise SchemaError(f"line_breaks must be true, false or obsidian (as the vault's .obsidian/app.json "
                          f"says), not {_show(lb)}")
    return lb


def raw_html(raw: dict) -> str:
    """``raw_html``: ``escape`` (shown as text, the default) or
    ``sanitize`` (rendered through the allow-list)."""
    value = raw.get("raw_html", "escape")
    if value not in ("escape", "sanitize"):
        raise SchemaError(f"raw_html must be escape (raw HTML shown as text) or sanitize (rendered through "
                          f"an allow-list), not {_show(value)}")
    return value


def skip_dirs(raw: dict) -> tuple[str, ...] | None:
    """``skip_dirs``: the folders a walk of the root leaves out when the
    configuration does not say (a list of folder names or patterns)."""
    value = raw.get("skip_dirs")
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise SchemaError(f"skip_dirs must be a list of folder names or patterns, such as [\".*\", \"node_modules\"], "
                          f"not {_show(value)}")
    return tuple(v.strip().rstrip("/") for v in value)


_CODE_RE = re.compile(r"^(?:ALL|RK[0-9]{0,3})$", re.I)


def lint_defaults(raw: dict) -> tuple[tuple[str, ...], dict[str, str]]:
    """``lint``: the rules a schema turns off (``ignore``) and the
    severities it gives (``severity``), before the configuration's own."""
    value = raw.get("lint")
    if value is None:
        return (), {}
    if not isinstance(value, dict) or set(value) - {"ignore", "severity"}:
        raise SchemaError(f"lint must be a mapping with ignore (a list of rule codes) and severity (code: level), "
                          f"not {_show(value)}")
    ignore = value.get("ignore") or []
    if not isinstance(ignore, list) or not all(isinstance(c, str) and _CODE_RE.match(c) for c in ignore):
        raise SchemaError(f"lint.ignore must be a list of rule codes or prefixes, such as [RK208], not {_show(ignore)}")
    severity = value.get("severity") or {}
    if not isinstance(severity, dict) or not all(isinstance(c, str) and _CODE_RE.match(c) for c in severity) \
            or not all(v in ("error", "warning", "info") for v in severity.values()):
        raise SchemaError(f"lint.severity must map rule codes to error, warning or info, such as {{RK305: info}}, "
                          f"not {_show(severity)}")
    return tuple(c.upper() for c in ignore), {c.upper(): v for c, v in severity.items()}


def derive(value) -> tuple[list, list]:
    """``derive``: (the entries of the older form, as dicts; the arguments
    of each :class:`~.model.DerivePattern` of the new form)."""
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
            new.append((rel, f, regex))
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


def claims_kinds(ct, kinds: dict) -> tuple[str, ...]:
    if ct is None:
        ct = {}
    if not isinstance(ct, dict):
        raise SchemaError(f"claims_table must be a mapping (section, columns, strengths, kinds), not {_show(ct)}")
    if "kinds" not in ct:
        return tuple(k for k in ("NOTE",) if k in kinds)
    value = _listed(ct["kinds"], "claims_table.kinds must be a list of kinds")
    for k in value:
        if not isinstance(k, str) or k not in kinds:
            raise SchemaError(f"claims_table.kinds: {_show(k)} is not a kind of the schema "
                              f"(kinds: {', '.join(kinds) or 'none'})")
    return tuple(value)


def mention(raw: dict) -> tuple[str, str]:
    """``mention``: (the relation a body's mention makes, its label)."""
    mention = _mapping("mention", raw.get("mention"), "relation, label")
    return (_text_value("mention.relation", mention.get("relation"), "mentions"),
            _text_value("mention.label", mention.get("label"), "Mentioned by"))


def broken_statuses(raw: dict) -> tuple[str, ...]:
    """``broken_statuses``: a list of statuses."""
    return tuple(_names("broken_statuses", raw.get("broken_statuses"), "[rejected]"))


def claims_table(raw: dict) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """``claims_table``: (its section's title, its columns, its strengths);
    its ``kinds`` are :func:`claims_kinds`'."""
    ct = raw.get("claims_table") or {}
    section = _text_value("claims_table.section", ct.get("section"), "Claims")
    columns = tuple(_names("claims_table.columns", ct["columns"], "[id, claim, strength, support]")
                    if "columns" in ct else ("id", "claim", "strength", "support"))
    strengths = tuple(_names("claims_table.strengths", ct["strengths"], "[strong, moderate, weak]")
                      if "strengths" in ct else ("strong", "moderate", "weak"))
    return section, columns, strengths


# -- a field's options as JSON Schema (for Schema.validator) ------------------

def date_as_string(spec):
    """``spec`` with the type ``date`` (ours, not JSON Schema's) read as ``string``."""
    if isinstance(spec, dict):
        out = {k: date_as_string(v) for k, v in spec.items()}
        t = spec.get("type")
        if t == "date":
            out["type"] = "string"
        elif isinstance(t, list):
            out["type"] = ["string" if x == "date" else x for x in t]
        return out
    if isinstance(spec, list):
        return [date_as_string(v) for v in spec]
    return spec


def patterns(spec):
    """Every ``pattern`` string in a field's options."""
    if isinstance(spec, dict):
        for k, v in spec.items():
            if k == "pattern" and isinstance(v, str):
                yield v
            else:
                yield from patterns(v)
    elif isinstance(spec, list):
        for v in spec:
            yield from patterns(v)


def mentions_date(spec) -> bool:
    if isinstance(spec, dict):
        t = spec.get("type")
        if t == "date" or (isinstance(t, list) and "date" in t):
            return True
        return any(mentions_date(v) for v in spec.values())
    if isinstance(spec, list):
        return any(mentions_date(v) for v in spec)
    return False
