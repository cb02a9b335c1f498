"""What crosses a process boundary or goes to disk, each form declared and
read by field name:

- :class:`ParsedRecord`: a record as a helper process sends it to the
  loading process, and as the store of parsed records keeps it;
- :class:`StoreEntry`: one file's entry in the store;
- :class:`PackedDiagnostic`: a diagnostic as plain values (the lint's
  local findings, sent from a helper).

On the wire and on disk the first two travel as plain tuples in field
order (a NamedTuple would pickle its class's name with every record, since
the helper's pickler keeps no memo, and be looked up again for each on
arrival); they are read back by name (``ParsedRecord._make(t).meta``).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from ..model import Diagnostic, Fix, Record, Target
from ..source import Source


class ParsedRecord(NamedTuple):
    """A parsed record as plain values that pickle fast (no dataclass).  The
    positions of keys are left out: they are worked out again on first use
    (for a diagnostic), which is rare, while sending them costs on every
    load.  The file's bytes travel rather than its text: they pickle as a
    copy, and most records' text is never read in the parent."""
    path: str
    relpath: str
    content: bytes | str | None        # the file's bytes (its text when they were not kept; None: left out)
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
    analysis: Any                      # what the loader's ``analyze`` returned (None: not run, or kept apart)
    digest: str | None
    stat: tuple | None
    diagnostics: list                  # [(code, message, line, col, end_line, end_col)]
    mention_spots: tuple | None        # where each of mention_targets is (bytes and a few labels)


def flat(rec: Record, diags: list[Diagnostic], analysis: Any = None, content: bool = True) -> tuple:
    """The record as a :class:`ParsedRecord`, as a plain tuple.
    ``content=False``: without the file's bytes or text (None in their
    place), so a record whose bytes are not yet decoded stays so."""
    src = rec.source
    return tuple(ParsedRecord(str(rec.path), rec.relpath, src.wire_content() if content else None, rec.meta,
                              rec.fm_line, rec.fm_end_line, rec.body_offset, rec.body_line, rec.mention_targets,
                              rec.suppressions, rec.kind, rec.id, rec._title, rec.title_source,
                              {k: [(t.id, t.pos) for t in v] for k, v in rec.relations.items()},
                              rec.code, rec.fence_infos, analysis, src.digest, src.stat,
                              [(d.code, d.message, d.line, d.col, d.end_line, d.end_col) for d in diags],
                              rec._spots))


def unflat(f: ParsedRecord, mention_re, p: Path, source: Source | None = None,
           cls: type = Record) -> tuple[Record, list[Diagnostic]]:
    """The record :func:`flat` packed (``f``: read back with
    ``ParsedRecord._make``); ``p`` is its path as the parent has it
    (parsing the path string again would cost more than the rest).
    ``source``: its content, when not the one sent."""
    if source is None:
        text = f.content
        source = Source(None, text, f.digest, f.stat) if isinstance(text, bytes) else \
            Source(text, None, f.digest, f.stat)
    rec = cls(path=p, relpath=f.relpath, source=source, meta=f.meta, fm_line=f.fm_line, fm_end_line=f.fm_end_line,
              body_line=f.body_line, body_offset=f.body_offset, mention_targets=f.mention_targets,
              _spots=f.mention_spots, suppressions=f.suppressions, kind=f.kind, id=f.id,
              _title=f.title, title_source=f.title_source,
              relations={k: [Target(i, pos) for i, pos in v] for k, v in f.relations.items()},
              code=f.code, fence_infos=f.fence_infos, mention_re=mention_re)
    return rec, [Diagnostic(c, msg, p, ln, col, el, ec) for c, msg, ln, col, el, ec in f.diagnostics]


class StoreEntry(NamedTuple):
    """One file's entry in the store of parsed records."""
    key: tuple                          # the file's FileKey when it was read
    record: tuple                       # a ParsedRecord without the analysis (nor the text: see ``content``)
    fm_digest: str | None               # the front matter's digest, None: not worked out
    started: int                        # time.time_ns() from before the file was read
    derive_positions: dict | None       # the positions of the fields a derive rule reads
    analyses: dict | None               # {analysis key: result} of the cacheable analyses


class PackedDiagnostic(NamedTuple):
    """A diagnostic as plain values, to travel between processes (its path
    as a string: the receiver puts its own Path object back); ``fix`` None
    or ``(start, end, content, message, applicability)``."""
    code: str
    message: str
    path: str
    line: int
    col: int
    end_line: int | None
    end_col: int | None
    severity: str
    record: str | None
    fix: tuple | None
    about: tuple


def pack(d: Diagnostic) -> PackedDiagnostic:
    fix = d.fix
    return PackedDiagnostic(d.code, d.message, str(d.path), d.line, d.col, d.end_line, d.end_col, d.severity,
                            d.record, None if fix is None else
                            (fix.start, fix.end, fix.content, fix.message, fix.applicability), d.about)


def unpack(t: tuple, path) -> Diagnostic:
    """The diagnostic :func:`pack` packed (``path``: the receiver's Path)."""
    p = PackedDiagnostic._make(t)
    fx = p.fix
    return Diagnostic(p.code, p.message, path, p.line, p.col, p.end_line, p.end_col, p.severity, p.record,
                      None if fx is None else Fix(*fx), p.about)
