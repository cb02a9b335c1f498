"""RK2xx: fields — required, typed, known, statuses, dates, tags, sections."""
from __future__ import annotations

import datetime as _dt
import re
from ...common.didyoumean import near_words
from ...common.text import kind_of, plain_key, shown, yaml_text
from ...common.textpos import eol_of
from ...corpus.model import Fix
from ...markdown.sections import headings
from ..registry import rule
from ...schema import EPOCH_WORDS, epoch_date, is_date_text, is_placeholder
from ...common.text import a_or_an

KEBAB_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


def _kind(ctx, rec):
    return ctx.schema.kinds.get(rec.kind) if rec.kind else None


def _scalar_fix(rec, path, new_value: str, message: str, applicability: str = "safe") -> Fix | None:
    """Replace the scalar at ``path`` by ``new_value``, keeping its quotes.

    The new text always reads back as the string ``new_value``: inside
    quotes it is escaped as their style wants, and a plain scalar that YAML
    would read as something else (``yes``, ``null``, ``off``, ``1``,
    ``2020-01-01``) or that would not parse where it stands is written in
    single quotes.  None when no text can say it (a line break in it)."""
    line, col, end_line, end_col = rec.value_pos(*path)
    start = rec.offset_of(line, col)
    end = rec.offset_of(end_line, end_col)
    old = rec.text[start:end]
    if not old or old[0] in "|>&*!" or not _one_line(new_value):
        return None
    if old[0] in "'\"" and old[-1] == old[0] and len(old) >= 2:
        return Fix(start + 1, end - 1, _escaped(new_value, old[0]), message, applicability)
    return Fix(start, end, plain_or_quoted(new_value), message, applicability)


def _one_line(value: str) -> bool:
    return not any(c in value for c in "\r\n\x85\u2028\u2029")


def _escaped(value: str, quote: str) -> str:
    """``value`` as the inside of a scalar quoted with ``quote``."""
    if quote == "'":
        return value.replace("'", "''")
    return value.replace("\\", "\\\\").replace('"', '\\"')


def plain_or_quoted(value: str) -> str:
    """``value`` as a plain scalar when YAML reads that back as the same
    string both as a mapping's value and as an item of a flow list, else in
    single quotes: a fix never turns a string into a boolean, a null, a
    number or a date (``YEs`` made ``yes``, ``_1`` made ``1``)."""
    if value and value == value.strip() and _reads_as(f"k: {value}", {"k": value}) \
            and _reads_as(f"[{value}]", [value]):
        return value
    return "'" + _escaped(value, "'") + "'"


def _written(rec, path) -> str | None:
    """The text of the scalar at ``path`` as the file spells it (one line)."""
    line, col, end_line, end_col = rec.value_pos(*path)
    if line != end_line:
        return None
    return rec.line_text(line)[col - 1:end_col - 1].strip() or None


def _same_but_case(old: str, new: str) -> bool:
    """Whether ``new`` is ``old`` but for case and surrounding whitespace:
    the only rewrite of a word that cannot change what it names."""
    return old.strip().casefold() == new.casefold()


def _reads_as(text: str, value) -> bool:
    """Whether ``text`` is YAML for ``value`` (a fix's result read back)."""
    import yaml
    try:
        return yaml.safe_load(text) == value
    except (yaml.YAMLError, ValueError, TypeError, RecursionError):
        return False


def _strings(text: str) -> bool:
    """Whether ``text`` is YAML for a non-empty list of strings."""
    import yaml
    try:
        got = yaml.safe_load(text)
    except (yaml.YAMLError, ValueError, TypeError, RecursionError):
        return False
    return isinstance(got, list) and bool(got) and all(isinstance(x, str) for x in got)


