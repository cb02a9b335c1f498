"""``recordkit promote [ID] [--apply] [--by ID] [--diff] [--format text|json]``."""
from __future__ import annotations

import sys
import textwrap

import click

from .context import not_empty, pass_ctx
from .. import lifecycle as lc
from ..common.text import json_text, path_text, terminal_safe

_HEADINGS = {lc.READY: "Ready to promote", lc.BLOCKED: "Blocked", lc.AWAITING: "Awaiting judgement"}


def _wrap(text: str, indent: str, width: int = 100) -> list[str]:
    return textwrap.wrap(" ".join(str(text).split()), width, initial_indent=indent, subsequent_indent=indent) or [indent]


def _format_entry(e: dict) -> list[str]:
    title = e["title"] if len(e["title"]) <= 90 else e["title"][:89].rstrip() + "…"
    lines = [f"  {e['id']}  {title}"]
    if e["summary"]:
        lines.extend(_wrap(e["summary"], "      "))
    for p in e["problems"]:
        lines.append(f"    ✗ {p}")
    for r in e["requires"]:
        lines.append(f"    {lc.MARKS[r['state']]} {r['text']}")
        lines.extend(_wrap(r["reason"], "        "))
    if e["status"] == lc.PROPOSED:
        if e["standing"] == lc.READY:
            by = e["promoted_by"]
            lines.append(f"    → recordkit promote {e['id']} --apply" +
                         (f"   (promoted_by: {by})" if by else "   --by ID"))
        elif e["standing"] == lc.AWAITING:
            lines.append(f"    prose only: when a person judges it met, recordkit promote {e['id']} --apply --by ID")
        elif not e["requires"] and not e["summary"]:
            lines.append(f"    {e['detail']}")
    else:
        if not e["promoted_by"]:
            lines.append("    ✗ no promoted_by")
    if e["undermined"]:
        lines.append(f"    ! undermined: {e['undermined']['detail']}")
    return lines


def format_listing(data: dict, noun: str = "theories") -> str:
    """The listing in words; ``noun`` names the lifecycle records (from the
    schema: :func:`recordkit.lifecycle.words.lifecycle_noun`)."""
    out = []
    groups: dict[str, list] = {}
    for e in data["proposed"]:
        groups.setdefault(e["standing"], []).append(e)
    if not data["proposed"]:
        out.append(f"No proposed {noun}.")
    for state in (lc.READY, lc.BLOCKED, lc.AWAITING):
        es = groups.get(state, [])
        if not es:
            continue
        if out:
            out.append("")
        out.append(f"{_HEADINGS[state]} ({len(es)})")
        for i, e in enumerate(es):
            if i:
                out.append("")
            out.extend(_format_entry(e))
    if data["active_unestablished"]:
        out.append("")
        out.append(f"Active, but not established: evidence unmet or unknown ({len(data['active_unestablished'])})")
        for i, e in enumerate(data["active_unestablished"]):
            if i:
                out.append("")
            out.extend(_format_entry(e))
    if any(e["requires"] for e in data["proposed"] + data["active_unestablished"]):
        out.append("")
        out.append("✓ met   ✗ unmet   ? unknown (check not run or stale: recordkit check)")
    return "\n".join(out)


@click.command("promote")
@click.argument("record_id", required=False, callback=not_empty("id"))
@click.option("--apply", "apply_", is_flag=True,
              help="Set status: active and promoted_by in the record's file, if every requirement holds.")
@click.option("--by", "by", metavar="ID", default=None,
              help="The record that showed the condition met (default: the one that satisfied the first "
                   "record: requirement).")
