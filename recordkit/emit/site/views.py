"""TRANSFORM: the JSON-ready data each page shows, built from the loaded
record for the published records only (privacy is applied here: a view
never names a record kept out of the site).

``urls``: every page's path relative to the site root.  A record page sits
one folder deep (``lit/LIT-849.html``), so its links start with ``../``.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import json
import re
from dataclasses import dataclass, field

from ...common.order import id_sort_key
from ...common.text import to_plain
from ...views.record import record_facts
from .load import FAILING, SiteData, check_entry
from .markdown import plain_text
from .snippets import snippet_source
from .titles import graph_label, id_fields, shows_id, title_text
from .tag_index import group_by_tag, own_tags, tag_key
from .syntax import without_percent_comments
from ...graph import of as graph_of

#: fields shown elsewhere on the page, or never
_SKIP = {"id", "title", "status", "status_note", "tags", "promote_when", "checks", "publish", "lint",
         "cssclasses", "cssclass"}     # (a page's classes: docs/site.md)
#: fields of a LIT that make its citation line
_CITE = ("authors", "year", "venue", "arxiv", "doi", "url")
_WORDS_PER_MINUTE = 220


#: a name kept as a page's file name: plain, and short enough for every file
#: system (255 bytes a name; a 5,000-character tag stopped the build)
#: how much of a record's title the pages that name it show
TITLE_SHOWN = 1000
_SAFE_NAME_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,99}")


def record_url(rid: str, kind: str | None) -> str:
    """The page of a record: ``kind/ID.html``; an id or kind that is not a
    plain file name (a path id with '/', spaces, other scripts) is made one
    by :func:`slug`, so every page sits one folder down."""
    folder = (kind or "other").lower()
    if not _SAFE_NAME_RE.fullmatch(folder):
        folder = slug(folder)
    name = rid if _SAFE_NAME_RE.fullmatch(rid) else slug(rid)
    return f"{folder}/{name}.html"


def slug(text: str) -> str:
    """A file name for a tag or status: kept when it is already safe, else
    made safe with a short hash so two names never share a file."""
    s = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-.").lower()
    if s == text and s and len(s) <= 100:
        return s
    return (s[:60] or "x") + "-" + hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:6]


def kind_url(kind: str) -> str:
    return f"kind/{kind.lower() if re.fullmatch(r'[A-Z][A-Z0-9_]{0,99}', kind or '') else slug(kind or '')}.html"


def status_url(status: str) -> str:
    return f"status/{slug(status)}.html"


def tag_url(tag: str) -> str:
    return f"tag/{slug(tag)}.html"


def humanize(name) -> str:
    """A field's name as a label; a key YAML made something else than a
    string (``1:``, ``!!binary``) as its text."""
    return (name if isinstance(name, str) else str(name)).replace("_", " ").capitalize()


@dataclass
class Site:
    """Everything the pages need, for the published records."""
    data: SiteData
    ids: list[str]                      # published, in id order
    published: set
    title: str
    kinds: dict = field(default_factory=dict)       # kind -> {color, description, count, statuses}
    relation_labels: dict = field(default_factory=dict)
    mention_label: str = "Mentioned by"
    #: where each page is (:class:`.urls.PageUrls`); None: ``KIND/ID.html``
    pages: object = None

    def url(self, rid: str) -> str:
        """The link to the page of the published record ``rid``, relative
        to the site's root: the one place a page's URL is read (urls.py)."""
        return record_url(rid, self.corpus.records[rid].kind) if self.pages is None else self.pages.url(rid)

    def page_path(self, rid: str) -> str:
        """The file of the page of ``rid``, relative to the site's root."""
        return record_url(rid, self.corpus.records[rid].kind) if self.pages is None else self.pages.path(rid)
    #: the fields ids are read from, and whether only from them (see titles.shows_id)
    id_fields: tuple = ()
    only_id_fields: bool = False
    #: id -> :meth:`ref` (a page names 50 others: each made once a build;
    #: read only, callers copy it to add to it)
    refs: dict = field(default_factory=dict)

    @property
    def corpus(self):
        return self.data.corpus

    def resolve(self, rid: str) -> tuple:
        """What a mention of ``rid`` becomes (see markdown.Resolver).  A
        wikilink by path, file name, title or alias names the record the
        corpus's resolver finds for it (``links:`` in the schema)."""
        if rid not in self.corpus.records:
            from ...corpus.resolve import resolver_for
            got = resolver_for(self.corpus).resolve(rid).target
            if got is not None:
                rid = got
        if rid in self.published:
            return ("link", self.url(rid), self.corpus.records[rid].kind, rid)
        if rid in self.corpus.records:
            return ("hidden",)
        return ("dangling",)

    @property
    def fold_tags(self) -> bool:
        """``Tag`` and ``tag`` are one tag (the schema's ``tags.case_sensitive: false``)."""
        return not getattr(self.corpus.schema, "tags_case_sensitive", True)

    def tag_url(self, tag: str) -> str:
        """The page of ``tag``: one for all its spellings (:mod:`.tag_index`)."""
        return tag_url(tag_key(tag, self.fold_tags))

    def resolve_file(self, path: str, from_path: str | None) -> str | None:
        """The id of the record a Markdown link to the ``.md`` file ``path``
        (URL-decoded) names, read from the file at ``from_path``; None when
        it names no record (or several)."""
        from ...corpus.resolve import resolver_for
        return resolver_for(self.corpus).resolve(path, from_path=from_path, form="markdown").target

    def resolve_link(self, text: str, from_path: str | None) -> str | None:
        """The id of the record a wikilink's target names, read from the
        file at ``from_path`` (as the lint reads it), or None."""
        from ...corpus.resolve import resolver_for
        from ...markdown.links import link_form
        return resolver_for(self.corpus).resolve(text, from_path=from_path, form=link_form(text)).target

    def scrub(self, text):
        """``text`` with every id of a record kept out of the site replaced
        (reasons and details worked out over the whole record may name one)."""
        if not isinstance(text, str) or not text:
            return text
        records = self.corpus.records
        pub = self.published

        def sub(m):
            rid = m.group()
            return "an unpublished record" if rid in records and rid not in pub else rid
        return self.corpus.schema.mention_re.sub(sub, text)

    def ref(self, rid: str) -> dict:
        """A record as another page names it: its title cut at
        ``TITLE_SHOWN`` characters (its own page shows it whole; a title of
        100 KB was copied into each of the pages that named it)."""
        got = self.refs.get(rid)
        if got is None:
            rec = self.corpus.records[rid]
            got = self.refs[rid] = {"id": rid, "title": _clip(rec.title, TITLE_SHOWN), "kind": rec.kind,
                                    "url": self.url(rid), "status": rec.status,
                                    "show_id": shows_id(self.id_fields, self.only_id_fields, rec)}
        return got


