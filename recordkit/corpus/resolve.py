"""Which record a link names: the resolver, built once per corpus.

A link's text (a front-matter relation value, a ``[[wikilink]]``, a bare
``KIND-NNN``, a Markdown link to a ``.md`` file, the argument of ``recordkit
show``) is matched against the records' keys in the order the schema's
``links.resolve`` gives:

- ``id``: the record's id;
- ``path``: its path under the root without ``.md``, or the shortest
  unambiguous end of it (``[[sub/Note]]`` matches ``a/sub/Note.md``, as
  Obsidian and Foam do);
- ``stem``: its file name without ``.md``;
- ``title``: its title;
- ``aliases``: the strings of its ``aliases`` field.

The first key that matches decides: one record is the target, two or more
make the link ambiguous (the candidates are kept for the diagnostic), none
at all makes it missing.  With ``links.case_sensitive: false`` keys and links
are compared case-insensitively and with runs of blanks folded to one space
(as Obsidian does; ``-`` and ``_`` are not folded).

Every index is a dictionary built in one pass over the records (the path
index holds every end of every path: linear in the total path depth), and
every answer is cached, so resolving a link costs a dictionary look-up, never
a scan of the records.

With the research defaults (``resolve: [id]``, case-sensitive) a link
resolves exactly when its text is an id, as before the resolver existed:
:func:`resolve_links` then leaves the records as they were loaded.

A Dendron cross-vault link, ``[[dendron://vault/note.name]]`` (with a
``label|`` before it and a ``#anchor`` after it as any link), names a note of
the vault called ``vault`` in the workspace's ``dendron.yml``
(:mod:`recordkit.corpus.vaults`): when that is the vault loaded, the note is looked for
as ``[[note.name]]`` is; a note of another vault is not loaded, so the link
is no record link, and not missing (``by == "vault"``), as a Markdown link
to a file outside the root is not.
"""
from __future__ import annotations

import os
import re
import posixpath
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ..markdown.links import fold_key, link_form, strip_md, value_link
from ..schema import LinkSettings
from .mentions import LinkScan, Mention, mention_links, mention_spots, mention_targets
from .vaults import XVAULT, vault_names, xvault_parts

if TYPE_CHECKING:
    from .model import Corpus, Record

#: the keys a link may be matched against, in the default order of a vault
KEYS = ("id", "path", "stem", "title", "aliases")
#: the ends of a path kept in the path index (longer ones: looked up by the last part)
TAIL_PARTS = 8


#: the research record's ``links:`` (ids only, exact, bare mentions on, no
#: Markdown links): the schema's defaults
RESEARCH_LINKS = LinkSettings()


def is_research_default(settings: LinkSettings) -> bool:
    """Whether ``settings`` (a schema's ``links``) resolve links as they did
    before the resolver: by id only, exactly as written, bare mentions on,
    no Markdown links."""
    return settings == RESEARCH_LINKS


class Resolution(NamedTuple):
    """What a link names: ``target`` (a record id) when exactly one record
    matches; else ``target`` is None and ``candidates`` holds the ids of the
    records that match equally well (two or more: ambiguous) or nothing
    (missing).  ``by``: the key that matched (``id``, ``path``, ``stem``,
    ``title``, ``aliases``; ``file`` for a Markdown link to a file that
    exists and is not a record, outside the root or not loaded; ``outside``
    for a path that leaves the root with no file there), or None."""
    target: str | None
    candidates: tuple[str, ...] = ()
    by: str | None = None

    @property
    def ambiguous(self) -> bool:
        return self.target is None and len(self.candidates) > 1

    @property
    def missing(self) -> bool:
        """Nothing matches (a Markdown link to a file that exists but is no
        record, ``by == "file"``, and a Dendron link into another vault,
        ``by == "vault"``, are not missing: they are not record links)."""
        return self.target is None and not self.candidates and self.by not in ("file", "vault")


_MISSING = Resolution(None)
#: a path that leaves the record root (``[[../../Other]]``, ``[a](../x.md)``
#: with no file there): missing, and said so (nothing is read there)
OUTSIDE = Resolution(None, (), "outside")
_FILE = Resolution(None, (), "file")
_OTHER_VAULT = Resolution(None, (), "vault")

