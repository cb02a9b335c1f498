"""``build_site``: the pipeline load → transform → filter → emit.

1. load the record, check results, standings (:mod:`.load`);
2. keep the published records (:mod:`.privacy`);
3. make each page's data (:mod:`.views`) and its dependency key;
4. render the record pages whose key changed, on every core (forked
   helpers write their pages and return the manifest entries), then the
   list pages, the search index, previews, the graph page, feed and sitemap;
5. write only changed bytes and drop the files of the last build that this
   one did not make (:mod:`.writer`).
"""
from __future__ import annotations

import html
import os
import re
from array import array
import sys
import time
import weakref
from dataclasses import dataclass, field
from pathlib import Path

import jinja2

from ...version import code_fingerprint
from .load import _STANDINGS, check_entry, front_matter_digests, gather
from .markdown import BodyRenderer, plain_text, pygments_css
from .options import SiteOptions, site_options
from .privacy import publication
from .search import (bucket_count, bucket_of, json_js, doc_terms, encode_postings, merge_postings,
                     search_index_js)
from ..templates import environment, site_assets, site_fingerprint
from .views import (Site, first_paragraph, kind_url, listings, make_site, mention_sentence, record_url,
                    record_view, status_url, tag_url, transient_body)
from .writer import Manifest, SiteWriter, digest, write_atomic
from ...markdown.anchors import may_name_part
from ...runtime import (batch, can_fork, in_helper, release_free_memory, shared_with_helpers, snapshot, spread,
                        tuning, workers)

#: No script but the site's own files, no inline handler, nothing from the network.
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "font-src 'self'; connect-src 'none'; base-uri 'none'; form-action 'none'")
#: Bumped when the page data or the way it is rendered changes.
RENDER_VERSION = "12"    # 12: extensionless Markdown links (Obsidian); 11: Obsidian callouts; 10: relative wikilinks ([[../x]]) resolved; 9: HTML comments are not shown; 3: embeds alone in a paragraph are transcluded; 4: with their own footnote ids, check verdicts; 5: a link to a missing heading or block goes to the page top; 6: [[#Heading]] checked on the page itself; 7: and [text](#heading); 8: a hand-written link to a footnote kept
#: Documents per search shard (the unit of the search index's cache), and
#: the version of the tokenizer and postings format.
SHARD = tuning.SITE_SHARD
SEARCH_VERSION = "3"     # 2: block ids (^b1) are not indexed; 3: nor HTML comments
_ENVIRONMENTS: dict = {}
#: record id -> fnv1a32 of it (serve's rebuilds hash each id once)
_FNV: dict = {}
#: graph -> (salt, {record id: (front matter digest, relpath, digest of its out-edges, its graph
#: signature, its published targets, its links to them)}): see _Builder._candidates
_EDGE_MEMO: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
#: graph -> (standings, dates, the rest of the list pages' data but the rows, ids, their signature):
#: see _lists_and_feed
_LISTS_MEMO: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
#: graph -> (salt, standings, dates, {record id: (its digest, its path, the digests of the records its standing
#: names, own signature, graph signature, face)}): see _candidates
_OWN_MEMO: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


#: what builds work out of a graph, by name (see graph_memos)
_GRAPH_MEMOS = (("edges", _EDGE_MEMO), ("own", _OWN_MEMO), ("standings", _STANDINGS), ("lists", _LISTS_MEMO))


def graph_memos(graph) -> dict:
    """What builds worked out of ``graph`` and can use again while a build
    has that graph (a fresh build reads it back with the graph: see
    :meth:`.load.RecordCache.save_graph`): each entry is checked against
    what it was made of before it is used."""
    return {name: memo.get(graph) for name, memo in _GRAPH_MEMOS}


def restore_graph_memos(graph, memos: dict) -> None:
    for name, memo in _GRAPH_MEMOS:
        if isinstance(memos.get(name), tuple):
            memo[graph] = memos[name]
#: rows of a query block's table on a page
QUERY_ROW_LIMIT = 1000
#: bumped when what the list pages show changes beyond their rows (see _lists_and_feed)
LISTS_VERSION = "1"


@dataclass
class BuildReport:
    out: Path
    records: int = 0                 # published records (pages)
    excluded: int = 0
    written: list = field(default_factory=list)
    kept: int = 0
    removed: list = field(default_factory=list)
    rendered: int = 0                # record pages rendered this time
    seconds: float = 0.0
    timings: dict = field(default_factory=dict)
    load_diagnostics: int = 0
    #: files of the record that could not be read as records (bad YAML, not
    #: UTF-8, unreadable): not in the site
    unreadable: int = 0
    #: files a folder that was no site held, which a forced build wrote over
    replaced: list = field(default_factory=list)
    #: (path, what it is) of each entry of the user's templates folders that
    #: is no file (a named pipe, a device, a dangling link): not read, the
    #: package's template or asset of its name used instead
    unusable_templates: list = field(default_factory=list)

    def summary(self) -> str:
        return (f"{self.records} record pages ({self.rendered} rendered), {len(self.written)} files written, "
                f"{self.kept} unchanged, {len(self.removed)} removed, "
                f"{self.excluded} record{'' if self.excluded == 1 else 's'} kept out; "
                f"{self.seconds:.2f} s")


class _Progress:
    def __init__(self, total: int, enabled: bool):
        self.total, self.enabled, self.done, self.last = total, enabled and total > 200, 0, 0.0

    def step(self, n: int = 1) -> None:
        self.done += n
        if self.enabled and (time.monotonic() - self.last > 0.1 or self.done >= self.total):
            self.last = time.monotonic()
            width = 30
            fill = int(width * self.done / max(1, self.total))
            sys.stderr.write(f"\r[{'#' * fill}{'.' * (width - fill)}] {self.done}/{self.total} pages")
            sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")


class TemplateFailed(Exception):
    """A page template raised an error: the message names the template's
    file and line, and the page it was rendering."""


def _template_failed(exc: BaseException, page: str) -> TemplateFailed:
    """``exc`` (raised while rendering ``page``) as :class:`TemplateFailed`,
    located at the innermost template line of its traceback (Jinja gives
    template code its file name and line in a traceback)."""
    import traceback
    where = None
    if getattr(exc, "filename", None) and getattr(exc, "lineno", None):      # a TemplateSyntaxError
        where = f"{exc.filename}:{exc.lineno}"
    else:
        for frame in traceback.extract_tb(exc.__traceback__):
            if frame.filename.endswith(".j2"):
                where = f"{frame.filename}:{frame.lineno}"
    msg = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    # recordkit's words; Jinja2's message (its own wording) as the detail
    if isinstance(exc, jinja2.TemplateSyntaxError):
        what = "not valid template syntax"
    elif isinstance(exc, jinja2.UndefinedError):
        what = "the template uses a value that is not defined"
    else:
        what = f"the template raised {type(exc).__name__}"
    return TemplateFailed(f"template error: {where or 'a template'}: {what}: {msg} (rendering {page})")


class BuildCancelled(Exception):
    """``cancel()`` said stop (a newer change superseded this build): what
    was written is whole files, and the manifest is the last build's, so the
    next build puts everything right."""


def build_site(config, out: str | Path | None = None, *, corpus=None, options: SiteOptions | None = None,
               cancel=None, resident: bool = False, **overrides) -> BuildReport:
    """Build the site of the record configured by ``config`` (a
    :class:`recordkit.config.Config`) into ``out`` (default: the configured
    ``site.out``).  ``corpus``: the loaded record, when the caller has it.
    ``cancel``: a function polled between pages; when it returns true the
    build stops with :class:`BuildCancelled`.
    ``resident``: this process builds the site again (``serve``): the
    search index's joined postings stay in its memory between builds, and
    are written to the cache folder by :func:`save_resident_state` (not by
    each build).
    Other keywords override :class:`SiteOptions` fields."""
    # the collector stays off in this process while it builds: every
    # collection would walk the loaded record and its graph (millions of
    # objects) for no garbage.  The helpers that render turn it on again
    # (see _render_all).
    with batch():
        return _build_site(config, out, corpus=corpus, options=options, cancel=cancel, resident=resident,
                           **overrides)