def make_site(data: SiteData, ids: list[str], title: str) -> Site:
    from ...views.index import kind_color
    corpus = data.corpus
    schema = corpus.schema
    site = Site(data, ids, set(ids), title)
    counts: dict = {}
    for rid in ids:
        rec = corpus.records[rid]
        c = counts.setdefault(rec.kind, {})
        c[rec.status] = c.get(rec.status, 0) + 1
    for kind in list(schema.kinds) + sorted(k for k in counts if k is not None and k not in schema.kinds):
        if kind not in counts:
            continue
        k = schema.kinds.get(kind)
        site.kinds[kind] = {"name": kind, "color": kind_color(schema, kind),
                            "description": k.description if k else "", "count": sum(counts[kind].values()),
                            "statuses": counts[kind], "url": kind_url(kind)}
    site.relation_labels = {n: r.label for n, r in schema.relations.items()}
    site.mention_label = schema.mention_label
    site.id_fields = id_fields(schema)
    site.only_id_fields = len(site.id_fields) == len(schema.id_from)
    return site


def record_date(site: Site, rec) -> str | None:
    """The date a record last changed: git's when asked for, else
    ``updated``, else ``created``."""
    if site.data.git_dates:
        d = site.data.git_dates.get(rec.relpath)
        if d:
            return d
    for key in ("updated", "created", "date", "read"):
        v = rec.get(key)
        if isinstance(v, (_dt.date, _dt.datetime)):
            return v.isoformat()[:10]
        if isinstance(v, str) and re.match(r"^\d{4}-\d{2}-\d{2}", v):
            return v[:10]
        if isinstance(v, int):     # epoch milliseconds or seconds, where the schema says `epoch:`
            text = site.corpus.schema.date_text(rec.kind, key, v)
            if text is not None:
                return text
    return None


