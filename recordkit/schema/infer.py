"""Infer a schema from what an existing folder of notes holds
(``recordkit init --infer``).

:func:`infer` reads one :class:`Sample` per file (its path, its front matter
as a mapping or None, its body, its first level-1 heading), made by the
caller from the loader's records, and works out, in one pass over them plus
one over their links:

- the **id** shape: the front matter's ``id`` when it names its file (or at
  least is unique), else the file stem, else the path when stems collide; an
  ``id_pattern`` when every id has one of the shapes recordkit knows;
- the **kinds**: from a ``type:``-like field, the ``kind`` group of a
  research id, a Dendron hierarchy's first part, or the top-level folder;
  with a default kind for the rest;
- the **statuses** of each kind (a value with braces, brackets or a link is
  a defect or a pointer, not a status: ``superseded by [ADR-0008](…)`` adds
  ``superseded`` and a derived ``superseded_by`` relation);
- the **field types**: dates (ISO, or epoch milliseconds), numbers, flags,
  lists, and the fields whose values are links (relations);
- the **link style**: wikilinks target-first or label-first (Dendron),
  Markdown links to ``.md`` files, what links name (path, stem, title,
  alias) and whether case matters; the tag pattern.

Everything is counted in time linear in the input; nothing here reads a
file, so bad input cannot stop it (a value of a type it does not expect is
counted as that type and nothing more).
"""
from __future__ import annotations

import datetime as _dt
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import NamedTuple
from urllib.parse import unquote

from .values import is_placeholder


class Sample(NamedTuple):
    relpath: str                 # relative to the root, '/'-separated, with .md
    meta: dict | None            # the front matter, or None (none, or unreadable)
    body: str
    h1: str | None = None        # the first level-1 heading of the body
    problem: str | None = None   # why the file could not be read, when it could not ("RK102 …")


#: id shapes recordkit knows, most specific first: (name, id_pattern)
ID_SHAPES = (
    ("research", r"^(?P<kind>[A-Z][A-Z0-9_]*)-(?P<number>[0-9]{3,})$"),
    # (as preset:madr: MADR's own log has capitals and `#` in its names)
    ("numbered", r"^(?P<number>[0-9]{4})-[^\s/]+$"),
    ("date", r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"),
)
#: front-matter fields that commonly hold a note's type, in order of preference
TYPE_FIELDS = ("type", "kind", "category", "class", "note-type", "notetype")
#: Dendron's own hierarchies, and the kinds the dendron preset gives them
DENDRON_PREFIXES = {"daily": "JOURNAL", "journal": "JOURNAL", "task": "TASK", "meet": "MEETING",
                    "user": "USER", "tags": "TAG", "templates": "TEMPLATE", "template": "TEMPLATE",
                    "scratch": "SCRATCH"}
MAX_KINDS = 16
#: the ``links`` settings the inference proposes
LINK_KEYS = ("resolve", "case_sensitive", "wikilink_order", "markdown_links", "mentions")
#: file names (lower case) of an index or a template: proposed as ``pages``
#: when the other files' ids have a shape these names do not
PAGE_NAMES = ("readme.md", "index.md", "_index.md", "template.md", "_template.md")
PAGE_SUFFIXES = ("-template.md", "_template.md")
_WORD_STATUS = re.compile(r"^[\w][\w .'/-]{0,38}$")
_POINTER_STATUS = re.compile(r"^\s*(?P<word>[A-Za-z][\w-]*)\s+(?:by|to|with)\s+(?P<target>\S.*)$")
_DATE_TEXT = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$")
#: epoch milliseconds from 1973 to 5138: what Dendron writes in created/updated
_EPOCH_MS = (10 ** 11, 10 ** 14)
_WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]{1,400})\]\]")
_MDLINK = re.compile(r"\[(?:[^\[\]\n]|\[[^\[\]\n]*\]){0,400}\]\(\s*<?([^()<>\s]{1,400}|[^()<>\n]{1,400}?)>?"
                     r"(?:\s+\"[^\"\n]*\")?\s*\)")
_URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
_FENCE_LINE = re.compile(r"^ {0,3}(```+|~~~+)")
TAG_PATTERNS = (
    ("kebab-case", r"^[a-z0-9]+(?:-[a-z0-9]+)*$"),
    ("kebab-case, nested with /", r"^[a-z0-9]+(?:-[a-z0-9]+)*(?:/[a-z0-9]+(?:-[a-z0-9]+)*)*$"),
    ("kebab-case, nested with .", r"^[a-z0-9]+(?:-[a-z0-9]+)*(?:\.[a-z0-9]+(?:-[a-z0-9]+)*)*$"),
    ("words, nested with /", r"^(?![0-9/]+$)[\w-]+(?:/[\w-]+)*$"),
    ("words, nested with .", r"^[\w-]+(?:\.[\w-]+)*$"),
)


@dataclass
class FieldType:
    name: str
    spec: dict                    # the schema's field spec
    note: str = ""                # why, for the report and a comment
    relation: bool = False