# -- the resolver -----------------------------------------------------------------
#: a reference by number (links.resolve: number): MADR's own template
#: writes ``superseded by ADR-0123``; ``ADR 12``, ``#0012``, ``0012`` too
NUMBER_REF_RE = re.compile(r"(?i)^(?:adr[-_ ]?)?#?0*([0-9]{1,9})$")
#: a file named by its number first (``0008-use-duckdb``), as MADR names them
NUMBERED_STEM_RE = re.compile(r"^([0-9]{1,9})-")


def _same(text: str) -> str:
    return text


class Resolver:
    """Matches links to records (see the module's documentation).

    ``records``: id -> Record (a corpus's ``records``); ``settings``: the
    schema's :class:`LinkSettings`.  The indexes of the keys the settings
    name are built on first use, each in one pass over the records."""

    def __init__(self, records: dict, settings: LinkSettings = RESEARCH_LINKS, order: tuple[str, ...] | None = None,
                 root: Path | None = None):
        self.records = records
        #: the record root: a Markdown link that names no record is looked
        #: for on disk there (a file outside the root, or not a record)
        self.root = root
        self.settings = settings
        self.order = tuple(order) if order is not None else settings.resolve
        self.norm = _same if settings.case_sensitive else fold_key
        self._index: dict[str, dict[str, list[str]]] = {}
        self._cache: dict[tuple, Resolution] = {}
        #: every file outside the loaded records that a Markdown link was
        #: looked for on disk, and whether it was a file then (path -> bool):
        #: what the answer depended on beyond the records (the lint cache
        #: keeps it and checks it again, see :mod:`recordkit.lint.cache`)
        self.files_consulted: dict[str, bool] = {}
        #: the names cross-vault links give the vault loaded (normalised), read on first use
        self._vaults: frozenset | None = None

    # indexes: normalised key -> ids, in record order
    def index(self, key: str) -> dict[str, list[str]]:
        got = self._index.get(key)
        if got is None:
            got = self._index[key] = self._build(key)
        return got

    def _build(self, key: str) -> dict[str, list[str]]:
        norm = self.norm
        out: dict[str, list[str]] = {}

        def add(k, rid):
            if not k:
                return
            ids = out.get(k)
            if ids is None:
                out[k] = [rid]
            elif ids[-1] != rid:
                ids.append(rid)

        records = self.records
        if key == "id":
            for rid in records:
                add(norm(rid), rid)
        elif key == "path":
            # the ends of every path: ``a/sub/Note`` is found as ``Note``,
            # ``sub/Note`` and ``a/sub/Note``.  Only the ends of up to
            # TAIL_PARTS parts and the whole path are kept (every end of a
            # path 900 folders deep made the index quadratic in the depth:
            # 1.6 GB for 1,600 notes); a longer end is found from its last
            # part (:meth:`_long_tail`)
            for rid, r in records.items():
                parts = norm(strip_md(r.relpath)).split("/")
                n = len(parts)
                if n > TAIL_PARTS:
                    add("/".join(parts), rid)
                for i in range(max(0, n - TAIL_PARTS), n):
                    add("/".join(parts[i:]), rid)
        elif key == "stem":
            for rid, r in records.items():
                add(norm(r.path.stem), rid)
        elif key == "number":
            # a numbered decision (0008-use-duckdb) by its number: 8
            for rid, r in records.items():
                m = NUMBERED_STEM_RE.match(r.path.stem)
                if m:
                    add(str(int(m.group(1))), rid)
        elif key == "title":
            for rid, r in records.items():
                t = r.title
                if isinstance(t, str):
                    add(norm(t), rid)
        elif key == "aliases":
            for rid, r in records.items():
                for a in _aliases(r):
                    add(norm(a), rid)
        return out

    def _long_tail(self, p: str) -> list | None:
        """The records whose path ends with ``p`` (normalised, more than
        TAIL_PARTS parts, not a whole path), in record order: those that
        end with its last part, each checked."""
        last = p.rsplit("/", 1)[1]
        norm = self.norm
        got = [rid for rid in self.index("path").get(last, ())
               if ("/" + norm(strip_md(self.records[rid].relpath))).endswith("/" + p)]
        return got or None

    def resolve(self, text: str, *, from_path: str | None = None, form: str = "value") -> Resolution:
        """What ``text`` (a link's target, already taken out of its syntax)
        names.  ``from_path``: the root-relative path of the linking file,
        against which a Markdown link (``form="markdown"``) is read."""
        if form == "markdown":
            return self._resolve_markdown(text, from_path)
        if text[:10] == XVAULT:
            got = self._cache.get(text)
            if got is None:
                got = self._cache[text] = self._resolve_xvault(text)
            return got
        if text[:1] == "." and text.startswith(("./", "../")) and from_path is not None and "path" in self.order:
            return self._resolve_relative(text, from_path)
        key = text
        got = self._cache.get(key)
        if got is None:
            got = self._cache[key] = self._lookup(text)
        if got.target is None and from_path is not None and self.settings.same_folder and len(got.candidates) > 1:
            got = self._in_folder_of(got, from_path)
        return got

    def _in_folder_of(self, got: Resolution, from_path: str) -> Resolution:
        """An ambiguous ``got`` read as Obsidian reads it (``links.same_folder``):
        the one candidate in the linking note's own folder is the note it
        opens; with none there (or two), the link stays ambiguous."""
        folder = posixpath.dirname(from_path)
        here = [rid for rid in got.candidates if posixpath.dirname(self.records[rid].relpath) == folder]
        return Resolution(here[0], (here[0],), got.by) if len(here) == 1 else got

    def _lookup(self, text: str) -> Resolution:
        if self.order[0] == "id" and text in self.records:
            return Resolution(text, (text,), "id")   # the common case, as written
        t = self.norm(text.strip())
        if not t:
            return _MISSING
        for key in self.order:
            if key == "path":
                p = t.lstrip("/")
                if p.startswith("./"):
                    p = p[2:]
                p = strip_md(p)
                if "/" not in p:
                    continue    # a bare name is a stem, not a path
                ids = self.index("path").get(p)
                if ids is None and p.count("/") >= TAIL_PARTS:
                    ids = self._long_tail(p)
            elif key == "stem":
                ids = self.index("stem").get(strip_md(t))
            elif key == "number":
                m = NUMBER_REF_RE.match(t)
                ids = self.index("number").get(str(int(m.group(1)))) if m else None
            else:
                ids = self.index(key).get(t)
            if ids:
                if len(ids) == 1:
                    return Resolution(ids[0], (ids[0],), key)
                return Resolution(None, tuple(ids), key)
        return _MISSING

    def _resolve_xvault(self, text: str) -> Resolution:
        """A Dendron cross-vault link (``dendron://vault/note.name``): the
        note, when ``vault`` is the vault loaded (:func:`vault_names`); a
        note of another vault is no record link, and not missing."""
        parts = xvault_parts(text)
        if parts is None:
            return _MISSING
        if self._vaults is None:
            self._vaults = frozenset(self.norm(n) for n in vault_names(self.root))
        vault, note = parts
        if self.norm(vault) not in self._vaults:
            return _OTHER_VAULT
        return self.resolve(note, form=link_form(note)) if note else _MISSING

    def _resolve_relative(self, text: str, from_path: str) -> Resolution:
        """A wikilink written as a path from the linking file's folder
        (``[[../Areas/Goal]]``, ``[[./Sibling]]``: Obsidian's "relative path"
        link format): that file, exactly."""
        path = posixpath.normpath(posixpath.join(posixpath.dirname(from_path), text.strip()))
        key = ("rel", path)
        got = self._cache.get(key)
        if got is None:
            got = self._cache[key] = self._at_path(path)
        return got

    def _at_path(self, path: str) -> Resolution:
        """The record whose file is at the root-relative ``path`` (with or
        without ``.md``; outside the root: none)."""
        if path.startswith("../") or path == "..":
            return OUTSIDE
        ids = self._full_paths().get(self.norm(strip_md(path)))
        if not ids:
            return _MISSING
        return Resolution(ids[0], (ids[0],), "path") if len(ids) == 1 else Resolution(None, tuple(ids), "path")

    def _resolve_markdown(self, href: str, from_path: str | None) -> Resolution:
        """A Markdown link's destination: relative to the linking file's
        folder (or to the root when it starts with ``/``), an exact path;
        then, when no file is there, matched as any link is."""
        base = posixpath.dirname(from_path) if from_path else ""
        joined = href.lstrip("/") if href.startswith("/") else posixpath.join(base, href)
        path = posixpath.normpath(joined)
        key = ("md", path)
        got = self._cache.get(key)
        if got is not None:
            return got
        got = self._at_path(path)
        if got.missing and got.by != "outside":
            # (a path that leaves the root names no note inside it by its name)
            name = strip_md(href)
            got = self._lookup(name)
            if got.ambiguous and from_path is not None and self.settings.same_folder:
                got = self._in_folder_of(got, from_path)
            if got.missing and "/" in name:
                got = self._lookup(posixpath.basename(name))
                if got.by not in (None, "stem", "path"):
                    got = _MISSING   # a path's last part matched only as a title: not a file link
        if got.missing and self.root is not None:
            # a file that exists but is no record (outside the root, or not
            # loaded): a link to it is not a record link, and not missing
            where = self.root / joined if not href.startswith("/") else self.root / href.lstrip("/")
            found = os.path.isfile(where)      # (never raises: a bad path is no file)
            self.files_consulted[str(where)] = found
            if found:
                got = _FILE
        self._cache[key] = got
        return got

    def _full_paths(self) -> dict[str, list[str]]:
        got = self._index.get("fullpath")
        if got is None:
            got = {}
            for rid, r in self.records.items():
                got.setdefault(self.norm(strip_md(r.relpath)), []).append(rid)
            self._index["fullpath"] = got
        return got

    def carried(self, records: dict) -> "Resolver":
        """A resolver of ``records``, which match links by the same keys as
        this one's (the same ids, paths, stems, titles and aliases: a record
        edited without touching them), with this one's indexes and answers."""
        new = Resolver(records, self.settings, self.order, self.root)
        new._index = self._index
        new._cache = dict(self._cache)
        new.files_consulted = dict(self.files_consulted)
        new._vaults = self._vaults
        return new