def _created(site: Site, rec):
    v = rec.get("created")
    if isinstance(v, int) and not isinstance(v, bool):
        return site.corpus.schema.date_text(rec.kind, "created", v) or v
    return to_plain(v)


def _value_items(value) -> list:
    value = to_plain(value)
    if isinstance(value, list):
        return [{"text": _short_value(v)} for v in value]
    return [{"text": _short_value(value)}]


def _short_value(v) -> str:
    if isinstance(v, (dict, list)):
        return json.dumps(v, ensure_ascii=False)
    return "" if v is None else str(v)


def citation(rec) -> dict | None:
    """The citation line of a work: authors (year), venue, and its links."""
    if not any(rec.get(k) for k in _CITE):
        return None
    authors = rec.get("authors")
    if isinstance(authors, list):
        names = [str(a) for a in authors]
        authors = ", ".join(names[:-1]) + " & " + names[-1] if len(names) > 1 else "".join(names)
    links = []
    arxiv = rec.get("arxiv")
    if isinstance(arxiv, (str, int, float)) and re.match(r"^[\w./-]+$", str(arxiv)):
        links.append({"text": f"arXiv:{arxiv}", "url": f"https://arxiv.org/abs/{arxiv}"})
    doi = rec.get("doi")
    if isinstance(doi, str) and re.match(r"^10\.\S+$", doi):
        links.append({"text": f"doi:{doi}", "url": f"https://doi.org/{doi}"})
    url = rec.get("url")
    if isinstance(url, str) and re.match(r"^https?://\S+$", url):
        links.append({"text": url, "url": url})
    return {"authors": authors if isinstance(authors, str) else None,
            "year": _short_value(rec.get("year")) or None,
            "venue": _short_value(rec.get("venue")) or None, "links": links}


def first_paragraph(body: str, limit: int = 320, label_first: bool = False) -> str:
    """The first paragraph of prose (not a heading, table, list marker or
    code), as plain text, cut at ``limit`` characters (``label_first``: see
    :func:`.markdown.plain_text`)."""
    for para in re.split(r"\n[ \t]*\n", body):
        p = para.strip()
        if not p or p.startswith(("#", "|", "```", "~~~", "<!--")) or re.match(r"^\s*[-*+]\s|^\s*\d+\.\s", p):
            continue
        text = " ".join(plain_text(snippet_source(p), label_first).split())
        if len(text) > limit:
            text = text[:limit].rsplit(" ", 1)[0] + "…"
        return text
    return ""


def reading_minutes(body: str) -> int:
    return max(1, round(len(body.split()) / _WORDS_PER_MINUTE))


