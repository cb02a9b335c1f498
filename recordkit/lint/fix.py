"""``lint --fix``: apply the rules' safe fixes to the files (and the
unsafe ones with ``--unsafe-fixes``).

Each fix replaces a span of the file's text (a YAML scalar, or the end of
the file); everything outside the spans is left byte for byte.  A file is
written only when its fixed text still parses, atomically, and only while it
still holds the bytes the fixes were made from (see :func:`fix_corpus`).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from ..common.splice import apply_fixes
from ..common.writes import WriteConflict, atomic_write, content_digest, remove_stale_temps, text_digest
from ..corpus.loader import with_texts
from ..corpus.parse import parse_text


@dataclass
class FixReport:
    fixed: int = 0
    originals: dict = field(default_factory=dict)   # path -> text before the first fix
    texts: dict = field(default_factory=dict)       # path -> text after the last fix
    spans: dict = field(default_factory=dict)       # path -> [(start, end, content)] of the fixes applied, per pass
    refused: list = field(default_factory=list)     # paths whose fixed text would not parse
    conflicts: list = field(default_factory=list)   # paths that kept changing under us (left as they are)
    changed: list = field(default_factory=list)     # paths that changed while fixing (fixed again from the new text)
    removed_temps: list = field(default_factory=list)  # stale temporary files of a killed run, removed
    reasons: dict = field(default_factory=dict)     # path -> why it was refused, when not that
    unsafe_left: int = 0                            # unsafe fixes offered and not applied (no --unsafe-fixes)


#: how many times one file is re-read and fixed again when it changed
#: between our read and our write
RETRIES = 3


def applicable(fix, unsafe: bool = False) -> bool:
    """Whether ``lint --fix`` applies ``fix``: a safe one always, an unsafe
    one only with ``--unsafe-fixes`` (``unsafe``)."""
    return fix is not None and (unsafe or fix.applicability == "safe")


def fix_corpus(corpus, lint_fn, *, write: bool = True, passes: int = 4,
               unsafe: bool = False) -> tuple[FixReport, object]:
    """Apply fixes until none is left (at most ``passes`` rounds: a fix that
    overlaps another waits for the next).  ``lint_fn(corpus)`` returns the
    diagnostics of a corpus.  Returns the report and the final corpus (as
    re-read from disk when ``write``, or as edited in memory otherwise).
    Only safe fixes are applied, and unsafe ones too when ``unsafe``
    (``--unsafe-fixes``); ``report.unsafe_left`` counts the unsafe fixes
    the final diagnostics still offer.

    A file is replaced only while it still holds the bytes its fixes were
    made from (:func:`recordkit.common.writes.atomic_write` with ``expect``).  When
    it changed meanwhile (an editor saved, ``promote --apply`` wrote it),
    the new text is read, linted and fixed again, up to ``RETRIES`` times;
    then the file is left alone and listed in ``report.conflicts``."""
    report = FixReport()
    if write:
        report.removed_temps = remove_stale_temps(_folders(corpus))
    texts: dict[Path, str] = {}       # path -> what the file holds, as far as we know, when it changed
    digests: dict[Path, str] = {}     # path -> content_digest of that
    tries: dict[Path, int] = {}
    pending: set[Path] = set()        # changed under us in the last round, not yet fixed again
    diags = lint_fn(corpus)
    rounds = 0
    while rounds < passes + RETRIES:
        rounds += 1
        by_file: dict[Path, list] = {}
        for d in diags:
            if applicable(d.fix, unsafe):
                by_file.setdefault(Path(d.path), []).append(d.fix)
        progressed = False
        pending_now: set[Path] = set()
        for path, fixes in by_file.items():
            if path in report.conflicts or (rounds > passes and path not in pending):
                continue
            rec = corpus.by_path(path)
            if rec is None or not rec.ok:
                continue
            if rec.no_fix:   # positions the parser could not map safely
                if path not in report.refused:
                    report.refused.append(path)
                    report.reasons[path] = rec.no_fix
                continue
            before = rec.text
            after, skipped = apply_fixes(before, fixes)
            if after == before:
                continue
            _, pd = parse_text(after, rec.path, rec.relpath, corpus.schema)
            if any(d.code in ("RK101", "RK102", "RK103", "RK104") for d in pd):
                report.refused.append(path)
                continue
            if write:
                expect = digests.get(path) or rec.digest or text_digest(before)
                try:
                    atomic_write(path, after, expect=expect)
                except WriteConflict as exc:
                    progressed = True
                    tries[path] = tries.get(path, 0) + 1
                    if path not in report.changed:
                        report.changed.append(path)
                    current = _decoded(exc.current)
                    if current is None or tries[path] > RETRIES:
                        report.conflicts.append(path)
                        continue
                    texts[path], digests[path] = current, content_digest(exc.current)
                    pending_now.add(path)
                    continue
                digests[path] = text_digest(after)
            report.originals.setdefault(path, before)
            report.texts[path] = texts[path] = after
            applied = [f for f in fixes if f not in skipped]
            report.spans.setdefault(path, []).append([(f.start, f.end, f.content) for f in applied])
            report.fixed += len(applied)
            progressed = True
        pending = pending_now
        if not progressed:
            break
        corpus = with_texts(corpus, texts)
        diags = lint_fn(corpus)
        if rounds >= passes and not pending:   # rounds past ``passes`` only fix files that changed under us
            break
    for path in sorted(pending):   # changed again in the last round
        if path not in report.conflicts:
            report.conflicts.append(path)
    report.unsafe_left = sum(d.fix is not None and not applicable(d.fix, unsafe) for d in diags)
    return report, corpus


def _decoded(data: bytes | None) -> str | None:
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def _folders(corpus) -> set[Path]:
    """The folders a fix may write to: those of the record's files, and of
    the files its symbolic links point to."""
    out = set()
    for rec in corpus.files:
        out.add(rec.path.parent)
        if os.path.islink(rec.path):
            out.add(Path(os.path.realpath(rec.path)).parent)
    return out