@rule("RK201", "missing-required-field", "error", local=True)
def missing_required_field(ctx, rec):
    """A required field is missing or empty.

    ## What it does
    Checks that every field the schema marks required for the record's kind
    is present and not empty: `id`, `title` and `status` for every kind,
    `authors` and `year` for a LIT, `source` for a THEORY, `grounds` for a
    CLAIM (by default).

    ## Why is this bad
    A THEORY without a source, or a CLAIM without grounds, is an assertion
    with nothing under it; a LIT without authors and year cannot be cited.

    ## Example
    ```yaml
    id: CLAIM-193
    title: Kernels fix representations only up to the symmetry of what is observed
    status: open
    ```

    ## Use instead
    ```yaml
    id: CLAIM-193
    title: Kernels fix representations only up to the symmetry of what is observed
    status: open
    grounds: [THEORY-002]
    ```
    """
    kind = _kind(ctx, rec)
    if kind is None:
        return None
    out = []
    meta = rec.meta
    fields = ctx.schema.fields_for(kind.name)
    for name in ctx.schema.required_fields(kind.name):
        if name not in meta:
            out.append(ctx.diag("RK201", f"required field `{name}` is missing", rec, rec.key_pos()))
            continue
        v = meta[name]
        if v is None or v == "" or v == [] or v == {}:     # (`source:` with nothing after it: there, and empty)
            out.append(ctx.diag("RK201", f"required field `{name}` is empty", rec, rec.key_pos(name)))
    for name, spec in fields.items():
        if name in meta and isinstance(meta[name], str) and spec.get("minLength") and len(meta[name].strip()) < spec["minLength"]:
            if spec.get("required") is not True:
                out.append(ctx.diag("RK201", f"field `{name}` is empty", rec, rec.key_pos(name)))
    return out


def _type_errors(ctx, rec, kind):
    cache = ctx.type_errors
    if id(rec) in cache:
        return cache[id(rec)]
    if ctx.schema.fast_validator(kind.name)(rec.meta):
        errs = []
    else:
        try:
            errs = list(ctx.schema.validator(kind.name).iter_errors(rec.meta))
        except (ValueError, TypeError):
            # jsonschema writes the value into its message with repr(), and
            # Python refuses to write an integer of more than 4,300 digits
            # (YAML reads one written in hex without that limit); and before
            # 4.19.2 it sorted a mapping's unknown keys for its message, which
            # keys of different types (`null:` and `true:`) cannot be.
            # Validated again with such integers as ones whose repr is their
            # hex text, and keys that are not strings as their YAML text
            errs = list(ctx.schema.validator(kind.name).iter_errors(_writable_ints(rec.meta)))
    cache[id(rec)] = errs
    return errs


class _HexInt(int):
    """An integer too long for decimal text, written as :func:`int_text` does."""

    def __repr__(self) -> str:
        return hex(self)

    __str__ = __repr__


class _KeyText(str):
    """A mapping key that is not a string, as its YAML text (``null``);
    ``key`` is the key itself, for the error's path."""

    key: object = None


def _key_text(k):
    if isinstance(k, str):
        return k
    t = _KeyText(plain_key(k))
    t.key = k
    return t