def record_view(site: Site, rid: str, body: str | None = None) -> dict:
    """Everything the page of ``rid`` shows except its rendered body.
    ``body``: the record's body, when the caller has it."""
    corpus = site.corpus
    rec = corpus.records[rid]
    if body is None:
        body = rec.body
    schema = corpus.schema
    pub = site.published
    note = rec.get("status_note")
    note = linked_text(site, note) if isinstance(note, str) and note.strip() else None
    # (no Status row where there is no status to show: most notes of a vault)
    props = [{"label": "Status", "kind": "status", "status": rec.status, "note": note,
              "url": status_url(rec.status) if rec.status else None}] if rec.status or note else []
    if rec.tags:
        props.append({"label": "Tags", "kind": "tags",
                      "items": [{"text": t, "url": site.tag_url(t)} for t in own_tags(rec.tags, site.fold_tags)]})
    facts = record_facts(corpus, rid, visible=pub.__contains__)
    for rel, links in facts.relations.items():
        items = []
        for x in links:
            if x.visible:
                items.append({"ref": site.ref(x.id)})
            elif x.exists:
                items.append({"text": x.id})                         # kept out: the id as text
            else:
                items.append({"text": x.id, "dangling": True})
        if items:
            props.append({"label": humanize(rel), "kind": "relation", "relation": rel, "items": items})
    for rel, dsts in facts.derived.items():
        props.append({"label": humanize(rel) + " (derived)", "kind": "relation", "relation": rel,
                      "items": [{"ref": site.ref(x)} for x in sorted({d for d, _ in dsts}, key=id_sort_key)]})
    order = list(schema.relations)
    for rel in sorted(facts.backlinks, key=lambda r: order.index(r) if r in order else len(order)):
        props.append({"label": site.relation_labels.get(rel, f"{rel} by"), "kind": "backlink", "relation": rel,
                      "items": [{"ref": site.ref(x)} for x in facts.backlinks[rel]]})
    dates = facts.dates
    for key, value in facts.fields.items():
        if key in _SKIP or (rec.kind == "LIT" and key in _CITE):
            continue
        if value is None or value == [] or value == "":
            continue
        if key in dates:
            value = dates[key] or value     # (Dendron's epoch milliseconds)
        props.append({"label": humanize(key), "kind": "field", "items": _value_items(value)})

    st = site.data.standings.get(rid)
    standing = None
    promote = None
    if st is not None:
        if st.state:
            def refs(ids):
                return [site.ref(x) if x in pub else {"id": x, "title": None, "url": None} for x in ids]
            standing = {"state": st.state, "detail": site.scrub(st.detail), "states": list(st.states),
                        "path": refs(st.path_head()), "path_skipped": st.path_skipped,
                        "path_tail": refs(st.path_tail())}
        ev = st.evaluation
        if ev is not None and ev.promote_when.present:
            promote = {"summary": site.scrub(ev.promote_when.summary),
                       "requires": [{"text": i.text, "state": i.state, "mark": i.mark, "reason": site.scrub(i.reason),
                                     "by": site.ref(i.by) if i.by in pub else None} for i in ev.items]}
    checks = [scrubbed(site, check_entry(site.data, cid)) for cid in site.data.checks_of.get(rid, [])]
    mentions = [dict(site.ref(src), digest=corpus.records[src].digest) for src in facts.mentioned_by]
    neighbours = facts.neighbours
    # the local graph: this record, its neighbours, the typed edges between them
    nodes = [graph_node(site.ref(rid), rec.title)]
    edges = []
    for nid in sorted(neighbours, key=lambda x: (-len(neighbours[x]), id_sort_key(x)))[:60]:
        nodes.append(graph_node(site.ref(nid), corpus.records[nid].title))
        seen = set()
        for s, t, rel, origin in neighbours[nid]:
            if (s, t, rel) not in seen:
                seen.add((s, t, rel))
                edges.append({"s": s, "t": t, "rel": rel, "origin": origin})
    # (each id once: a body names most of its ids more than once)
    mention_state = sorted((m, site.resolve(m)[0], (corpus.records[m].kind if m in pub else None))
                           for m in set(rec.mention_targets))
    return {
        "id": rid, "kind": rec.kind, "title": rec.title, "status": rec.status, "tags": rec.tags,
        "show_id": nodes[0]["show_id"],
        "url": site.url(rid), "color": site.kinds.get(rec.kind, {}).get("color"),
        # a record with no kind (a vault's index page) has no kind page to link to
        "kind_url": kind_url(rec.kind) if rec.kind in site.kinds else None, "minutes": reading_minutes(body),
        "date": record_date(site, rec), "created": _created(site, rec),
        "cite": citation(rec) if rec.kind == "LIT" else None,
        "props": props, "standing": standing, "promote": promote, "checks": checks,
        "mentioned_by": mentions, "graph": {"nodes": nodes, "edges": edges},
        "body_digest": hashlib.sha1(body.encode("utf-8", "surrogatepass")).hexdigest(),
        "mention_state": mention_state,
    }


