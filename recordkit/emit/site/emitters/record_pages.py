"""A page per published record (``KIND/ID.html``), rendered where its key
(:func:`..changes.page_key`) changed, on every core (forked helpers write
their pages and return the manifest entries).  Rendering a record also
gives its search postings (:mod:`.search`) and the fragments of its text
and preview buckets (:mod:`.previews`), so that its body is decoded once.

* :func:`emit`: every page's key worked out, the changed ones rendered;
* :func:`partial`: an incremental build with few pages to render: only the
  candidates (:func:`..changes.find_candidates`) are looked at.
"""
from __future__ import annotations

import html
import os
import shutil
import time

from markupsafe import Markup

from ....runtime import release_free_memory, shared_with_helpers, spread, tuning, workers
from .. import queries
from ..changes import Changes, find_candidates, page_key
from ..context import BuildCancelled, BuildContext, Progress, template_failed
from ..load import check_entry
from ..markdown import plain_text
from ..search import bucket_of, json_js, merge_postings
from ..urls import root_of
from .explorer import explorer_of
from ..titles import title_text, without_repeated_h1
from ..views import first_paragraph, mention_sentence, record_view, transient_body
from ..syntax import page_syntax
from ..writer import digest, same_size, write_atomic
from . import search


def render(ctx: BuildContext, meanwhile=None) -> list:
    """What changed, and the record pages it reaches rendered
    (:func:`partial`, else :func:`emit`; ``meanwhile``: the other pages,
    made in this process while helpers render); cancelled builds raise
    :class:`BuildCancelled`.  Returns each part's (manifest entries, search
    postings, fragment file, fragment index)."""
    t = time.perf_counter()
    ch = ctx.changes
    find_candidates(ctx, ch)
    queries.prepare(ctx)
    try:
        results = partial(ctx, ch)
        if results is None:
            results = emit(ctx, meanwhile)
    except BaseException:
        # a failed or cancelled render leaves no scratch files in the site
        shutil.rmtree(ctx.writer.out / ".recordkit-tmp", ignore_errors=True)
        raise
    finally:
        queries.drop(ctx)
    ctx.timings["pages"] = time.perf_counter() - t
    if ctx.cancel is not None and ctx.cancel():
        for _, _, frag_file, _ in results:
            try:
                os.unlink(frag_file)
            except OSError:
                pass
        raise BuildCancelled()
    return results


def partial(ctx: BuildContext, ch: Changes) -> list | None:
    """An incremental build with few pages to render: only the records
    whose page may change (``ch.candidates``), has a query block, is
    missing or was altered, or sits in a text/preview bucket to make
    again go to :func:`render_part`; every other page keeps its entry
    of the last manifest after one ``stat`` (no page key, no view).
    None when this does not apply (a cold build, or many pages)."""
    cands = ch.candidates
    if cands is None or ch.dirty_shards or ctx.opts.jobs not in (None, 0, 1) \
            or len(cands) + len(ctx.query_keys) >= tuning.SITE_FORK_PAGES:
        return None
    site = ctx.site
    records = site.corpus.records
    old_files = ctx.writer.old.files
    out = os.fspath(ctx.writer.out) + os.sep
    query_keys = ctx.query_keys
    members = ch.members
    in_dirty = set()
    for bk in ch.dirty_buckets:
        in_dirty.update(members.get(bk, ()))
    kept, needed = [], []
    stat = os.stat
    for rid in site.ids:
        if rid not in cands and rid not in query_keys and rid not in in_dirty:
            rel = site.page_path(rid)
            old = old_files.get(rel)
            if old and old.get("key"):
                try:
                    if stat(out + rel).st_size == old.get("size"):
                        kept.append((rel, old, False, False))
                        continue
                except OSError:
                    pass
        needed.append(rid)
    progress = Progress(len(needed), ctx.opts.progress)
    entries, encoded, frag_file, frag_index = render_part(ctx, (0, needed), progress)
    progress.close()
    return [(kept + entries, encoded, frag_file, frag_index)]


