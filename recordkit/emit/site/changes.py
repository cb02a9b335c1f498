"""What changed since the last build, as a :class:`Changes` value.

* the *salt*: everything every page depends on (the code, the templates,
  the settings, the schema, the record count, the records kept out); a
  build whose salt is the last build's is incremental;
* the records whose page may show something that changed
  (:func:`find_candidates`), from each record's *own* signature kept in
  the manifest;
* a page's key (:func:`page_key`): what the page of one record shows, so
  that a page whose key is the last build's is kept as it is;
* which text and preview buckets and which search runs are made again
  (set by :mod:`.emitters.previews` and :mod:`.emitters.search`).
"""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from ...version import code_fingerprint
from . import page_links
from .context import CSP, BuildContext
from .load import check_entry, front_matter_digests
from .views import mention_sentence
from .writer import digest
from ...graph import of as graph_of

#: Bumped when the page data or the way it is rendered changes (what each
#: version changed: docs/site.md, "Incremental builds").
RENDER_VERSION = "16"


@dataclass
class Changes:
    #: what every page depends on: a build with the last build's salt is incremental
    salt: str
    #: the last build had this salt and kept each record's signatures
    incremental: bool
    #: text and preview buckets: bucket -> its ids, bucket -> its key, those made again
    members: dict = field(default_factory=dict)
    bucket_keys: dict = field(default_factory=dict)
    dirty_buckets: set = field(default_factory=set)
    #: search runs: run -> its key; the runs tokenized again (a cold build's: those not in the cache folder)
    shard_keys: dict = field(default_factory=dict)
    dirty_shards: set = field(default_factory=set)
    #: the records whose page may change (None: every record), see :func:`find_candidates`
    candidates: set | None = None
    #: record id -> what the graph page shows of it, as a signature
    graph_sig: dict = field(default_factory=dict)
    #: published record id -> its face (what other pages show of it: title,
    #: kind, status) as a digest, made once a build (see :func:`page_key`)
    faces: dict = field(default_factory=dict)


def since_last_build(ctx: BuildContext) -> Changes:
    salt = build_salt(ctx)
    meta = ctx.writer.old.meta
    return Changes(salt, meta.get("salt") == salt and isinstance(meta.get("deps"), dict))


def build_salt(ctx: BuildContext) -> str:
    site, opts = ctx.site, ctx.opts
    return "|".join((RENDER_VERSION, code_fingerprint(), ctx.fingerprint, str(ctx.buckets), opts.title,
                     str(opts.toc_min_headings), CSP, str(bool(opts.site_url)),
                     # where pages are, and whether they show the explorer (urls.py)
                     site.pages.style if site.pages else "", str(bool(site.pages and site.pages.explorer)),
                     # how bodies render beyond the schema: the vault's strictLineBreaks, [site] raw_html
                     repr((ctx.renderer.walk.soft, ctx.renderer.walk.raw_html)),
                     str(len(site.ids)),       # every page's footer shows the count
                     repr(sorted((k, v["color"]) for k, v in site.kinds.items())),
                     # the schema whole: a relation's label, a kind's description, a status's
                     # meaning show on pages that no record edit changes (a label edit left
                     # every page with the old one)
                     _schema_digest(site.corpus.schema),
                     digest("\n".join(sorted(set(site.corpus.records) - site.published)).encode(
                         "utf-8", "surrogatepass"))))


def _schema_digest(schema) -> str:
    """A digest of everything the schema says (its raw form, extends
    resolved), for the build's salt."""
    raw = getattr(schema, "raw", None)
    return digest(json.dumps(raw, sort_keys=True, default=repr).encode("utf-8", "surrogatepass"))


def find_candidates(ctx: BuildContext, ch: Changes) -> None:
    """``ch.candidates``: the records whose page may show something that
    changed since the last build (None: every record, when the last build
    was made with other settings or templates, or is not known).

    Each record's *own* signature covers what its page shows of itself
    and of its links: its file, its out-edges (front matter, body and
    derived), its standing (with the records on its path), its checks
    and its date.  A page can change only when its own signature did
    or a neighbour's did (a title, a sentence, a kind it shows): the
    changed records, their neighbours now, and the records they linked
    to before (a deleted record's targets lose a backlink).  A new
    record, or one deleted, changes the out-edges of every record that
    names it, and so their signatures.  Also sets ``ch.graph_sig``, the
    links count every page shows, and the signatures in the new manifest."""
    site = ctx.site
    own, outs, faces, edges = _signatures(ctx, ch)
    if ctx.attachments is not None and ctx.attachments.signatures:
        # what its attachment links found (a file added, moved, grown past the cap)
        sigs = ctx.attachments.signatures
        own = {r: own[r] + sigs[r] if r in sigs else own[r] for r in own}
    ch.faces = faces
    meta = ctx.writer.new.meta
    old_meta = ctx.writer.old.meta
    meta["salt"] = ch.salt
    meta["deps"] = {r: [own[r], outs[r], faces[r], edges[r][2]] for r in site.ids}
    old = old_meta.get("deps")
    if old_meta.get("salt") != ch.salt or not isinstance(old, dict):
        ch.candidates = None
        return
    ch.candidates = _reached(ctx, old, own, faces, edges)