def linked_text(site: Site, text: str, prefix: str = "../") -> str:
    """``text`` escaped, with each mention of a published record a link
    (the same marks as in a body); returns markup."""
    import html as _html

    from markupsafe import Markup
    out = []
    last = 0
    for m in site.corpus.schema.mention_re.finditer(text):
        s = m.start()
        if s and (text[s - 1].isalnum() or text[s - 1] in "_-"):
            continue
        out.append(_html.escape(text[last:s]))
        rid = m.group()
        target = site.resolve(rid)
        if target[0] == "link":
            out.append(f'<a class="rk-ref k-{_html.escape(target[2] or "")}" href="{_html.escape(prefix + target[1])}"'
                       f' data-id="{_html.escape(rid)}">{_html.escape(rid)}</a>')
        elif target[0] == "dangling":
            out.append(f'<span class="rk-dangling" title="No record {_html.escape(rid)} in this record">'
                       f'{_html.escape(rid)}</span>')
        else:
            out.append(_html.escape(rid))
        last = m.end()
    out.append(_html.escape(text[last:]))
    return Markup("".join(out))


def scrubbed(site: Site, value):
    """``value`` (JSON-like) with :meth:`Site.scrub` applied to every string."""
    if len(site.published) == len(site.corpus.records):
        return value
    if isinstance(value, str):
        return site.scrub(value)
    if isinstance(value, dict):
        return {k: scrubbed(site, v) for k, v in value.items()}
    if isinstance(value, list):
        return [scrubbed(site, v) for v in value]
    return value


def graph_node(ref: dict, title: str) -> dict:
    """A node of a page's local graph: its title as plain text (the whole
    of it, up to 90 characters, for the node's tooltip) and its short
    label (:func:`.titles.graph_label`)."""
    node = dict(ref, title=_clip(title_text(title), 90))
    node["label"] = graph_label(ref["id"], node["title"], ref["show_id"])
    return node


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def record_key(site: Site, rid: str, salt: str) -> str:
    """What the page of ``rid`` depends on, from file digests rather than
    the page data (cheaper than :func:`record_view` by far): the record's
    own file, the file of every published neighbour (relations both ways,
    mentions, derived edges), the state of every id it names, its standing,
    its checks and its git date.  If this is unchanged, so is the page."""
    corpus = site.corpus
    records = corpus.records
    pub = site.published
    rec = records[rid]
    g = graph_of(corpus)
    parts = [rec.digest]
    for _, dst, d in g.out_edges(rid, data=True):
        if dst in pub:
            parts.append((">", dst, d["relation"], d["origin"], records[dst].digest))
    for src, _, d in g.in_edges(rid, data=True):
        if src in pub:
            parts.append(("<", src, d["relation"], d["origin"], records[src].digest))
    named = set(rec.mention_targets)
    for ts in rec.relations.values():
        named.update(t.id for t in ts)
    for x in sorted(named):
        parts.append((x, records[x].digest if x in pub else "h" if x in records else "d"))
    st = site.data.standings.get(rid)
    if st is not None:
        ev = st.evaluation
        parts.append((st.state, st.detail, tuple(st.path), tuple(st.states),
                      tuple((i.text, i.state, i.reason, i.by) for i in ev.items) if ev is not None else None))
    for cid in site.data.checks_of.get(rid, []):
        parts.append(tuple(sorted(check_entry(site.data, cid).items())))
    if site.data.git_dates:
        parts.append(site.data.git_dates.get(rec.relpath))
    h = hashlib.sha1(salt.encode())
    h.update(repr(parts).encode("utf-8", "surrogatepass"))
    return h.hexdigest()


# -- mention sentences ------------------------------------------------------------

