"""Hover: on any reference form (a bare id, a wikilink, a Markdown link, a
relation target, a record's own ``id:``), the record described as
``recordkit show`` describes it (:func:`recordkit.views.describe.describe`:
title, kind, status, standing with its reason, typed backlink counts, check
verdicts) and its body's first paragraph; on a rule code (``RK301``), the
rule's documentation (:func:`recordkit.lint.docs.render_rule`)."""
from __future__ import annotations

from lsprotocol import types as lsp

from ...lint.docs import render_rule
from ...lint.registry import get_rule
from ...views.describe import describe
from .context import RULE_RE, Lines, cursor, encoding_name, line_of, lsp_range, ref_at

#: the longest first paragraph shown (characters)
PARAGRAPH_CHARS = 600


def hover(snap, uri: str, pos: lsp.Position) -> lsp.Hover | None:
    rec, ref = ref_at(snap, uri, pos)
    if ref is not None and ref.target is not None:
        text = record_markdown(snap, ref.target)
        if text is None:
            return None
        return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text),
                         range=lsp_range(Lines(rec.text), ref.pos, encoding_name(snap)))
    return rule_hover(snap, uri, pos)


def rule_hover(snap, uri: str, pos: lsp.Position) -> lsp.Hover | None:
    """The documentation of the rule code under the cursor (an ``ignore``
    suppression, a ``lint:`` list, prose)."""
    rec, line, col = cursor(snap, uri, pos)
    if rec is None:
        doc = snap.document(uri)
        text = line_of(doc.text, line) if doc is not None else ""
    else:
        text = line_of(rec.text, line)
    for m in RULE_RE.finditer(text):
        if m.start() < col <= m.end() + 1:
            r = get_rule(m.group())
            if r is None:
                return None
            rng = lsp.Range(start=lsp.Position(line=line - 1, character=_units(text[:m.start()], snap)),
                            end=lsp.Position(line=line - 1, character=_units(text[:m.end()], snap)))
            return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=render_rule(r)),
                             range=rng)
    return None


def _units(s: str, snap) -> int:
    from .context import units
    return units(s, encoding_name(snap))


def record_markdown(snap, rid: str) -> str | None:
    """The hover text of record ``rid``: what :func:`describe` says of it, in Markdown."""
    from .graphs import ensure_graph
    ensure_graph(snap)
    info = describe(snap.corpus, rid, lifecycle=snap.lifecycle())
    if info is None:
        return None
    head = f"**{rid}**" + (f" · {info['kind']}" if info.get("kind") else "") \
        + (f" · {info['status']}" if info.get("status") else "")
    out = [head, "", f"*{_md(info.get('title') or '')}*" if info.get("title") else ""]
    if info.get("standing"):
        detail = info.get("standing_detail") or ""
        out += ["", f"Standing: **{info['standing']}**" + (f" — {_md(detail)}" if detail else "")]
        if info.get("undermined_path"):
            out.append("Undermined through " + " → ".join(info["undermined_path"]))
    counts = [f"{label} {len(ids)}" for label, ids in (info.get("backlinks") or {}).items()]
    if info.get("mentioned_by"):
        counts.append(f"{snap.corpus.schema.mention_label} {len(info['mentioned_by'])}")
    if counts:
        out += ["", " · ".join(counts)]
    checks = info.get("checks") or []
    if checks:
        out.append("")
    for c in checks:
        line = f"- check `{c['id']}`: {c['verdict']}"
        if c.get("discrepancy") is not None and c.get("tolerance") is not None:
            line += f" (discrepancy {c['discrepancy']:.3g} vs tolerance {c['tolerance']:.3g})"
        out.append(line)
    para = first_paragraph(snap.corpus.records[rid])
    if para:
        out += ["", "---", "", _md(para)]
    return "\n".join(x for i, x in enumerate(out) if x or (i and out[i - 1])).strip()


def first_paragraph(rec) -> str:
    """The body's first paragraph of prose (headings, fences and tables passed over)."""
    lines = []
    fence = False
    for line in rec.body.splitlines():
        s = line.strip()
        if s.startswith(("```", "~~~")):
            fence = not fence
            continue
        if fence or s.startswith(("#", "|", "<!--")):
            if lines:
                break
            continue
        if not s:
            if lines:
                break
            continue
        lines.append(s)
    text = " ".join(lines)
    return text if len(text) <= PARAGRAPH_CHARS else text[:PARAGRAPH_CHARS - 1].rstrip() + "…"


def _md(text: str) -> str:
    """Text as Markdown that shows it as it is (no emphasis or HTML made of it)."""
    return text.replace("\\", "\\\\").replace("*", "\\*").replace("_", "\\_").replace("<", "&lt;")