def _build_site(config, out, *, corpus=None, options=None, cancel=None, resident=False, **overrides) -> BuildReport:
    t0 = time.perf_counter()
    timings = {}
    opts = options or site_options(config, out=out, **overrides)
    out_dir = Path(opts.out)
    root = Path(config.root).resolve()
    # a site folder inside the root (a vault's root is its folder: the
    # default ./site is in it) holds no .md file, so no record: it is
    # walked for nothing, and serve's watcher leaves it out.  The root itself
    # would mix pages and notes
    if out_dir.resolve() == root or out_dir.resolve() in root.parents:
        from ...config import ConfigError
        raise ConfigError(f"the site's folder {out_dir} is the record root {root}, or holds it: "
                          "give -o another folder")
    old = Manifest.read(out_dir, opts.force)
    out_dir.mkdir(parents=True, exist_ok=True)
    cache = None
    if corpus is None:
        # the records parsed by the last build, by their files' stat: only
        # the files changed since are parsed again (see load.RecordCache);
        # the graph too, when no file changed what it is made of
        from .load import RecordCache
        cache = RecordCache(config, root)
        corpus, _ = cache.load()
        cache.save()
        _keep_bytes_only(corpus)
        if cache.graph_restored and isinstance(cache.graph_extra, dict):
            restore_graph_memos(corpus.graph, cache.graph_extra)
    release_free_memory()      # what parsing freed: not carried through the build, nor into the helpers
    t = time.perf_counter()
    timings["load"] = t - t0
    data = gather(corpus, opts.dates)
    pub = publication(corpus, opts)
    site = make_site(data, pub.ids, opts.title)
    timings["gather"] = time.perf_counter() - t
    report = BuildReport(out_dir, records=len(pub.ids), excluded=len(pub.excluded),
                         load_diagnostics=len(corpus.diagnostics),
                         unreadable=sum(1 for r in corpus.files if not r.ok))
    writer = SiteWriter(out_dir, old)
    b = _Builder(site, opts, writer, report, timings)
    b.cancel = cancel
    b.resident = resident
    b.run()
    report.removed = writer.finish()
    if old.foreign:
        report.replaced = sorted(old.foreign.intersection(writer.written))
    if cache is not None and old.meta.get("salt") == b.salt:
        # an incremental build keeps its graph for the next (not a cold one:
        # the next build after it does)
        cache.save_graph(corpus, graph_memos(corpus.graph))
    report.written = writer.written
    report.kept = writer.kept
    report.seconds = time.perf_counter() - t0
    report.timings = timings
    return report


