"""The record schema as data: kinds, fields, statuses, relations, and how
a file's id, kind and title are found and its links matched.

A :class:`Schema` is made of a schema file as YAML reads it (the default
schema merged with the user's: :mod:`.layers`), each key checked by its
checker in :mod:`.validate`; it is not changed after it is made.
"""
from __future__ import annotations

import copy
import datetime as _dt
import re
from dataclasses import dataclass, field
from fnmatch import fnmatchcase

from . import validate
from .validate import SchemaError, date_as_string, mentions_date, patterns
from .values import _is_date, epoch_date


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
    #: the statuses are the common ones, not all: another is RK204 as a warning
    open_statuses: bool = False


@dataclass(frozen=True)
class KindSource:
    """One entry of ``kind_from``.  ``source``: "pattern" (``arg`` the group
    of ``id_pattern``), "field" (``arg`` the field name), "folder" (``arg``
    the folder's depth, 1 = top level), "prefix" (``arg`` the separator) or
    "default" (``arg`` the kind).  ``map``: lower-cased value -> kind."""
    source: str
    arg: object
    map: dict | None = None


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
    #: a name two notes share is the one in the linking note's own folder
    #: when one of them is there (as Obsidian opens it), not ambiguous
    same_folder: bool = False


@dataclass(frozen=True)
class DerivePattern:
    """A relation derived from a field's value: where ``regex`` (with a
    ``target`` group) matches the value of ``field`` (a string, or each
    string of a list), the target's text is resolved as a link."""
    relation: str
    field: str
    regex: re.Pattern


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
    #: ``tags.case_sensitive: false``: ``#Tag`` and ``#tag`` are one tag (Obsidian's)
    tags_case_sensitive: bool = field(init=False, repr=False, default=True)
    #: ``tags.nested: true``: ``a/b`` is a tag under ``a`` (its page lists ``a/b``'s records too)
    nested_tags: bool = field(init=False, repr=False, default=False)
    #: ``comments: [percent]``: Obsidian's ``%% … %%`` are comments
    percent_comments: bool = field(init=False, repr=False, default=False)
    #: ``line_breaks: true``: a single line break in a body is a line break
    #: on the site (Obsidian's reading view, its "Strict line breaks" off)
    line_breaks: bool | str = field(init=False, repr=False, default=False)
    #: ``raw_html``: ``escape`` (raw HTML in a body shown as text) or
    #: ``sanitize`` (rendered through an allow-list, as Obsidian and GitHub do)
    raw_html: str = field(init=False, repr=False, default="escape")
    #: ``skip_dirs``: the folders not walked unless the configuration says (None: the default)
    skip_dirs: tuple | None = field(init=False, repr=False, default=None)
    #: ``lint``: rules the schema turns off, and severities it gives, before the configuration's
    lint_ignore: tuple = field(init=False, repr=False, default=())
    lint_severity: dict = field(init=False, repr=False, default_factory=dict)
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
        # each key checked by its checker (:mod:`.validate`), in this order:
        # the first error found is the one reported
        raw = self.raw
        validate.known_keys(raw)
        self.id_re = validate.id_pattern(raw)
        self.common_fields = validate.common_fields(raw)
        self.kinds = {name: _kind(name, validate.kind(name, k)) for name, k in validate.kinds(raw).items()}
        self.relations = {name: Relation(name=name, **validate.relation(name, r, self.kinds))
                          for name, r in validate.relations(raw).items()}
        self.id_from = validate.sources(raw, "id_from", ("field", "stem", "path"), [("field", "id")])
        self.title_from = validate.sources(raw, "title_from", ("field", "h1", "stem"), [("field", "title")])
        self.kind_from = tuple(KindSource(*s) for s in validate.kind_sources(raw, self.kinds))
        self.front_matter_required = validate.front_matter(raw, self.id_from)
        self.links = LinkSettings(**validate.links(raw.get("links")))
        self.page_globs = validate.pages(raw.get("pages"))
        self.unique = validate.unique(raw.get("unique"), self.id_re)
        self.tag_re = validate.tag_pattern(raw.get("tags"))
        self.inline_tags = validate.inline_tags(raw.get("tags"))
        self.tags_case_sensitive, self.nested_tags = validate.tag_reading(raw.get("tags"))
        self.percent_comments = validate.comments(raw.get("comments"))
        self.line_breaks = validate.line_breaks(raw)
        self.raw_html = validate.raw_html(raw)
        self.skip_dirs = validate.skip_dirs(raw)
        self.lint_ignore, self.lint_severity = validate.lint_defaults(raw)
        self.derive, derive_patterns = validate.derive(raw.get("derive"))
        self.derive_patterns = [DerivePattern(*d) for d in derive_patterns]
        self.claims_kinds = validate.claims_kinds(raw.get("claims_table"), self.kinds)
        self.mention_relation, self.mention_label = validate.mention(raw)
        self.broken_statuses = validate.broken_statuses(raw)
        self.claims_section, self.claims_columns, self.claims_strengths = validate.claims_table(raw)
        self.mention_re, self.mention_targets_re = _mention_patterns(self.kinds)

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
                jsonschema.Draft202012Validator.check_schema(date_as_string(spec))
                for pattern in patterns(spec):
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
            props = {name: {} if mentions_date(spec) else spec for name, spec in specs.items()}
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


def _kind(name: str, spec: dict) -> Kind:
    """The :class:`Kind` of ``kinds.NAME``, from its checked ``spec``."""
    sections = tuple(Section(title, statuses) for title, statuses in spec["sections"])
    return Kind(name=name, **{**spec, "sections": sections})


def _mention_patterns(kinds: dict) -> tuple[re.Pattern, re.Pattern]:
    """(``mention_re``, ``mention_targets_re``) of a schema whose kinds are ``kinds``."""
    # ``mention_re`` matches ``KIND-NNN`` tokens of this schema's kinds.  The
    # left boundary (no word character or hyphen before the token) is
    # checked by the scanner: a look-behind here makes the search 6x slower.
    alternation = "|".join(sorted((re.escape(k) for k in kinds), key=len, reverse=True))
    mention_re = re.compile(r"(?:%s)-[0-9]{3,}(?![\w-])" % alternation)
    # ``mention_targets_re``: the same tokens, left boundary included, in a
    # form whose search is led by the literal ``-`` (so it runs at the
    # speed of a plain substring search): the kind is checked by a
    # look-behind once a ``-`` is found.  Groups: one per kind (the one
    # that matched holds it), then the number.
    names = sorted(kinds, key=len, reverse=True)
    behind = "|".join(r"(?<=(?<![\w-])(%s)-)" % re.escape(k) for k in names)
    if names:
        mention_targets_re = re.compile(r"-(?:%s)([0-9]{3,})(?![\w-])" % behind)
    else:
        # no kinds: a token is "-NNN", with the scanner's left boundary
        # (no word character or hyphen before it); the number is the only group
        mention_targets_re = re.compile(r"(?<![\w-])-([0-9]{3,})(?![\w-])")
    return mention_re, mention_targets_re
