"""Parse a large record on two (or more) cores.

Records are parsed in forked helpers (:class:`recordkit.runtime.pool.PieceHelper`),
each taking a share of the files and sending its records back a piece at a
time as :class:`~recordkit.corpus.store.wire.ParsedRecord` values, plain tuples
whose fields are declared (pickling the dataclasses would cost more than the
parsing saved); the parent parses its own share meanwhile and rebuilds each
piece's records between pieces of its own.  What a helper does not send
(it died, it could not be forked, it answered for other files) is parsed
here, so the result never depends on whether parallelism worked.
"""
from __future__ import annotations

from ...runtime import tuning
from ...runtime.pool import STATS, PieceHelper, split
from ..analyses import before_fork
from ..parse import DEFAULT_MAX_FILE_SIZE, read_record
from .wire import ParsedRecord, flat, unflat


def parse_serial(items, schema, analyze=None, keep_bytes: bool = False, max_size: int = DEFAULT_MAX_FILE_SIZE,
                 results: dict | None = None):
    """Parse each file; with ``analyze``, also keep ``analyze(record)`` of
    each readable record in ``results`` (record path -> result, None left
    out; run right after the parse, in the process that parsed it).
    ``keep_bytes``: each record keeps the file's bytes too (a helper sends
    them).  ``max_size``: the largest file read (see
    :func:`recordkit.corpus.parse.read_record`)."""
    if analyze is None and not keep_bytes:
        return [read_record(path, rel, schema, False, max_size) for path, rel in items]
    out = []
    for path, rel in items:
        rec, diags = read_record(path, rel, schema, keep_bytes, max_size)
        if analyze is not None and rec.ok:
            got = analyze(rec)
            if got is not None:
                results[rec.path] = got
        out.append((rec, diags))
    return out


def parse_parallel(items: list, schema, jobs: int, analyze=None, max_size: int = DEFAULT_MAX_FILE_SIZE,
                   keep=None, results: dict | None = None) -> list:
    """``parse_serial(items, schema, analyze, max_size=max_size,
    results=results)``, with ``jobs - 1`` forked helpers (``analyze``'s
    results must pickle).
    ``keep``: called as ``keep(i, record, diagnostics, packed)`` for the
    record of ``items[i]`` once it is made in this process (in no set
    order), ``packed`` the record as a helper sent it (a
    :class:`ParsedRecord` tuple) or None."""
    if jobs <= 1 or len(items) < 2:
        out = parse_serial(items, schema, analyze, max_size=max_size, results=results)
        if keep is not None:
            for i, (rec, diags) in enumerate(out):
                keep(i, rec, diags, None)
        return out
    # A helper parses slower per file (its first writes to inherited pages
    # cost copies) and packs its results; the parent unpacks them between
    # pieces of its own share and keeps every record in the store as it
    # comes: its share is a little smaller (``tuning.FIRST_WEIGHT["parse"]``)
    shares = split(items, jobs, name="parse")
    bounds = [0]
    for share in shares:
        bounds.append(bounds[-1] + len(share))
    if analyze is not None:
        before_fork(analyze)

    def in_helper(piece):
        got: dict = {}
        done = parse_serial(piece, schema, analyze, True, max_size, got)
        if not got:
            return [flat(rec, d) for rec, d in done]
        return [flat(rec, d, got.get(rec.path)) for rec, d in done]

    # each helper sends its records a piece at a time, taken in here between
    # pieces of this process's own share (no helper's records left to take
    # in, with the other core idle, once this process's share is parsed)
    helpers = [PieceHelper(in_helper, share, tuning.PARSE_HELPER_PIECE) for share in shares[1:]]
    got: list[list] = [[] for _ in helpers]
    mention_re = schema.mention_re

    def take(block: bool = False) -> None:
        for h, first, share, recs in zip(helpers, bounds[1:], shares[1:], got):
            for piece in h.pieces(block):
                start = len(recs)
                sent = [ParsedRecord._make(t) for t in piece]
                if len(sent) > len(share) - start or \
                        not all(f.path == str(item[0]) for f, item in zip(sent, share[start:])):
                    h.close(kill=True)      # pragma: no cover - a helper that answered for other files
                    break
                for f, item in zip(sent, share[start:]):
                    rec, diags = unflat(f, mention_re, item[0])
                    if f.analysis is not None:
                        results[rec.path] = f.analysis
                    if keep is not None:
                        keep(first + len(recs), rec, diags, f)
                    recs.append((rec, diags))

    def parse_here(part: list, first: int) -> list:
        done = parse_serial(part, schema, analyze, max_size=max_size, results=results)
        if keep is not None:
            for i, (rec, diags) in enumerate(done, first):
                keep(i, rec, diags, None)
        return done
    try:
        own = shares[0]
        out = []
        step = tuning.PARSE_OWN_PIECE
        for i in range(0, len(own), step):
            out.extend(parse_here(own[i:i + step], i))
            take()
        take(block=True)
    except BaseException:
        for h in helpers:
            h.close(kill=True)
        raise
    for first, share, recs in zip(bounds[1:], shares[1:], got):
        if len(recs) == len(share):
            STATS["shares"] += 1
        else:       # the helper failed (or never was): the rest is parsed here
            STATS["fallbacks"] += 1
            recs.extend(parse_here(share[len(recs):], first + len(recs)))
        out.extend(recs)
    return out