def _aliases(rec) -> list[str]:
    a = getattr(rec, "aliases", None)
    if a is None:
        a = rec.get("aliases") if hasattr(rec, "get") else None
    if isinstance(a, str):
        return [a]
    if isinstance(a, list):
        return [x for x in a if isinstance(x, str)]
    return []


def link_keys(rec: "Record") -> tuple:
    """What links elsewhere may match ``rec`` by (see the module): whether
    it is a record, its id, path, title and aliases.  While these stay the
    same, an edit of ``rec`` changes how no other record's links resolve."""
    if not rec.ok:
        return (False, rec.relpath)
    return (True, rec.id, rec.relpath, rec.title, tuple(_aliases(rec)))


# -- the corpus's links, resolved ---------------------------------------------------
def resolver_for(corpus: "Corpus") -> Resolver:
    """The corpus's resolver (built once, kept with the corpus)."""
    got = corpus._resolver
    if got is None or got.records is not corpus.records:
        got = corpus._resolver = Resolver(corpus.records, corpus.schema.links, root=corpus.root)
    return got


def derived_status(rules, status: str, statuses) -> str | None:
    """The status of the kind that a ``derive`` rule on ``status`` reads in
    the value ``status``, such as MADR's ``superseded by
    [ADR-0008](0008-….md)``: the words before the rule's ``target`` group
    ("superseded by", or without its last word, "superseded") when they
    name one of ``statuses``; else None.  ``rules``: the schema's derive
    patterns (those on other fields are passed over)."""
    for derive in rules:
        if derive.field != "status":
            continue
        m = derive.regex.search(status)
        if m is None or m.start("target") < 0:
            continue
        head = status[:m.start("target")].strip()
        words = head.split()
        for cand in (head, " ".join(words[:-1])):
            if cand and cand in statuses:
                return cand
    return None


