"""``build_site``: the site as a short pipeline, read top to bottom.

1. gather: the record (through the store of parsed records: only the files
   changed since the last build are parsed again), its check results,
   standings and dates (:mod:`.load`);
2. publish: the records the site shows (:mod:`.privacy`);
3. views: the page data (:mod:`.views`), and the build's context, what
   every step reads (:mod:`.context`);
4. changes: what changed since the last build (:mod:`.changes`);
5. emitters: the record pages (on every core), the list pages, the feed,
   the search index, the previews, the graph page, the assets
   (:mod:`.emitters`, one module an output);
6. write: only changed bytes, and the files of the last build that this
   one did not make removed, with the manifest (:mod:`.writer`).

What a build keeps for the next in the same process is a
:class:`.state.BuildState`: ``serve`` owns one and hands it to each
rebuild; a plain call makes a fresh one.
"""
from __future__ import annotations

import time
from pathlib import Path

from ...runtime import batch, can_fork, in_helper, release_free_memory, spread
from . import attachments, changes
from .context import BuildCancelled, BuildContext, BuildReport, TemplateFailed, keep_compiled_templates, open_context
from .emitters import assets, explorer, graph, lists, previews, record_pages, search
from .emitters.search import save_resident_state
from .load import gather, load_record
from .options import SiteOptions, site_options
from .privacy import publication
from .state import BuildState
from .urls import site_pages
from .views import make_site
from .writer import Manifest, SiteWriter
from ...graph import of as graph_of

__all__ = ["build_site", "BuildReport", "BuildCancelled", "TemplateFailed", "BuildState", "save_resident_state"]


def build_site(config, out: str | Path | None = None, *, corpus=None, options: SiteOptions | None = None,
               cancel=None, resident: bool = False, state: BuildState | None = None, **overrides) -> BuildReport:
    """Build the site of the record configured by ``config`` (a
    :class:`recordkit.config.Config`) into ``out`` (default: the configured
    ``site.out``).  ``corpus``: the loaded record, when the caller has it.
    ``cancel``: a function polled between pages; when it returns true the
    build stops with :class:`BuildCancelled`.
    ``resident``: this process builds the site again (``serve``): the
    search index's joined postings stay in ``state`` between builds, and
    are written to the cache folder by :func:`save_resident_state` (not by
    each build).  ``state``: what the last build in this process left
    (:class:`BuildState`); a fresh one when not given.
    Other keywords override :class:`SiteOptions` fields."""
    # the collector stays off in this process while it builds: every
    # collection would walk the loaded record and its graph (millions of
    # objects) for no garbage.  The helpers that render turn it on again
    # (see emitters.record_pages.emit).
    with batch():
        return _build_site(config, out, corpus=corpus, options=options, cancel=cancel, resident=resident,
                           state=state if state is not None else BuildState(), **overrides)


def _build_site(config, out, *, corpus, options, cancel, resident, state: BuildState, **overrides) -> BuildReport:
    t0 = time.perf_counter()
    timings = {}
    opts = options or site_options(config, out=out, **overrides)
    out_dir = Path(opts.out)
    root = Path(config.root).resolve()
    _refuse_root(out_dir, root)
    old = Manifest.read(out_dir, opts.force)
    out_dir.mkdir(parents=True, exist_ok=True)
    # 1. gather
    cache = None
    if corpus is None:
        corpus, cache = load_record(config, root, state)
    release_free_memory()      # what parsing freed: not carried through the build, nor into the helpers
    t = time.perf_counter()
    timings["load"] = t - t0
    data = gather(corpus, opts.dates, state)
    # 2. publish
    pub = publication(corpus, opts)
    # 3. views
    site = make_site(data, pub.ids, opts.title)
    site.pages = site_pages(corpus, pub.ids, opts)
    timings["gather"] = time.perf_counter() - t
    report = BuildReport(out_dir, records=len(pub.ids), excluded=len(pub.excluded),
                         excluded_reasons=pub.reasons(), not_walked=list(getattr(config, "walk_notes", ())),
                         load_diagnostics=len(corpus.diagnostics),
                         unreadable=sum(1 for r in corpus.files if not r.ok), url_warnings=site.pages.warnings)
    writer = SiteWriter(out_dir, old)
    ctx = open_context(site, opts, writer, report, timings, state, cancel, resident)
    # the files the published pages embed or link (found before any page renders)
    ctx.attachments = ctx.renderer.attachments = attachments.plan(ctx)
    report.attachments_refused = ctx.attachments.refused
    # 4. changes
    ctx.changes = ch = changes.since_last_build(ctx)
    # 5. emitters
    _emit(ctx, ch)
    # 6. write
    report.removed = writer.finish()
    if old.foreign:
        report.replaced = sorted(old.foreign.intersection(writer.written))
    if cache is not None and old.meta.get("salt") == ch.salt:
        # an incremental build keeps its graph for the next (not a cold one:
        # the next build after it does)
        cache.save_graph(corpus, state.graph_memos(graph_of(corpus)))
    report.written = writer.written
    report.kept = writer.kept
    report.seconds = time.perf_counter() - t0
    report.timings = timings
    return report