def emit(ctx: BuildContext, meanwhile=None) -> list:
    """The record pages, rendered and written.  With more than one job
    every run of records goes to a forked helper (which inherits the
    loaded record: nothing is copied or pickled on the way there), and
    this process does the other pages meanwhile (``meanwhile``), so
    that nothing but rendering stands between the fork and the end."""
    ch = ctx.changes
    ids = ctx.site.ids
    jobs = ctx.opts.jobs or workers(len(ids), name="site.render")
    if ch.candidates is not None and len(ch.candidates) + len(ctx.query_keys) < tuning.SITE_FORK_PAGES \
            and len(ch.dirty_shards) <= 2 and not ctx.opts.jobs:
        jobs = 1     # a few pages to render: a helper would cost more (a fork, every file's size)
    parts = [(0, ids)] if jobs <= 1 or len(ids) < tuning.FLOOR["site.render"] else _chunks(ctx.site, ids, jobs)
    # the bar follows the first run (drawn by whoever renders it)
    progress = Progress(len(parts[0][1]), ctx.opts.progress)
    quiet = Progress(0, False)

    def work(part):
        return render_part(ctx, part, progress if part[0] == 0 else quiet)

    if len(parts) == 1:
        out = [work(parts[0])]
    else:
        # what is loaded now is out of every later collection's sight
        # (the helpers collect, over what their pages make only), and
        # the C heap's free pages are given back before the fork
        with shared_with_helpers():
            out = spread(work, [None] + parts, name="site.render", first=meanwhile, collect=True)[1:]
    progress.close()
    return out


def render_part(ctx: BuildContext, part, progress):
    """For the records of ``part`` (a first document number and a run of
    ids): their views and keys; the pages whose key changed, rendered
    and written; the search postings of the run; the texts and previews
    of those in changed buckets."""
    first, ids = part
    ch = ctx.changes
    dirty, dirty_shards = ch.dirty_buckets, ch.dirty_shards
    shard = search.SHARD
    site = ctx.site
    records = site.corpus.records
    try:
        template = ctx.env.get_template("record.html.j2")
    except Exception as exc:
        raise template_failed(exc, "the record pages") from None
    writer = ctx.writer
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
    candidates = ch.candidates
    query_keys = ctx.query_keys
    cancel = ctx.cancel
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
        rel = site.page_path(rid)
        old = old_files.get(rel)
        v = None
        if candidates is not None and rid not in candidates and rid not in query_keys and old \
                and old.get("key") \
                and same_size(out / rel, old.get("size")):
            # nothing the page shows changed (see changes.find_candidates)
            entries.append((rel, old, False, False))
            key = None
        else:
            key = query_keys.get(rid) or page_key(ctx, rid, lines_cache)
        if key is None:
            pass
        elif old and old.get("key") == key and same_size(out / rel, old.get("size")):
            entries.append((rel, old, False, False))
        else:
            body = transient_body(rec)
            v = record_view(site, rid, body)
            page = record_page(ctx, template, rec, v, lines_cache, body).encode("utf-8", "surrogatepass")
            d = os.path.dirname(rel)
            if d not in made_dirs:
                (out / d).mkdir(parents=True, exist_ok=True)
                made_dirs.add(d)
            entry = {"hash": digest(page), "size": len(page), "key": key}
            wrote = not (old and old.get("hash") == entry["hash"] and same_size(out / rel, len(page)))
            if wrote:
                write_atomic(out / rel, page)
            entries.append((rel, entry, wrote, True))
        progress.step()
        if (n - first) % tuning.SITE_TRIM_PAGES == tuning.SITE_TRIM_PAGES - 1:
            release_free_memory()   # what the pages rendered so far freed
        text = None
        if n // shard in dirty_shards:
            if body is None:
                body = transient_body(rec)
            text = plain_text(body, ctx.label_first)
            sk = n // shard
            if sk not in shard_postings and shard_postings:
                # a new run: the earlier ones are whole, kept encoded (a
                # tenth of their arrays' memory) from now on
                for done in list(shard_postings):
                    encoded[done] = search.encoded(shard_postings.pop(done))
            search.add_postings(shard_postings.setdefault(sk, {}), n, rid, rec, text)
        bk = bucket_of(rid, ctx.buckets)
        if bk in dirty:
            if body is None:
                body = transient_body(rec)
            if text is None:
                text = plain_text(body, ctx.label_first)
            if v is None:
                v = {"kind": rec.kind, "status": rec.status, "title": rec.title, "url": rel}
            key = json_js(rid)
            preview = [v["kind"], v["status"] or "", title_text(v["title"]), v["url"],
                       first_paragraph(body, label_first=ctx.label_first)]
            if not ctx.site.ref(rid)["show_id"]:
                preview.append(1)       # named by its title alone: the preview names no id (a path)
            for kind, value in (("t", " ".join(text.split())), ("p", preview)):
                data = (key + ":" + json_js(value)).encode("utf-8", "surrogatepass")
                frag_index.append((bk, kind, frag_file.tell(), len(data)))
                frag_file.write(data)
    frag_file.close()
    encoded.update((k, search.encoded(postings)) for k, postings in shard_postings.items())
    return entries, _runs_made(ctx, first, ids, encoded), str(frag_path), frag_index


