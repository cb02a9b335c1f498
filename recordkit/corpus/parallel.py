"""Parse a large record on two (or more) cores.

Records are parsed in forked helpers (:class:`recordkit.runtime.pool.PieceHelper`),
each taking a share of the files and sending its records back a piece at a
time as :class:`~recordkit.corpus.model.ParsedRecord` values, plain tuples
whose fields are declared (pickling the dataclasses would cost more than the
parsing saved); the parent parses its own share meanwhile and rebuilds each
piece's records between pieces of its own.  What a helper does not send
(it died, it could not be forked, it answered for other files) is parsed
here, so the result never depends on whether parallelism worked.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from ..runtime import tuning
from ..runtime.pool import STATS, PieceHelper, split
from .model import Diagnostic, Record, Target
from .parse import DEFAULT_MAX_FILE_SIZE, read_record



def parse_serial(items, schema, analyze=None, keep_bytes: bool = False, max_size: int = DEFAULT_MAX_FILE_SIZE):
    """Parse each file; with ``analyze``, also keep ``analyze(record)`` of
    each readable record as its ``analysis`` (run right after the parse,
    in the process that parsed it).  ``keep_bytes``: each record keeps the
    file's bytes too (a helper sends them).  ``max_size``: the largest
    file read (see :func:`recordkit.corpus.parse.read_record`)."""
    if analyze is None and not keep_bytes:
        return [read_record(path, rel, schema, False, max_size) for path, rel in items]
    out = []
    for path, rel in items:
        rec, diags = read_record(path, rel, schema, keep_bytes, max_size)
        if analyze is not None and rec.ok:
            rec.analysis = analyze(rec)
        out.append((rec, diags))
    return out


class ParsedRecord(NamedTuple):
    """A record as a helper process sends it to the loading process: plain
    values that pickle fast (no dataclass), every field named here (on the
    wire, a plain tuple in this order: see ``_flat``).  The
    positions of keys are left out: they are worked out again on first use
    (for a diagnostic), which is rare, while sending them costs on every
    load.  The file's bytes travel rather than its text: they pickle as a
    copy, and most records' text is never read in the parent."""
    path: str
    relpath: str
    content: bytes | str               # the file's bytes (its text when they were not kept)
    meta: dict | None
    fm_line: int
    fm_end_line: int
    body_offset: int
    body_line: int
    mention_targets: list
    suppressions: dict
    kind: str | None
    id: str | None
    title: str | None                  # Record._title
    title_source: str | None
    relations: dict                    # relation -> [(target id, pos)]
    code: list | None
    fence_infos: list | None
    analysis: Any
    digest: str | None
    stat: tuple | None
    no_fix: str | None                 # why --fix must leave the file alone
    diagnostics: list                  # [(code, message, line, col, end_line, end_col)]
    mention_spots: tuple | None        # where each of mention_targets is (bytes and a few labels)


def _flat(rec: Record, diags: list[Diagnostic], content: bool = True) -> tuple:
    """The record as a :class:`ParsedRecord`, sent as a plain tuple: a
    NamedTuple would pickle its class's name with every record (the helper's
    pickler keeps no memo) and be looked up again for each on arrival.
    ``content=False``: without the file's bytes or text (None in their
    place), so a record whose bytes are not yet decoded stays so."""
    raw = rec.file_bytes
    if not content:
        raw = None
    elif raw is None:
        raw = rec.text
    return tuple(ParsedRecord(str(rec.path), rec.relpath, raw, rec.meta,
                        rec.fm_line, rec.fm_end_line, rec.body_offset, rec.body_line, rec.mention_targets,
                        rec.suppressions, rec.kind, rec.id, rec._title, rec.title_source,
                        {k: [(t.id, t.pos) for t in v] for k, v in rec.relations.items()},
                        rec.code, rec.fence_infos, rec.analysis, rec.digest, rec.stat, rec.no_fix,
                        [(d.code, d.message, d.line, d.col, d.end_line, d.end_col) for d in diags],
                        rec.mention_spots))


def _unflat(t: tuple, mention_re, p: Path) -> tuple[Record, list[Diagnostic]]:
    """The record ``_flat`` packed; ``p`` is its path as the parent has it
    (parsing the path string again would cost more than the rest)."""
    f = ParsedRecord._make(t)
    text = f.content
    is_raw = isinstance(text, bytes)
    rec = Record(path=p, relpath=f.relpath, _text=None if is_raw else text, _raw=text if is_raw else None,
                 meta=f.meta, fm_line=f.fm_line, fm_end_line=f.fm_end_line, _body=None,
                 body_line=f.body_line, body_offset=f.body_offset, mention_targets=f.mention_targets,
                 mention_spots=f.mention_spots, suppressions=f.suppressions, kind=f.kind, id=f.id,
                 _title=f.title, title_source=f.title_source,
                 relations={k: [Target(i, pos) for i, pos in v] for k, v in f.relations.items()},
                 digest=f.digest, stat=f.stat, code=f.code, fence_infos=f.fence_infos,
                 mention_re=mention_re, analysis=f.analysis, no_fix=f.no_fix)
    return rec, [Diagnostic(c, msg, p, ln, col, el, ec) for c, msg, ln, col, el, ec in f.diagnostics]


def parse_parallel(items: list, schema, jobs: int, analyze=None, max_size: int = DEFAULT_MAX_FILE_SIZE,
                   keep=None) -> list:
    """``parse_serial(items, schema, analyze, max_size=max_size)``, with
    ``jobs - 1`` forked helpers (``analyze``'s results must pickle).
    ``keep``: called as ``keep(i, record, diagnostics, packed)`` for the
    record of ``items[i]`` once it is made in this process (in no set
    order), ``packed`` the record as a helper sent it (a
    :class:`ParsedRecord` tuple) or None."""
    if jobs <= 1 or len(items) < 2:
        out = parse_serial(items, schema, analyze, max_size=max_size)
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
    if analyze is not None and hasattr(analyze, "before_fork"):
        analyze.before_fork()

    def in_helper(piece):
        return [_flat(rec, d) for rec, d in parse_serial(piece, schema, analyze, True, max_size)]

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
                if len(piece) > len(share) - start or \
                        not all(f[0] == str(item[0]) for f, item in zip(piece, share[start:])):
                    h.close(kill=True)      # pragma: no cover - a helper that answered for other files
                    break
                for f, item in zip(piece, share[start:]):
                    rec, diags = _unflat(f, mention_re, item[0])
                    if keep is not None:
                        keep(first + len(recs), rec, diags, f)
                    recs.append((rec, diags))

    def parse_here(part: list, first: int) -> list:
        done = parse_serial(part, schema, analyze, max_size=max_size)
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