class _Builder:
    def __init__(self, site: Site, opts: SiteOptions, writer: SiteWriter, report: BuildReport, timings: dict):
        self.site, self.opts, self.writer, self.report, self.timings = site, opts, writer, report, timings
        self.user_templates = site.corpus.config.templates if site.corpus.config is not None else None
        self.resident = False    # see build_site
        # one environment a process: serve's rebuilds reuse its compiled
        # templates (the loader checks each template file's mtime)
        # (and the files in the templates folders: an override added while
        # serve runs makes a new environment)
        from ..templates import templates_listing
        ekey = (str(self.user_templates), str(opts.templates),
                templates_listing(str(self.user_templates) if self.user_templates else None,
                                  str(opts.templates) if opts.templates else None))
        env = _ENVIRONMENTS.get(ekey)
        if env is None:
            if len(_ENVIRONMENTS) > 8:
                _ENVIRONMENTS.clear()
            env = _ENVIRONMENTS[ekey] = environment(self.user_templates, opts.templates)
        self.env = env
        self.buckets = bucket_count(len(site.ids))
        self.fingerprint = site_fingerprint(opts.templates, self.user_templates)
        from ..templates import unusable_files
        report.unusable_templates = unusable_files(opts.templates, self.user_templates)
        self.salt = "|".join((RENDER_VERSION, code_fingerprint(), self.fingerprint, str(self.buckets), opts.title,
                              str(opts.toc_min_headings), CSP, str(bool(opts.site_url)),
                              str(len(site.ids)),       # every page's footer shows the count
                              repr(sorted((k, v["color"]) for k, v in site.kinds.items())),
                              # the schema whole: a relation's label, a kind's description, a status's
                              # meaning show on pages that no record edit changes (a label edit left
                              # every page with the old one)
                              _schema_digest(site.corpus.schema),
                              digest("\n".join(sorted(set(site.corpus.records) - site.published)).encode("utf-8", "surrogatepass"))))
        order = site.corpus.schema.links.wikilink_order
        self.renderer = BodyRenderer(site.corpus.schema.mention_re, site.resolve, prefix="../",
                                     wikilink_order=order, resolve_file=site.resolve_file,
                                     resolve_link=site.resolve_link, embed=self._embedded,
                                     extensionless=site.corpus.schema.links.markdown_extensionless,
                                     has_anchor=self._has_anchor,
                                     line_breaks=site.corpus.schema.line_breaks)
        self._anchors: dict = {}         # id -> the headings and blocks of its page (Anchors), False: none
        self._wikilink_order = order
        #: wikilinks are [[label|target]]: the search texts, previews and
        #: backlink sentences show the label, as the pages do
        self.label_first = order == "label-first"
        self._others_done = False
        self._lists_elsewhere = False   # the list pages are made by the helper of an incremental build
        self._sentences: tuple = (None, {})   # (id, backlink sentences) of the page _page_key saw last
        self.common = {"site_title": opts.title, "kinds": site.kinds, "csp": CSP, "buckets": self.buckets,
                       "counts": {"records": len(site.ids), "links": None},   # links: in _candidates
                       "feed": bool(opts.site_url), "generated": None}

    # -- record pages ------------------------------------------------------------
    def run(self) -> None:
        site, w = self.site, self.writer
        self._template_cache()
        records = site.corpus.records
        t = time.perf_counter()
        # buckets of previews and texts: rewritten when a member's file changed
        members: dict = {}
        nb = self.buckets
        fnv = _FNV
        for rid in site.ids:
            h = fnv.get(rid)
            if h is None:
                h = fnv[rid] = bucket_of(rid, 1 << 32)     # (fnv1a32: the bucket is it modulo the count)
            members.setdefault(h % nb, []).append(rid)
        if len(fnv) > 4 * len(site.ids) + 1000:
            fnv.clear()
        self._bucket_members = members
        bucket_keys = {bk: digest(("\n".join(f"{r}\t{records[r].digest}" for r in rids) + self.salt)
                                  .encode("utf-8", "surrogatepass"))
                       for bk, rids in members.items()}
        dirty = {bk for bk, h in bucket_keys.items()
                 if not (w.unchanged(f"assets/text/{bk}.js", h) & w.unchanged(f"assets/preview/{bk}.js", h))}
        # search shards (runs of SHARD documents): re-tokenized when a member changed
        shard_keys = self._shard_keys()
        old_meta = w.old.meta
        if old_meta.get("salt") == self.salt and isinstance(old_meta.get("deps"), dict):
            # an incremental build: a forked helper makes the search index
            # (reads the joined postings of the last build, tokenizes the
            # documents that changed, joins their runs again) while this
            # process works out what changed and renders it, then the list
            # pages (most often kept as they are: _lists_and_feed).  Where
            # this process may not fork (serve: its server and watcher
            # threads run), both are done here, one after the other
            box: dict = {}
            site.corpus.graph            # built once, here: both processes read it

            def pages(_):
                try:
                    box["results"] = self._pages(dirty, set())
                    if not self._others_done:
                        self._others()
                    t0 = time.perf_counter()
                    self._lists_and_feed()
                    self.timings["lists"] = time.perf_counter() - t0
                except BaseException as exc:     # raised once the helper is back
                    box["error"] = exc

            state = _SEARCH_STATE.get(str(self._shard_dir())) if self.resident else None
            forks = can_fork()

            def helper(_):
                # a helper changes its copy of the kept state; done here
                # because the helper failed, it starts from the cache
                # folder's; done here by choice (no fork), from the kept
                # state itself (what it changes there is what it returns)
                return self._search_index_incremental(shard_keys, state if in_helper() or not forks else None)
            self._lists_elsewhere = True
            search_js = spread(helper, [None, None], name="site.search", first=pages)[1]
            if self.resident:
                search_js, got = search_js
                self._keep_search_state(got)     # also when this build was cancelled: the runs are written
            if "error" in box:
                raise box["error"]
            results = box["results"]
            self._finish(results, members, dirty, bucket_keys)
            t = time.perf_counter()
            w.put("assets/search-index.js", search_js)
            self.timings["search"] = time.perf_counter() - t
            return
        cached = self._read_shards(shard_keys)
        dirty_shards = {k for k in shard_keys if k not in cached}
        self._shard_keys_now = shard_keys     # the runs a part writes itself (see _render_part)
        results = self._pages(dirty, dirty_shards)
        self.timings["pages"] = time.perf_counter() - t
        if not self._others_done:
            self._others()
        t = time.perf_counter()
        # each part of the pages gives its runs' postings (term -> (text,
        # last document)), or, when it made every run of its documents, the
        # runs already joined and written (term -> text): joined in
        # document order with the runs read back
        shards = dict(cached)
        del cached
        written = set()      # the parts' joined runs (their runs written by the part)
        for _, postings, _, _ in results:
            if isinstance(postings, tuple):
                shards[postings[0]] = postings[1]
                written.add(postings[0])
            else:
                shards.update(postings)
        self._finish(results, members, dirty, bucket_keys)
        del results
        release_free_memory()     # the texts and previews joined and written
        self._write_shards(shard_keys, {k: shards[k] for k in dirty_shards if k in shards and k not in written})
        parts = [shards[k] for k in sorted(shards)]
        del shards
        merged = merge_postings(parts)
        del parts     # each run's postings, joined into ``merged``: let them go before the index is written
        release_free_memory()
        w.put("assets/search-index.js", search_index_js(self._search_docs(), merged))
        # the joined postings, for the next build's search index (see _search_index_incremental)
        state = {"version": _search_version(), "keys": shard_keys, "merged": merged, "docs": self._shard_docs()}
        if self.resident:
            self._keep_search_state(state)
        else:
            _save_search_state(self._shard_dir(), state)
        self.timings["search"] = time.perf_counter() - t

    def _pages(self, dirty, dirty_shards) -> list:
        """What changed, and the record pages it reaches rendered (see
        :meth:`_render_all`); cancelled builds raise :class:`BuildCancelled`."""
        t = time.perf_counter()
        w = self.writer
        self.candidates = self._candidates()
        self._prepare_queries()
        try:
            results = self._render_needed(dirty, dirty_shards)
            if results is None:
                results = self._render_all(dirty, dirty_shards)
        except BaseException:
            # a failed or cancelled render leaves no scratch files in the site
            import shutil
            shutil.rmtree(w.out / ".recordkit-tmp", ignore_errors=True)
            raise
        finally:
            self._drop_query_db()
        self.timings["pages"] = time.perf_counter() - t
        if getattr(self, "cancel", None) is not None and self.cancel():
            for _, _, frag_file, _ in results:
                try:
                    os.unlink(frag_file)
                except OSError:
                    pass
            raise BuildCancelled()
        return results

    def _template_cache(self) -> None:
        """Compiled templates kept in the cache folder (Jinja2's bytecode
        cache: by template and a checksum of its source), so that a fresh
        build that renders a few pages does not compile every template
        they use again (0.2 s)."""
        env = self.env
        if self.site.corpus.config is None:
            return
        folder = str(Path(self.site.corpus.config.cache_dir) / "site-templates")
        if not (isinstance(env.bytecode_cache, _TemplateCache) and env.bytecode_cache.directory == folder):
            env.bytecode_cache = _TemplateCache(folder)

    def _render_needed(self, dirty, dirty_shards) -> list | None:
        """An incremental build with few pages to render: only the records
        whose page may change (:meth:`_candidates`), has a query block, is
        missing or was altered, or sits in a text/preview bucket to make
        again go to :meth:`_render_part`; every other page keeps its entry
        of the last manifest after one ``stat`` (no page key, no view).
        None when this does not apply (a cold build, or many pages)."""
        cands = self.candidates
        if cands is None or dirty_shards or self.opts.jobs not in (None, 0, 1) \
                or len(cands) + len(self.query_keys) >= tuning.SITE_FORK_PAGES:
            return None
        site = self.site
        records = site.corpus.records
        old_files = self.writer.old.files
        out = os.fspath(self.writer.out) + os.sep
        query_keys = self.query_keys
        members = self._bucket_members
        in_dirty = set()
        for bk in dirty:
            in_dirty.update(members.get(bk, ()))
        kept, needed = [], []
        stat = os.stat
        for rid in site.ids:
            if rid not in cands and rid not in query_keys and rid not in in_dirty:
                rel = record_url(rid, records[rid].kind)
                old = old_files.get(rel)
                if old and old.get("key"):
                    try:
                        if stat(out + rel).st_size == old.get("size"):
                            kept.append((rel, old, False, False))
                            continue
                    except OSError:
                        pass
            needed.append(rid)
        progress = _Progress(len(needed), self.opts.progress)
        entries, encoded, frag_file, frag_index = self._render_part((0, needed), dirty, set(), progress)
        progress.close()
        return [(kept + entries, encoded, frag_file, frag_index)]

    def _lists_and_feed(self) -> None:
        """The list pages, the feed and the sitemap (:meth:`_lists`,
        :meth:`_feed_and_sitemap`), unless what they show is what the last
        build's showed: their data (every row, the failing checks, the
        counts and kinds, the settings) has one signature, kept in the
        manifest with the files they made; when it is unchanged and those
        files are there as written, their entries are kept and nothing is
        rendered (after a body edit that changes no title, status, tag,
        date, standing or check)."""
        w = self.writer
        site = self.site
        data = site.data
        # serve: while the graph is the last build's (no edit changed any
        # record's title, kind, status, tags, front matter or links: what
        # the rows show) and so are the standings, the dates and the
        # checks' entries, the rows are too, and so their signature
        rest = "\x00".join((self.salt, repr(self.common), repr(
            [(cid, check_entry(data, cid), data.cited_by[cid], cid in data.duplicates) for cid in sorted(data.cited_by)]),
            repr((self.opts.recent, self.opts.feed_entries, self.opts.site_url, LISTS_VERSION))))
        graph = site.corpus.graph
        memo = _LISTS_MEMO.get(graph)
        # (the rows carry no tags: which records each tag page lists is signed apart)
        records = site.corpus.records
        tagged = [records[r].tags for r in site.ids]
        if memo is not None and memo[0] is data.standings and memo[1] == data.git_dates and memo[2] == rest \
                and memo[3] == site.ids and memo[5] == tagged:
            L, sig = None, memo[4]
        else:
            L = listings(site)
            sig = digest("\x00".join((rest, repr(list(L["rows"].values())), repr(L["failing"]), repr(tagged))).encode(
                "utf-8", "surrogatepass"))
            _LISTS_MEMO[graph] = (data.standings, dict(data.git_dates), rest, list(site.ids), sig, tagged)
        prev = w.old.meta.get("lists")
        if isinstance(prev, list) and len(prev) == 2 and prev[0] == sig and isinstance(prev[1], list):
            out = os.fspath(w.out) + os.sep
            entries = []
            for rel in prev[1]:
                e = w.old.files.get(rel)
                try:
                    if not e or os.stat(out + rel).st_size != e.get("size"):
                        break
                except OSError:
                    break
                entries.append((rel, e))
            else:
                for rel, e in entries:
                    w.new.files[rel] = e
                    w.kept += 1
                w.new.meta["lists"] = prev
                return
        before = dict(w.new.files)
        self._lists(L)
        if self.opts.site_url:
            self._feed_and_sitemap()
        w.new.meta["lists"] = [sig, sorted(rel for rel, e in w.new.files.items() if before.get(rel) is not e)]

    def _finish(self, results, members, dirty, bucket_keys) -> None:
        """The rendered pages into the manifest, and the text and preview
        buckets joined from the helpers' fragments."""
        frags = []
        for entries, _, frag_file, frag_index in results:
            for rel, entry, wrote, rendered in entries:
                self.writer.record(rel, entry, wrote)
                self.report.rendered += rendered
            frags.append((frag_file, frag_index))
        self._write_buckets(members, dirty, bucket_keys, frags)

    def _search_docs(self) -> list:
        records = self.site.corpus.records
        return [{"id": r, "title": records[r].title, "kind": records[r].kind, "status": records[r].status,
                 "url": record_url(r, records[r].kind)} for r in self.site.ids]

    def _search_index(self, shard_keys: dict) -> list:
        """``assets/search-index.js``: the kept runs, the changed ones
        tokenized again (and kept), joined."""
        return search_index_js(self._search_docs(), self._joined_runs(shard_keys))

    def _joined_runs(self, shard_keys: dict) -> dict:
        """Every run's postings joined: the kept runs read back, the changed
        ones tokenized again (and kept)."""
        shards = self._read_shards(shard_keys)
        dirty_shards = [k for k in shard_keys if k not in shards]
        for k in dirty_shards:
            shards[k] = self._tokenized_shard(k)
        self._write_shards(shard_keys, {k: shards[k] for k in dirty_shards})
        return merge_postings([shards[k] for k in sorted(shards)])

    def _keep_search_state(self, got: dict) -> None:
        """Serve: the joined postings as this build left them, kept in
        memory (``got``: the whole state, or the terms that changed
        (``delta``) of the state kept before)."""
        key = str(self._shard_dir())
        if got.get("delta") is None:
            st = got
        else:
            st = _SEARCH_STATE.get(key)
            if st is None:
                return
            m = st["merged"]
            for term, v in got["delta"].items():
                if v is None:
                    m.pop(term, None)
                else:
                    m[term] = v
            st["keys"], st["docs"] = got["keys"], got["docs"]
        st = {k: st[k] for k in ("version", "keys", "merged", "docs")}
        st["saved"] = False
        _SEARCH_STATE[key] = st

    def _search_index_incremental(self, shard_keys: dict, state: dict | None = None):
        """``assets/search-index.js`` of an incremental build.  The joined
        postings of the last build are kept beside the runs
        (``merged.pickle``, with the keys of the runs they were joined
        from); when a few runs changed, only the terms of those runs (as
        they were and as they are) are joined again: a joined term is its
        runs in document order, separated by ``,=``, and a run's first
        document (absolute) says which run it is.  Otherwise, as
        :meth:`_search_index` does, every run is joined.

        ``state``: the joined postings kept in memory (serve: the helper
        that runs this inherited them), else they are read from the cache
        folder.  Returns the index's bytes; for a resident build (serve)
        also the state as it is now, to keep: the whole of it, or the terms
        that changed of the one given (``delta``); it is not written then."""
        folder = self._shard_dir()
        from_memory = state is not None
        if state is None:
            try:
                with open(folder / "merged.pickle", "rb") as fh:
                    state = snapshot.load(fh)
                if not (isinstance(state, dict) and state.get("version") == _search_version()
                        and isinstance(state.get("keys"), dict) and isinstance(state.get("merged"), dict)):
                    state = None
            except Exception:      # missing or unreadable: joined from every run
                state = None
        changed = None
        if state is not None and set(state["keys"]) == set(shard_keys):
            changed = [k for k, key in shard_keys.items() if state["keys"][k] != key]
        delta = None
        if changed is None or len(changed) > 4:
            merged = self._joined_runs(shard_keys)
        else:
            merged = state["merged"]
            delta = {}
            fresh = {}
            for k in changed:
                try:
                    with open(folder / f"{k}.pickle", "rb") as fh:
                        before = snapshot.load(fh)
                    if before["key"] != state["keys"][k]:
                        raise ValueError("not the run the joined postings hold")
                    before = before["postings"]     # the run as the last join had it
                    fresh[k] = now = self._retokenized_shard(k, before, state["docs"].get(k))
                except Exception:
                    # joined from every run (not from the dict changed so far)
                    merged = self._joined_runs(shard_keys)
                    delta = None
                    break
                for term in set(before) | set(now):
                    if before.get(term) == now.get(term):
                        continue      # this run's postings of the term are as they were joined
                    runs = merged[term].split(",=") if term in merged else []
                    at = 0
                    while at < len(runs):
                        first = _first_doc(runs[at]) // SHARD
                        if first >= k:
                            if first == k:
                                del runs[at]
                            break
                        at += 1
                    if term in now:
                        runs.insert(at, now[term][0])
                    if runs:
                        merged[term] = delta[term] = ",=".join(runs)
                    else:
                        merged.pop(term, None)
                        delta[term] = None
            else:
                self._write_shards(shard_keys, fresh)
        new = {"version": _search_version(), "keys": shard_keys, "merged": merged, "docs": self._shard_docs()}
        js = search_index_js(self._search_docs(), merged)
        if self.resident:
            return js, (new if delta is None or not from_memory else
                        {"keys": shard_keys, "docs": new["docs"], "delta": delta})
        _save_search_state(folder, new)
        return js

    def _shard_docs(self) -> dict:
        """Run -> the ``(id, digest)`` of each of its documents."""
        records = self.site.corpus.records
        ids = self.site.ids
        return {k // SHARD: [(r, records[r].digest) for r in ids[k:k + SHARD]] for k in range(0, len(ids), SHARD)}

    def _retokenized_shard(self, k: int, before: dict, docs: list | None) -> dict:
        """Run ``k`` as :meth:`_tokenized_shard` makes it, from the run as it
        was (``before``, whose documents were ``docs``): when the same
        records hold the same places, the postings of the documents whose
        record changed are taken out and theirs now put in; otherwise the
        run is tokenized again."""
        from .search import decode_postings
        records = self.site.corpus.records
        ids = self.site.ids
        lo, hi = k * SHARD, min((k + 1) * SHARD, len(ids))
        if not isinstance(docs, list) or len(docs) != hi - lo or any(d[0] != r for d, r in zip(docs, ids[lo:hi])):
            return self._tokenized_shard(k)
        redo = [n for n, d in zip(range(lo, hi), docs) if records[ids[n]].digest != d[1]]
        if len(redo) * 4 > hi - lo:
            return self._tokenized_shard(k)
        gone = set(redo)
        added: dict = {}
        for n in redo:
            rid = ids[n]
            rec = records[rid]
            _add_postings(added, n, rid, rec, plain_text(transient_body(rec), self.label_first))
        out = {}
        lo_gone, hi_gone = (min(gone), max(gone)) if gone else (0, -1)
        for term in set(before) | set(added):
            old = before.get(term)
            if old is not None and term not in added and (old[1] < lo_gone or _first_doc(old[0]) > hi_gone):
                out[term] = old      # its documents (first to last) hold none taken out
                continue
            flat = decode_postings(old[0]) if old is not None else []
            if old is not None and not any(flat[i] in gone for i in range(0, len(flat), 2)) and term not in added:
                out[term] = old
                continue
            keep = [(flat[i], flat[i + 1]) for i in range(0, len(flat), 2) if flat[i] not in gone]
            new = added.get(term)
            if new is not None:
                keep.extend((new[i], new[i + 1]) for i in range(0, len(new), 2))
                keep.sort()
            if keep:
                lst = [x for pair in keep for x in pair]
                out[term] = (encode_postings(lst), lst[-2])
        return out

    def _tokenized_shard(self, k: int) -> dict:
        """The postings of run ``k`` (as :meth:`_search_index` makes them)."""
        records = self.site.corpus.records
        ids = self.site.ids
        postings: dict = {}
        for n in range(k * SHARD, min((k + 1) * SHARD, len(ids))):
            rid = ids[n]
            rec = records[rid]
            _add_postings(postings, n, rid, rec, plain_text(transient_body(rec), self.label_first))
        return _encoded(postings)

    def _others(self, _part=None) -> list:
        """The pages and files that need no record page rendered: the
        assets, the list pages, the graph page, the feed and the sitemap.
        With helpers, this process does them while they render."""
        t = time.perf_counter()
        self._assets()
        if not self._lists_elsewhere:
            self._lists_and_feed()
            release_free_memory()     # the list pages' rows, before the graph page's index
        self._graph_page()
        release_free_memory()
        self._others_done = True
        if not self._lists_elsewhere:
            self.timings["lists"] = time.perf_counter() - t
        return []

    def _candidates(self) -> set | None:
        """The records whose page may show something that changed since the
        last build (None: every record, when the last build was made with
        other settings or templates, or is not known).

        Each record's *own* signature covers what its page shows of itself
        and of its links: its file, its out-edges (front matter, body and
        derived), its standing (with the records on its path), its checks
        and its date.  A page can change only when its own signature did
        or a neighbour's did (a title, a sentence, a kind it shows): the
        changed records, their neighbours now, and the records they linked
        to before (a deleted record's targets lose a backlink).  A new
        record, or one deleted, changes the out-edges of every record that
        names it, and so their signatures."""
        site = self.site
        records = site.corpus.records
        pub = site.published
        data = site.data
        succ = site.corpus.graph._succ
        pred = site.corpus.graph._pred
        fms = front_matter_digests(site.corpus)
        own, outs, gsig = {}, {}, {}
        links = 0
        import hashlib
        # what a record's out-edges give (its graph signature, its published
        # targets and links) is worked out once per graph: serve keeps the
        # graph while no edit changes it (load.RecordCache), and with it this
        memo = _EDGE_MEMO.get(site.corpus.graph)
        if memo is None or memo[0] != self.salt:
            memo = _EDGE_MEMO[site.corpus.graph] = (self.salt, {})
        memo = memo[1]
        # and a record's own signature, graph signature and face, while its
        # file (digest and path), the standings, the dates and the files of
        # the records its standing names are the same (not for a record
        # with checks: a body's check block can change its tolerance)
        omemo = _OWN_MEMO.get(site.corpus.graph)
        if omemo is None or omemo[0] != self.salt or omemo[1] is not data.standings or omemo[2] != data.git_dates:
            omemo = _OWN_MEMO[site.corpus.graph] = (self.salt, data.standings, dict(data.git_dates), {})
        omemo = omemo[3]
        # (kept for a build to come: serve's next, or a fresh one when this
        # build is incremental and so keeps its graph; not by a cold build)
        keep_own = self.resident or self.writer.old.meta.get("salt") == self.salt
        faces = {}
        blake = hashlib.blake2b
        for rid in site.ids:
            rec = records[rid]
            o = omemo.get(rid)
            if o is not None and o[0] == rec.digest and o[1] == rec.relpath and (
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
                edges = []
                targets = []
                nl = 0
                for dst, kd in succ[rid].items():
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
                m = memo[rid] = (fm, rec.relpath, hashlib.blake2b(e.encode("utf-8", "surrogatepass"),
                                                                   digest_size=12).hexdigest(),
                                 hashlib.blake2b(f"{fm}|{rec.relpath}|{g}".encode("utf-8", "surrogatepass"),
                                                 digest_size=12).hexdigest(), " ".join(targets), nl)
            links += m[5]
            parts = [rec.digest, rec.relpath, m[2]]
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
            own[rid] = hashlib.blake2b(repr(parts).encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()
            # the graph page shows each node's standing and checks too, which
            # other records (one kept out of the site too) can change
            gsig[rid] = m[3] if stand is None and not cids else m[3] + hashlib.blake2b(
                repr((stand, cids)).encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()
            outs[rid] = m[4]
            # what other pages show of a record (its face: id, title, kind,
            # status) and its out-edges, to tell an edit of its text alone
            faces[rid] = blake(f"{rec.title}\x00{rec.kind}\x00{rec.status}".encode("utf-8", "surrogatepass"),
                               digest_size=8).hexdigest()
            if keep_own and not cids:
                omemo[rid] = (rec.digest, rec.relpath,
                              tuple((x, records[x].digest if x in records else None) for x in named),
                              own[rid], gsig[rid], faces[rid])
        self.graph_sig = gsig
        self.common["counts"]["links"] = links
        meta = self.writer.new.meta
        old_meta = self.writer.old.meta
        meta["salt"] = self.salt
        meta["deps"] = {r: [own[r], outs[r], faces[r], memo[r][2]] for r in site.ids}
        old = old_meta.get("deps")
        if old_meta.get("salt") != self.salt or not isinstance(old, dict):
            return None
        changed = {r for r in site.ids if (old.get(r) or [None])[0] != own[r]}
        changed.update(r for r in old if r not in pub)
        out = set(changed)
        for r in changed:
            prev = old.get(r)
            if r in pub:
                if isinstance(prev, list) and len(prev) > 3 and prev[2] == faces[r] and prev[3] == memo[r][2]:
                    # the same face and out-edges: other pages show of it only
                    # the sentences its body writes about them, the pages
                    # that embed it its body, and those that link to one of
                    # its headings or blocks whether it has it
                    out.update(x for x, kd in succ[r].items()
                               if x in pub and any(d["origin"] == "body" for d in kd.values()))
                    out.update(x for x, kd in pred[r].items()
                               if x in pub and any(d["origin"] == "body" for d in kd.values())
                               and (r in self._embeds(records[x])
                                    or any(t == r for t, _ in self._fragment_links(records[x]))))
                    continue
                out.update(x for x in succ[r] if x in pub)
                out.update(x for x in pred[r] if x in pub)
            if isinstance(prev, list) and len(prev) > 1 and isinstance(prev[1], str):
                out.update(x for x in prev[1].split() if x in pub)
        return out

    def _embedded(self, rid: str, heading: str | None):
        """What an embed of ``rid`` shows (see :class:`.markdown.BodyRenderer`):
        its title, its body or the section under ``heading``, its path."""
        rec = self.site.corpus.records.get(rid)
        if rec is None or rid not in self.site.published:
            return None
        body = transient_body(rec)
        if heading:
            body = self.renderer.section(body, heading)
            if body is None:
                return None
        return rec.title, body, rec.relpath

    def _has_anchor(self, rid: str, fragment: str) -> bool:
        """Whether the page of ``rid`` has the heading (``Heading``) or the
        block (``^b1``) a link's ``fragment`` names: what the lint's RK309
        asks too (:func:`recordkit.markdown.anchors.body_anchors`, each
        target's body parsed once a build)."""
        got = self._anchors.get(rid)
        if got is None:
            rec = self.site.corpus.records.get(rid)
            got = False
            if rec is not None and rid in self.site.published:
                from ...markdown.anchors import body_anchors
                got = body_anchors(transient_body(rec), self.renderer.md)
            self._anchors[rid] = got
        return got is not False and got.has(fragment)

    def _fragment_links(self, rec) -> list:
        """Each (published id, fragment) of the heading and block links
        (``[[Note#Heading]]``, ``[[Note#^b1]]``, ``[text](note.md#heading)``)
        in ``rec``'s body, read from the text: the page's link goes to the
        anchor or, when the target lacks it, to the page's top."""
        if not rec.mention_targets:
            return []           # (a link to a record is a mention)
        raw = rec.source.undecoded()
        if not may_name_part(raw if raw is not None else transient_body(rec)):
            return []           # (its file's bytes when it has them, without decoding them)
        body = transient_body(rec)
        out = self._markdown_fragment_links(rec, body)
        if "[[" not in body:
            return out
        from ...markdown.anchors import WIKI_ANY, wikilink_fragment
        from ...markdown.links import wikilink_target
        for m in WIKI_ANY.finditer(body):
            inner = m.group(1)
            if "#" not in inner and "^" not in inner:
                continue
            order = self._wikilink_order
            fragment = wikilink_fragment(inner, order)
            if not fragment:
                continue
            rid = wikilink_target(inner, order)
            if not rid:
                continue
            target = self.site.resolve(rid)
            if target[0] == "link":
                rid = target[3] if len(target) > 3 else rid
                out.append((rid, fragment))
        return out

    def _markdown_fragment_links(self, rec, body: str) -> list:
        """Each (published id, fragment) of the Markdown links to a record's
        file with a ``#heading`` (``[text](other.md#a-heading)``) in
        ``body``, read from the text as :meth:`_fragment_links` reads
        wikilinks."""
        if ("](" not in body and "]:" not in body) or \
                (".md#" not in body.lower() if not self.renderer.extensionless else "#" not in body):
            return []
        from ...markdown.links import MD_DEST_RE, definitions, markdown_destination, markdown_target
        from ...markdown.anchors import markdown_fragment
        out = []
        hrefs = [d.group(1) for d in MD_DEST_RE.finditer(body)]
        if "]:" in body:        # [text][label] links, by their definitions
            hrefs += [markdown_destination(body, s, e).group(1) for s, e, *_ in definitions(body)]
        for href in hrefs:
            path = markdown_target(href, self.renderer.extensionless)
            fragment = markdown_fragment(href) if path is not None else None
            if not fragment:
                continue
            rid = self.site.resolve_file(path, rec.relpath)
            target = self.site.resolve(rid) if rid is not None else ("dangling",)
            if target[0] == "link":
                out.append((target[3] if len(target) > 3 else rid, fragment))
        return out

    def _embeds(self, rec) -> list:
        """The published records ``rec``'s body embeds (``![[…]]``, read
        from the text: an embed inside code counts too, which at worst
        renders a page again for nothing)."""
        if not rec.mention_targets:
            return []           # (an embed is a mention)
        raw = rec.source.undecoded()
        if raw is not None and b"![[" not in raw:
            return []           # its file's bytes, without decoding them
        body = transient_body(rec)
        if "![[" not in body:
            return []
        from ...markdown.links import wikilink_target
        out = []
        for m in _EMBED_RE.finditer(body):
            target = self.site.resolve(wikilink_target(m.group(1), self._wikilink_order))
            if target[0] == "link":
                out.append(target[3] if len(target) > 3 else wikilink_target(m.group(1), self._wikilink_order))
        return out

    def _page_key(self, rid: str, lines_cache: dict | None = None) -> str:
        """What the page of ``rid`` shows, as a key: its own file, and of
        each published record it links to or is linked from only what the
        page shows of it (id, title, kind, status, and for a body mention
        of it the sentence the mention is in), the state of every id it
        names, its standing (with the records on its path), its checks and
        its date.  An edit of a record's body outside the sentences that
        mention others re-renders its own page only.  (The record count and
        everything global is in the salt.)"""
        site = self.site
        corpus = site.corpus
        records = corpus.records
        pub = site.published
        rec = records[rid]
        g = corpus.graph

        def face(x):
            r = records[x]
            return (r.title, r.kind, r.status)
        parts = [rec.digest]
        for dst, kd in g._succ[rid].items():
            if dst in pub:
                for d in kd.values():
                    parts.append((">", dst, d["relation"], d["origin"], face(dst)))
        # the sentences are kept for this page's render (see _record_page)
        sentences: dict = {}
        self._sentences = (rid, sentences)
        for src, kd in g._pred[rid].items():
            if src in pub:
                for d in kd.values():
                    sentence = None
                    if d["origin"] == "body":
                        sentence = sentences[src] = mention_sentence(records[src], rid, lines_cache=lines_cache,
                                                                       label_first=self.label_first)
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
        parts.extend((x, f, self._has_anchor(x, f)) for x, f in self._fragment_links(rec))
        for x in self._embeds(rec):         # the page shows its body (or a section)
            parts.append(("embed", x, records[x].title, records[x].digest))
            for cid in site.data.checks_of.get(x, []):     # with its check blocks' verdicts
                parts.append(tuple(sorted(check_entry(site.data, cid).items())))
        import hashlib
        h = hashlib.sha1(self.salt.encode("utf-8", "surrogatepass"))
        h.update(repr(parts).encode("utf-8", "surrogatepass"))
        return h.hexdigest()

    # -- query blocks ----------------------------------------------------------------
    def _prepare_queries(self) -> None:
        """The published records with a ```query block: their page depends
        on everything a query can read (every published record, the check
        results), so its key holds a digest of all of it; when one of them
        is to be rendered, the database of the published records (and of
        them only: a query never sees a record kept out) is built once,
        before the helpers fork."""
        site = self.site
        records = site.corpus.records
        self.query_db = None
        self.query_dir = None
        self.query_keys = {}
        from ...sql.query import query_blocks
        q = [r for r in site.ids
             if (records[r].fence_infos is None or any("query" in f for f in records[r].fence_infos))
             and query_blocks(records[r])]
        if not q:
            return
        everything = digest(("\n".join(f"{r}\t{records[r].digest}" for r in site.ids) + repr(
            sorted((cid, r.verdict, r.stale, r.discrepancy, r.ran_at) for cid, r in site.data.results.items())))
            .encode("utf-8", "surrogatepass"))
        old_files = self.writer.old.files
        need = False
        for rid in q:
            key = digest((self._page_key(rid) + "|query|" + everything).encode("utf-8", "surrogatepass"))
            self.query_keys[rid] = key
            old = old_files.get(record_url(rid, records[rid].kind))
            if not (old and old.get("key") == key and _same_size(self.writer.out / record_url(rid, records[rid].kind),
                                                                 old.get("size"))):
                need = True
        if need:
            import tempfile
            from ...corpus.model import Corpus
            from ...sql.database import write_database
            corpus = site.corpus
            pc = Corpus(root=corpus.root, schema=corpus.schema, config=corpus.config)
            pc.files = [records[r] for r in site.ids]
            pc.records = {r: records[r] for r in site.ids}
            self.query_dir = tempfile.mkdtemp(prefix="recordkit-site-query-")
            self.query_db = os.path.join(self.query_dir, "published.sqlite")
            write_database(pc, self.query_db, fts=False, results=site.data.results)

    def _drop_query_db(self) -> None:
        if self.query_dir:
            import shutil
            shutil.rmtree(self.query_dir, ignore_errors=True)
            self.query_dir = self.query_db = None

    def _fill_queries(self, rec, body: str) -> str:
        """Each ```query block of the body (rendered as code) replaced by
        its result as a table, ids as links; a failing query by an error
        box.  Blocks are matched to their SQL by content."""
        import re
        from ...sql.query import evaluate_blocks
        if self.query_db is None:
            return body
        results = evaluate_blocks(None, rec, path=self.query_db, limit=QUERY_ROW_LIMIT)
        by_sql: dict = {}
        for br in results:
            by_sql.setdefault(br.block.sql, []).append(br)

        def sub(m):
            sql = html.unescape(re.sub(r"<[^>]+>", "", m.group(1))).strip()
            found = by_sql.get(sql)
            if not found:
                return m.group(0)
            return self._query_html(found.pop(0) if len(found) > 1 else found[0], m.group(0))
        return re.sub(r'<pre class="rk-code"><code class="language-query">(.*?)</code></pre>\n?', sub, body,
                      flags=re.S)

    def _query_html(self, br, code_html: str) -> str:
        site = self.site
        esc = html.escape
        sql = f'<details class="rk-query-sql"><summary>SQL</summary>{code_html}</details>\n'
        if br.error is not None:
            return (f'<div class="rk-query rk-verdict-box v-fail rk-query-error" role="alert">'
                    f'<strong>query failed</strong> (line {br.block.line}): {esc(site.scrub(br.error))}</div>\n{sql}')
        res = br.result

        def cell(v) -> str:
            if v is None:
                return ""
            if isinstance(v, bytes):
                return f"{len(v)} bytes"
            text = str(v)
            target = site.resolve(text) if text in site.corpus.records else None
            if target and target[0] == "link":
                return (f'<a class="rk-ref k-{esc(target[2] or "")}" href="../{esc(target[1])}" '
                        f'data-id="{esc(text)}">{esc(text)}</a>')
            return esc(site.scrub(text))
        head = "".join(f"<th>{esc(c)}</th>" for c in res.columns)
        rows = "".join("<tr>" + "".join(f"<td>{cell(v)}</td>" for v in r) + "</tr>\n" for r in res.rows)
        n = len(res.rows)
        more = f" (the first {n})" if n >= QUERY_ROW_LIMIT else ""
        return (f'<div class="rk-query"><table class="rk-query-table"><thead><tr>{head}</tr></thead>\n'
                f'<tbody>\n{rows}</tbody></table>\n<p class="rk-query-count">{n} row{"s" if n != 1 else ""}{more}'
                f'</p>\n{sql}</div>\n')

    def _shard_keys(self) -> dict:
        records = self.site.corpus.records
        ids = self.site.ids
        out = {}
        for k in range(0, len(ids), SHARD):
            h = digest((f"{_search_version()}|{k}|" + "\n".join(f"{r}\t{records[r].digest}" for r in ids[k:k + SHARD]))
                       .encode("utf-8", "surrogatepass"))
            out[k // SHARD] = h
        return out

    def _shard_dir(self) -> Path:
        import hashlib
        cache = Path(self.site.corpus.config.cache_dir)
        return cache / "site-search" / hashlib.sha1(os.fsencode(self.writer.out.resolve())).hexdigest()[:16]

    def _read_shards(self, keys: dict) -> dict:
        """The cached postings of every shard whose key is unchanged."""
        folder = self._shard_dir()
        out = {}
        for k, key in keys.items():
            try:
                with open(folder / f"{k}.pickle", "rb") as fh:
                    data = snapshot.load(fh)
                if data.get("key") == key:
                    out[k] = data["postings"]
            except Exception:   # missing or unreadable: the shard is made again
                continue
        return out

    def _write_shards(self, keys: dict, shards: dict, prune: bool = True) -> None:
        """The runs' postings (``shards``) into the cache folder, under their
        keys; and (``prune``) the files of runs past the end removed."""
        folder = self._shard_dir()
        try:
            folder.mkdir(parents=True, exist_ok=True)
            for k, postings in shards.items():
                write_atomic(folder / f"{k}.pickle",
                             snapshot.dumps({"key": keys[k], "postings": postings}))
            if not prune:
                return
            for p in folder.glob("*.pickle"):      # shards past the end (fewer records now)
                if p.stem.isdigit() and int(p.stem) not in keys:
                    p.unlink()
        except OSError:
            pass   # no cache: the next build tokenizes again

    def _render_all(self, dirty, dirty_shards) -> list:
        """The record pages, rendered and written.  With more than one job
        every run of records goes to a forked helper (which inherits the
        loaded record: nothing is copied or pickled on the way there), and
        this process does the other pages meanwhile (:meth:`_others`), so
        that nothing but rendering stands between the fork and the end."""
        ids = self.site.ids
        jobs = self.opts.jobs or workers(len(ids), name="site.render")
        if self.candidates is not None and len(self.candidates) + len(self.query_keys) < tuning.SITE_FORK_PAGES \
                and len(dirty_shards) <= 2 and not self.opts.jobs:
            jobs = 1     # a few pages to render: a helper would cost more (a fork, every file's size)
        parts = [(0, ids)] if jobs <= 1 or len(ids) < tuning.FLOOR["site.render"] else _chunks(self.site, ids, jobs)
        # the bar follows the first run (drawn by whoever renders it)
        progress = _Progress(len(parts[0][1]), self.opts.progress)
        quiet = _Progress(0, False)

        def work(part):
            return self._render_part(part, dirty, dirty_shards, progress if part[0] == 0 else quiet)

        if len(parts) == 1:
            out = [work(parts[0])]
        else:
            # what is loaded now is out of every later collection's sight
            # (the helpers collect, over what their pages make only), and
            # the C heap's free pages are given back before the fork
            with shared_with_helpers():
                out = spread(work, [None] + parts, name="site.render", first=self._others, collect=True)[1:]
        progress.close()
        return out

    def _render_part(self, part, dirty, dirty_shards, progress):
        """For the records of ``part`` (a first document number and a run of
        ids): their views and keys; the pages whose key changed, rendered
        and written; the search postings of the run; the texts and previews
        of those in changed buckets."""
        first, ids = part
        site = self.site
        records = site.corpus.records
        try:
            template = self.env.get_template("record.html.j2")
        except Exception as exc:
            raise _template_failed(exc, "the record pages") from None
        writer = self.writer
        old_files = writer.old.files
        out = writer.out
        entries = []
        shard_postings: dict = {}
        encoded: dict = {}
        # the texts and previews of records in changed buckets go to a
        # scratch file as JSON fragments (the parent joins them by bucket):
        # 85 MB of text at 10,000 records need not travel back in memory
        frag_path = out / ".recordkit-tmp" / f"{first}.part"
        frag_path.parent.mkdir(exist_ok=True)
        frag_file = open(frag_path, "wb")
        frag_index = []
        made_dirs = set()
        lines_cache: dict = {}
        candidates = self.candidates
        cancel = getattr(self, "cancel", None)
        for n, rid in enumerate(ids, first):
            if cancel is not None and cancel():
                frag_file.close()
                try:
                    os.unlink(frag_path)
                    frag_path.parent.rmdir()
                except OSError:
                    pass
                raise BuildCancelled()
            rec = records[rid]
            body = None      # decoded when needed, and not kept on the record
            rel = record_url(rid, rec.kind)
            old = old_files.get(rel)
            v = None
            if candidates is not None and rid not in candidates and rid not in self.query_keys and old \
                    and old.get("key") \
                    and _same_size(out / rel, old.get("size")):
                # nothing the page shows changed (see _candidates)
                entries.append((rel, old, False, False))
                key = None
            else:
                key = self.query_keys.get(rid) or self._page_key(rid, lines_cache)
            if key is None:
                pass
            elif old and old.get("key") == key and _same_size(out / rel, old.get("size")):
                entries.append((rel, old, False, False))
            else:
                body = transient_body(rec)
                v = record_view(site, rid, body)
                page = self._record_page(template, rec, v, lines_cache, body).encode("utf-8", "surrogatepass")
                d = os.path.dirname(rel)
                if d not in made_dirs:
                    (out / d).mkdir(parents=True, exist_ok=True)
                    made_dirs.add(d)
                entry = {"hash": digest(page), "size": len(page), "key": key}
                wrote = not (old and old.get("hash") == entry["hash"] and _same_size(out / rel, len(page)))
                if wrote:
                    write_atomic(out / rel, page)
                entries.append((rel, entry, wrote, True))
            progress.step()
            if (n - first) % tuning.SITE_TRIM_PAGES == tuning.SITE_TRIM_PAGES - 1:
                release_free_memory()   # what the pages rendered so far freed
            text = None
            if n // SHARD in dirty_shards:
                if body is None:
                    body = transient_body(rec)
                text = plain_text(body, self.label_first)
                sk = n // SHARD
                if sk not in shard_postings and shard_postings:
                    # a new run: the earlier ones are whole, kept encoded (a
                    # tenth of their arrays' memory) from now on
                    for done in list(shard_postings):
                        encoded[done] = _encoded(shard_postings.pop(done))
                _add_postings(shard_postings.setdefault(sk, {}), n, rid, rec, text)
            bk = bucket_of(rid, self.buckets)
            if bk in dirty:
                if body is None:
                    body = transient_body(rec)
                if text is None:
                    text = plain_text(body, self.label_first)
                if v is None:
                    v = {"kind": rec.kind, "status": rec.status, "title": rec.title, "url": rel}
                key = json_js(rid)
                for kind, value in (("t", " ".join(text.split())),
                                    ("p", [v["kind"], v["status"] or "", v["title"], v["url"],
                                           first_paragraph(body, label_first=self.label_first)])):
                    data = (key + ":" + json_js(value)).encode("utf-8", "surrogatepass")
                    frag_index.append((bk, kind, frag_file.tell(), len(data)))
                    frag_file.write(data)
        frag_file.close()
        encoded.update((k, _encoded(postings)) for k, postings in shard_postings.items())
        keys = getattr(self, "_shard_keys_now", None)
        if encoded and keys is not None and ids and \
                all(k in encoded for k in range(first // SHARD, (first + len(ids) - 1) // SHARD + 1)):
            # every run of this part made here: written here, and sent back
            # joined (a tenth of the objects; the main process joins the
            # parts' texts, in order, by concatenation as it joins runs)
            self._write_shards(keys, encoded, prune=False)
            first_run = min(encoded)
            joined = merge_postings([encoded[k] for k in sorted(encoded)])
            return entries, (first_run, joined), str(frag_path), frag_index
        return entries, encoded, str(frag_path), frag_index

    def _write_buckets(self, members, dirty, bucket_keys, frags) -> None:
        """Join the helpers' fragments into the text and preview buckets."""
        by_bucket: dict = {}
        for path, index in frags:          # in document order
            for bk, kind, off, n in index:
                by_bucket.setdefault((bk, kind), []).append((path, off, n))
        files = {path: open(path, "rb") for path, _ in frags}
        try:
            for bk in sorted(dirty):
                for kind, call, folder in (("t", "texts", "text"), ("p", "previews", "preview")):
                    pieces = []
                    for path, off, n in by_bucket.get((bk, kind), []):
                        fh = files[path]
                        fh.seek(off)
                        pieces.append(fh.read(n))
                    data = f"RK.{call}({{".encode() + b",".join(pieces) + b"});\n"
                    self.writer.put(f"assets/{folder}/{bk}.js", data, key=bucket_keys[bk])
        finally:
            for path, fh in files.items():
                fh.close()
                try:
                    os.unlink(path)
                except OSError:
                    pass
            try:
                (self.writer.out / ".recordkit-tmp").rmdir()
            except OSError:
                pass

    def _record_page(self, template, rec, v, lines_cache=None, body=None) -> str:
        site = self.site
        rendered = self.renderer.render(rec.body if body is None else body, rec.relpath)
        body = rendered.html
        if rec.id in self.query_keys:
            body = self._fill_queries(rec, body)
        if rendered.checks:
            entries = {c["id"]: c for c in v["checks"]}
            for cid in rendered.checks:     # a check block of a body this page embeds
                if cid not in entries:
                    entries[cid] = check_entry(site.data, cid)
            body = _fill_check_verdicts(body, entries, rendered.checks)
        mentions = []
        known = self._sentences[1] if self._sentences[0] == rec.id else {}
        for m in v["mentioned_by"]:
            s = known[m["id"]] if m["id"] in known else \
                mention_sentence(site.corpus.records[m["id"]], rec.id, lines_cache=lines_cache,
                                 label_first=self.label_first)
            parts = None
            if s:
                k = s.find(rec.id)
                parts = (s[:k], rec.id, s[k + len(rec.id):]) if k >= 0 else (s, "", "")
            mentions.append(dict(m, sentence=parts))
        toc = rendered.headings if len(rendered.headings) >= self.opts.toc_min_headings else None
        from markupsafe import Markup
        try:
            return template.render(self.common, root="../", r=v, body=Markup(body), toc=toc, mentions=mentions,
                                   description=v["title"][:200])
        except Exception as exc:
            raise _template_failed(exc, v["url"]) from None

    # -- everything else ------------------------------------------------------------
    def _page(self, rel: str, template: str, **ctx) -> None:
        """Render a page unless the data it shows is what it showed last time."""
        key = digest((self.salt + template + repr(self.common) + repr(sorted(ctx.items()))).encode(
            "utf-8", "surrogatepass"))
        if self.writer.unchanged(rel, key):
            return
        root = "../" * rel.count("/")
        try:
            html_text = self.env.get_template(template).render(self.common, root=root, **ctx)
        except Exception as exc:
            raise _template_failed(exc, rel) from None
        self.writer.put(rel, html_text, key=key)

    def _assets(self) -> None:
        for rel, data in site_assets(self.opts.templates, self.user_templates).items():
            if rel == "assets/site.css":
                data = (data + b"\n/* kind colours, from the schema */\n" + _kind_css(self.site.kinds).encode()
                        + b"\n/* code highlighting (Pygments) */\n" + pygments_css().encode())
            self.writer.put(rel, data)

    def _lists(self, L: dict | None = None) -> None:
        site = self.site
        if L is None:
            L = listings(site)
        self._rows = L["rows"]
        self._page("index.html", "index.html.j2", recent=L["recent"][: self.opts.recent],
                   ready_count=len(L["ready"]), failing_count=len(L["failing"]), tag_count=len(L["by_tag"]))
        for kind, rows in L["by_kind"].items():
            k = site.kinds.get(kind)
            if k is None:   # records with no kind: listed on the index, by status and by tag
                continue
            self._page(kind_url(kind), "list.html.j2", heading=f"{kind} records", kind=kind,
                       intro=f"{k['description'].capitalize()}." if k["description"] else None,
                       rows=rows, groups=None, show_standing=any(r["standing"] for r in rows), empty="")
        for status, rows in L["by_status"].items():
            groups = {}
            for r in rows:
                groups.setdefault(r["kind"], []).append(r)
            self._page(status_url(status), "list.html.j2", heading=f"Status: {status}", kind=None, intro=None,
                       rows=rows, groups=list(groups.items()), show_standing=any(r["standing"] for r in rows),
                       empty="")
        tags = []
        for tag, rows in sorted(L["by_tag"].items()):
            self._page(tag_url(tag), "list.html.j2", heading=f"Tag: {tag}", kind=None, intro=None, rows=rows,
                       groups=None, show_standing=False, empty="")
            tags.append({"name": tag, "url": tag_url(tag), "count": len(rows)})
        self._page("tags.html", "tags.html.j2", tags=tags)
        self._page("ready.html", "list.html.j2", heading="Ready to promote", kind=None,
                   intro="Proposed theories whose every promote_when requirement holds: "
                         "`recordkit promote ID --apply` promotes one.",
                   rows=L["ready"], groups=None, show_standing=True,
                   empty="No theory is ready to promote.")
        self._page("failing.html", "failing.html.j2", failing=L["failing"])
        self._page("404.html", "404.html.j2")

    def _graph_page(self) -> None:
        """The interactive graph page of the published records, linking
        into the site (and back to its home page), in the site's light or
        dark theme; its inline scripts and styles are allowed by hash."""
        site = self.site
        results = site.data.results
        from ..graph_page import SCRIPT_PARTS, TEMPLATE
        from ..templates import read_text
        page_code = "".join(read_text(n, self.user_templates) for n in (TEMPLATE, "graph.css", *SCRIPT_PARTS))
        key = digest((self.salt + page_code + "\n".join(f"{r}\t{self.graph_sig[r]}" for r in site.ids) + repr(
            sorted((cid, r.verdict, r.stale, r.discrepancy) for cid, r in results.items()))).encode(
            "utf-8", "surrogatepass"))
        if self.writer.unchanged("graph.html", key):
            return
        from ...views.index import build_index
        from ..graph_page import render_graph_parts
        urls = {rid: record_url(rid, site.corpus.records[rid].kind) for rid in site.ids}
        index = build_index(site.corpus, site_urls=urls, title=self.opts.title, results=site.data.results)
        pub = site.published
        index["nodes"] = [n for n in index["nodes"] if n["id"] in pub]
        index["links"] = [l for l in index["links"] if l["source"] in pub and l["target"] in pub]
        for n in index["nodes"]:
            n["backlinks"] = {k: [x for x in v if x in pub] for k, v in n["backlinks"].items()}
            n["backlinks"] = {k: v for k, v in n["backlinks"].items() if v}
            if any(x not in pub for x in n.get("standing_path") or []):
                n["standing_path"] = [x for x in n["standing_path"] if x in pub]
                n["standing_detail"] = None
            n["relations"] = {k: [x for x in v if x in pub] for k, v in n["relations"].items()}
            n["relations"] = {k: v for k, v in n["relations"].items() if v}
            if isinstance((n.get("promote") or {}).get("requires"), list):
                for q in n["promote"]["requires"]:
                    if q.get("by") and q["by"] not in pub:
                        q["by"] = None
        from .views import scrubbed
        index["nodes"] = scrubbed(site, index["nodes"])
        index["meta"]["counts"] = {"nodes": len(index["nodes"]), "links": len(index["links"])}
        index["meta"]["generated"] = None
        # graph.html sits at the site's root: its header links back to the
        # home page, and its light/dark toggle shares the site's choice (the
        # localStorage key of assets/theme.js and site.js)
        head, data, tail = render_graph_parts(index, title=f"{self.opts.title} — graph",
                                              templates=self.user_templates, home="index.html",
                                              home_label=self.opts.title, theme_key="rk-theme")
        del index
        self.writer.put("graph.html", [_with_csp(head, tail), *data, tail], key=key)

    def _feed_and_sitemap(self) -> None:
        from .feeds import atom_feed, sitemap
        base = self.opts.site_url
        rows = self._rows
        self.writer.put("feed.xml", atom_feed(self.site, rows, base, self.opts.feed_entries))
        pages = ["index.html"] + [rows[r]["url"] for r in self.site.ids]
        self.writer.put("sitemap.xml", sitemap(base, pages, {rows[r]["url"]: rows[r]["date"] for r in self.site.ids}))


class _TemplateCache(jinja2.FileSystemBytecodeCache):
    """Jinja2's bytecode cache in a folder that may be missing or
    unwritable: then templates are compiled as without it."""

    def load_bytecode(self, bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:
            bucket.reset()

    def dump_bytecode(self, bucket) -> None:
        try:
            os.makedirs(self.directory, exist_ok=True)
            super().dump_bytecode(bucket)
        except Exception:
            pass


#: serve: shard folder -> the search index's joined postings as the last
#: build left them (see _Builder._search_index_incremental), and whether
#: they are written to the cache folder yet
_SEARCH_STATE: dict = {}


def _save_search_state(folder: Path, state: dict) -> None:
    """``merged.pickle`` in ``folder``: the joined postings, the keys of the
    runs they were joined from and the documents of each run."""
    path = Path(folder) / "merged.pickle"
    tmp = path.with_name(f".merged.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(tmp, "wb") as fh:     # streamed: no bytes of the whole pickle in memory
            # nor a memo of its strings (nothing in it is shared)
            snapshot.fast_dump({k: state[k] for k in ("version", "keys", "merged", "docs")}, fh)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def save_resident_state() -> None:
    """Write what resident builds (serve) kept in memory and the cache
    folder does not hold yet (the search index's joined postings), so that
    a fresh ``recordkit build`` after them is incremental too.  serve calls
    it once a build is announced, and when it stops."""
    for folder, st in list(_SEARCH_STATE.items()):
        if not st.get("saved"):
            _save_search_state(Path(folder), st)
            st["saved"] = True


_EMBED_RE = re.compile(r"!\[\[([^\[\]\n]+?)\]\]")


def _first_doc(run: str) -> int:
    """The (absolute) first document of one run of encoded postings."""
    i = run.find(",")
    head = run if i < 0 else run[:i]
    j = head.find(".")
    return int(head if j < 0 else head[:j], 36)


def _add_postings(postings: dict, n: int, rid: str, rec, text: str) -> None:
    """Document ``n``'s weighted terms appended to a run's ``postings``
    (term -> array of doc, weight, doc, weight, ...)."""
    for term, count in doc_terms(rid, rec.title, rec.tags, text).items():
        lst = postings.get(term)
        if lst is None:
            postings[term] = array("I", (n, count))
        else:
            lst.append(n)
            lst.append(count)


def _encoded(postings: dict) -> dict:
    """A run's postings as kept and joined: term -> (encoded, last doc)."""
    return {t: (encode_postings(lst), lst[-2]) for t, lst in postings.items()}


def _keep_bytes_only(corpus) -> None:
    """Each record parsed by this build keeps its file as bytes, not as
    decoded text and body (two copies, each as large as the file): the
    pages decode a record's text when they need it and let it go
    (``views.transient_text``).  At 10,000 records this is some 250 MB of
    the process's peak, and of every helper's."""
    for rec in corpus.files:
        rec.source.compact()


def _search_version() -> str:
    """What the search index's cached shards and state are keyed by: the
    index's layout and the code that tokenizes (any change to the package:
    :func:`recordkit.version.code_fingerprint`)."""
    return f"{SEARCH_VERSION}-{code_fingerprint()}"


def _schema_digest(schema) -> str:
    """A digest of everything the schema says (its raw form, extends
    resolved), for the build's salt."""
    import json
    raw = getattr(schema, "raw", None)
    return digest(json.dumps(raw, sort_keys=True, default=repr).encode("utf-8", "surrogatepass"))


def _kind_css(kinds: dict) -> str:
    import re
    out = []
    for name, k in kinds.items():
        color = k.get("color") or ""
        if re.fullmatch(r"[A-Z][A-Z0-9_]*", name) and re.fullmatch(r"#[0-9a-fA-F]{3,8}", color):
            out.append(f":root {{ --k-{name}: {color}; }}\n"
                       f".rk-dot.k-{name}, .k-{name} > .rk-dot {{ background: var(--k-{name}); }}")
    return "\n".join(out) + "\n"


def _same_size(path: Path, size) -> bool:
    try:
        return os.stat(path).st_size == size
    except OSError:
        return False


def _chunks(site: Site, ids: list, jobs: int) -> list:
    """``ids`` cut into ``jobs`` runs of about equal body size, each made of
    whole search shards (the postings of each shard are ascending, and
    merge by concatenation)."""
    records = site.corpus.records
    # the file's size (from the load), not the body's: decoding every body
    # here would put all of them in this process and in every helper
    sizes = [(records[r].stat[1] if records[r].stat else len(records[r].body)) + 2000 for r in ids]
    total = sum(sizes)
    out, start, acc, k = [], 0, 0, 1
    for i, n in enumerate(sizes):
        acc += n
        if k < jobs and acc >= total * k / jobs and (i + 1) % SHARD == 0:
            out.append((start, ids[start:i + 1]))
            start = i + 1
            k += 1
    out.append((start, ids[start:]))
    return [p for p in out if p[1]]


def _fill_check_verdicts(body: str, entries: dict, ids: list) -> str:
    for cid in dict.fromkeys(ids):
        e = entries.get(cid)
        if e is None:
            box = (f'<div class="rk-verdict-box v-unknown">check <code>{html.escape(cid)}</code>: '
                   f'no verdict</div>')
        else:
            mark = {"pass": "✓", "fail": "✗", "error": "✗", "timeout": "✗", "crashed": "✗"}.get(e["cls"], "?")
            ran = f" · ran {html.escape(e['ran_at'][:16].replace('T', ' '))}" if e.get("ran_at") else ""
            measured = f" — {html.escape(e['measured'])}" if e.get("measured") else ""
            box = (f'<div class="rk-verdict-box v-{html.escape(e["cls"])}"><span class="rk-mark">{mark}</span> '
                   f'check <code>{html.escape(cid)}</code>: <b>{html.escape(e["verdict"])}</b>{measured}{ran}</div>')
        body = body.replace(f"<!--rk-check:{cid}-->", box)
    return body


def _with_csp(page: str, *rest: str) -> str:
    """The graph page with a Content-Security-Policy that allows its own
    inline script and style by hash, its blob workers, and nothing else.
    ``rest``: the parts of the page after ``page`` that hold inline
    scripts or styles (the index between them holds no ``<``, so no
    element starts in it)."""
    import base64
    import hashlib
    import re
    hashes = {"script": [], "style": []}
    for kind in ("script", "style"):
        for m in (m for part in (page, *rest) for m in re.finditer(rf"<{kind}>(.*?)</{kind}>", part, re.S)):
            h = base64.b64encode(hashlib.sha256(m.group(1).encode("utf-8")).digest()).decode()
            hashes[kind].append(f"'sha256-{h}'")
    csp = ("default-src 'none'; script-src " + " ".join(hashes["script"]) + "; style-src 'unsafe-inline'; "
           "worker-src blob:; img-src data:; connect-src 'none'; base-uri 'none'; form-action 'none'")
    return page.replace('<meta charset="utf-8">',
                        f'<meta charset="utf-8">\n<meta http-equiv="Content-Security-Policy" content="{csp}">', 1)
