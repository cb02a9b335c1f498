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
from ..corpus.parse import fix_refusal, parse_text


@dataclass
class FixReport:
    fixed: int = 0
    originals: dict = field(default_factory=dict)   # path -> text before the first fix
    texts: dict = field(default_factory=dict)       # path -> text after the last fix
    spans: dict = field(default_factory=dict)       # path -> [(start, end, content)] of the fixes applied, per pass
    refused: list = field(default_factory=list)     # paths not fixed at all (their reasons: ``reasons``)
    conflicts: list = field(default_factory=list)   # paths that kept changing under us (left as they are)
    changed: list = field(default_factory=list)     # paths that changed while fixing (fixed again from the new text)
    removed_temps: list = field(default_factory=list)  # stale temporary files of a killed run, removed
    reasons: dict = field(default_factory=dict)     # path -> why it was refused
    dropped: list = field(default_factory=list)     # (path, fix, why): fixes left out, the file's others applied
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
    then the file is left alone and listed in ``report.conflicts``.

    Each file's fixed text is read back before it is written: it must parse
    and its front matter must hold the same keys, with every value of the
    same type as before (a string may become a list of strings: the list
    wrap of RK202).  A fix that breaks that is left out, with the reason in
    ``report.dropped``, and the file's other fixes are applied; a file none
    of whose fixes can be applied is left as it is.

    A file that two record paths name (a symbolic link in the record to
    another of its files) is fixed once, under one name; the other names
    are read again from the fixed text."""
    report = FixReport()
    if write:
        report.removed_temps = remove_stale_temps(_folders(corpus))
    texts: dict[Path, str] = {}       # path -> what the file holds, as far as we know, when it changed
    digests: dict[Path, str] = {}     # path -> content_digest of that
    tries: dict[Path, int] = {}
    pending: set[Path] = set()        # changed under us in the last round, not yet fixed again
    aliases, others = _aliases(corpus)  # path -> the other names of its file; names not fixed under
    seen_drops: set = set()
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
            if path in report.conflicts or path in others or (rounds > passes and path not in pending):
                continue
            rec = corpus.by_path(path)
            if rec is None or not rec.ok:
                continue
            refusal = fix_refusal(rec)
            if refusal:   # positions the parser could not map safely
                if path not in report.refused:
                    report.refused.append(path)
                    report.reasons[path] = refusal
                continue
            before = rec.text
            fixes, dropped = _sound_fixes(rec, fixes, corpus.schema)
            for f, why in dropped:
                if (path, f.message, f.content) not in seen_drops:
                    seen_drops.add((path, f.message, f.content))
                    report.dropped.append((path, f, why))
            if not fixes:
                continue
            after, skipped = apply_fixes(before, fixes)
            if after == before:
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
            for alias in aliases.get(path, ()):
                texts[alias] = after     # the same file under another name
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
    report.unsafe_left = sum(d.fix is not None and not applicable(d.fix, unsafe) and Path(d.path) not in others
                             for d in diags)
    return report, corpus


_PARSE_CODES = ("RK101", "RK102", "RK103", "RK104")


def _sound_fixes(rec, fixes: list, schema) -> tuple[list, list]:
    """``(kept, dropped)``: the fixes of ``rec`` whose result reads back as
    intended (:func:`why_unsound`), and ``(fix, why)`` for each of the
    others.  All of them when their result together is sound; else each is
    tried alone, and the sound ones kept when they are sound together."""
    after, _ = apply_fixes(rec.text, fixes)
    if after == rec.text or why_unsound(rec, after, schema) is None:
        return fixes, []
    kept, dropped = [], []
    for f in fixes:
        why = why_unsound(rec, apply_fixes(rec.text, [f])[0], schema)
        if why is None:
            kept.append(f)
        else:
            dropped.append((f, why))
    if kept and why_unsound(rec, apply_fixes(rec.text, kept)[0], schema) is not None:
        dropped.extend((f, "the fixed text would not read back as intended with the file's other fixes")
                       for f in kept)
        kept = []
    return kept, dropped


def why_unsound(rec, after: str, schema) -> str | None:
    """Why the fixed text ``after`` of ``rec`` must not be written (None
    when it may): it does not parse, or its front matter does not hold the
    same keys with values of the same types (a fix changes a value, never
    what kind of value it is, but for a string wrapped in a list)."""
    new, pd = parse_text(after, rec.path, rec.relpath, schema)
    bad = [d for d in pd if d.code in _PARSE_CODES]
    if bad:
        return "the fixed text would not parse"
    where = _type_change(rec.meta, new.meta, ())
    if where is not None:
        shown = ".".join(str(p) for p in where) or "the front matter"
        return f"the fix would change the type of `{shown}`, not just its text"
    return None


def _type_change(old, new, path: tuple):
    """The path of the first value of ``new`` whose type is not ``old``'s
    (None when there is none): mappings with the same keys, lists of the
    same length, a string may become a list of strings."""
    if type(old) is not type(new):
        if isinstance(old, str) and isinstance(new, list) and new and all(isinstance(x, str) for x in new):
            return None
        return path
    if isinstance(old, dict):
        if list(old) != list(new):
            return path
        for k in old:
            got = _type_change(old[k], new[k], path + (k,))
            if got is not None:
                return got
    elif isinstance(old, list):
        if len(old) != len(new):
            return path
        for i, (a, b) in enumerate(zip(old, new)):
            got = _type_change(a, b, path + (i,))
            if got is not None:
                return got
    return None


def _aliases(corpus) -> tuple[dict, set]:
    """The record paths that name one file (a symbolic link to another
    record file): ``(path -> the other paths of its file, the paths not to
    fix under)``; each file is fixed under one name, the one that is no
    link when there is one, else the first in order."""
    by_real: dict[str, list] = {}
    for rec in corpus.files:
        try:
            real = os.path.realpath(rec.path)
        except (OSError, ValueError):
            continue
        by_real.setdefault(real, []).append(rec.path)
    aliases, others = {}, set()
    for paths in by_real.values():
        if len(paths) < 2:
            continue
        paths = sorted(paths, key=lambda p: (os.path.islink(p), str(p)))
        for p in paths:
            aliases[p] = [q for q in paths if q != p]
        others.update(paths[1:])
    return aliases, others


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
