"""Promotion: whether a proposed theory can be promoted, the lossless edit
that promotes it (``status: active`` and ``promoted_by``), and the listing
``recordkit promote`` shows, as data."""
from __future__ import annotations

import os
import re
from pathlib import Path

from ..common.order import id_sort_key
from ..common.splice import apply_fixes
from ..common.textpos import offset_of
from ..common.writes import WriteConflict, atomic_write, remove_stale_temps, text_digest
from ..corpus.loader import with_texts
from ..corpus.model import Fix
from ..corpus.parse import parse_text
from .conditions import ACTIVE, PROMOTED_BY, PROPOSED
from .standing import AWAITING, BLOCKED, MALFORMED, READY, UNESTABLISHED, Lifecycle, Standing, analyze
from ..common.text import a_or_an


def not_in_lifecycle(rec, schema) -> str:
    """Why ``rec`` cannot be promoted: its kind has no lifecycle (and which
    kinds have one)."""
    if rec.kind:
        return f"{rec.id} is {a_or_an(rec.kind)}, which has no promote_when lifecycle"
    from .words import lifecycle_kinds
    kinds = lifecycle_kinds(schema)
    which = (f" (only {', '.join(kinds)} {'has' if len(kinds) == 1 else 'have'} one)" if kinds
             else " (no kind of the schema has a promote_when field)")
    return f"{rec.id} has no kind, so no promote_when lifecycle{which}"


class PromotionRefused(Exception):
    """The theory cannot be promoted; ``reasons`` says why."""

    def __init__(self, reasons: list[str]):
        super().__init__("; ".join(reasons))
        self.reasons = reasons


def promotion_edit(rec, by: str, status: str = ACTIVE) -> str:
    """The text of ``rec``'s file with ``status`` set to ``status`` and
    ``promoted_by`` set to ``by``, every other byte unchanged: the status
    value is spliced where it stands (keeping its quotes), an existing
    ``promoted_by`` value is replaced, else a ``promoted_by:`` line is
    inserted after the status line.  An anchor or a tag written before a
    value (``status: &st !!str proposed``) stays before the new one, and
    its quotes stay as they were."""
    text = rec.text
    if ("status",) not in rec.values:
        raise PromotionRefused([f"{rec.id} has no status to change"])
    fixes = []
    line, col, end_line, end_col = rec.value_pos("status")
    s, e = offset_of(text, line, col), offset_of(text, end_line, end_col)
    _refuse_shared_anchor(rec, text[s:e], "status")
    fixes.append(Fix(s, e, _requote(text[s:e], status)))
    if PROMOTED_BY in (rec.meta or {}):
        fixes.append(_promoted_by_fix(rec, by))
    else:
        # after the status line (a top-level key, so at its indentation: none)
        nl = text.find("\n", e)
        eol = "\r\n" if nl > 0 and text[nl - 1] == "\r" else "\n"
        indent = " " * (rec.key_pos("status")[1] - 1)
        fixes.append(Fix(nl + 1, nl + 1, f"{indent}{PROMOTED_BY}: {by}{eol}"))
    new, skipped = apply_fixes(text, fixes)
    if skipped:  # pragma: no cover - the edits never overlap
        raise PromotionRefused(["the edits overlap; edit the file by hand"])
    return new


def _refuse_shared_anchor(rec, old: str, name: str) -> None:
    """Refuse when the value ``old`` of field ``name`` carries an anchor
    (``&st``) that an alias (``*st``) repeats elsewhere: the edit would
    change that value too."""
    m = _PROPS_RE.match(old)
    for prop in (m.group(0).split() if m else ()):
        if prop.startswith("&") and re.search(r"\*" + re.escape(prop[1:]) + r"(?![^\s,\]\}])", rec.text):
            raise PromotionRefused([f"{rec.relpath}: the {name} value's anchor {prop} is repeated elsewhere "
                                    f"(*{prop[1:]}); set status and promoted_by by hand"])


_PROPS_RE = re.compile(r"\A(?:[&!][^\s]*[ \t]+)+")


def _requote(old: str, new: str) -> str:
    """The scalar text ``old`` (as the file writes it) with its value made
    ``new``: its anchor and tag (``&a !!str``) kept before it, its quotes
    kept (``new`` escaped as they want), and a plain scalar that would not
    read back as the string ``new`` (``yes``, ``1``) put in single quotes."""
    m = _PROPS_RE.match(old)
    props, value = (old[:m.end()], old[m.end():]) if m else ("", old)
    if len(value) >= 2 and value[0] in "'\"" and value[-1] == value[0]:
        q = value[0]
        inner = new.replace("'", "''") if q == "'" else new.replace("\\", "\\\\").replace('"', '\\"')
        return props + q + inner + q
    return props + (new if _plain_ok(new) else "'" + new.replace("'", "''") + "'")


