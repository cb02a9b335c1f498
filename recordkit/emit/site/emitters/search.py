"""``assets/search-index.js``: the search index (:mod:`..search` says what
is in it), made of runs of :data:`SHARD` documents whose postings are kept
in the cache folder by a key of their documents.

* :func:`emit`: a cold build's index, joined from the runs the record
  pages' parts tokenized (:mod:`.record_pages`) and the runs read back;
* :func:`partial`: an incremental build's, from the joined postings of the
  last build, with the terms of the runs that changed joined again.
"""
from __future__ import annotations

import hashlib
import os
from array import array
from pathlib import Path

from ....runtime import release_free_memory, snapshot, tuning
from ....version import code_fingerprint
from ..changes import Changes
from ..context import BuildContext
from ..markdown import plain_text
from ..search import decode_postings, doc_terms, encode_postings, merge_postings, search_index_js
from ..state import BuildState
from ..titles import shows_id, title_text
from ..views import transient_body
from ..writer import digest, write_atomic

#: Documents per search run (the unit of the search index's cache)
SHARD = tuning.SITE_SHARD
#: the version of the tokenizer and postings format
SEARCH_VERSION = "3"     # 2: block ids (^b1) are not indexed; 3: nor HTML comments


def shard_keys(ctx: BuildContext) -> dict:
    """Run -> the key of its documents (their ids and digests)."""
    records = ctx.site.corpus.records
    ids = ctx.site.ids
    out = {}
    for k in range(0, len(ids), SHARD):
        h = digest((f"{search_version()}|{k}|" + "\n".join(f"{r}\t{records[r].digest}" for r in ids[k:k + SHARD]))
                    .encode("utf-8", "surrogatepass"))
        out[k // SHARD] = h
    return out


def emit(ctx: BuildContext, cached: dict, parts: list) -> None:
    """A cold build's index.  Each part of the record pages gave its runs'
    postings (term -> (text, last document)), or, when it made every run of
    its documents, the runs already joined and written (term -> text):
    joined in document order with the runs read back (``cached``).  Both
    are emptied on the way (what they hold is let go before the index is
    written)."""
    ch = ctx.changes
    shards = cached
    written = set()      # the parts' joined runs (their runs written by the part)
    for postings in parts:
        if isinstance(postings, tuple):
            shards[postings[0]] = postings[1]
            written.add(postings[0])
        else:
            shards.update(postings)
    parts.clear()
    release_free_memory()     # the texts and previews joined and written
    write_shards(ctx, ch.shard_keys,
                 {k: shards[k] for k in ch.dirty_shards if k in shards and k not in written})
    runs = [shards[k] for k in sorted(shards)]
    shards.clear()
    merged = merge_postings(runs)
    del runs     # each run's postings, joined into ``merged``: let them go before the index is written
    release_free_memory()
    ctx.writer.put("assets/search-index.js", search_index_js(docs(ctx), merged))
    # the joined postings, for the next build's search index (see partial)
    state = {"version": search_version(), "keys": ch.shard_keys, "merged": merged, "docs": shard_docs(ctx)}
    if ctx.resident:
        keep_state(ctx, state)
    else:
        save_search_state(shard_dir(ctx), state)


def partial(ctx: BuildContext, ch: Changes, state: dict | None = None):
    """``assets/search-index.js`` of an incremental build.  The joined
    postings of the last build are kept beside the runs
    (``merged.pickle``, with the keys of the runs they were joined
    from); when a few runs changed, only the terms of those runs (as
    they were and as they are) are joined again: a joined term is its
    runs in document order, separated by ``,=``, and a run's first
    document (absolute) says which run it is.  Otherwise every run is
    joined (:func:`joined_runs`).

    ``state``: the joined postings kept in memory (serve: the helper
    that runs this inherited them), else they are read from the cache
    folder.  Returns the index's bytes; for a resident build (serve)
    also the state as it is now, to keep: the whole of it, or the terms
    that changed of the one given (``delta``); it is not written then."""
    keys = ch.shard_keys
    folder = shard_dir(ctx)
    from_memory = state is not None
    if state is None:
        state = _read_state(folder)
    changed = None
    if state is not None and set(state["keys"]) == set(keys):
        changed = [k for k, key in keys.items() if state["keys"][k] != key]
    delta = None
    if changed is None or len(changed) > 4:
        merged = joined_runs(ctx, keys)
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
                fresh[k] = now = _retokenized_shard(ctx, k, before, state["docs"].get(k))
            except Exception:
                # joined from every run (not from the dict changed so far)
                merged = joined_runs(ctx, keys)
                delta = None
                break
            _rejoin(merged, delta, k, before, now)
        else:
            write_shards(ctx, keys, fresh)
    new = {"version": search_version(), "keys": keys, "merged": merged, "docs": shard_docs(ctx)}
    js = search_index_js(docs(ctx), merged)
    if ctx.resident:
        return js, (new if delta is None or not from_memory else
                    {"keys": keys, "docs": new["docs"], "delta": delta})
    save_search_state(folder, new)
    return js


def _read_state(folder: Path) -> dict | None:
    try:
        with open(folder / "merged.pickle", "rb") as fh:
            state = snapshot.load(fh)
        if isinstance(state, dict) and state.get("version") == search_version() \
                and isinstance(state.get("keys"), dict) and isinstance(state.get("merged"), dict):
            return state
    except Exception:      # missing or unreadable: joined from every run
        pass
    return None


def _rejoin(merged: dict, delta: dict, k: int, before: dict, now: dict) -> None:
    """Run ``k``'s postings as they are now (``now``) put in ``merged`` in
    place of those it had (``before``); each term changed also into ``delta``
    (None: gone)."""
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


def joined_runs(ctx: BuildContext, keys: dict) -> dict:
    """Every run's postings joined: the kept runs read back, the changed
    ones tokenized again (and kept)."""
    shards = read_shards(ctx, keys)
    dirty_shards = [k for k in keys if k not in shards]
    for k in dirty_shards:
        shards[k] = _tokenized_shard(ctx, k)
    write_shards(ctx, keys, {k: shards[k] for k in dirty_shards})
    return merge_postings([shards[k] for k in sorted(shards)])


def keep_state(ctx: BuildContext, got: dict) -> None:
    """Serve: the joined postings as this build left them, kept in
    memory (``got``: the whole state, or the terms that changed
    (``delta``) of the state kept before)."""
    kept = ctx.state.search
    key = str(shard_dir(ctx))
    if got.get("delta") is None:
        st = got
    else:
        st = kept.get(key)
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
    kept[key] = st


def kept_state(ctx: BuildContext) -> dict | None:
    """Serve: the joined postings the last build left in memory."""
    return ctx.state.search.get(str(shard_dir(ctx))) if ctx.resident else None


def save_search_state(folder: Path, state: dict) -> None:
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


def save_resident_state(state: BuildState) -> None:
    """Write what resident builds (serve) kept in memory and the cache
    folder does not hold yet (the search index's joined postings), so that
    a fresh ``recordkit build`` after them is incremental too.  serve calls
    it once a build is announced, and when it stops."""
    for folder, st in list(state.search.items()):
        if not st.get("saved"):
            save_search_state(Path(folder), st)
            st["saved"] = True


def docs(ctx: BuildContext) -> list:
    """Each published record as the search shows it: its title as plain
    text, and ``bare`` where the pages name it by its title alone (a path
    or file-name id: see :func:`..titles.shows_id`)."""
    site = ctx.site
    records = site.corpus.records
    fields, only = site.id_fields, site.only_id_fields
    return [{"id": r, "title": title_text(records[r].title), "kind": records[r].kind, "status": records[r].status,
             "url": site.url(r), "bare": not shows_id(fields, only, records[r])}
            for r in site.ids]


def shard_docs(ctx: BuildContext) -> dict:
    """Run -> the ``(id, digest)`` of each of its documents."""
    records = ctx.site.corpus.records
    ids = ctx.site.ids
    return {k // SHARD: [(r, records[r].digest) for r in ids[k:k + SHARD]] for k in range(0, len(ids), SHARD)}


def _retokenized_shard(ctx: BuildContext, k: int, before: dict, docs: list | None) -> dict:
    """Run ``k`` as :func:`_tokenized_shard` makes it, from the run as it
    was (``before``, whose documents were ``docs``): when the same
    records hold the same places, the postings of the documents whose
    record changed are taken out and theirs now put in; otherwise the
    run is tokenized again."""
    records = ctx.site.corpus.records
    ids = ctx.site.ids
    lo, hi = k * SHARD, min((k + 1) * SHARD, len(ids))
    if not isinstance(docs, list) or len(docs) != hi - lo or any(d[0] != r for d, r in zip(docs, ids[lo:hi])):
        return _tokenized_shard(ctx, k)
    redo = [n for n, d in zip(range(lo, hi), docs) if records[ids[n]].digest != d[1]]
    if len(redo) * 4 > hi - lo:
        return _tokenized_shard(ctx, k)
    gone = set(redo)
    added: dict = {}
    for n in redo:
        rid = ids[n]
        rec = records[rid]
        add_postings(added, n, rid, rec, plain_text(transient_body(rec), ctx.label_first))
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


def _tokenized_shard(ctx: BuildContext, k: int) -> dict:
    """The postings of run ``k``."""
    records = ctx.site.corpus.records
    ids = ctx.site.ids
    postings: dict = {}
    for n in range(k * SHARD, min((k + 1) * SHARD, len(ids))):
        rid = ids[n]
        rec = records[rid]
        add_postings(postings, n, rid, rec, plain_text(transient_body(rec), ctx.label_first))
    return encoded(postings)


def shard_dir(ctx: BuildContext) -> Path:
    cache = Path(ctx.site.corpus.config.cache_dir)
    return cache / "site-search" / hashlib.sha1(os.fsencode(ctx.writer.out.resolve())).hexdigest()[:16]


def read_shards(ctx: BuildContext, keys: dict) -> dict:
    """The cached postings of every run whose key is unchanged."""
    folder = shard_dir(ctx)
    out = {}
    for k, key in keys.items():
        try:
            with open(folder / f"{k}.pickle", "rb") as fh:
                data = snapshot.load(fh)
            if data.get("key") == key:
                out[k] = data["postings"]
        except Exception:   # missing or unreadable: the run is made again
            continue
    return out


def write_shards(ctx: BuildContext, keys: dict, shards: dict, prune: bool = True) -> None:
    """The runs' postings (``shards``) into the cache folder, under their
    keys; and (``prune``) the files of runs past the end removed."""
    folder = shard_dir(ctx)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for k, postings in shards.items():
            write_atomic(folder / f"{k}.pickle", snapshot.dumps({"key": keys[k], "postings": postings}))
        if not prune:
            return
        for p in folder.glob("*.pickle"):      # runs past the end (fewer records now)
            if p.stem.isdigit() and int(p.stem) not in keys:
                p.unlink()
    except OSError:
        pass   # no cache: the next build tokenizes again


def _first_doc(run: str) -> int:
    """The (absolute) first document of one run of encoded postings."""
    i = run.find(",")
    head = run if i < 0 else run[:i]
    j = head.find(".")
    return int(head if j < 0 else head[:j], 36)


def add_postings(postings: dict, n: int, rid: str, rec, text: str) -> None:
    """Document ``n``'s weighted terms appended to a run's ``postings``
    (term -> array of doc, weight, doc, weight, ...)."""
    for term, count in doc_terms(rid, rec.title, rec.tags, text).items():
        try:
            lst = postings[term]
        except KeyError:
            postings[term] = array("I", (n, count))
            continue
        lst.append(n)
        lst.append(count)


def encoded(postings: dict) -> dict:
    """A run's postings as kept and joined: term -> (encoded, last doc)."""
    return {t: (encode_postings(lst), lst[-2]) for t, lst in postings.items()}


def search_version() -> str:
    """What the search index's cached runs and state are keyed by: the
    index's layout and the code that tokenizes (any change to the package:
    :func:`recordkit.version.code_fingerprint`)."""
    return f"{SEARCH_VERSION}-{code_fingerprint()}"

