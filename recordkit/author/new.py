"""``recordkit new KIND``: a record with the next free id, from the kind's
skeleton in the schema."""
from __future__ import annotations

import datetime as _dt
import difflib
import unicodedata
import os
import posixpath
import re
from pathlib import Path

import yaml

from .plan import AuthorError, Change, Plan
from ..common.text import a_or_an


def resolve_kind(schema, kind: str) -> str:
    if kind in schema.kinds:
        return kind
    if kind.upper() in schema.kinds:
        return kind.upper()
    near = difflib.get_close_matches(kind.upper(), list(schema.kinds), n=1, cutoff=0.5)
    raise AuthorError(f"no kind {kind} in the schema" + (f" (did you mean {near[0]}?)" if near else "")
                      + f"; kinds: {', '.join(schema.kinds)}", usage=True)


def next_id(corpus, kind: str, taken_names: set[str] = frozenset()) -> str:
    """The highest number among ``kind``'s ids plus one, zero-padded as the
    record's ids are (to the fewest digits its ids of that kind have, else
    of any kind, else three); a number whose file name is taken is skipped."""
    schema = corpus.schema
    rx = schema.id_re
    if rx is None or not {"kind", "number"} <= set(rx.groupindex):
        raise AuthorError("`recordkit new` numbers a new record's id by the `kind` and `number` groups of the "
                          "schema's id_pattern, and "
                          + ("the schema has no id_pattern" if rx is None else f"id_pattern {rx.pattern} lacks them"),
                          usage=True)
    numbers, widths, all_widths = [], [], []
    ids = set(corpus.records) | {r.path.stem for r in corpus.files}
    for rid in ids:
        m = schema.id_re.match(rid)
        if not m:
            continue
        num = m.group("number")
        all_widths.append(len(num))
        if m.group("kind") == kind:
            try:
                numbers.append(int(num))
            except ValueError:      # past Python's 4,300 digits: no next number to write
                raise AuthorError(f"{rid[:40]}… has a number of {len(num):,} digits: recordkit new cannot "
                                  f"number the {kind} after it; rename that record first", usage=True) from None
            widths.append(len(num))
    width = min(widths) if widths else (min(all_widths) if all_widths else 3)
    n = max(numbers, default=0) + 1
    while True:
        rid = f"{kind}-{n:0{width}d}"
        if rid not in ids and rid not in taken_names:
            return rid
        n += 1


def _scalar(value) -> str:
    """A YAML scalar for a value, quoted only when it must be."""
    text = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=1 << 30)
    # (a plain scalar ends with YAML's document end, "...": only that and
    # the line breaks go; str.rstrip() would take a no-break space too)
    text = text[:-5].rstrip("\n") if text.endswith("\n...\n") else text.rstrip("\n")
    if value == value and yaml.safe_load(text) != value:
        # PyYAML writes a NEL (U+0085, a line break to YAML 1.1) bare inside
        # quotes, where reading folds it into a space: each value that does
        # not read back as itself is written double-quoted, every odd
        # character escaped
        text = yaml.safe_dump(value, default_style='"', default_flow_style=True, allow_unicode=True,
                              width=1 << 30).rstrip("\n")
    return text


def _is_list_field(schema, kind: str, name: str) -> bool:
    spec = schema.fields_for(kind)[name]
    t = spec.get("type")
    rel = schema.relations.get(name)
    return (rel is not None and rel.max != 1) or bool(spec.get("list")) or "array" in (t if isinstance(t, list)
                                                                                      else [t])