def _plain_ok(value: str) -> bool:
    """Whether ``value`` written plain reads back as that string (as a
    mapping's value and as a flow list's item)."""
    import yaml
    if not value or value != value.strip():
        return False
    try:
        return yaml.safe_load(f"k: {value}") == {"k": value} and yaml.safe_load(f"[{value}]") == [value]
    except (yaml.YAMLError, ValueError, TypeError, RecursionError):
        return False


def _promoted_by_fix(rec, by: str):
    text = rec.text
    value = rec.meta[PROMOTED_BY]
    if value is None or value == "" or value == []:
        if value == []:  # `promoted_by: []`
            l, c, el, ec = rec.value_pos(PROMOTED_BY)
            s, e = offset_of(text, l, c), offset_of(text, el, ec)
            return Fix(s, e, f"[{by}]")
        if value == "":  # `promoted_by: ""`
            l, c, el, ec = rec.value_pos(PROMOTED_BY)
            s, e = offset_of(text, l, c), offset_of(text, el, ec)
            return Fix(s, e, _requote(text[s:e], by))
        if value is None and (PROMOTED_BY,) in rec.values:   # `promoted_by: ~`, `promoted_by: null`
            l, c, el, ec = rec.value_pos(PROMOTED_BY)
            s, e = offset_of(text, l, c), offset_of(text, el, ec)
            if e > s and not text[s:e].isspace():
                m = _PROPS_RE.match(text[s:e])
                props = text[s:s + m.end()] if m else ""
                if "!" in props:   # `!!null ~` stays a null whatever it says
                    raise PromotionRefused([f"{rec.relpath}: promoted_by is written with a tag "
                                            f"({props.strip()}); set status and promoted_by by hand"])
                return Fix(s, e, props + _requote("", by))
        l, c, el, ec = rec.key_pos(PROMOTED_BY)
        k_end = offset_of(text, el, ec)
        colon = text.find(":", k_end)
        return Fix(colon + 1, colon + 1, f" {by}")
    if isinstance(value, list) and len(value) == 1 and (PROMOTED_BY, 0) in rec.values:
        l, c, el, ec = rec.value_pos(PROMOTED_BY, 0)
        s, e = offset_of(text, l, c), offset_of(text, el, ec)
        return Fix(s, e, _requote(text[s:e], by))
    if isinstance(value, list):
        raise PromotionRefused([f"promoted_by lists {len(value)} records; leave one (or none) and try again"])
    l, c, el, ec = rec.value_pos(PROMOTED_BY)
    s, e = offset_of(text, l, c), offset_of(text, el, ec)
    return Fix(s, e, _requote(text[s:e], by))


def plan_promotion(corpus, record_id: str, by: str | None = None, lc: Lifecycle | None = None):
    """Check that ``record_id`` can be promoted and compute the new file text.

    Returns ``(new_text, by)``.  Raises :class:`PromotionRefused` with the
    reasons when it cannot: the record is not a proposed lifecycle record,
    a requirement does not hold, or no record to name in ``promoted_by``
    (``by``; default: the record that satisfied the first ``record:``
    requirement) can be found.  Raises KeyError for an unknown id.
    """
    rec = corpus.records[record_id]
    lc = lc or analyze(corpus)
    ev = lc.evaluate(record_id)
    if ev is None:
        raise PromotionRefused([not_in_lifecycle(rec, corpus.schema)])
    if rec.status != PROPOSED:
        raise PromotionRefused([f"{record_id} is {rec.status}, not proposed"])
    reasons = []
    if not ev.promote_when.present:
        reasons.append(f"{record_id} has no promote_when")
    reasons.extend(p.message for p in ev.promote_when.problems)
    for i in ev.failing():
        reasons.append(f"{i.text}: {i.state} — {i.reason}" if i.state != MALFORMED else f"{i.text}: {i.reason}")
    if reasons:
        raise PromotionRefused(reasons)
    if by is None:
        by = ev.first_record_by()
        if by is None:
            raise PromotionRefused([f"{record_id} has no record: requirement to name the record that showed "
                                    f"the condition met; give it with --by ID"])
    target = corpus.records.get(by)
    rel = corpus.schema.relations.get(PROMOTED_BY)
    if target is None:
        raise PromotionRefused([f"--by {by}: no such record"])
    if by == record_id:
        raise PromotionRefused([f"--by {by}: a record cannot promote itself"])
    if rel is not None and not rel.allows_target(target.kind):
        what = a_or_an(target.kind) if target.kind else "a record without a kind"
        raise PromotionRefused([f"--by {by}: promoted_by may name {a_or_an(' or '.join(rel.targets))}, not {what}"])
    new = promotion_edit(rec, by)
    _verify(corpus, rec, new, by)
    return new, by