def _refuse_root(out_dir: Path, root: Path) -> None:
    # a site folder inside the root (a vault's root is its folder: the
    # default ./site is in it) holds no .md file, so no record: it is
    # walked for nothing, and serve's watcher leaves it out.  The root itself
    # would mix pages and notes
    if out_dir.resolve() == root or out_dir.resolve() in root.parents:
        from ...config import ConfigError
        raise ConfigError(f"the site's folder {out_dir} is the record root {root}, or holds it: "
                          "give -o another folder")


def _emit(ctx: BuildContext, ch: changes.Changes) -> None:
    """Every output, rendering only what changed."""
    keep_compiled_templates(ctx)
    t = time.perf_counter()
    previews.plan(ctx, ch)                    # the text and preview buckets a changed member makes again
    ch.shard_keys = search.shard_keys(ctx)    # the search runs: tokenized again when a member changed
    if ch.incremental:
        _emit_incremental(ctx, ch)
        return
    cached = search.read_shards(ctx, ch.shard_keys)
    ch.dirty_shards = {k for k in ch.shard_keys if k not in cached}
    results = record_pages.render(ctx, meanwhile=lambda _part: _others(ctx))
    ctx.timings["pages"] = time.perf_counter() - t
    if not ctx.others_done:
        _others(ctx)
    t = time.perf_counter()
    _finish(ctx, results)
    parts = [postings for _, postings, _, _ in results]
    del results
    search.emit(ctx, cached, parts)
    ctx.timings["search"] = time.perf_counter() - t


def _emit_incremental(ctx: BuildContext, ch: changes.Changes) -> None:
    """An incremental build: a forked helper makes the search index
    (:func:`.emitters.search.partial`: it reads the joined postings of the
    last build, tokenizes the documents that changed, joins their runs
    again) while this process works out what changed and renders it, then
    the list pages (most often kept as they are).  Where this process may
    not fork (serve: its server and watcher threads run), both are done
    here, one after the other."""
    box: dict = {}
    graph_of(ctx.site.corpus)            # built once, here: both processes read it

    def pages(_):
        try:
            box["results"] = record_pages.render(ctx, meanwhile=lambda _part: _others(ctx))
            if not ctx.others_done:
                _others(ctx)
            t0 = time.perf_counter()
            lists.emit(ctx)
            ctx.timings["lists"] = time.perf_counter() - t0
        except BaseException as exc:     # raised once the helper is back
            box["error"] = exc

    state = search.kept_state(ctx)
    forks = can_fork()

    def helper(_):
        # a helper changes its copy of the kept state; done here
        # because the helper failed, it starts from the cache
        # folder's; done here by choice (no fork), from the kept
        # state itself (what it changes there is what it returns)
        return search.partial(ctx, ch, state if in_helper() or not forks else None)
    ctx.lists_elsewhere = True
    search_js = spread(helper, [None, None], name="site.search", first=pages)[1]
    if ctx.resident:
        search_js, got = search_js
        search.keep_state(ctx, got)     # also when this build was cancelled: the runs are written
    if "error" in box:
        raise box["error"]
    _finish(ctx, box["results"])
    t = time.perf_counter()
    ctx.writer.put("assets/search-index.js", search_js)
    ctx.timings["search"] = time.perf_counter() - t


def _others(ctx: BuildContext) -> None:
    """The pages and files that need no record page rendered: the assets,
    the list pages (unless made elsewhere), the graph page.  With helpers,
    this process does them while they render."""
    t = time.perf_counter()
    assets.emit(ctx)
    attachments.emit(ctx)
    if not ctx.lists_elsewhere:
        lists.emit(ctx)
        release_free_memory()     # the list pages' rows, before the graph page's index
    graph.emit(ctx)
    explorer.emit(ctx)
    release_free_memory()
    ctx.others_done = True
    if not ctx.lists_elsewhere:
        ctx.timings["lists"] = time.perf_counter() - t


def _finish(ctx: BuildContext, results: list) -> None:
    """The rendered pages into the manifest, and the text and preview
    buckets joined from the parts' fragments."""
    previews.emit(ctx, record_pages.finish(ctx, results))