@dataclass
class Inference:
    """What :func:`infer` found, and the schema it proposes (:meth:`schema_yaml`)."""
    files: int = 0
    with_front_matter: int = 0
    without_front_matter: list[str] = field(default_factory=list)
    #: files that could not be read (front matter that is not YAML, not
    #: UTF-8, too large, not a file): (relpath, the problem), left out
    unreadable: list[tuple[str, str]] = field(default_factory=list)
    id_from: list[str] = field(default_factory=list)
    id_note: str = ""
    id_pattern: str | None = None
    pages: list[str] = field(default_factory=list)
    unique: list[str] = field(default_factory=list)
    kind_from: list[dict] = field(default_factory=list)
    kind_note: str = ""
    kinds: dict[str, dict] = field(default_factory=dict)       # name -> {count, statuses: Counter}
    default_kind: str = "NOTE"
    fields: dict[str, FieldType] = field(default_factory=dict)
    derive: list[dict] = field(default_factory=list)
    title_from: list[str] = field(default_factory=list)
    links: dict = field(default_factory=dict)
    link_counts: dict = field(default_factory=dict)
    tag_pattern: str | None = None
    tag_note: str = ""
    tag_inline: bool = False          # the bodies hold #tags (Obsidian's, Foam's)
    #: the preset reads ``Tag`` and ``tag`` as one tag (``tags.case_sensitive: false``)
    tags_fold: bool = False
    preset: str | None = None
    #: the preset's own ``links`` settings (LINK_KEYS): the schema written
    #: says only where the notes differ from them
    preset_links: dict = field(default_factory=dict)
    #: the preset's kinds: name -> (statuses, open_statuses)
    preset_kinds: dict = field(default_factory=dict)

    def count_kinds(self, counts: dict) -> None:
        """The notes of each kind as the schema written reads them (kind ->
        number, worked out by the caller with the loader: notes without
        front matter, in a folder, of the default kind, all counted); a kind
        the schema's other layers give notes is listed too."""
        for name, n in counts.items():
            self.kinds.setdefault(name, {"count": 0, "statuses": Counter(), "description": "", "other": True})
        for name, k in self.kinds.items():
            k["count"] = counts.get(name, 0)

    # -- the proposal, as text -------------------------------------------
    def schema_yaml(self) -> str:
        """The proposed schema file (YAML, with comments saying why)."""
        out = ["# recordkit schema, inferred by `recordkit init --infer` from "
               f"{self.files} file(s).", "# Edit freely: docs/presets.md and docs/configuration.md say what "
               "each key does.", ""]
        if self.preset:
            out += [f"extends: preset:{self.preset}", ""]
        else:
            out += ["# start from an empty schema, not the research one", "replace: true", ""]
        out.append(f"# {self.id_note}")
        out.append(f"id_from: {_flow(self.id_from)}")
        if self.id_pattern:
            out.append(f"id_pattern: {_q(self.id_pattern)}")
        if self.pages:
            out += ["# an index or a template, not of the id shape: read for its links, of no kind",
                    f"pages: {_flow(self.pages)}"]
        if self.unique:
            out += ["# values no two notes may share (RK111)", f"unique: {_flow(self.unique)}"]
        if self.without_front_matter:
            out += [f"# {len(self.without_front_matter)} file(s) have no front matter: notes with no fields",
                    "front_matter: optional"]
        out += ["", f"# {self.kind_note}", "kind_from:"]
        for entry in self.kind_from:
            out.append(f"  - {_flow(entry)}")
        out += [f"title_from: {_flow(self.title_from)}", ""]
        counts = ", ".join(f"{k} {v}" for k, v in self.link_counts.items() if v)
        out.append(f"# links found: {counts or 'none'}")
        differ = _links_beyond(self.links, self.preset_links)
        if differ:
            if self.preset:
                out.append(f"# (only what the notes need beyond preset:{self.preset}: the rest is the preset's)")
            out.append("links:")
            out += [f"  {key}: {_flow(v)}" for key, v in differ.items()]
        else:
            out.append(f"# links: as preset:{self.preset} reads them")
        out.append("")
        if self.tag_pattern:
            out += [f"# tags: {self.tag_note}", "tags:", f"  pattern: {_q(self.tag_pattern)}"]
            out += ["  inline: true", ""] if self.tag_inline else [""]
        out.append("fields:")
        if not self.fields:
            out.append("  {}")
        for name, ft in sorted(self.fields.items()):
            if ft.relation:
                continue
            comment = f"   # {ft.note}" if ft.note and ft.note not in ("list", "date") else ""
            out.append(f"  {_key(name)}: {_flow(ft.spec)}{comment}")
        out += [""] + self._kinds_yaml()
        rels = [ft for ft in self.fields.values() if ft.relation]
        rels_derived = [d["relation"] for d in self.derive]
        out += ["", "relations:" if rels or rels_derived else "relations: {}"]
        for ft in sorted(rels, key=lambda f: f.name):
            out.append(f"  {_key(ft.name)}: {{label: {_q('Linked as ' + ft.name + ' by')}}}   # {ft.note}")
        for name in rels_derived:
            if name not in self.fields:
                out.append(f"  {_key(name)}: {{max: 1, label: {_q('target of ' + name)}}}")
        if self.derive:
            out += ["", "derive:"]
            for d in self.derive:
                out.append(f"  - {_flow(d)}")
        out += ["", "mention:", "  relation: links_to", "  label: Linked from", "", "claims_table:", "  kinds: []", ""]
        return "\n".join(out)

    def _kinds_yaml(self) -> list[str]:
        """The ``kinds:`` block: each inferred kind with its description and
        statuses; of a kind the preset declares, only the statuses the
        notes hold beyond the preset's (none when the preset lets a kind
        have statuses of its own: a warning, as under the preset)."""
        out = []
        for name, k in self.kinds.items():
            if k.get("other"):
                continue        # (the preset's own kind: its description and statuses are the preset's)
            statuses = _status_list(k["statuses"])
            said = f"{_notes(k['count'])} when inferred"
            if name in self.preset_kinds:
                known, open_ = self.preset_kinds[name]
                more = [st for st in statuses if st not in known]
                if more and not open_:
                    out += [f"  {_key(name)}:", f"    # {said}", f"    statuses: {_flow(known + more)}"]
                else:
                    out.append(f"  # {name}: {said}, described as preset:{self.preset} does")
                continue
            out += [f"  {_key(name)}:", f"    # {said}", f"    description: {_q(k['description'])}"]
            if not statuses:
                out.append("    # no note of this kind has a status: placeholders, as every kind needs some")
                statuses = ["draft", "active", "done"]
            out.append(f"    statuses: {_flow(statuses)}")
        written = any(not line.startswith("  #") for line in out)
        return ["kinds:" if written else "kinds: {}"] + out

    def report(self) -> list[str]:
        """What was found, line by line, for the terminal."""
        lines = [f"files: {self.files} ({self.with_front_matter} with front matter)"]
        if self.without_front_matter:
            shown = ", ".join(self.without_front_matter[:5])
            more = f" and {len(self.without_front_matter) - 5} more" if len(self.without_front_matter) > 5 else ""
            lines.append(f"no front matter: {len(self.without_front_matter)} file(s) ({shown}{more}): notes "
                         "with no fields (front_matter: optional)")
        if self.unreadable:
            shown = ", ".join(f"{p} ({why.split(' ', 1)[0]})" for p, why in self.unreadable[:5])
            more = f" and {len(self.unreadable) - 5} more" if len(self.unreadable) > 5 else ""
            lines.append(f"unreadable: {len(self.unreadable)} file(s) ({shown}{more}): left out of the "
                         "inference; `recordkit lint` says why")
        lines.append(f"ids: {_flow(self.id_from)}; {self.id_note}"
                     + (f"; id_pattern {self.id_pattern}" if self.id_pattern else ""))
        if self.pages:
            lines.append(f"pages: {', '.join(self.pages)} (an index or a template: read for links, of no kind)")
        if self.unique:
            lines.append(f"unique: {', '.join(self.unique)} (no two notes may share one: RK111)")
        lines.append(f"kinds: {self.kind_note}")
        for name, k in self.kinds.items():
            st = _status_list(k["statuses"])
            lines.append(f"  {name}: {_notes(k['count'])}" + (f"; statuses {', '.join(st)}" if st else ""))
        typed = [f"{n} ({ft.note or ft.spec.get('type')})" for n, ft in sorted(self.fields.items())
                 if not ft.relation]
        if typed:
            lines.append("fields: " + ", ".join(typed))
        rels = [n for n, ft in sorted(self.fields.items()) if ft.relation] + [d["relation"] for d in self.derive]
        if rels:
            lines.append("relations: " + ", ".join(rels))
        lines.append("links: " + ", ".join(f"{k} {v}" for k, v in self.link_counts.items()) +
                     f"; resolved by {', '.join(self.links['resolve'])}"
                     + ("" if self.links["case_sensitive"] else ", in any case")
                     + f"; wikilinks {self.links['wikilink_order']}")
        if self.tag_pattern:
            lines.append(f"tags: {self.tag_note}")
        return lines