def files_consulted(corpus: "Corpus") -> dict[str, bool]:
    """The files outside the corpus's records that its links were looked for
    on disk (a Markdown link to a file that is no record: in a skipped
    folder, outside the root), each with whether it was a file: ``path ->
    bool``.  Empty when no resolver was built for the corpus."""
    got = corpus._resolver
    return dict(got.files_consulted) if got is not None else {}


def target_resolution(corpus: "Corpus", rec: "Record", t) -> Resolution:
    """What a front-matter Target names."""
    text = t.text if getattr(t, "text", None) is not None else t.id
    settings = corpus.schema.links
    target, form = value_link(text, settings)
    return resolver_for(corpus).resolve(target, from_path=rec.relpath, form=form)


def mention_resolution(corpus: "Corpus", rec: "Record", m: Mention) -> Resolution:
    """What a body Mention names."""
    text = m.text if m.text is not None else m.target
    return resolver_for(corpus).resolve(text, from_path=rec.relpath, form=link_form(text))


def detached(rec: "Record", settings) -> "Record":
    """``rec`` for a corpus that shares it with another (a corpus re-read
    after an edit): a copy whose links :func:`resolve_links` may point
    elsewhere without touching ``rec``, or ``rec`` itself when resolving
    changes nothing of it (the research defaults and no ``[[`` in a
    relation value).  A merge that resolved the shared records again
    pointed the links of the corpus before it at the removed record's
    absence, and so never saw the links it lost."""
    if not rec.ok:
        return rec
    rels = rec.relations or {}
    if is_research_default(settings) and not any("[[" in (t.text if t.text is not None else t.id)
                                       for ts in rels.values() for t in ts):
        return rec
    import copy
    out = copy.copy(rec)
    out.relations = {k: [copy.copy(t) for t in ts] for k, ts in rels.items()}
    out.mention_targets = list(rec.mention_targets)
    return out