def _typed(schema, kind: str, name: str, raw: str, records) -> object:
    """The value of ``--field name=raw`` as the schema types it."""
    spec = schema.fields_for(kind)[name]
    rel = schema.relations.get(name)
    t = spec.get("type")
    types = t if isinstance(t, list) else [t]
    if rel is not None or spec.get("list") or "array" in types:
        if raw.startswith("["):
            # a YAML list, for items that hold a comma: ["Park, K.", "Choe, Y."]
            from ..markdown.yamlguard import AliasBomb, check_depth
            try:
                check_depth(raw)
                value = yaml.safe_load(raw)
            except yaml.YAMLError as exc:
                mark = getattr(exc, "problem_mark", None)
                where = f" (column {mark.column + 1})" if mark is not None else ""
                raise AuthorError(f"--field {name}: {raw!r} is not a YAML list{where}", usage=True) from None
            except (AliasBomb, RecursionError):
                raise AuthorError(f"--field {name}: the list nests more than a list of values may",
                                  usage=True) from None
            if not isinstance(value, list) or not all(isinstance(x, (str, int, float)) and not isinstance(x, bool)
                                                      for x in value):
                raise AuthorError(f"--field {name}: {raw!r} is not a list of values, such as "
                                  f"[\"Park, K.\", \"Choe, Y.\"]", usage=True)
            items = [str(x).strip() for x in value if str(x).strip()]
        else:
            items = [x.strip() for x in raw.split(",") if x.strip()]
        if rel is not None:
            from ..common.didyoumean import IdIndex
            index = None
            for i in items:
                target = records.get(i)
                if target is None:
                    index = index or IdIndex(records)
                    near = index.closest(i)
                    raise AuthorError(f"--field {name}: no record {i}" + (f" (did you mean {near}?)" if near else ""),
                                      usage=True)
                if not rel.allows_target(target.kind):
                    raise AuthorError(f"--field {name}: {name} may name {a_or_an(' or '.join(rel.targets))}, "
                                      f"not {a_or_an(target.kind)} ({i})", usage=True)
            if rel.max == 1 and len(items) == 1:
                return items[0]
        return items
    if "integer" in types:
        try:
            return int(raw)
        except ValueError:
            raise AuthorError(f"--field {name}: {raw!r} is not an integer", usage=True) from None
    if "number" in types:
        try:
            return float(raw)
        except ValueError:
            raise AuthorError(f"--field {name}: {raw!r} is not a number", usage=True) from None
    if "date" in types:
        try:
            return _dt.date.fromisoformat(raw)
        except ValueError:
            raise AuthorError(f"--field {name}: {raw!r} is not a date (YYYY-MM-DD)", usage=True) from None
    if "enum" in spec and raw not in spec["enum"]:
        near = difflib.get_close_matches(raw, [str(x) for x in spec["enum"]], n=1)
        raise AuthorError(f"--field {name}: {raw!r} is not one of {', '.join(map(str, spec['enum']))}"
                          + (f" (did you mean {near[0]}?)" if near else ""), usage=True)
    return raw


def field_values(corpus, kind: str, fields) -> dict:
    """``--field NAME=VALUE`` items as the schema types them (a list field
    given again adds to it); raises :class:`AuthorError` for an unknown or
    malformed one."""
    schema = corpus.schema
    known = schema.fields_for(kind)
    values: dict[str, object] = {}
    for item in fields:
        name, sep, raw = item.partition("=")
        name = name.strip()
        if not sep:
            raise AuthorError(f"--field {item}: write NAME=VALUE", usage=True)
        if name in ("id", "title"):
            raise AuthorError(f"--field {name}: the {name} is set by `new` itself", usage=True)
        if name not in known:
            near = difflib.get_close_matches(name, list(known), n=1)
            raise AuthorError(f"--field {name}: {a_or_an(kind)} has no field {name}"
                              + (f" (did you mean {near[0]}?)" if near else ""), usage=True)
        value = _typed(schema, kind, name, raw.strip(), corpus.records)
        if name in values:
            # a list field given again: its items are added
            before = values[name] if isinstance(values[name], list) else [values[name]]
            if not (isinstance(value, (list, str)) and _is_list_field(schema, kind, name)):
                raise AuthorError(f"--field {name} is given twice, and {name} is not a list", usage=True)
            value = before + (value if isinstance(value, list) else [value])
        values[name] = value
    return values