# -- the inference -------------------------------------------------------
def infer(samples, preset: str | None = None, body_tags=None) -> Inference:
    """Infer a schema from ``samples`` (an iterable of :class:`Sample`).
    ``body_tags``: body -> its ``#tags`` (:func:`recordkit.corpus.mentions.body_tags`),
    to read the tags written in the text; None: only ``tags`` fields."""
    preset_links, preset_kinds = _preset_reading(preset)
    inf = Inference(preset=preset, preset_links=preset_links, preset_kinds=preset_kinds,
                    tags_fold=_preset_folds_tags(preset))
    samples = list(samples)
    inf.files = len(samples)
    metas = []
    for s in samples:
        if isinstance(s.meta, dict):
            metas.append(s)
        elif s.problem:
            inf.unreadable.append((s.relpath, s.problem))
        else:
            inf.without_front_matter.append(s.relpath)
    inf.with_front_matter = len(metas)
    stems = [_stem(s.relpath) for s in samples]
    _infer_ids(inf, samples, metas, stems)
    if inf.pages:
        metas = [s for s in metas if s.relpath not in inf.pages]
    ids = {s.relpath: _id_of(inf, s) for s in metas}
    _infer_kinds(inf, metas, ids)
    _infer_fields(inf, metas, set(ids.values()) | set(stems))
    inf.title_from = ["field:title", "h1", "stem"]
    _infer_links(inf, samples, metas)
    _infer_tags(inf, metas, samples, body_tags)
    return inf


def _preset_reading(preset: str | None) -> tuple[dict, dict]:
    """(the ``links`` settings (LINK_KEYS) ``preset:NAME`` reads notes with,
    its own or the defaults it leaves; kind -> (statuses, open_statuses)
    of the kinds it declares)."""
    if not preset:
        return {}, {}
    from .layers import load_schema
    schema = load_schema(f"preset:{preset}")
    links = {key: list(v) if isinstance(v := getattr(schema.links, key), tuple) else v for key in LINK_KEYS}
    return links, {name: (list(k.statuses), k.open_statuses) for name, k in schema.kinds.items()}