def resolve_links(corpus: "Corpus", records=None) -> None:
    """Point every front-matter relation and body link of the corpus at the
    record it names: a Target's ``id`` and a Mention's ``target`` become the
    record's id when the link resolves to exactly one record, else the link's
    target as written (its syntax taken off); ``text`` keeps the link as
    written, so that resolving again (a corpus re-read after an edit) starts
    from it.  With the research defaults and no ``[[`` in a relation value
    nothing changes and this costs a look at each relation value.
    ``records``: only these files of the corpus (those parsed again after
    an edit, :func:`recordkit.corpus.loader.with_edits`), the others being
    resolved already against the same keys."""
    settings = corpus.schema.links
    default = is_research_default(settings)
    resolver = resolver_for(corpus)
    schema = corpus.schema
    id_re = schema.mention_re if settings.mentions else None
    inline_tags = getattr(schema, "inline_tags", False)
    status_rules = [d for d in getattr(schema, "derive_patterns", ()) if d.field == "status"]
    for rec in corpus.files if records is None else records:
        if not rec.ok:
            continue
        if inline_tags and not rec.inline_tags:
            rec.inline_tags = True    # (its tags are found when asked)
        if status_rules:
            s = rec.get("status")
            kind = schema.kinds.get(rec.kind) if rec.kind else None
            rec.status_word = derived_status(status_rules, s, kind.statuses) \
                if isinstance(s, str) and kind is not None and s not in kind.statuses else None
        rels = rec.relations
        if rels:
            for targets in rels.values():
                for t in targets:
                    text = t.text if t.text is not None else t.id
                    if default and "[[" not in text:
                        continue
                    target, form = value_link(text, settings)
                    res = resolver.resolve(target, from_path=rec.relpath, form=form)
                    t.text = text
                    t.id = res.target if res.target is not None else target
        if not default:
            # the targets found at load (as written) resolved now; the
            # positions when someone reads ``rec.mentions`` (LinkScan)
            relpath = rec.relpath
            scan = rec.mention_re
            texts = scan.texts if isinstance(scan, LinkScan) else rec.mention_targets
            got = []
            cached = resolver._cache.get     # (the loop runs once per link of the vault)
            for text in texts:
                res = cached(text)
                if res is None or text[-3:].lower() == ".md" or res.ambiguous:   # (same_folder reads from_path)
                    res = resolver.resolve(text, from_path=relpath, form=link_form(text))
                got.append(res.target if res.target is not None else text)
            rec.mention_targets = got
            rec.forget_mentions()
            rec.mention_re = LinkScan(id_re, settings, _resolve_for(resolver, relpath), texts)