def plan_new(corpus, kind: str, title: str, fields: list[str] = (), today: _dt.date | None = None) -> Plan:
    """The new file of a record of ``kind`` (raises :class:`AuthorError`)."""
    schema = corpus.schema
    kind = resolve_kind(schema, kind)
    k = schema.kinds[kind]
    if not title or not title.strip():
        raise AuthorError("give the record a --title", usage=True)
    known = schema.fields_for(kind)
    values = field_values(corpus, kind, fields)
    status = values.pop("status", k.statuses[0])
    if status not in k.statuses:
        near = difflib.get_close_matches(str(status), k.statuses, n=1)
        raise AuthorError(f"--field status: {status!r} is not a status of {a_or_an(kind)} ({', '.join(k.statuses)})"
                          + (f" (did you mean {near[0]}?)" if near else ""), usage=True)
    folder = Path(corpus.root) / (k.dir or kind.lower())
    root = Path(corpus.root).resolve()
    if root != folder.resolve() and root not in folder.resolve().parents:
        # (the schema refuses a dir with ".." or an absolute one; a symbolic link may still lead out, and
        # the record is not read through links: the new file would be no record)
        raise AuthorError(f"the folder of {kind}, {folder}, leads out of the record root {root} "
                          "(a symbolic link?): the new record would not be read there")
    taken = {p.stem for p in folder.glob("*.md")} if folder.is_dir() else set()
    rid = next_id(corpus, kind, taken)
    missing = [f for f in schema.required_fields(kind) if f not in ("id", "title", "status") and f not in values
               and f != "promote_when"]
    if missing:
        hints = []
        for f in missing:
            rel = schema.relations.get(f)
            what = f"ids of {a_or_an(' or '.join(rel.targets))}" if rel else (known[f].get("type") or "a value")
            hints.append(f"--field {f}=…  ({what})")
        raise AuthorError(f"{a_or_an(kind)} needs {', '.join(missing)}: give " + "; ".join(hints), usage=True)

    lines = ["---", f"id: {rid}", f"title: {_scalar(title.strip())}", f"status: {_scalar(status)}"]
    for name, v in values.items():
        lines.append(f"{name}: {_scalar(v)}")
    if "created" in known and "created" not in values:
        lines.append(f"created: {(today or _dt.date.today()).isoformat()}")
    if "promote_when" in k.fields and "promote_when" not in values:
        lines += ["promote_when:",
                  "  summary: >-",
                  "    The condition that would make this theory active, in words.",
                  "  # requires:                       # what recordkit can check (docs/lifecycle.md)",
                  "  #   - check: CHECK-ID",
                  "  #   - record: {kind: NOTE, relation: bears_on, status: final}"]
    lines.append("---")
    body = []
    for s in k.sections:
        body += ["", f"## {s.title}"]
    text = "\n".join(lines) + "\n" + "".join(line + "\n" for line in body)
    path = folder / f"{rid}.md"
    from ..corpus.parse import parse_text
    rec, diags = parse_text(text, path, path.relative_to(corpus.root).as_posix(), schema)
    if diags or not rec.ok or rec.id != rid:   # pragma: no cover - the skeleton is ours
        raise AuthorError(f"the skeleton of {rid} does not read back: {diags}")
    plan = Plan(root=Path(corpus.root), changes=[Change(path, None, text)])
    plan.summary = f"{rid}: {plan.rel(path)}"
    plan.new_path = path
    return plan


#: characters a vault's file name may not hold: Obsidian's forbidden ones,
#: and those that end a link's target ([[a#b]], [[a^b]], [[a|b]], [[a]]]).
_NOT_IN_NAME = re.compile(r'[\\/:*?"<>|#^\[\]\x00-\x1f\x7f]+')


def vault_file_name(title: str) -> str:
    """The file name (without ``.md``) a vault's new note of ``title`` gets:
    the title, with what a file name or a link cannot hold made ``-``."""
    name = " ".join(_NOT_IN_NAME.sub("-", title).split()).strip(" .")
    if len(name.encode("utf-8")) > 200:
        name = name.encode("utf-8")[:200].decode("utf-8", "ignore").rstrip(" .")
    return name


def numbered_file_name(corpus, title: str) -> str | None:
    """For a schema whose ids are numbered file names (an ``id_pattern``
    with a ``number`` group, as MADR's ``0007-use-duckdb``): the next
    number, as wide as the record's, then the title in kebab case; None
    for any other schema (the file is named after the title)."""
    schema = corpus.schema
    rx = schema.id_re
    if rx is None or "number" not in rx.groupindex or schema.kind_ids:
        return None
    numbers = []
    for rid in corpus.records:
        m = rx.fullmatch(rid.rsplit("/", 1)[-1])
        if m and m.group("number") and m.group("number").isdigit():
            numbers.append(m.group("number"))
    width = max((len(n) for n in numbers), default=4)
    nxt = max((int(n) for n in numbers), default=0) + 1
    slug = "-".join(re.findall(r"[a-z0-9]+", unicodedata.normalize("NFKD", title).encode("ascii", "ignore")
                               .decode().lower()))[:80].strip("-")
    name = f"{nxt:0{width}d}-{slug}" if slug else None
    return name if name and rx.fullmatch(name) else None


