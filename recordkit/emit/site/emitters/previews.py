"""``assets/text/NN.js`` and ``assets/preview/NN.js``: each record's plain
text (for the search results' snippets) and its hover preview, in buckets
by a hash of its id (:func:`..search.bucket_of`).  A bucket is made again
when one of its members' file changed (:func:`plan`); the record pages'
parts write the fragments of its members (:mod:`.record_pages`), joined
here in document order (:func:`emit`)."""
from __future__ import annotations

import os

from ..changes import Changes
from ..context import BuildContext
from ..search import bucket_of
from ..writer import digest


def plan(ctx: BuildContext, ch: Changes) -> None:
    """The buckets, their keys (their members' digests and the salt) and
    those to make again (``ch.members``, ``bucket_keys``,
    ``dirty_buckets``); a bucket kept is kept in the manifest."""
    site, w = ctx.site, ctx.writer
    records = site.corpus.records
    members: dict = {}
    nb = ctx.buckets
    fnv = ctx.state.fnv
    for rid in site.ids:
        h = fnv.get(rid)
        if h is None:
            h = fnv[rid] = bucket_of(rid, 1 << 32)     # (fnv1a32: the bucket is it modulo the count)
        members.setdefault(h % nb, []).append(rid)
    if len(fnv) > 4 * len(site.ids) + 1000:
        fnv.clear()
    ch.members = members
    ch.bucket_keys = {bk: digest(("\n".join(f"{r}\t{records[r].digest}" for r in rids) + ch.salt)
                                 .encode("utf-8", "surrogatepass"))
                      for bk, rids in members.items()}
    ch.dirty_buckets = {bk for bk, h in ch.bucket_keys.items()
                        if not (w.unchanged(f"assets/text/{bk}.js", h) & w.unchanged(f"assets/preview/{bk}.js", h))}


def emit(ctx: BuildContext, frags: list) -> None:
    """Join the parts' fragments (``frags``: each part's scratch file and
    its index of (bucket, kind, offset, length)) into the text and preview
    buckets to make again; the scratch files are removed."""
    ch = ctx.changes
    by_bucket: dict = {}
    for path, index in frags:          # in document order
        for bk, kind, off, n in index:
            by_bucket.setdefault((bk, kind), []).append((path, off, n))
    files = {path: open(path, "rb") for path, _ in frags}
    try:
        for bk in sorted(ch.dirty_buckets):
            for kind, call, folder in (("t", "texts", "text"), ("p", "previews", "preview")):
                pieces = []
                for path, off, n in by_bucket.get((bk, kind), []):
                    fh = files[path]
                    fh.seek(off)
                    pieces.append(fh.read(n))
                data = f"RK.{call}({{".encode() + b",".join(pieces) + b"});\n"
                ctx.writer.put(f"assets/{folder}/{bk}.js", data, key=ch.bucket_keys[bk])
    finally:
        for path, fh in files.items():
            fh.close()
            try:
                os.unlink(path)
            except OSError:
                pass
        try:
            (ctx.writer.out / ".recordkit-tmp").rmdir()
        except OSError:
            pass