def body_links(body: str, schema, code: list | None) -> tuple[list[str], tuple | None]:
    """:func:`body_link_texts` and, with the research defaults, where each
    link is (:func:`~recordkit.corpus.mentions.mention_spots`; else None),
    found in the same walk."""
    if is_research_default(schema.links):
        return mention_spots(body, schema.mention_targets_re, code)
    return body_link_texts(body, schema, code), None


def body_link_texts(body: str, schema, code: list | None) -> list[str]:
    """The links of a body, their targets as written, in order (a record's
    ``mention_targets`` as loaded, before :func:`resolve_links` resolves
    them): bare ids and wikilinks as before the resolver with the research
    defaults; with a vault's settings, its wikilink order, embeds, Markdown
    links and bare ids only when ``links.mentions`` is on."""
    settings = schema.links
    if is_research_default(settings):
        return mention_targets(body, schema.mention_targets_re, code)
    return [t for t, _ in mention_links(body, schema.mention_targets_re if settings.mentions else None, code,
                                        settings)]


def texts_as_written(rec: "Record") -> list[str]:
    """A record's link targets as it was loaded with them, before they were
    resolved (what parsing its text again gives as ``mention_targets``)."""
    scan = rec.mention_re
    return list(scan.texts) if isinstance(scan, LinkScan) else rec.mention_targets


def derived_refs(rec: "Record", schema):
    """``(rule, index, ref, target, form)`` of each link a ``derive``
    pattern reads in ``rec``'s fields (MADR's ``status: superseded by
    [ADR-0002](0002-x.md)``): the rule, the index of the value in its list
    (None for a field that is one string), the reference as written, and
    its target and form as a front-matter link is read (Markdown links
    always count)."""
    from dataclasses import replace
    settings = replace(schema.links, markdown_links=True)
    for rule in schema.derive_patterns:
        values = (rec.meta or {}).get(rule.field)
        listed = isinstance(values, list)
        for i, value in enumerate(values if listed else [values]):
            if not isinstance(value, str):
                continue
            for m in rule.regex.finditer(value):
                ref = (m.group("target") or "").strip()
                if ref:
                    target, form = value_link(ref, settings)
                    yield rule, (i if listed else None), ref, target, form


def _resolve_for(resolver: Resolver, relpath: str):
    def resolve(text: str) -> str | None:
        return resolver.resolve(text, from_path=relpath, form=link_form(text)).target
    return resolve


def find_record(corpus: "Corpus", text: str) -> Resolution:
    """The record a command's argument names: an id, a path (relative to
    the root or to the working folder, with or without ``.md``), a file
    stem, a title or an alias, compared as written and then
    case-insensitively.  The configured ``links.resolve`` order comes first,
    then the remaining keys."""
    records = corpus.records
    if text in records:
        return Resolution(text, (text,), "id")
    if text.lower().endswith(".md"):
        rec = corpus.by_path(text) or corpus.by_path(corpus.root / text)
        if rec is not None and rec.ok and records.get(rec.id) is rec:
            return Resolution(rec.id, (rec.id,), "path")
    settings = corpus.schema.links
    order = settings.resolve + tuple(k for k in KEYS if k not in settings.resolve)
    got = Resolver(records, settings, order).resolve(text)
    if got.missing and settings.case_sensitive:
        folded = LinkSettings(order, False, settings.wikilink_order, settings.markdown_links, settings.mentions)
        got = Resolver(records, folded, order).resolve(text)
    return got


def candidates_text(corpus: "Corpus", res: Resolution) -> str:
    """The candidates of an ambiguous resolution, for a message:
    ``a/Note (a/Note.md), b/Note (b/Note.md)``."""
    records = corpus.records
    out = []
    for c in res.candidates:
        r = records.get(c)
        out.append(f"{c} ({r.relpath})" if r is not None and strip_md(r.relpath) != c else c)
    return ", ".join(out)