def _preset_folds_tags(preset: str | None) -> bool:
    """Whether ``preset:NAME`` reads ``Tag`` and ``tag`` as one tag."""
    if not preset:
        return False
    from .layers import load_schema
    return not load_schema(f"preset:{preset}").tags_case_sensitive


def _links_beyond(found: dict, preset: dict) -> dict:
    """The ``links`` settings the notes need that the preset's do not give
    (all of them without a preset): a way of resolving links the preset
    lacks (added to its list), links that match only in another case, a
    Markdown link where the preset reads none, the other wikilink order
    when a label named a note, mentions.  Where the preset reads more than
    the notes use (``number`` beside ``stem``), it is left as it is."""
    if not preset:
        return {key: found[key] for key in LINK_KEYS}
    out = {}
    extra = [w for w in found["resolve"] if w not in preset["resolve"]]
    if extra:
        out["resolve"] = preset["resolve"] + extra
    if preset["case_sensitive"] and not found["case_sensitive"]:
        out["case_sensitive"] = False
    if found["markdown_links"] and not preset["markdown_links"]:
        out["markdown_links"] = True
    if found.get("order_voted") and found["wikilink_order"] != preset["wikilink_order"]:
        out["wikilink_order"] = found["wikilink_order"]
    if found["mentions"] and not preset["mentions"]:
        out["mentions"] = True
    return out


def _notes(n: int) -> str:
    return f"{n} note" if n == 1 else f"{n} notes"


def _stem(relpath: str) -> str:
    name = relpath.rsplit("/", 1)[-1]
    return name[:-3] if name.endswith(".md") else name


def _id_of(inf: Inference, s: Sample) -> str:
    for src in inf.id_from:
        if src.startswith("field:"):
            v = s.meta.get(src[6:]) if isinstance(s.meta, dict) else None
            if isinstance(v, str) and v:
                return v
        elif src == "stem":
            return _stem(s.relpath)
        elif src == "path":
            return s.relpath[:-3] if s.relpath.endswith(".md") else s.relpath
    return _stem(s.relpath)


def _infer_ids(inf: Inference, samples, metas, stems) -> None:
    with_id = [s for s in metas if isinstance(s.meta.get("id"), str) and s.meta["id"].strip()]
    named = sum(1 for s in with_id if s.meta["id"] == _stem(s.relpath))
    stems_unique = len(set(stems)) == len(stems)
    if metas and len(with_id) >= 0.8 * len(metas) and named >= 0.8 * len(with_id):
        inf.id_from = ["field:id", "stem"]
        inf.id_note = f"{named} of {len(with_id)} `id:` fields name their file: the id is the `id:` field"
    elif stems_unique:
        inf.id_from = ["stem"]
        why = (f"{len(with_id)} `id:` fields do not name their files (internal keys): the id is the file name"
               if with_id else "no `id:` field: the id is the file name (every file name is unique)")
        inf.id_note = why
    else:
        inf.id_from = ["path"]
        dup = len(stems) - len(set(stems))
        inf.id_note = f"{dup} file name(s) repeat in other folders: the id is the path (without .md)"
    # an index or a template (README.md, adr-template.md) is left out of the
    # id shape: when the other ids have one, it is proposed as a page
    maybe_pages = {s.relpath for s in samples if _page_name(s.relpath)}
    ids = [_id_of(inf, s) for s in metas if s.relpath not in maybe_pages]
    if ids:
        for _name, pattern in ID_SHAPES:
            rx = re.compile(pattern)
            if all(rx.match(i) for i in ids):
                inf.id_pattern = pattern
                break
    if inf.id_pattern:
        rx = re.compile(inf.id_pattern)
        inf.pages = sorted(s.relpath for s in samples if s.relpath in maybe_pages and not rx.match(_id_of(inf, s)))
        if "number" in rx.groupindex and "kind" not in rx.groupindex:
            inf.unique.append("pattern:number")     # NNNN-title files: one decision per number
    if with_id and "field:id" not in inf.id_from and len(with_id) >= 0.5 * len(metas):
        inf.unique.insert(0, "field:id")            # internal keys (Dendron's): one note per key


def _page_name(relpath: str) -> bool:
    name = relpath.rsplit("/", 1)[-1].lower()
    return name in PAGE_NAMES or name.endswith(PAGE_SUFFIXES)