def _runs_made(ctx: BuildContext, first: int, ids: list, encoded: dict):
    """A part's search postings to send back: when it made every run of
    its documents, written here, and sent back joined (a tenth of the
    objects; the main process joins the parts' texts, in order, by
    concatenation as it joins runs): (first run, joined)."""
    keys = ctx.changes.shard_keys
    shard = search.SHARD
    if encoded and ids and \
            all(k in encoded for k in range(first // shard, (first + len(ids) - 1) // shard + 1)):
        search.write_shards(ctx, keys, encoded, prune=False)
        first_run = min(encoded)
        joined = merge_postings([encoded[k] for k in sorted(encoded)])
        return (first_run, joined)
    return encoded


def finish(ctx: BuildContext, results: list) -> list:
    """The rendered pages into the manifest; returns each part's fragments
    (file, index) for :func:`.previews.emit`."""
    frags = []
    for entries, _, frag_file, frag_index in results:
        for rel, entry, wrote, rendered in entries:
            ctx.writer.record(rel, entry, wrote)
            ctx.report.rendered += rendered
        frags.append((frag_file, frag_index))
    return frags


def record_page(ctx: BuildContext, template, rec, v, lines_cache=None, body=None) -> str:
    site = ctx.site
    # a page's links are relative to it: its depth is its URL's (urls.py)
    root = ctx.renderer.prefix = root_of(site.page_path(rec.id))
    rendered = ctx.renderer.render(rec.body if body is None else body, rec.relpath)
    # a body opening with its title as a # heading: the page's own heading says it once
    body, heading_id = without_repeated_h1(rendered.html, v["title"])
    if rec.id in ctx.query_keys:
        body = queries.fill(ctx, rec, body)
    if rendered.checks:
        entries = {c["id"]: c for c in v["checks"]}
        for cid in rendered.checks:     # a check block of a body this page embeds
            if cid not in entries:
                entries[cid] = check_entry(site.data, cid)
        body = _fill_check_verdicts(body, entries, rendered.checks)
    mentions = []
    known = ctx.sentences[1] if ctx.sentences[0] == rec.id else {}
    for m in v["mentioned_by"]:
        s = known[m["id"]] if m["id"] in known else \
            mention_sentence(site.corpus.records[m["id"]], rec.id, lines_cache=lines_cache,
                             label_first=ctx.label_first, places=ctx.mention_places)
        parts = None
        if s:
            k = s.find(rec.id)
            parts = (s[:k], rec.id, s[k + len(rec.id):]) if k >= 0 else (s, "", "")
        mentions.append(dict(m, sentence=parts))
    toc = rendered.headings if len(rendered.headings) >= ctx.opts.toc_min_headings else None
    try:
        return template.render(ctx.common, root=root, r=v, body=Markup(body), toc=toc, mentions=mentions,
                               description=title_text(v["title"])[:200], explorer=explorer_of(ctx, rec),
                               heading_id=heading_id, **page_syntax(ctx.common["csp"], rec, rendered))
    except Exception as exc:
        raise template_failed(exc, v["url"]) from None


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


def _chunks(site, ids: list, jobs: int) -> list:
    """``ids`` cut into ``jobs`` runs of about equal body size, each made of
    whole search runs (the postings of each run are ascending, and
    merge by concatenation)."""
    records = site.corpus.records
    shard = search.SHARD
    # the file's size (from the load), not the body's: decoding every body
    # here would put all of them in this process and in every helper
    sizes = [(records[r].stat[1] if records[r].stat else len(records[r].body)) + 2000 for r in ids]
    total = sum(sizes)
    out, start, acc, k = [], 0, 0, 1
    for i, n in enumerate(sizes):
        acc += n
        if k < jobs and acc >= total * k / jobs and (i + 1) % shard == 0:
            out.append((start, ids[start:i + 1]))
            start = i + 1
            k += 1
    out.append((start, ids[start:]))
    return [p for p in out if p[1]]
