"""``lint --fix``: apply the rules' safe fixes to the files.

Each fix replaces a span of the file's text (a YAML scalar, or the end of
the file); everything outside the spans is left byte for byte.  A file is
written only when its fixed text still parses, and atomically.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..edit import apply_fixes, atomic_write
from ..parse import parse_text


@dataclass
class FixReport:
    fixed: int = 0
    originals: dict = field(default_factory=dict)   # path -> text before the first fix
    texts: dict = field(default_factory=dict)       # path -> text after the last fix
    spans: dict = field(default_factory=dict)       # path -> [(start, end, content)] of the fixes applied, per pass
    refused: list = field(default_factory=list)     # paths whose fixed text would not parse
    reasons: dict = field(default_factory=dict)     # path -> why it was refused, when not that


def fix_corpus(corpus, lint_fn, *, write: bool = True, passes: int = 4) -> tuple[FixReport, object]:
    """Apply fixes until none is left (at most ``passes`` rounds: a fix that
    overlaps another waits for the next).  ``lint_fn(corpus)`` returns the
    diagnostics of a corpus.  Returns the report and the final corpus (as
    re-read from disk when ``write``, or as edited in memory otherwise)."""
    report = FixReport()
    diags = lint_fn(corpus)
    for _ in range(passes):
        by_file: dict[Path, list] = {}
        for d in diags:
            if d.fix is not None:
                by_file.setdefault(Path(d.path), []).append(d.fix)
        progressed = False
        for path, fixes in by_file.items():
            rec = corpus.by_path(path)
            if rec is None or not rec.ok:
                continue
            if rec.__dict__.get("_no_fix"):   # positions the parser could not map safely
                if path not in report.refused:
                    report.refused.append(path)
                    report.reasons[path] = rec.__dict__["_no_fix"]
                continue
            before = rec.text
            after, skipped = apply_fixes(before, fixes)
            if after == before:
                continue
            _, pd = parse_text(after, rec.path, rec.relpath, corpus.schema)
            if any(d.code in ("RK101", "RK102", "RK103", "RK104") for d in pd):
                report.refused.append(path)
                continue
            report.originals.setdefault(path, before)
            report.texts[path] = after
            applied = [f for f in fixes if f not in skipped]
            report.spans.setdefault(path, []).append([(f.start, f.end, f.content) for f in applied])
            report.fixed += len(applied)
            progressed = True
            if write:
                atomic_write(path, after)
        if not progressed:
            break
        corpus = with_texts(corpus, {p: t for p, t in report.texts.items()})
        diags = lint_fn(corpus)
    return report, corpus


def with_texts(base, texts: dict[Path, str]):
    """A copy of ``base`` in which the given files hold the given texts."""
    from ..corpus import Corpus
    c = Corpus(root=base.root, schema=base.schema, config=base.config)
    for rec in base.files:
        if rec.path in texts and texts[rec.path] != rec.text:
            new, diags = parse_text(texts[rec.path], rec.path, rec.relpath, base.schema)
            c.files.append(new)
            c.diagnostics.extend(diags)
            rec = new
        else:
            c.files.append(rec)
            c.diagnostics.extend(d for d in base.diagnostics if d.path == rec.path)
        if rec.ok and rec.id not in c.records:
            c.records[rec.id] = rec
    return c