_ITEM_START = re.compile(r"^\s*([-*+]|\d+\.)\s")
_BLOCK_START = re.compile(r"^\s*([-*+#|]|\d+\.)\s?")
#: a sentence's end: its mark, closing quotes or brackets, spaces, before
#: what can open the next sentence.  The mark is part of the match (not a
#: look-behind before it), so SRE skips to the next "." "!" "?" in C: the
#: break between the sentences is at ``start() + 1`` (tests/emit/site/
#: test_plain_text.py holds it to the look-behind form)
_SENTENCE_END = re.compile(r"[.!?][\"”’)]*\s+(?=[A-Z\[(*_\"“‘0-9])")


def transient_text(rec) -> str:
    """``rec.text`` without keeping it on the record when it is not decoded
    yet: a record parsed in a helper arrives as the file's bytes, and a
    site build reads every record's text once or twice (its body, the
    sentences that mention others); keeping all of it decoded doubles the
    memory of every process that renders."""
    return rec.source.peek_text()


def transient_body(rec) -> str:
    """``rec.body`` as the site shows it (:func:`shown_body`), without
    keeping it (or the text) on the record."""
    return shown_body(rec.source.peek_body(rec.body_offset), getattr(rec, "code", None))




def shown_body(body: str, code: list | None = None) -> str:
    """``body`` as the site shows it: without its comments
    (:func:`recordkit.markdown.blocks.without_comments`)."""
    from ...markdown.blocks import without_comments
    return without_comments(body, code)


_COMMENT_IN_SENTENCE = re.compile(r"<!--.*?(?:-->|\Z)", re.S)


def _first_mentions(rec, text: str, places: bool = False) -> dict:
    """target -> (line, col) of the first mention of each id in ``rec``'s
    body (``rec.mentions``, worked out without keeping them on the record).
    ``places``: the links are ids (the research defaults), so where the
    loader found each mention (``rec.mention_places()``) is where a scan
    finds it (as :func:`recordkit.sql.rows.mention_rows` reads them): no
    scan of the body when the loader kept them."""
    ms = rec.known_mentions()
    if ms is None and places:
        got = rec.mention_places()
        if got is not None:
            lines, cols, _ = got
            first = rec.body_line
            out: dict = {}
            for t, n, col in zip(rec.mention_targets, lines, cols):
                if t not in out:
                    out[t] = (first + n, col)
            return out
    if ms is None:
        from ...corpus.mentions import scan_mentions
        pattern = rec.mention_re
        if pattern is None:
            from ...schema import load_schema
            pattern = load_schema().mention_re
        ms = scan_mentions(text[rec.body_offset:], pattern, rec.body_line, rec.code)
    out: dict = {}
    for m in ms:
        if m.target not in out:
            out[m.target] = (m.line, m.col)
    return out


_NEWLINE = re.compile("\n")

#: how far (characters) a backlink's sentence is looked for on each side of
#: its mention: a sentence running further is cut there, shown with "…".  So
#: a page's sentence costs the same however long the paragraph or the record
#: (the whole paragraph, decoded, was read for each mention of it: a
#: paragraph of 8,000 lines naming 8,000 records took minutes to build)
SENTENCE_WINDOW = 2000
#: the window looked in first: most paragraphs end within it on both sides
#: of a mention, and then the sentence is the one SENTENCE_WINDOW finds
#: (decoding 16 KB of a file's bytes for each backlink was a third of a
#: sentence's cost); else it is looked for again in SENTENCE_WINDOW
FIRST_WINDOW = 400


def _mention_offsets(rec, text: str, raw: bytes | None, places: bool = False) -> dict:
    """target -> where its first mention in ``rec``'s body begins: an
    offset in ``raw`` (the file's bytes) when given, else in ``text``
    (``places``: see :func:`_first_mentions`)."""
    first = _first_mentions(rec, text, places)
    starts = [0, *(m.end() for m in _NEWLINE.finditer(text))] if first else []
    out = {}
    for t, (line, col) in first.items():
        if 0 <= line - 1 < len(starts):
            out[t] = starts[line - 1] + col - 1
    if raw is not None and out and not text.isascii():
        # characters -> bytes, in one pass over the text in order
        nb = pc = 0
        for t, p in sorted(out.items(), key=lambda kv: kv[1]):
            nb += len(text[pc:p].encode("utf-8"))
            pc, out[t] = p, nb
    return out