@click.option("--diff", "show_diff", is_flag=True, help="Print the change --apply would make, and write nothing.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@pass_ctx
def command(ctx, record_id, apply_, by, show_diff, fmt):
    """Records ready to promote (theories, by default), and what blocks the others.

    The records promoted are those of the kinds whose fields include
    promote_when in the schema (THEORY in the default schema).  With no ID:
    every proposed one, ready first, with the state of each promote_when
    requirement (✓ met, ✗ unmet, ? unknown); then the active ones whose
    evidence is unmet or unknown.  With ID: that record; with --apply,
    promote it (status: active, promoted_by) when every requirement holds,
    else refuse with the reasons (exit 1) and leave the file as it is.
    """
    from ..lifecycle.words import lifecycle_kinds, lifecycle_noun, with_article
    corpus = ctx.corpus
    a = lc.analyze(corpus)
    if record_id is None:
        if apply_ or show_diff or by:
            click.echo(f"recordkit promote: --apply, --diff and --by need "
                       f"{with_article(lifecycle_noun(corpus.schema, many=False))} ID", err=True)
            sys.exit(2)
        data = lc.listing(a)
        if fmt == "json":
            click.echo(json_text(data, indent=2))
        elif not lifecycle_kinds(corpus.schema):
            # (a log of decisions with 22 proposed ADRs and no promote_when is not "no proposed" anything)
            kinds = ", ".join(corpus.schema.kinds) or "none"
            click.echo(terminal_safe(f"Nothing to promote: no kind of the schema has a promote_when field "
                                     f"(kinds: {kinds}); see docs/lifecycle.md."))
        else:
            click.echo(terminal_safe(format_listing(data, lifecycle_noun(corpus.schema))))
        return
    from .show import record_argument
    record_id = record_argument(corpus, record_id, "recordkit promote")
    rec = corpus.get(record_id)
    if rec is None:
        from ..common.didyoumean import hint
        click.echo(f"recordkit promote: no record {record_id} under {corpus.root}"
                   f"{hint(corpus.near_ids(record_id, n=3))}", err=True)
        sys.exit(2)
    if by is not None:
        by = record_argument(corpus, by, "recordkit promote", "--by ")
    if by is not None and by not in corpus.records:
        click.echo(f"recordkit promote: --by {by}: no such record", err=True)
        sys.exit(2)
    if not (apply_ or show_diff):
        if not a.in_lifecycle(rec):
            click.echo(f"recordkit promote: {lc.not_in_lifecycle(rec, corpus.schema)}", err=True)
            sys.exit(2)
        entry = lc.entry(a, a.standing(record_id))
        if fmt == "json":
            click.echo(json_text(entry, indent=2))
        else:
            state = entry["standing"] or rec.status
            click.echo(terminal_safe(f"{record_id} is {rec.status}" + (f" ({state})" if state != rec.status else "")))
            click.echo(terminal_safe("\n".join(_format_entry(entry))))
        return
    try:
        if show_diff:
            old_text, (new_text, by) = rec.text, lc.plan_promotion(corpus, record_id, by=by, lc=a)
        else:
            # checks that the file still holds what was read just before
            # replacing it, and plans again from the new text when not
            old_text, new_text, by = lc.apply_promotion(corpus, record_id, by=by, lc=a)
    except lc.PromotionRefused as exc:
        if fmt == "json":
            click.echo(json_text({"id": record_id, "promoted": False, "reasons": exc.reasons}, indent=2))
        click.echo(f"recordkit promote: {record_id} not promoted:", err=True)
        for r in exc.reasons:
            click.echo(terminal_safe(f"  - {r}"), err=True)
        sys.exit(1)
    st = a.standing(record_id)
    if st.path:
        click.echo(terminal_safe(f"recordkit promote: warning: {record_id} is undermined: {st.detail}"), err=True)
    from ..common.splice import unified_diff
    diff = unified_diff(path_text(rec.relpath), old_text, new_text)
    if show_diff:
        if fmt == "json":
            click.echo(json_text({"id": record_id, "promoted": False, "promoted_by": by, "diff": diff}, indent=2))
        else:
            from .context import echo_data
            echo_data(diff)     # (a patch piped to a file keeps the record's bytes)
        return
    if fmt == "json":
        click.echo(json_text({"id": record_id, "promoted": True, "promoted_by": by, "path": path_text(rec.relpath),
                             "diff": diff}, indent=2))
    else:
        click.echo(f"{record_id}: status proposed → active, promoted_by: {by} ({path_text(rec.relpath)})")