def apply_promotion(corpus, record_id: str, by: str | None = None, lc: Lifecycle | None = None,
                    retries: int = 3) -> tuple[str, str, str]:
    """Promote ``record_id`` in its file: :func:`plan_promotion`, then write
    the new text atomically, but only while the file still holds the bytes
    the edit was made from.  When it changed meanwhile (an editor saved,
    ``lint --fix`` wrote it), the new text is read and the promotion planned
    again from it, up to ``retries`` times.  Returns ``(old_text, new_text,
    by)``; raises :class:`PromotionRefused` as :func:`plan_promotion` does,
    and when the file kept changing, vanished or no longer holds the id."""
    rec = corpus.records[record_id]
    remove_stale_temps({rec.path.parent, Path(os.path.realpath(rec.path)).parent})
    for _ in range(retries + 1):
        if not rec.source.parsed_from(rec.text):
            # restored from the store of parsed records, its file changed
            # since the load: its text is the new one, its parse the old
            corpus, lc, rec = _read_again(corpus, rec, rec.text, record_id)
        new, chosen = plan_promotion(corpus, record_id, by=by, lc=lc)
        try:
            atomic_write(rec.path, new, expect=rec.digest or text_digest(rec.text))
            return rec.text, new, chosen
        except WriteConflict as exc:
            if exc.current is None:
                raise PromotionRefused([f"{rec.relpath} was removed while promoting {record_id}"])
            try:
                text = exc.current.decode("utf-8")
            except UnicodeDecodeError:
                raise PromotionRefused([f"{rec.relpath} changed while promoting and is no longer UTF-8 text"])
            corpus, lc, rec = _read_again(corpus, rec, text, record_id)
    raise PromotionRefused([f"{rec.relpath} kept changing while promoting {record_id} "
                            f"({retries + 1} tries); left as it is, try again"])


def _read_again(corpus, rec, text: str, record_id: str):
    """``(corpus, lifecycle, record)`` with the file of ``rec`` read from
    ``text``, what it holds now; refused when it no longer holds ``record_id``."""
    corpus = with_texts(corpus, {rec.path: text})
    again = corpus.records.get(record_id)
    if again is None or again.path != rec.path:
        raise PromotionRefused([f"{rec.relpath} changed while promoting and no longer holds {record_id}"])
    return corpus, None, again


def _verify(corpus, rec, new: str, by: str) -> None:
    """Re-read the edited text: the front matter must say exactly what it said,
    but for ``status: active`` and ``promoted_by``."""
    after, diags = parse_text(new, rec.path, rec.relpath, corpus.schema)
    want = dict(rec.meta)
    want["status"] = ACTIVE
    want[PROMOTED_BY] = [by] if isinstance(want.get(PROMOTED_BY), list) else by
    if diags or after.meta != want or after.body != rec.body:
        raise PromotionRefused([f"{rec.relpath}: the edit would not read back as intended; "
                                f"set status and promoted_by by hand"])


# ---------------------------------------------------------------------------
# The listing
# ---------------------------------------------------------------------------

_ORDER = {READY: 0, BLOCKED: 1, AWAITING: 2}


def entry(a: Lifecycle, st: Standing) -> dict:
    """One theory of the listing: its standing, each requirement's state,
    what it would be promoted by, and whether it is undermined."""
    rec = a.corpus.records[st.id]
    ev = st.evaluation
    return {
        "id": st.id, "title": rec.title, "path": rec.relpath, "status": rec.status,
        "standing": st.lifecycle, "detail": st.lifecycle_detail,
        "summary": ev.promote_when.summary if ev else None,
        "requires": [i.to_dict() for i in ev.items] if ev else [],
        "problems": [p.message for p in ev.promote_when.problems] if ev else [],
        "promoted_by": (ev.promoted_by if rec.status == ACTIVE else ev.first_record_by()) if ev else None,
        "undermined": ({"path": st.path, "detail": st.detail,
                        **({"skipped": st.path_skipped} if st.path_skipped else {})} if st.path else None),
    }


def listing(a: Lifecycle) -> dict:
    """``recordkit promote``'s listing as data: the proposed theories (ready
    first, then blocked, then awaiting judgement, each in id order) and the
    active ones that are not established."""
    proposed, active = [], []
    for rid, rec in a.corpus.records.items():
        if not a.in_lifecycle(rec) or rec.status not in (PROPOSED, ACTIVE):
            continue
        st = a.standing(rid)
        if rec.status == PROPOSED:
            proposed.append(entry(a, st))
        elif st.lifecycle == UNESTABLISHED:
            active.append(entry(a, st))
    proposed.sort(key=lambda e: (_ORDER.get(e["standing"], 9), id_sort_key(e["id"])))
    active.sort(key=lambda e: id_sort_key(e["id"]))
    return {"proposed": proposed, "active_unestablished": active}