def _around(src, pos: int, is_bytes: bool, floor: int = 0,
            w: int = SENTENCE_WINDOW) -> tuple[str, str, bool, bool]:
    """The text before and after offset ``pos`` of ``src`` (a text, or
    UTF-8 bytes and a byte offset), at most ``w`` characters
    each and nothing before ``floor`` (the body's start), and whether
    ``src`` goes on before / after them."""
    if is_bytes:
        lo, hi = max(floor, pos - 4 * w), min(len(src), pos + 4 * w)
        while lo < pos and 0x80 <= src[lo] < 0xC0:      # not inside a character
            lo += 1
        while hi > pos and hi < len(src) and 0x80 <= src[hi] < 0xC0:
            hi -= 1
        head, tail = src[lo:pos].decode("utf-8"), src[pos:hi].decode("utf-8")
        more_before, more_after = lo > floor or len(head) > w, hi < len(src) or len(tail) > w
    else:
        head, tail = src[max(floor, pos - w):pos], src[pos:pos + w]
        more_before, more_after = pos - w > floor, pos + w < len(src)
    return head[-w:], tail[:w], more_before, more_after


def _body_start(rec, raw: bytes | None) -> int:
    """Where ``rec``'s body begins: in ``raw`` (bytes) when given, else in
    its text.  A sentence is looked for from there, never in the front
    matter (the first paragraph's sentence took in the fields above it,
    YAML comments included)."""
    if not rec.body_offset:
        return 0
    if raw is None:
        return rec.body_offset
    idx = -1
    for _ in range(rec.fm_end_line or 0):       # (the body starts after the closing line)
        idx = raw.find(b"\n", idx + 1)
        if idx < 0:
            return len(raw)
    return idx + 1


def _paragraph(seg: str, m: int, more_before: bool, more_after: bool) -> tuple[int, int]:
    """Where the paragraph around offset ``m`` of ``seg`` (a window of a
    body: :func:`_around`) begins and ends."""
    n = len(seg)
    # the paragraph: back to a blank line, a heading or a table row, or the
    # start of a list item; on to a blank line or the start of a block.  A
    # line cut by the window's edge is taken as the paragraph's (the
    # sentence is then cut there).  Lines are found from the mention
    # outwards (the window is not split into lines: most of it is not read)
    ls = seg.rfind("\n", 0, m) + 1                 # the start of the paragraph's first line
    le = seg.find("\n", m)
    le = n if le < 0 else le                        # the end of its last line
    line = seg[ls:le]
    while ls > 0 and not _ITEM_START.match(line):
        ps = seg.rfind("\n", 0, ls - 1) + 1
        prev = seg[ps:ls - 1]
        if ps == 0 and more_before:                 # the line before is cut by the window
            ls = 0
        elif prev.strip() and not prev.lstrip().startswith(("#", "|")):
            ls, line = ps, prev
        else:
            break
    while le < n:
        ne = seg.find("\n", le + 1)
        ne = n if ne < 0 else ne
        nxt = seg[le + 1:ne]
        if ne == n and more_after:                  # the line after is cut by the window
            le = n
        elif nxt.strip() and not _BLOCK_START.match(nxt):
            le = ne
        else:
            break
    return ls, le