def _infer_kinds(inf: Inference, metas, ids: dict) -> None:
    n = len(metas)
    kind_of: dict[str, str] = {}
    entries: list[dict] = []
    notes = []
    # a type-like field present in at least a third of the notes, with few values
    best = None
    for name in TYPE_FIELDS:
        values = Counter()
        for s in metas:
            v = s.meta.get(name)
            if isinstance(v, str) and v.strip() and _WORD_STATUS.match(v.strip()):
                values[v.strip()] += 1
        if values and sum(values.values()) >= max(2, n / 3) and len(values) <= MAX_KINDS:
            best = (name, values)
            break
    if best is not None:
        fname, values = best
        mapping = {}
        for value, _count in values.most_common():
            mapping.setdefault(value.lower(), value)
        entries.append({"field": fname, "map": {k: v for k, v in sorted(mapping.items())}})
        for s in metas:
            v = s.meta.get(fname)
            if isinstance(v, str) and v.strip().lower() in mapping:
                kind_of[s.relpath] = mapping[v.strip().lower()]
        notes.append(f"the `{fname}:` field ({len(mapping)} values)")
    if inf.id_pattern and "(?P<kind>" in inf.id_pattern:
        rx = re.compile(inf.id_pattern)
        entries.insert(0, {"pattern": "kind"})
        for s in metas:
            m = rx.match(ids[s.relpath])
            if m:
                kind_of[s.relpath] = m.group("kind")
        notes.insert(0, "the KIND part of KIND-NNN ids")
    rest = [s for s in metas if s.relpath not in kind_of]
    if rest:
        dotted = [s for s in rest if "." in _stem(s.relpath)]
        folders = Counter(s.relpath.split("/", 1)[0] for s in rest if "/" in s.relpath)
        if len(dotted) >= 0.5 * len(rest) and len(dotted) >= 3:
            heads = Counter(_stem(s.relpath).split(".", 1)[0] for s in dotted)
            mapping = {h: DENDRON_PREFIXES.get(h.lower(), h) for h, c in heads.items()
                       if h.lower() in DENDRON_PREFIXES or (c >= 2 and len(heads) <= MAX_KINDS)}
            if mapping:
                entries.append({"prefix": ".", "map": dict(sorted(mapping.items()))})
                for s in dotted:
                    h = _stem(s.relpath).split(".", 1)[0]
                    if h in mapping:
                        kind_of[s.relpath] = mapping[h]
                notes.append(f"the first part of dotted file names ({len(mapping)} hierarchies)")
        elif folders and 2 <= len(folders) <= MAX_KINDS and sum(folders.values()) >= 0.5 * len(rest):
            mapping = {f: f for f, c in folders.items() if c >= 1}
            entries.append({"folder": 1, "map": dict(sorted(mapping.items()))})
            for s in rest:
                if "/" in s.relpath:
                    kind_of[s.relpath] = s.relpath.split("/", 1)[0]
            notes.append(f"the top-level folder ({len(mapping)} folders)")
    default = "NOTE"
    if inf.id_pattern and inf.id_pattern.startswith("^(?P<number>[0-9]{4})") and not kind_of:
        default = "ADR"    # NNNN-title.md files, MADR's layout
    # a kind the notes already name in another case (`type: note`) is the default, not a second kind
    default = next((k for k in set(kind_of.values()) if k.lower() == default.lower()), default)
    inf.default_kind = default
    # (a note without front matter has no field to give it a kind: the default
    # is needed for it too, else it is RK110)
    if any(s.relpath not in kind_of for s in metas) or inf.without_front_matter or not entries:
        entries.append({"default": default})
        notes.append(f"{default} for the rest" if len(entries) > 1 else f"every note is {a_or_an(default)}")
    inf.kind_from = entries
    only_default = len(entries) == 1 and "default" in entries[0]
    inf.kind_note = notes[-1] if only_default else "kind from " + ", then ".join(notes)
    kinds: dict[str, dict] = {}
    for s in metas:
        name = kind_of.get(s.relpath, default)
        k = kinds.setdefault(name, {"count": 0, "statuses": Counter(), "description": ""})
        k["count"] += 1
        st = s.meta.get("status")
        if isinstance(st, str):
            word = _status_word(st, inf)
            if word is not None:
                k["statuses"][word] += 1
    if {"default": default} in entries and default not in kinds:   # no note yet: the kind exists all the same
        kinds[default] = {"count": 0, "statuses": Counter(), "description": ""}
    for name, k in kinds.items():
        k["description"] = _kind_description(name, entries, len(kinds))
    inf.kinds = dict(sorted(kinds.items()))


def _kind_description(name: str, entries: list, how_many: int) -> str:
    """What makes a note of kind ``name``, in words: the kind's
    ``description`` (a site shows it beside the kind's count; a count
    written here would be stale on the first note added)."""
    for e in entries:
        if "pattern" in e:
            continue        # (a KIND-NNN id names its kind: said below if nothing else does)
        if "field" in e and name in e["map"].values():
            values = sorted(k for k, v in e["map"].items() if v == name)
            return f"notes whose {e['field']} is {' or '.join(values)}"
        if "prefix" in e and name in e["map"].values():
            heads = sorted(k for k, v in e["map"].items() if v == name)
            return "notes whose file name starts " + " or ".join(f"{h}." for h in heads)
        if "folder" in e and name in e["map"].values():
            folders = sorted(k for k, v in e["map"].items() if v == name)
            return "notes in " + " or ".join(f"{f}/" for f in folders)
        if e.get("default") == name:
            return "the notes of no other kind" if how_many > 1 else "every note"
    return f"records whose id is {name}-NNN"


def _status_word(value: str, inf: Inference) -> str | None:
    """The status ``value`` stands for, or None when it is no status (a
    template's choices in braces, a list, a link): ``superseded by
    [ADR-0008](…)`` stands for ``superseded`` and adds a derived relation."""
    v = value.strip()
    m = _POINTER_STATUS.match(v)
    if m and ("[" in m.group("target") or re.search(r"\d", m.group("target"))):
        word = m.group("word").lower()
        rel = f"{word}_by"
        if not any(d["relation"] == rel for d in inf.derive):
            inf.derive.append({"relation": rel, "field": "status",
                               "pattern": rf"(?i)^\s*{re.escape(word)}\s+by\s+(?P<target>.+?)\s*$"})
        return word
    if not v or not _WORD_STATUS.match(v):
        return None
    return v


