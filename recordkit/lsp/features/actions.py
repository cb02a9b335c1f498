"""Code actions: a quick fix for every diagnostic that carries a fix
(labelled safe or unsafe: the lint's :class:`~recordkit.corpus.model.Fix`,
which the engine puts in the diagnostic's ``data``, or worked out again by
the lint of the file when the client sent the diagnostic without it);
``source.fixAll.recordkit``, the safe fixes exactly as ``lint --fix``
applies them (:func:`recordkit.lint.fix.fix_corpus`); "did you mean" for a
dangling id (:meth:`Corpus.near_ids`); "create LIT-1203 from its skeleton"
(the next free id, :func:`recordkit.author.new.plan_new`); and "promote
THEORY-798" on a ready theory (:func:`recordkit.lifecycle.promotion.plan_promotion`'s
lossless edit)."""
from __future__ import annotations

from lsprotocol import types as lsp

from ...author.plan import AuthorError
from .context import cursor, encoding_name, index_of, offset_range, uri_of
from .rename import plan_edit, text_edits

#: the source action kind of ``lint --fix``
FIX_ALL = "source.fixAll.recordkit"
#: the codes of a relation target or mention that names no record
DANGLING = ("RK301", "RK305")


def code_actions(snap, uri: str, rng: lsp.Range, diagnostics: list[lsp.Diagnostic],
                 only: list[str] | None = None) -> list[lsp.CodeAction]:
    rec = snap.record(uri)
    out: list[lsp.CodeAction] = []
    wants = (lambda kind: not only or any(kind == k or kind.startswith(k + ".") for k in only))
    if wants(FIX_ALL) and (only or diagnostics):
        got = fix_all(snap, uri)
        if got is not None:
            out.append(got)
    if only and not wants(lsp.CodeActionKind.QuickFix) and not wants(lsp.CodeActionKind.Refactor):
        return out
    for d in diagnostics:
        out.extend(quick_fixes(snap, uri, d))
    if rec is not None and rec.ok:
        out.extend(reference_actions(snap, uri, rec, rng))
        got = promote_action(snap, uri, rec)
        if got is not None:
            out.append(got)
    return out


def quick_fixes(snap, uri: str, d: lsp.Diagnostic) -> list[lsp.CodeAction]:
    """The diagnostic's own fix, as its ``data`` carries it (or as the lint finds it again)."""
    data = d.data if isinstance(d.data, dict) else None
    fix = data.get("fix") if data else None
    if fix is None and data is None:
        fix = _fix_of(snap, uri, d)
    if not fix:
        return []
    safe = fix.get("applicability", "safe") == "safe"
    edits = [lsp.TextEdit(range=_range(e["range"]), new_text=e["newText"]) for e in fix.get("edits", [])]
    title = f"{fix.get('message') or 'Fix'} ({'safe' if safe else 'unsafe'} fix, {d.code})"
    return [lsp.CodeAction(title=title, kind=lsp.CodeActionKind.QuickFix, diagnostics=[d], is_preferred=safe,
                           edit=lsp.WorkspaceEdit(changes={uri: edits}))]


def _range(r) -> lsp.Range:
    if isinstance(r, lsp.Range):
        return r
    return lsp.Range(start=lsp.Position(**r["start"]), end=lsp.Position(**r["end"]))


def _fix_of(snap, uri: str, d: lsp.Diagnostic) -> dict | None:
    """The fix of the lint's diagnostic at ``d``'s place and code, worked out again."""
    rec = snap.record(uri)
    if rec is None:
        return None
    from ...lint.files import lint_files
    found = lint_files(snap.corpus, [rec.path], corpus_rules=False).get(rec.path, [])
    enc = encoding_name(snap)
    for x in found:
        if x.code == d.code and x.fix is not None and x.line == d.range.start.line + 1:
            rng = offset_range(rec.text, x.fix.start, x.fix.end, enc)
            return {"message": x.fix.message, "applicability": x.fix.applicability,
                    "edits": [{"range": rng, "newText": x.fix.content}]}
    return None