def mention_sentence(rec, target: str, limit: int = 320, lines_cache: dict | None = None,
                     label_first: bool = False, places: bool = False) -> str | None:
    """The sentence of ``rec``'s body in which ``target`` is first
    mentioned, as plain text (at most ``limit`` characters around the
    mention, and at most ``SENTENCE_WINDOW`` on a side of it).
    ``lines_cache``: a dict kept across calls (record id -> where the first
    mention of each target is; small, unlike the texts, which are not kept:
    a record not decoded yet is read from its bytes around the mention).
    ``label_first``: see :func:`.markdown.plain_text`; ``places``: see
    :func:`_first_mentions`."""
    if lines_cache is None:
        lines_cache = {}
    raw = rec.source.undecoded()
    cached = lines_cache.get(rec.id)
    if cached is None or (cached[1] and raw is None):
        cached = lines_cache[rec.id] = (_mention_offsets(rec, transient_text(rec), raw, places), raw is not None,
                                        _body_start(rec, raw))
    offsets, is_bytes, floor = cached
    pos = offsets.get(target)
    if pos is None:
        return None
    src = raw if is_bytes else transient_text(rec)
    for w in (FIRST_WINDOW, SENTENCE_WINDOW):
        head, tail, more_before, more_after = _around(src, pos, is_bytes, floor, w)
        seg = head + tail
        n = len(seg)
        m = len(head)
        ls, le = _paragraph(seg, m, more_before, more_after)
        if not (ls == 0 and more_before or le == n and more_after):
            break       # the paragraph ends inside this window on both sides
    start_cut = ls == 0 and more_before
    end_cut = le == n and more_after
    offset = m - ls
    text = seg[ls:le]
    s0 = 0
    for sm in _SENTENCE_END.finditer(text):
        if sm.end() <= offset:
            s0 = sm.end()
        else:
            break
    # the first end whose break is at or after max(offset, s0): its mark
    # is one character before the break
    em = _SENTENCE_END.search(text, max(offset, s0, 1) - 1)
    sentence = text[s0: em.start() + 1 if em else len(text)]
    if "--" in sentence:        # (a comment beside the mention: not shown)
        sentence = _COMMENT_IN_SENTENCE.sub("", sentence)
    if "%%" in sentence:        # (and Obsidian's %% comments: docs/site.md)
        sentence = without_percent_comments(sentence, target)
    open_before = s0 == 0 and start_cut
    open_after = em is None and end_cut
    sentence = " ".join(plain_text(snippet_source(sentence), label_first).split())
    if len(sentence) > limit:
        k = sentence.find(target)
        a = max(0, k - limit // 2)
        sentence = ("…" if a or open_before else "") + sentence[a:a + limit] + "…"
    elif open_before or open_after:
        sentence = ("…" if open_before else "") + sentence + ("…" if open_after else "")
    return sentence


# -- list pages ------------------------------------------------------------------

def row(site: Site, rid: str) -> dict:
    rec = site.corpus.records[rid]
    st = site.data.standings.get(rid)
    # (not its tags: a row is on each of its tag pages, and every page's key
    # is made from its rows; a record of 20,000 tags made that quadratic)
    return dict(site.ref(rid), date=record_date(site, rec), standing=st.state if st is not None else None)


def listings(site: Site) -> dict:
    """Rows for the kind, status and tag pages, the ready-to-promote and
    failing-checks pages, and the home page."""
    by_kind: dict = {}
    by_status: dict = {}
    rows = {}
    for rid in site.ids:
        r = row(site, rid)
        rows[rid] = r
        by_kind.setdefault(r["kind"], []).append(r)
        if r["status"]:
            by_status.setdefault(r["status"], []).append(r)
    by_tag = group_by_tag(site.corpus.records, site.ids, rows, site.fold_tags,
                          getattr(site.corpus.schema, "nested_tags", False))
    ready = [rows[r] for r in site.ids if rows[r]["standing"] == "ready"]
    failing = []
    data = site.data
    for cid in sorted(data.cited_by):
        e = scrubbed(site, check_entry(data, cid))
        if e["cls"] in FAILING or e["cls"] in ("stale",) or cid in data.duplicates:
            e["records"] = [rows[x] for x in data.cited_by[cid] if x in site.published]
            if e["records"]:
                failing.append(e)
    dated = sorted((r for r in rows.values() if r["date"]), key=lambda r: (r["date"], r["id"]), reverse=True)
    return {"rows": rows, "by_kind": by_kind, "by_status": by_status, "by_tag": by_tag,
            "ready": ready, "failing": failing, "recent": dated}