def _status_list(counter: Counter) -> list[str]:
    """The statuses of a kind: each word once, in the spelling most notes
    use (``Accepted`` beside ``accepted`` is a case slip, left to RK204's
    safe fix), most common first."""
    by_fold: dict[str, Counter] = defaultdict(Counter)
    for word, c in counter.items():
        by_fold[word.lower()][word] += c
    ranked = sorted(by_fold.items(), key=lambda kv: (-sum(kv[1].values()), kv[0]))
    return [spellings.most_common(1)[0][0] for _fold, spellings in ranked]


def _json_type(v) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, (_dt.date, _dt.datetime)):
        return "date"
    if isinstance(v, str):
        return "date-text" if _DATE_TEXT.match(v.strip()) else "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    return "string"


def _has_link(v) -> bool:
    if isinstance(v, str):
        return "[[" in v or bool(_MDLINK.search(v))
    if isinstance(v, list):
        return any(isinstance(x, str) and ("[[" in x or _MDLINK.search(x)) for x in v)
    return False


#: fields that name the note itself or describe it, never relations
_NOT_RELATIONS = {"id", "title", "status", "type", "kind", "tags", "aliases", "alias", "desc", "description"}


def _infer_fields(inf: Inference, metas, ids: set) -> None:
    """Field types; a field whose values are links, or ids of other notes
    (``grounds: [THEORY-175]``), is a relation."""
    types: dict[str, Counter] = defaultdict(Counter)
    items: dict[str, Counter] = defaultdict(Counter)
    links: Counter = Counter()
    named: Counter = Counter()        # string values that are ids of notes
    strings: Counter = Counter()      # string values (alone or in a list)
    epoch: Counter = Counter()
    for s in metas:
        for name, v in s.meta.items():
            if not isinstance(name, str) or is_placeholder(v):
                continue        # (a template's <% tp.date.now() %>: no value of any type)
            t = _json_type(v)
            types[name][t] += 1
            if t == "integer" and _EPOCH_MS[0] <= v < _EPOCH_MS[1]:
                epoch[name] += 1
            if t == "array":
                for x in v:
                    items[name][_json_type(x)] += 1
            if name in _NOT_RELATIONS:
                continue
            if _has_link(v):
                links[name] += 1
            for x in (v if isinstance(v, list) else [v]):
                if isinstance(x, str) and not _DATE_TEXT.match(x.strip()):   # a date names no note
                    strings[name] += 1
                    if x.strip() in ids:
                        named[name] += 1
    for name, counter in types.items():
        total = sum(counter.values())
        present = total - counter.get("null", 0)
        if name in links and links[name] >= max(1, present // 2):
            inf.fields[name] = FieldType(name, {}, f"links in {links[name]} note(s)", relation=True)
            continue
        if named[name] and named[name] >= 0.8 * strings[name]:
            inf.fields[name] = FieldType(name, {}, f"ids of other notes in {named[name]} value(s)", relation=True)
            continue
        inf.fields[name] = _field_type(name, counter, items.get(name, Counter()), epoch.get(name, 0))


#: list fields the vault tools also take as one string (``tags: component``:
#: Obsidian and Quartz split it at commas; ``aliases: SRS``): a string among
#: lists is no slip there
_ONE_OR_MANY = {"tags", "aliases", "alias", "cssclasses", "cssclass"}


def _field_type(name: str, counter: Counter, items: Counter, epoch: int) -> FieldType:
    nulls = counter.get("null", 0)
    present = {t: c for t, c in counter.items() if t != "null"}
    total = sum(present.values())
    if not total:
        return FieldType(name, {"type": ["string", "null"]}, "always empty")
    dates = present.get("date", 0) + present.get("date-text", 0)
    if epoch and epoch >= 0.8 * total:
        return FieldType(name, {"type": "date", "epoch": "ms"}, "date, in epoch milliseconds")
    if dates >= 0.8 * total and present.get("date", 0):
        # a date-like string that is no date (2026-02-30) is a defect RK205 reports
        return FieldType(name, {"type": "date"}, "date")
    if dates >= 0.8 * total:
        return FieldType(name, {"type": "date"}, "date (written as text)")
    kinds = set(present)
    if "date-text" in kinds:
        kinds.discard("date-text")
        kinds.add("string")
    if "date" in kinds and len(kinds) > 1:
        kinds.discard("date")
        kinds.add("string")   # mixed: leave the dates to the reader
        spec_types = sorted(kinds)
    else:
        spec_types = sorted(kinds)
    if set(spec_types) == {"integer", "number"}:
        spec_types = ["number"]
    # one type in 90 % or more of the notes, the others 2 or fewer: the others are slips the lint should show
    main, main_count = max(present.items(), key=lambda kv: kv[1])
    main = "string" if main == "date-text" else main
    if len(spec_types) > 1 and main_count >= 0.9 * total and total - main_count <= 2 and main != "date" \
            and not (name in _ONE_OR_MANY and set(spec_types) == {"array", "string"}):
        spec_types = [main]
    spec: dict = {}
    if nulls:
        spec_types = spec_types + ["null"]
    spec["type"] = spec_types[0] if len(spec_types) == 1 else spec_types
    note = ""
    if "array" in spec_types:
        item_types = {("string" if t == "date-text" else t) for t in items}
        if item_types == {"string"}:
            spec["items"] = {"type": "string"}
        spec["list"] = True
        note = "list"
    if spec["type"] == "date":
        note = "date"
    return FieldType(name, spec, note)


def _strip_code(body: str) -> str:
    """The body without its fenced code blocks (a line scan: an unclosed
    fence hides the rest, as Markdown does)."""
    if "```" not in body and "~~~" not in body:
        return body
    out, fence = [], None
    for line in body.split("\n"):
        m = _FENCE_LINE.match(line)
        if fence is None:
            if m:
                fence = m.group(1)
            else:
                out.append(line)
        elif m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line.strip()[len(m.group(1)):].strip():
            fence = None
    return "\n".join(out)


class _Tails:
    """``text in tails``: whether ``text`` is what follows a ``/`` in one of
    ``paths``.  The tails of up to ``keep`` parts are a set; a longer one is
    checked against the paths ending with its last part (every tail of a
    path 900 folders deep made the set quadratic in the depth)."""

    def __init__(self, paths, keep: int = 8):
        self.keep = keep
        self.short: set = set()
        self.by_last: dict = {}
        for p in paths:
            parts = p.split("/")
            for i in range(max(1, len(parts) - keep), len(parts)):
                self.short.add("/".join(parts[i:]))
            if len(parts) > 1:
                self.by_last.setdefault(parts[-1], []).append(p)

    def __contains__(self, text: str) -> bool:
        if text in self.short:
            return True
        if text.count("/") < self.keep:
            return False
        return any(p.endswith("/" + text) for p in self.by_last.get(text.rsplit("/", 1)[-1], ()))


def _infer_links(inf: Inference, samples, metas) -> None:
    stems = Counter(_stem(s.relpath) for s in samples)
    stems_fold = {k.lower() for k in stems}
    paths = {s.relpath[:-3] for s in samples}
    paths_fold = {p.lower() for p in paths}
    # every tail of a path after a '/': [[Project/Index]] names a/Project/Index (shortest unambiguous path)
    suffixes = _Tails(paths)
    suffixes_fold = _Tails(paths_fold)
    titles, titles_fold, aliases, aliases_fold = set(), set(), set(), set()
    ids = set()
    for s in metas:
        t = s.meta.get("title")
        if isinstance(t, str) and t.strip():
            titles.add(t.strip())
        al = s.meta.get("aliases", s.meta.get("alias"))
        for a in (al if isinstance(al, list) else [al]):
            if isinstance(a, str) and a.strip():
                aliases.add(a.strip())
        i = s.meta.get("id")
        if isinstance(i, str):
            ids.add(i)
    for s in samples:
        if s.h1:
            titles.add(s.h1.strip())
    titles_fold = {t.lower() for t in titles}
    aliases_fold = {a.lower() for a in aliases}
    by = Counter()
    wikilinks = markdown = fm_links = 0
    first_votes = label_votes = 0
    folded_only = 0

    def match(text: str) -> str | None:
        nonlocal folded_only
        text = text.strip()
        if not text:
            return None
        for name, exact in (("stem", stems), ("path", paths), ("path", suffixes), ("title", titles),
                            ("aliases", aliases)):
            if text in exact:
                return name
        low = text.lower()
        for name, folded in (("stem", stems_fold), ("path", paths_fold), ("path", suffixes_fold),
                             ("title", titles_fold), ("aliases", aliases_fold)):
            if low in folded:
                folded_only += 1
                return name
        if text in ids:
            return "id"
        return None

    def target_part(inner: str, order: str) -> str:
        if "|" in inner:
            a, b = inner.split("|", 1)
            inner = b if order == "label-first" else a
        return re.split(r"[#^]", inner, 1)[0]

    pending = []
    for s in samples:
        body = _strip_code(s.body or "")
        for m in _WIKILINK.finditer(body):
            wikilinks += 1
            pending.append(m.group(2))
        for m in _MDLINK.finditer(body):
            href = m.group(1).strip()
            if _URL.match(href) or href.startswith("#"):
                continue
            path = unquote(href.split("#", 1)[0])
            if path.lower().endswith(".md"):
                markdown += 1
        if isinstance(s.meta, dict):
            for name, v in s.meta.items():
                for x in (v if isinstance(v, list) else [v]):
                    if isinstance(x, str) and "[[" in x:
                        fm_links += 1
                        for m in _WIKILINK.finditer(x):
                            pending.append(m.group(2))
    for inner in pending:
        if "|" in inner:
            a, b = inner.split("|", 1)
            ta, tb = match(re.split(r"[#^]", a, 1)[0]), match(re.split(r"[#^]", b, 1)[0])
            if ta and not tb:
                first_votes += 1
            elif tb and not ta:
                label_votes += 1
    order = "label-first" if label_votes > first_votes else "target-first"
    for inner in pending:
        got = match(target_part(inner, order))
        if got:
            by[got] += 1
    resolve = []
    if inf.id_from and inf.id_from[0].startswith("field:"):
        resolve.append("id")
    if inf.id_from == ["path"] or by.get("path"):
        resolve.append("path")
    resolve.append("stem")
    if by.get("title"):
        resolve.append("title")
    if by.get("aliases"):
        resolve.append("aliases")
    if by.get("id") and "id" not in resolve:
        resolve.append("id")
    inf.links = {"resolve": resolve, "case_sensitive": folded_only == 0, "wikilink_order": order,
                 "order_voted": first_votes + label_votes > 0,
                 "markdown_links": markdown > 0,
                 "mentions": bool(inf.id_pattern and "(?P<kind>" in inf.id_pattern)}
    inf.link_counts = {"wikilinks": wikilinks, "Markdown links to .md": markdown, "front-matter links": fm_links}


def _infer_tags(inf: Inference, metas, samples=(), body_tags=None) -> None:
    """The tags' shape (the first of TAG_PATTERNS every tag fits), from the
    ``tags`` fields and the bodies' ``#tags`` (which, when there are any,
    make ``tags.inline`` true: Obsidian and Foam read them as tags).
    ``body_tags``: body -> its #tags (the corpus's scanner, given by the
    caller: the schema stage does not read bodies itself)."""
    tags = []
    for s in metas:
        t = s.meta.get("tags")
        for x in (t if isinstance(t, list) else [t]):
            if isinstance(x, str) and x.strip():
                tags.append(x.strip())
    inline = [t for s in samples if s.body and "#" in s.body for t in body_tags(s.body)] if body_tags else []
    inf.tag_inline = bool(inline)
    tags += inline
    if not tags:
        return
    # a tag with a space or a bracket is a slip, not a convention
    clean = [t for t in tags if not re.search(r"[\s\[\]{}(),;]", t)]
    for name, pattern in TAG_PATTERNS:
        rx = re.compile(pattern)
        if all(rx.match(t) for t in clean):
            inf.tag_pattern = pattern
            slips = len(tags) - len(clean)
            inf.tag_note = _tag_count(tags, inline, inf.tags_fold) + \
                f", {name}" + (f" ({slips} with a space or bracket: RK206 shows them)" if slips else "")
            return
    inf.tag_pattern = TAG_PATTERNS[-2][1]
    inf.tag_note = f"{_tag_count(tags, inline, inf.tags_fold)} of several shapes: any word characters, nested with /"


def _tag_count(tags: list, inline: list, fold: bool = False) -> str:
    """``31 distinct tags (696 uses, 120 in the text)``: the tags a vault
    has, not how often they are written (``Tag`` and ``tag`` one when the
    preset reads them as one: ``fold``)."""
    distinct = len({t.casefold() for t in tags} if fold else set(tags))
    uses = f"{len(tags)} uses" + (f", {len(inline)} in the text" if inline else "")
    return f"{distinct} distinct tag{'' if distinct == 1 else 's'} ({uses})"


def a_or_an(word: str) -> str:
    return ("an " if word[:1].upper() in "AEIOU" else "a ") + word


# -- YAML and TOML text ------------------------------------------------------
_PLAIN = re.compile(r"^[A-Za-z_][\w-]*$")


def _q(s) -> str:
    """A YAML scalar: plain when it is a simple word, else single-quoted."""
    if isinstance(s, bool):
        return "true" if s else "false"
    if isinstance(s, (int, float)):
        return str(s)
    s = str(s)
    if _PLAIN.match(s) and s.lower() not in ("true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"):
        return s
    return "'" + s.replace("'", "''") + "'"


def _key(s: str) -> str:
    return _q(s)


def _flow(v) -> str:
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_key(str(k))}: {_flow(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_flow(x) for x in v) + "]"
    return _q(v)


def toml_text(root: str, schema_file: str | None, preset: str | None = None, site: dict | None = None) -> str:
    """The ``recordkit.toml`` that points at the record and its schema;
    ``site``: the keys of its ``[site]`` table (strings; ``title``, the
    site's name, first)."""
    lines = ["# recordkit configuration (docs/configuration.md), written by `recordkit init`", ""]
    lines.append(f"root = {_toml_str(root)}")
    if schema_file:
        lines.append(f"schema = {_toml_str(schema_file)}")
    elif preset:
        lines.append(f"schema = {_toml_str('preset:' + preset)}")
    if site:
        lines += ["", "[site]"]
        for k, v in site.items():
            if k == "title":
                lines.append("# the published site's name (recordkit build): its header, home page and tab")
            lines.append(f"{k} = {_toml_str(v)}")
    return "\n".join(lines) + "\n"


def _toml_str(s: str) -> str:
    # (a control character as TOML's \\uXXXX: a folder may be named with one)
    return '"' + re.sub(r"[\x00-\x1f\x7f]", lambda m: f"\\u{ord(m.group()):04X}",
                        s.replace("\\", "\\\\").replace('"', '\\"')) + '"'


def starter_yaml(preset: str | None) -> str:
    """The schema file ``recordkit init`` writes without ``--infer``."""
    base = f"preset:{preset}" if preset else "preset:research"
    return (f"# recordkit schema, written by `recordkit init`: it starts from {base}\n"
            "# (docs/presets.md); add kinds, fields, statuses and relations below, or run\n"
            "# `recordkit init --infer` on a fresh folder to have them inferred from the notes.\n"
            f"extends: {base}\n")


__all__ = ["Sample", "Inference", "infer", "toml_text", "starter_yaml", "ID_SHAPES", "TAG_PATTERNS"]