def _writable_ints(value):
    """``value`` with every integer too long for decimal text a :class:`_HexInt`,
    and every mapping key that is not a string a :class:`_KeyText`."""
    if isinstance(value, dict):
        return {_key_text(k): _writable_ints(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_writable_ints(v) for v in value]
    if type(value) is int:
        try:
            str(value)
        except ValueError:
            return _HexInt(value)
    return value


@rule("RK202", "wrong-field-type", "error", fix="sometimes", local=True)
def wrong_field_type(ctx, rec):
    """A field has the wrong type.

    ## What it does
    Validates each front-matter field against its JSON Schema type in the
    schema (`year` an integer, `authors` a list of strings, `promote_when` a
    mapping with a `summary`, ...).  A single string where the schema wants a
    list is fixable: `--fix` wraps it in a flow list when the list holds
    just that string (safe); when the brackets would split it (`authors:
    Smith, J.` would become two authors) the fix is unsafe; when they would
    not parse (`authors: Smith [J]`) or would hold something other than
    strings, no fix is offered.  A value of an enumeration that differs
    only in case (`strength: Strong`) is fixed safely.  No fix changes a
    value's type: a fixed file whose front matter would not read back with
    the same fields and the same kinds of values is not written with that
    fix (`lint --fix` says which fix it left out, and applies the others).
    A template's placeholder as a whole value (`title: <% tp.file.title %>`,
    `created: "{{date}}"`) is no value yet and is not checked.

    ## Why is this bad
    Every consumer of the field (the graph, the site, `show`) reads it by its
    type; a year written as a string does not sort, and a tag list written
    as one string is one tag.

    ## Example
    ```yaml
    year: "twenty twenty-two"
    tags: representation-learning
    ```

    ## Use instead
    ```yaml
    year: 2022
    tags: [representation-learning]
    ```
    """
    kind = _kind(ctx, rec)
    if kind is None:
        return None
    errs = _type_errors(ctx, rec, kind)
    if not errs:
        return None
    fields = ctx.schema.fields_for(kind.name)
    out = []
    seen = set()
    for e in errs:
        path = tuple(p.key if isinstance(p, _KeyText) else p for p in e.absolute_path)
        if not path or path in seen:
            continue
        top = path[0]
        spec = fields.get(top, {})
        if spec.get("type") == "date" and len(path) == 1:
            continue  # RK205 reports dates
        if e.validator == "minLength":
            continue  # RK201 reports empty values
        if len(path) == 1 and is_placeholder(e.instance):
            continue  # a template's placeholder (<% tp.file.title %>, {{title}}): no value yet
        seen.add(path)
        dotted = ".".join(plain_key(p) for p in path)
        fix = None
        value = e.instance
        if e.validator == "type" and len(path) == 1 and spec.get("list") and isinstance(value, str):
            line, col, end_line, end_col = rec.value_pos(top)
            start = rec.offset_of(line, col)
            end = rec.offset_of(end_line, end_col)
            old = rec.text[start:end]
            if old and old[0] not in "|>&*!" and "\n" not in old:
                # safe when the list holds exactly the string: `a, b` in brackets is two items;
                # unsafe when it holds strings all the same; none when the brackets would not
                # parse (`Smith [J]`) or would hold something else than strings
                if _reads_as(f"[{old}]", [value]):
                    how = "safe"
                else:
                    how = "unsafe" if _strings(f"[{old}]") else None
                if how:
                    fix = Fix(start, end, f"[{old}]", f"wrap `{top}` in a list", how)
        if e.validator == "type":
            want = e.validator_value
            want = " or ".join(_TYPE_WORDS.get(w, str(w)) for w in (want if isinstance(want, list) else [want]))
            msg = f"`{dotted}` must be {want}, not {kind_of(value)}"
        elif e.validator == "enum":
            allowed = [yaml_text(x) for x in e.validator_value]
            near = near_words(yaml_text(value), allowed)
            hint = f" (did you mean {near[0]}?)" if near else ""
            msg = f"`{dotted}` is {shown(value)}, not one of {', '.join(allowed)}{hint}"
            if (near and isinstance(value, str) and near[0] in e.validator_value and len(path) == 1
                    and _same_but_case(value, near[0])):
                fix = _scalar_fix(rec, path, near[0], f"`{dotted}`: {value} → {near[0]}")
        else:   # the rest, in words (jsonschema's own messages quote Python reprs)
            msg = _schema_message(dotted, e)
        out.append(ctx.diag("RK202", msg, rec, rec.value_pos(*path), fix=fix))
    return out


_TYPE_WORDS = {"array": "a list", "object": "a mapping", "string": "a string", "integer": "an integer",
               "number": "a number", "boolean": "a boolean", "null": "empty", "date": "a date"}


def _schema_message(dotted: str, e) -> str:
    """A jsonschema error in words, with values shown as YAML."""
    v, want = e.instance, e.validator_value
    what = e.validator
    if what == "required":
        missing = [k for k in want if not (isinstance(v, dict) and k in v)]
        return f"`{dotted}` needs {', '.join(f'`{k}`' for k in missing) or 'more keys'}"
    if what == "additionalProperties" and isinstance(v, dict):
        known = set((e.schema or {}).get("properties") or {})
        extra = [plain_key(k) for k in v if k not in known]
        return f"`{dotted}` has unknown key{'s' if len(extra) != 1 else ''} {', '.join(f'`{k}`' for k in extra)}"
    if what in ("minItems", "maxItems"):
        return f"`{dotted}` has {len(v)} item{'s' if len(v) != 1 else ''}, " \
               f"{'at least' if what == 'minItems' else 'at most'} {want} wanted"
    if what in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        rel = {"minimum": "at least", "maximum": "at most", "exclusiveMinimum": "more than",
               "exclusiveMaximum": "less than"}[what]
        return f"`{dotted}` is {shown(v)}, not {rel} {want}"
    if what == "maxLength":
        return f"`{dotted}` is longer than {want} characters"
    if what == "pattern":
        return f"`{dotted}` is {shown(v)}, which does not match the pattern {want}"
    if what == "uniqueItems":
        return f"`{dotted}` lists the same item more than once"
    if what == "const":
        return f"`{dotted}` is {shown(v)}, not {shown(want)}"
    return f"`{dotted}` is {shown(v)}, which the schema's `{what}: {yaml_text(want)}` does not allow"


@rule("RK203", "unknown-field", "warning", local=True)
def unknown_field(ctx, rec):
    """A field the schema does not know for this kind (with the closest known one).

    ## What it does
    Reports a front-matter key that is neither a common field, a field of the
    record's kind, nor a relation the kind may declare, and suggests the
    closest known name.  A key YAML reads as something other than a name
    (`1:`, `true:`, `null:`, `2026-01-01:`) is reported as such: quote it or
    rename it.

    ## Why is this bad
    A misspelt field is silently ignored: `soruce: LIT-849` is not a source,
    and the relation it meant to declare is missing from the graph.

    ## Example
    ```yaml
    id: THEORY-798
    soruce: [LIT-849]
    ```

    ## Use instead
    ```yaml
    id: THEORY-798
    source: [LIT-849]
    ```
    """
    kind = _kind(ctx, rec)
    if kind is None:
        return None
    fields = ctx.schema.fields_for(kind.name)
    out = []
    for key in rec.meta:
        if not isinstance(key, str):
            text = plain_key(key)
            out.append(ctx.diag("RK203", f"field name `{text}` is read by YAML as {kind_of(key)}, not a name: "
                                         f"quote it (`\"{text}\":`) or rename it", rec, rec.key_pos(key)))
            continue
        if key in fields:
            continue
        skey = key
        rel = ctx.schema.relations.get(skey)
        if rel is not None:
            msg = f"relation `{skey}` is not declared by {a_or_an(kind.name)} (only by {', '.join(rel.sources)})"
        else:
            near = near_words(skey, fields)
            msg = f"unknown field `{skey}` for {a_or_an(kind.name)}" + (f" (did you mean `{near[0]}`?)" if near else "")
        out.append(ctx.diag("RK203", msg, rec, rec.key_pos(skey)))
    return out


@rule("RK204", "invalid-status", "error", fix="sometimes", local=True)
def invalid_status(ctx, rec):
    """`status` is not in the kind's vocabulary (with the closest one).

    ## What it does
    Checks the status against the statuses the schema gives the record's
    kind, and suggests the closest.  A status that differs only in case or
    surrounding spaces (`Active` where `active` is allowed) has a safe fix.
    An unambiguous misspelling (`propsed`: one close status, with the same
    first letter) has an unsafe fix, applied only with `--unsafe-fixes`: a
    status is a word of the record's own vocabulary, and the nearest one by
    spelling may mean something else (`Done` is never made `none`).
    A new status that YAML would read as something other than a string when
    written plain is written in single quotes.
    A status that a `derive` rule on `status` reads (MADR's `superseded by
    [ADR-0008](0008-….md)`) is accepted when the words before its target
    name a status of the kind (`superseded by`, or `superseded`).
    A kind whose schema says `open_statuses: true` (the MADR, Obsidian and
    Foam presets: their statuses are the common ones, not all) gets it as
    a warning.

    ## Why is this bad
    The lifecycle, the site's status badges and `promote` all read the
    status; one they do not know is treated as none.

    ## Example
    ```yaml
    id: THEORY-798
    status: Propsed
    ```

    ## Use instead
    ```yaml
    id: THEORY-798
    status: proposed
    ```
    """
    kind = _kind(ctx, rec)
    status = rec.meta.get("status")
    if kind is None or status is None or not isinstance(status, str) or status in kind.statuses:
        return None
    if _derived_status(ctx.schema, status, kind.statuses):
        return None
    cands = list(kind.statuses)
    low = status.strip().lower()
    exact = [s for s in cands if _same_but_case(status, s)]
    # a misspelling keeps its first letter: `Done` is not a misspelt `none`
    near = exact or [w for w in near_words(low, cands, n=2, for_fix=True) if w[:1].lower() == low[:1]]
    fix = None
    if len(exact) == 1:
        fix = _scalar_fix(rec, ("status",), exact[0], f"status: {status} → {exact[0]}")
    elif not exact and len(near) == 1:
        fix = _scalar_fix(rec, ("status",), near[0], f"status: {status} → {near[0]}", "unsafe")
    hint = f" (did you mean {near[0]}?)" if near else ""
    d = ctx.diag("RK204", f"status {shown(status)} is not one of {', '.join(cands)} for {a_or_an(kind.name)}{hint}",
                 rec, rec.value_pos("status"), fix=fix)
    if getattr(kind, "open_statuses", False):
        # the kind's statuses are the common ones (`open_statuses: true`): a
        # status of the log's own (`on hold`) is worth a look, not an error
        d.severity = "warning"
    return [d]


def _derived_status(schema, status: str, statuses) -> bool:
    """A status that a ``derive`` rule on ``status`` reads, such as MADR's
    ``superseded by [ADR-0008](0008-….md)`` (:func:`recordkit.corpus.resolve.derived_status`)."""
    from ...corpus.resolve import derived_status
    return derived_status(getattr(schema, "derive_patterns", ()), status, statuses) is not None


@rule("RK205", "invalid-date", "error", local=True)
def invalid_date(ctx, rec):
    """A date field does not hold a valid date.

    ## What it does
    Checks fields of type `date` (`created`, `updated`, a LIT's `read`, a
    NOTE's `date`) hold a real calendar date, written `YYYY-MM-DD`, or a
    date and time (`2026-02-03T14:05`, as Obsidian writes one).  A
    template's placeholder (`<% tp.date.now() %>`, `{{date}}`) is no value
    yet and is not checked.

    ## Why is this bad
    Dates order the record's history and the site's listings; `2026-13-45`
    or `last week` order nothing.

    ## Example
    ```yaml
    read: 2026-10-32
    ```

    ## Use instead
    ```yaml
    read: 2026-10-09
    ```
    """
    kind = _kind(ctx, rec)
    if kind is None:
        return None
    out = []
    for name, spec in ctx.schema.fields_for(kind.name).items():
        if spec.get("type") != "date" or name not in rec.meta:
            continue
        v = rec.meta[name]
        if isinstance(v, (_dt.date, _dt.datetime)) or v is None:
            continue
        if isinstance(v, str) and (is_date_text(v) or is_placeholder(v)):
            continue        # (a date, a date and time: 2026-02-03T14:05; a template's <% tp.date.now() %>)
        epoch = spec.get("epoch")
        if epoch and epoch_date(v, epoch) is not None:
            continue
        what = "" if isinstance(v, str) or isinstance(v, dict) else f" ({kind_of(v)})"
        form = f"YYYY-MM-DD or {EPOCH_WORDS[epoch]} since 1970" if epoch in EPOCH_WORDS else "YYYY-MM-DD"
        written = _written(rec, (name,)) if not isinstance(v, (str, dict, list)) else None
        if written and written != yaml_text(v):   # `12:30` is the integer 750 to YAML: quote what the file says
            msg = f"`{name}` is `{written}`, which YAML reads as {kind_of(v)} ({yaml_text(v)}), not a date ({form})"
        else:
            msg = f"`{name}` is {shown(v)}{what}, not a date ({form})"
        out.append(ctx.diag("RK205", msg, rec, rec.value_pos(name)))
    return out


def kebab(tag: str) -> str:
    s = re.sub(r"([a-z0-9])([A-Z])", r"\1-\2", tag.strip())
    s = re.sub(r"[\s_./]+", "-", s.lower())
    s = re.sub(r"-{2,}", "-", s).strip("-")
    return s


def _kebab_parts(tag: str) -> str:
    """``tag`` made kebab-case part by part, keeping its ``/`` and ``.``
    separators (a nested tag stays nested: ``Type/Big_Report`` →
    ``type/big-report``)."""
    return "".join(p if p in ("/", ".") else kebab(p) for p in re.split(r"([/.])", tag.strip()))


def tag_re(schema) -> re.Pattern:
    """The schema's tag pattern (``tags.pattern``; kebab-case by default)."""
    return schema.tag_re


def tag_fix(tag: str, pattern: re.Pattern) -> tuple[str, str] | None:
    """The tag ``tag`` should be under ``pattern``, and whether the rewrite
    is ``safe`` (only case and surrounding spaces change) or ``unsafe``;
    None when no rewrite matches.  Tried in order: the tag trimmed, made
    kebab-case part by part (``/`` and ``.`` kept: a nested or dotted tag is
    never flattened when the pattern allows it), made kebab-case whole, in
    lower case (``camelCase`` is offered as ``camel-case``, unsafe, rather
    than ``camelcase``, where its word break would be lost)."""
    for new in (tag.strip(), _kebab_parts(tag), kebab(tag), tag.strip().lower()):
        if new and new != tag and pattern.fullmatch(new):
            return new, "safe" if _same_but_case(tag, new) else "unsafe"
    return None


@rule("RK206", "tag-not-kebab-case", "warning", fix="sometimes", local=True)
def tag_not_kebab_case(ctx, rec):
    """A tag is not kebab-case (or does not match the schema's `tags.pattern`).

    ## What it does
    Checks each tag against the schema's tag pattern: by default lower-case
    words joined by hyphens; a schema may allow more (`tags: {pattern:
    ...}`), such as nested `type/report` or dotted `lang.python` tags.
    `--fix` rewrites a tag that differs from a good one only in case
    (`Representation-Learning` → `representation-learning`, safe).  Any
    other rewrite (`Representation_Learning` or `representationLearning` →
    `representation-learning`) is unsafe, applied only with
    `--unsafe-fixes`; a nested or dotted tag keeps its `/` and `.` when the
    pattern allows them.  A rewrite that would repeat a tag of the list
    (`[foo-bar, Foo_Bar]`) is not offered: the message says to remove it.
    A tag that YAML would read as something other than a string when
    written plain is written in single quotes: `[YEs, _1]` becomes
    `['yes', '1']`, not `[yes, 1]` (a boolean and a number).

    ## Why is this bad
    Tags are matched as strings: `Representation Learning` and
    `representation-learning` would be two tags with two pages.

    ## Example
    ```yaml
    tags: [Representation_Learning]
    ```

    ## Use instead
    ```yaml
    tags: [representation-learning]
    ```
    """
    if not rec.kind:
        return None    # a record without a kind has no field rules (RK110 reports it)
    tags = rec.meta.get("tags")
    if isinstance(tags, str):
        from ...corpus.model import split_tags
        items = [((("tags",)), t) for t in split_tags(tags)]
    elif isinstance(tags, list):
        items = [(("tags", i), t) for i, t in enumerate(tags)]
    else:
        return None
    pattern = tag_re(ctx.schema)
    kebab_only = pattern.pattern == KEBAB_RE.pattern   # (the research wording)
    out = []
    # the tags the list will hold: a fix that would repeat one is not offered
    # ([foo-bar, Foo_Bar] became [foo-bar, foo-bar]); the message says so
    taken = {t for _, t in items if isinstance(t, str) and pattern.fullmatch(t)}
    for path, t in items:
        if not isinstance(t, str) or pattern.fullmatch(t):
            continue
        got = tag_fix(t, pattern)
        what = "is not kebab-case" if kebab_only else f"does not match the tag pattern `{pattern.pattern}`"
        if got and got[0] in taken:
            out.append(ctx.diag("RK206", f"tag {shown(t)} {what}, and as `{got[0]}` it would repeat a tag "
                                f"(remove it)", rec, rec.value_pos(*path)))
            continue
        # (a part of a string of tags, `tags: a, B_c`, is no scalar of its own to rewrite)
        whole = not (isinstance(tags, str) and t != tags)
        fix = _scalar_fix(rec, path, got[0], f"tag {t} → {got[0]}", got[1]) if got and whole else None
        if got:
            taken.add(got[0])
        out.append(ctx.diag("RK206", f"tag {shown(t)} {what}" + (f" (use `{got[0]}`)" if fix else ""),
                            rec, rec.value_pos(*path), fix=fix))
    return out


@rule("RK207", "missing-section", "warning", local=True)
def missing_section(ctx, rec):
    """A section the schema expects for this kind (and status) is missing.

    ## What it does
    Checks the body has each `##` section the schema lists for the record's
    kind: by default a THEORY's "What is asserted" and "What would confirm or
    reject it", a final NOTE's "Claims", an active LIT's "Key takeaways".
    Headings inside code blocks do not count; case is ignored.

    ## Why is this bad
    A theory that does not say what would reject it cannot be tested; a
    final reading note without its claims table cannot be cited claim by
    claim.

    ## Example
    ```markdown
    ## Source
    Moschella et al. (LIT-849).
    ```

    ## Use instead
    ```markdown
    ## What is asserted
    ...
    ## What would confirm or reject it
    ...
    ```
    """
    kind = _kind(ctx, rec)
    if kind is None or not kind.sections:
        return None
    status = rec.status
    have = {h.title.lower() for h in headings(rec)}
    out = []
    for s in kind.sections:
        if s.statuses and status not in s.statuses:
            continue
        if s.title.lower() not in have:
            when = f" with status {status}" if s.statuses else ""
            out.append(ctx.diag("RK207", f"{a_or_an(kind.name)}{when} should have a section \"{s.title}\"", rec,
                                (rec.fm_end_line, 1, rec.fm_end_line, 4)))
    return out


def _final_eol(text: str) -> str:
    """The line break that ends ``text`` in its own style: CRLF in a CRLF
    file (only the LF when the text already ends with its CR)."""
    eol = eol_of(text)
    return "\n" if eol == "\r\n" and text.endswith("\r") else eol


@rule("RK208", "missing-final-newline", "warning", fix="safe", local=True)
def missing_final_newline(ctx, rec):
    """The file does not end with a newline.

    ## What it does
    Checks that the file's last character is a newline.  `--fix` adds one,
    in the file's line-ending style (CRLF when its first line ends so).

    ## Why is this bad
    Tools that append to or concatenate files, and `git diff` ("No newline at
    end of file"), treat the last line specially; editors disagree about it.

    ## Example
    A file whose last line is `Last sentence.` with no line break after it.

    ## Use instead
    End the file with a line break.
    """
    text = rec.text
    if text and not text.endswith("\n"):
        line = text.count("\n") + 1
        col = len(text) - (text.rfind("\n") + 1) + 1
        return [ctx.diag("RK208", "no newline at end of file", rec, (line, col, line, col),
                         fix=Fix(len(text), len(text), _final_eol(text), "add a final newline"))]
    return None