def fix_all(snap, uri: str) -> lsp.CodeAction | None:
    """``lint --fix`` on this file: its safe fixes, applied in rounds as the CLI applies them."""
    rec = snap.record(uri)
    if rec is None or not rec.ok:
        return None
    from ...lint.files import lint_files
    from ...lint.fix import fix_corpus
    path = rec.path

    def lint_fn(corpus):
        return lint_files(corpus, [path], corpus_rules=False).get(path, [])
    report, _ = fix_corpus(snap.corpus, lint_fn, write=False)
    after = report.texts.get(path)
    if after is None or after == rec.text:
        return None
    edits = text_edits(rec.text, after, encoding_name(snap))
    return lsp.CodeAction(title=f"Fix all safe recordkit fixes ({report.fixed})", kind=FIX_ALL,
                          edit=lsp.WorkspaceEdit(changes={uri: edits}))


def reference_actions(snap, uri: str, rec, rng: lsp.Range) -> list[lsp.CodeAction]:
    """For a reference in ``rng`` that names no record: "did you mean" each
    near id, and "create ID from its skeleton"."""
    _, line, col = cursor(snap, uri, rng.start)
    _, end_line, end_col = cursor(snap, uri, rng.end)
    out = []
    schema = snap.corpus.schema
    for ref in index_of(snap).refs(rec):
        if ref.target is not None or ref.origin == "id":
            continue
        if ref.end_line < line or ref.line > end_line or (ref.line == end_line and ref.col > end_col) \
                or (ref.end_line == line and ref.end_col < col):
            continue
        from .rename import name_range
        name_rng = name_range(snap, rec, ref)
        for near in snap.corpus.near_ids(ref.written, exclude=rec.id, n=3):
            out.append(lsp.CodeAction(title=f"Did you mean {near}?", kind=lsp.CodeActionKind.QuickFix,
                                      is_preferred=True,
                                      edit=lsp.WorkspaceEdit(changes={uri: [lsp.TextEdit(range=name_rng,
                                                                                         new_text=near)]})))
        kind = schema.kind_of(ref.written) if schema.kind_ids else None
        if kind in schema.kinds:
            got = create_action(snap, uri, rec, kind, name_rng, ref.written)
            if got is not None:
                out.append(got)
    return out


def create_action(snap, uri: str, rec, kind: str, name_rng: lsp.Range, written: str) -> lsp.CodeAction | None:
    """A new record of ``kind`` with the next free id (``recordkit new``'s
    skeleton), the dangling reference pointed at it.  A kind whose
    required relations this record can fill (a CLAIM grounded on it) gets
    them; a kind that needs values only a person knows (a LIT's authors and
    year) is offered disabled, with ``recordkit new``'s reason (it writes
    no placeholder skeleton for such a kind: it refuses, naming the
    fields to give)."""
    from ...author.new import plan_new
    title = f"New {kind} from {rec.id}"
    fields = []
    for name in snap.corpus.schema.required_fields(kind):
        rel = snap.corpus.schema.relations.get(name)
        if rel is not None and rec.kind and rel.allows_target(rec.kind):
            fields.append(f"{name}={rec.id}")
    try:
        plan = plan_new(snap.corpus, kind, title, fields)
    except AuthorError as exc:
        return lsp.CodeAction(title=f"Create a {kind} from its skeleton (for {written})",
                              kind=lsp.CodeActionKind.QuickFix,
                              disabled=lsp.CodeActionDisabled(reason=f"recordkit new: {exc}"))
    new_id = plan.new_path.stem
    edit = plan_edit(snap, plan)
    edit.document_changes.append(lsp.TextDocumentEdit(
        text_document=lsp.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None),
        edits=[lsp.TextEdit(range=name_rng, new_text=new_id)]))
    return lsp.CodeAction(title=f"Create {new_id} from its skeleton (for {written})",
                          kind=lsp.CodeActionKind.QuickFix, edit=edit)


def promote_action(snap, uri: str, rec) -> lsp.CodeAction | None:
    """"Promote THEORY-798" when the theory is ready: status and ``promoted_by`` set losslessly."""
    lc = snap.lifecycle()
    st = lc.standing(rec.id)
    if st.state != "ready":
        return None
    from ...lifecycle.promotion import PromotionRefused, plan_promotion
    try:
        new, by = plan_promotion(snap.corpus, rec.id, lc=lc)
    except (PromotionRefused, KeyError):
        return None
    return lsp.CodeAction(title=f"Promote {rec.id} (promoted_by: {by})", kind=lsp.CodeActionKind.RefactorRewrite,
                          edit=lsp.WorkspaceEdit(changes={uri: text_edits(rec.text, new, encoding_name(snap))}))


__all__ = ["code_actions", "fix_all", "quick_fixes", "reference_actions", "promote_action", "uri_of"]