def _signatures(ctx: BuildContext, ch: Changes) -> tuple:
    """Each published record's own signature, published targets and face,
    and what its out-edges give (the edge memo's entries); sets
    ``ch.graph_sig`` and the links count."""
    site = ctx.site
    records = site.corpus.records
    pub = site.published
    data = site.data
    succ = graph_of(site.corpus)._succ
    fms = front_matter_digests(site.corpus, ctx.state)
    own, outs, gsig = {}, {}, {}
    links = 0
    # what a record's out-edges give (its graph signature, its published
    # targets and links) is worked out once per graph: serve keeps the
    # graph while no edit changes it (load.RecordCache), and with it this
    memo = ctx.state.edges.get(graph_of(site.corpus))
    if memo is None or memo[0] != ch.salt:
        memo = ctx.state.edges[graph_of(site.corpus)] = (ch.salt, {})
    memo = memo[1]
    # and a record's own signature, graph signature and face, while its
    # file (digest and path), the standings, the dates and the files of
    # the records its standing names are the same (not for a record
    # with checks: a body's check block can change its tolerance)
    omemo = ctx.state.own.get(graph_of(site.corpus))
    if omemo is None or omemo[0] != ch.salt or omemo[1] is not data.standings or omemo[2] != data.git_dates:
        omemo = ctx.state.own[graph_of(site.corpus)] = (ch.salt, data.standings, dict(data.git_dates), {})
    omemo = omemo[3]
    # (kept for a build to come: serve's next, or a fresh one when this
    # build is incremental and so keeps its graph; not by a cold build)
    keep_own = ctx.resident or ctx.writer.old.meta.get("salt") == ch.salt
    faces = {}
    blake = hashlib.blake2b
    for rid in site.ids:
        rec = records[rid]
        o = omemo.get(rid)
        url = site.url(rid)
        if o is not None and o[0] == rec.digest and o[1] == (rec.relpath, url) and (
                not o[2] or all((records[x].digest if x in records else None) == d for x, d in o[2])):
            m = memo.get(rid)
            if m is not None:
                links += m[5]
                own[rid], gsig[rid], faces[rid] = o[3], o[4], o[5]
                outs[rid] = m[4]
                continue
        fm = fms.get(str(rec.path), '')
        m = memo.get(rid)
        if m is None or m[0] != fm or m[1] != rec.relpath:
            m = memo[rid] = _edge_entry(succ[rid], pub, fm, rec.relpath)
        links += m[5]
        parts = [rec.digest, rec.relpath, m[2], url]
        st = data.standings.get(rid)
        stand = None
        named = ()
        if st is not None:
            ev = st.evaluation
            stand = (st.state, st.detail, tuple(st.path), tuple(st.states),
                     tuple((i.text, i.state, i.reason, i.by) for i in ev.items) if ev is not None else None)
            parts.append(stand)
            named = set(st.path) | ({i.by for i in ev.items if i.by} if ev is not None else set())
            if named:
                parts.append(sorted((x, records[x].digest if x in records else None) for x in named))
        cids = data.checks_of.get(rid)
        for cid in cids or ():
            parts.append(tuple(sorted(check_entry(data, cid).items())))
        if data.git_dates:
            parts.append(data.git_dates.get(rec.relpath))
        own[rid] = blake(repr(parts).encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()
        # the graph page shows each node's standing and checks too, which
        # other records (one kept out of the site too) can change
        gsig[rid] = m[3] if stand is None and not cids else m[3] + blake(
            repr((stand, cids)).encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
        outs[rid] = m[4]
        # what other pages show of a record (its face: id, title, kind,
        # status) and its out-edges, to tell an edit of its text alone
        faces[rid] = blake(f"{rec.title}\x00{rec.kind}\x00{rec.status}\x00{url}".encode("utf-8", "surrogatepass"),
                           digest_size=8).hexdigest()
        if keep_own and not cids:
            omemo[rid] = (rec.digest, (rec.relpath, url),
                          tuple((x, records[x].digest if x in records else None) for x in named),
                          own[rid], gsig[rid], faces[rid])
    ch.graph_sig = gsig
    ctx.common["counts"]["links"] = links
    return own, outs, faces, memo


def _edge_entry(out_edges: dict, pub, fm: str, relpath: str) -> tuple:
    """What a record's out-edges give: (front matter digest, relpath,
    digest of its out-edges, its graph signature, its published targets,
    its links to them)."""
    edges = []
    targets = []
    nl = 0
    for dst, kd in out_edges.items():
        for d in kd.values():
            edges.append((dst, d["relation"], d["origin"]))
        if dst in pub:
            targets.append(dst)
            nl += len(kd)
    # the graph page lists the edges in the graph's order (a
    # reordering of a body's mentions reorders them); a record's
    # page does not depend on it
    g = repr(edges)
    edges.sort()
    e = repr(edges)
    return (fm, relpath, hashlib.blake2b(e.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest(),
            hashlib.blake2b(f"{fm}|{relpath}|{g}".encode("utf-8", "surrogatepass"), digest_size=12).hexdigest(),
            " ".join(targets), nl)


def _reached(ctx: BuildContext, old: dict, own: dict, faces: dict, edges: dict) -> set:
    """The records whose own signature changed, and the pages that show
    something of them (see :func:`find_candidates`)."""
    site = ctx.site
    records = site.corpus.records
    pub = site.published
    succ = graph_of(site.corpus)._succ
    pred = graph_of(site.corpus)._pred
    changed = {r for r in site.ids if (old.get(r) or [None])[0] != own[r]}
    changed.update(r for r in old if r not in pub)
    out = set(changed)
    for r in changed:
        prev = old.get(r)
        if r in pub:
            if isinstance(prev, list) and len(prev) > 3 and prev[2] == faces[r] and prev[3] == edges[r][2]:
                # the same face and out-edges: other pages show of it only
                # the sentences its body writes about them, the pages
                # that embed it its body, and those that link to one of
                # its headings or blocks whether it has it
                out.update(x for x, kd in succ[r].items()
                           if x in pub and any(d["origin"] == "body" for d in kd.values()))
                out.update(x for x, kd in pred[r].items()
                           if x in pub and any(d["origin"] == "body" for d in kd.values())
                           and (r in page_links.embeds(ctx, records[x])
                                or any(t == r for t, _ in page_links.fragment_links(ctx, records[x]))))
                continue
            out.update(x for x in succ[r] if x in pub)
            out.update(x for x in pred[r] if x in pub)
        if isinstance(prev, list) and len(prev) > 1 and isinstance(prev[1], str):
            out.update(x for x in prev[1].split() if x in pub)
    return out


def page_key(ctx: BuildContext, rid: str, lines_cache: dict | None = None) -> str:
    """What the page of ``rid`` shows, as a key: its own file, and of
    each published record it links to or is linked from only what the
    page shows of it (id, title, kind, status, and for a body mention
    of it the sentence the mention is in), the state of every id it
    names, its standing (with the records on its path), its checks and
    its date.  An edit of a record's body outside the sentences that
    mention others re-renders its own page only.  (The record count and
    everything global is in the salt.)"""
    site = ctx.site
    corpus = site.corpus
    records = corpus.records
    pub = site.published
    rec = records[rid]
    g = graph_of(corpus)
    # a published record's face, as find_candidates digested it once for
    # the build (the title, kind and status tuple made again for each of
    # a page's links was a tenth of the key's cost)
    face = ctx.changes.faces.__getitem__
    # (its file's place: the explorer shows its folders, urls.py its URL)
    parts = [rec.digest, rec.relpath]
    for dst, kd in g._succ[rid].items():
        if dst in pub:
            for d in kd.values():
                parts.append((">", dst, d["relation"], d["origin"], face(dst)))
    # the sentences are kept for this page's render (see record_pages.record_page)
    sentences: dict = {}
    ctx.sentences = (rid, sentences)
    for src, kd in g._pred[rid].items():
        if src in pub:
            for d in kd.values():
                sentence = None
                if d["origin"] == "body":
                    sentence = sentences[src] = mention_sentence(records[src], rid, lines_cache=lines_cache,
                                                                 label_first=ctx.label_first,
                                                                 places=ctx.mention_places)
                parts.append(("<", src, d["relation"], d["origin"], face(src), sentence))
    named = set(rec.mention_targets)
    for ts in rec.relations.values():
        named.update(t.id for t in ts)
    st = site.data.standings.get(rid)
    if st is not None:
        ev = st.evaluation
        parts.append((st.state, st.detail, tuple(st.path), tuple(st.states),
                      tuple((i.text, i.state, i.reason, i.by) for i in ev.items) if ev is not None else None))
        named.update(st.path)
        if ev is not None:
            named.update(i.by for i in ev.items if i.by)
    for x in sorted(named):
        parts.append((x, face(x) if x in pub else "h" if x in records else "d"))
    for cid in site.data.checks_of.get(rid, []):
        parts.append(tuple(sorted(check_entry(site.data, cid).items())))
    if site.data.git_dates:
        parts.append(site.data.git_dates.get(rec.relpath))
    # a link's anchor, kept or dropped as the target has it or not
    parts.extend((x, f, page_links.has_anchor(ctx, x, f)) for x, f in page_links.fragment_links(ctx, rec))
    if ctx.attachments is not None:      # what its attachment links found
        parts.append(ctx.attachments.signatures.get(rid))
    for x in page_links.embeds(ctx, rec):         # the page shows its body (or a section)
        parts.append(("embed", x, records[x].title, records[x].digest))
        if ctx.attachments is not None:
            parts.append(ctx.attachments.signatures.get(x))
        for cid in site.data.checks_of.get(x, []):     # with its check blocks' verdicts
            parts.append(tuple(sorted(check_entry(site.data, cid).items())))
    h = hashlib.sha1(ctx.changes.salt.encode("utf-8", "surrogatepass"))
    h.update(repr(parts).encode("utf-8", "surrogatepass"))
    return h.hexdigest()
