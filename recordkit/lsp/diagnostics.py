"""The lint's diagnostics as the protocol's.

Every diagnostic comes from :mod:`recordkit.lint` (:func:`recordkit.lint.files.lint_files`
for the open documents, the cached whole-record lint for
``workspace/diagnostic``); here they are only converted: the range into the
client's position encoding, the code with a link to the rule's
documentation, ``relatedInformation`` for the records a diagnostic is
about (the members of a cycle, an undermining path), and ``data`` with its
fix (the edits as ranges: what a quick fix applies).
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from lsprotocol import types

from .positions import Lines
from .workspace import uri_of

SEVERITY = {"error": types.DiagnosticSeverity.Error, "warning": types.DiagnosticSeverity.Warning,
            "info": types.DiagnosticSeverity.Information}
#: rules whose finding names a relation target the writer may still be typing
HELD_WHILE_TYPING = frozenset({"RK301", "RK305"})


class RuleDocs:
    """The rules' documentation as files (``recordkit rule CODE``, written
    once into the cache folder), for ``codeDescription``."""

    def __init__(self, cache_dir: Path):
        self.folder = Path(cache_dir) / "lsp-rules"
        self.written: dict[str, str] = {}

    def href(self, code: str) -> str | None:
        got = self.written.get(code)
        if got is not None:
            return got or None
        from ..lint.docs import render_rule
        from ..lint.registry import all_rules
        rule = all_rules().get(code)
        href = ""
        if rule is not None:
            try:
                from ..common.writes import atomic_write
                path = self.folder / f"{code}.md"
                text = render_rule(rule)
                if not path.is_file() or path.read_text(encoding="utf-8") != text:
                    self.folder.mkdir(parents=True, exist_ok=True)
                    atomic_write(path, text)
                href = uri_of(path.resolve())
            except OSError:
                href = ""
        self.written[code] = href
        return href or None


def _fix_data(fix, lines: Lines) -> dict:
    rng = lines.range(fix.start, fix.end)
    return {"message": fix.message, "applicability": fix.applicability,
            "edits": [{"range": {"start": {"line": rng.start.line, "character": rng.start.character},
                                 "end": {"line": rng.end.line, "character": rng.end.character}},
                       "newText": fix.content}]}


def _related(d, corpus) -> list[types.DiagnosticRelatedInformation] | None:
    """The records ``d`` is about, beyond its own: a cycle's members, the
    records along an undermining path."""
    if corpus is None or not d.about:
        return None
    out = []
    for key in d.about:
        if not isinstance(key, str) or key.startswith(("<-", "check:")) or key == d.record:
            continue
        rec = corpus.get(key)
        if rec is None:
            continue
        title = f" ({rec.title})" if getattr(rec, "title", None) else ""
        out.append(types.DiagnosticRelatedInformation(
            types.Location(uri_of(rec.path), types.Range(types.Position(0, 0), types.Position(0, 0))),
            f"{key}{title}"))
    return out or None


def to_lsp(d, lines: Lines, corpus=None, docs: RuleDocs | None = None) -> types.Diagnostic:
    """One lint :class:`~recordkit.corpus.model.Diagnostic` as the protocol's."""
    from ..common.text import path_text
    start = lines.at(d.line, d.col)
    end = lines.at(d.end_line or d.line, d.end_col or d.col)
    href = docs.href(d.code) if docs is not None else None
    data = {"fix": _fix_data(d.fix, lines) if d.fix is not None else None, "about": list(d.about)}
    return types.Diagnostic(
        range=types.Range(start, end), message=path_text(d.message), severity=SEVERITY.get(d.severity),
        code=d.code, source="recordkit",
        code_description=types.CodeDescription(href=href) if href else None,
        related_information=_related(d, corpus), data=data)


def convert(diags, text: str, enc, corpus=None, docs: RuleDocs | None = None) -> list[types.Diagnostic]:
    lines = Lines(text, enc)
    return [to_lsp(d, lines, corpus, docs) for d in diags]


def held_back(diags: list[types.Diagnostic], cursor: types.Position | None) -> list[types.Diagnostic]:
    """``diags`` less the unresolved-target findings (RK301, RK305) on the
    token under ``cursor`` (the end of the last edit): a target still being
    typed is not flagged until it is complete or the line is left."""
    if cursor is None:
        return diags
    out = []
    for d in diags:
        r = d.range
        if d.code in HELD_WHILE_TYPING and r.start.line == cursor.line and \
                r.start.character <= cursor.character <= r.end.character:
            continue
        out.append(d)
    return out


def result_id(diags: list[types.Diagnostic]) -> str:
    """A stable id of a report's content (pull diagnostics' ``resultId``)."""
    from lsprotocol.converters import get_converter
    raw = json.dumps(get_converter().unstructure(diags), sort_keys=True, separators=(",", ":"))
    return hashlib.sha1(raw.encode("utf-8")).hexdigest()[:16]