def plan_vault_new(corpus, kind: str, title: str, fields: list[str] = (), folder: str | None = None) -> Plan:
    """The new note of ``kind`` in a vault whose ids are paths or file
    names: ``FOLDER/TITLE.md`` (the kind's ``dir``, else the root), with
    the fields given and nothing else; a ``title:`` field only when the
    title cannot be the file name, a ``type:`` only when the kind is not
    what the note would be read as without it (raises :class:`AuthorError`)."""
    from ..corpus.parse import parse_text
    from ..markdown.links import fold_key
    schema = corpus.schema
    kind = resolve_kind(schema, kind)
    k = schema.kinds[kind]
    title = (title or "").strip()
    if not title:
        raise AuthorError("give the note a --title", usage=True)
    root = Path(corpus.root).resolve()
    # the kind's dir only when the schema names one (a vault keeps notes anywhere)
    raw_kinds = (schema.raw.get("kinds") if isinstance(getattr(schema, "raw", None), dict) else None) or {}
    named_dir = (raw_kinds.get(kind) or {}).get("dir") if isinstance(raw_kinds.get(kind), dict) else None
    if folder is None and not named_dir:
        # where every note of the kind is, when they are all in one folder
        # (MADR's docs/decisions/); else the root, as the apps do
        rx = schema.id_re               # (of a schema with an id pattern, the well-named ones)
        homes = {posixpath.dirname(r.relpath) for r in corpus.files if r.ok and r.kind == kind
                 and (rx is None or rx.fullmatch(str(r.id).rsplit("/", 1)[-1]))}
        if len(homes) == 1:
            named_dir = homes.pop()
    sub = folder if folder is not None else (named_dir or "")
    sub = sub.strip().strip("/")
    if any(part in ("..", ".") for part in sub.split("/")) or "\\" in sub:
        raise AuthorError(f"--folder {folder}: a folder inside the vault, such as Concepts or Projects/Alpha",
                          usage=True)
    where = (root / sub) if sub else root
    if not where.is_dir():
        raise AuthorError(f"{sub}/ is not a folder of the vault: make it first")
    if root != where.resolve() and root not in where.resolve().parents:
        raise AuthorError(f"{sub}/ leads out of the vault (a symbolic link?): the note would not be read there")
    name = numbered_file_name(corpus, title) or vault_file_name(title)
    if not name.strip("- "):
        raise AuthorError(f"--title {title!r} leaves nothing for a file name", usage=True)
    path = where / f"{name}.md"
    relpath = path.relative_to(root).as_posix()
    from ..corpus.loader import would_walk
    config = getattr(corpus, "config", None)
    if not would_walk(root, relpath, getattr(config, "exclude", None), getattr(config, "skip_dirs", None)):
        raise AuthorError(f"{relpath} would not be read (a hidden folder, or one the configuration's exclude or "
                          "skip_dirs leaves out): put the note in another folder", usage=True)
    if os.path.lexists(path):
        raise AuthorError(f"{relpath} exists already")
    settings = schema.links
    fold = fold_key if not settings.case_sensitive else (lambda t: t)
    same_name = [r.relpath for r in corpus.files if fold(r.path.stem) == fold(name)]
    if same_name and "stem" in settings.resolve:
        raise AuthorError(f"a note named {name} exists already ({same_name[0]}): a link by file name, "
                          f"[[{name}]], would then name two notes")
    values = field_values(corpus, kind, fields)
    if "status" in values and k.statuses and values["status"] not in k.statuses:
        near = difflib.get_close_matches(str(values["status"]), k.statuses, n=1)
        raise AuthorError(f"--field status: {values['status']!r} is not a status of {a_or_an(kind)} "
                          f"({', '.join(k.statuses)})" + (f" (did you mean {near[0]}?)" if near else ""), usage=True)
    missing = [f for f in schema.required_fields(kind) if f not in ("id", "title") and f not in values]
    if missing:
        raise AuthorError(f"{a_or_an(kind)} needs {', '.join(missing)}: give --field NAME=VALUE for each",
                          usage=True)

    heading = ""

    def text_of(extra: dict) -> str:
        fm = {**extra, **values}
        lines = [f"{n}: {_scalar(v)}" for n, v in fm.items()]
        body = heading + "".join(f"\n## {sec.title}\n" for sec in k.sections)
        return ("---\n" + "".join(line + "\n" for line in lines) + "---\n" if lines else "") + body

    extra: dict = {}
    if name != title:
        # the title as the first # heading where the schema reads one (MADR's
        # way), else as a title: field
        if ("h1", None) in schema.title_from:
            heading = f"# {title}\n"
        elif ("field", "title") in schema.title_from:
            extra["title"] = title
        else:
            raise AuthorError(f"--title {title!r} cannot be a file name, and the schema reads no title: field",
                              usage=True)
    rec, _ = parse_text(text_of(extra), path, relpath, schema)
    if rec.kind != kind:
        # the kind from a field: the value that names it
        src = next((ks for ks in schema.kind_from if ks.source == "field"), None)
        if src is None:
            raise AuthorError(f"a note in {sub or 'the vault root'}/ is {a_or_an(rec.kind)}, and nothing names "
                              f"the kind {kind} but its folder: give --folder", usage=True)
        value = next((v for v, kk in (src.map or {}).items() if kk == kind), kind)
        extra = {src.arg: value, **extra}
        rec, _ = parse_text(text_of(extra), path, relpath, schema)
    text = text_of(extra)
    if not rec.ok or rec.kind != kind or rec.title != title:   # pragma: no cover - made to read back
        raise AuthorError(f"the new note {relpath} would not read back as {a_or_an(kind)} titled {title!r}")
    plan = Plan(root=root, changes=[Change(path, None, text)])
    plan.summary = f"{rec.id}: {plan.rel(path)}"
    plan.new_path = path
    return plan
