"""``recordkit show ID``."""
from __future__ import annotations

import sys

import click

from .context import not_empty, pass_ctx
from ..common.text import json_text, terminal_safe, yaml_text
from ..lifecycle.conditions import requirement_text


@click.command("show")
@click.argument("record_id", callback=not_empty("id"))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@pass_ctx
def command(ctx, record_id, fmt):
    """One record: fields, relations, typed backlinks, mentions, checks."""
    from ..views.describe import describe
    corpus = ctx.corpus
    record_id = record_argument(corpus, record_id, "recordkit show")
    info = describe(corpus, record_id)
    if info is None:
        from ..common.didyoumean import hint
        from ..common.text import terminal_safe
        unread = _unreadable(corpus, record_id)
        if unread:
            click.echo(terminal_safe(f"recordkit: {unread}"), err=True)
        elif _outside_root(corpus.root, record_id):
            # a file there is no record: "no record under the root" would
            # send the user looking inside it
            click.echo(terminal_safe(f"recordkit: {record_id} is outside the record root {corpus.root}: "
                                     "only the files under it are records (give --root to read another folder)"),
                       err=True)
        else:
            click.echo(terminal_safe(f"recordkit: no record {record_id} under {corpus.root}"
                                     f"{hint(corpus.near_ids(record_id, n=3))}"), err=True)
        sys.exit(2)
    from ..sql.query import evaluate_blocks, format_query_blocks
    blocks = evaluate_blocks(corpus, corpus.get(record_id))
    if blocks:
        info["queries"] = [b.to_dict() for b in blocks]
    if fmt == "json":
        click.echo(json_text(info, indent=2))
    else:
        click.echo(format_text(info, mention_label=corpus.schema.mention_label) + format_query_blocks(blocks))


def _outside_root(root, name: str) -> bool:
    """Whether ``name`` is a path (from the working folder) to a file that
    exists outside the record ``root``."""
    from pathlib import Path
    try:
        p = Path(name).resolve()
        return p.is_file() and not p.is_relative_to(Path(root).resolve())
    except (OSError, RuntimeError, ValueError):
        return False


def _unreadable(corpus, name: str) -> str | None:
    """What to say when ``name`` names no record but a file that could not
    be read would be it (its file name or path): which file, and why."""
    import os
    for r in corpus.files:
        if r.ok:
            continue
        rel = r.relpath[:-3] if r.relpath.endswith(".md") else r.relpath
        if name in (r.path.stem, rel, r.relpath):
            why = next((d for d in corpus.diagnostics if os.path.abspath(d.path) == os.path.abspath(r.path)), None)
            said = f": {d_text(why)}" if why is not None else ""
            return f"{r.relpath} would be {name}, but it cannot be read{said} (run `recordkit lint`)"
    return None


def d_text(d) -> str:
    return f"{d.code} {d.message} (line {d.line}, column {d.col})"


def record_argument(corpus, text: str, prog: str, option: str = "") -> str:
    """The id of the record a command's argument names: an id, a path, a
    file name, a title or an alias (through the corpus's resolver).  An
    ambiguous one exits 2 listing the records it may mean; an unknown one
    is returned as given, for the command's own "no record" message."""
    from ..corpus.resolve import candidates_text, find_record
    res = find_record(corpus, text)
    if res.ambiguous:
        click.echo(terminal_safe(f"{prog}: {option}{text} matches {len(res.candidates)} records by {res.by}: "
                                 f"{candidates_text(corpus, res)}; give one of their ids or paths"), err=True)
        sys.exit(2)
    return res.target if res.target is not None else text


def format_text(info: dict, width: int = 100, mention_label: str = "Mentioned by") -> str:
    """A plain-text rendering of :func:`describe`'s result, safe to print on
    a terminal: control characters and bidi overrides from the record's
    text show as visible escapes (``\\x1b``).  ``mention_label``: what the
    records whose text links to this one are listed under, the schema's
    ``mention.label`` (a vault preset's "Linked from"), as the site and the
    graph's index name them."""
    return terminal_safe(_format_text(info, width, mention_label))


def _not_there(link: dict) -> str:
    """"(missing)", or for a link that names several records (lint's
    RK308) "(ambiguous: A or B)"."""
    many = link.get("ambiguous")
    return f"(ambiguous: {' or '.join(many[:5])}{' …' if len(many) > 5 else ''})" if many else "(missing)"


def _format_text(info: dict, width: int, mention_label: str = "Mentioned by") -> str:
    import textwrap
    lines = [f"{info['id']}: {_one_line(info['title'] or '')}"]
    written = info["fields"].get("status")   # (as written: MADR's "superseded by [ADR-0002](…)", status superseded)
    status = str(written if isinstance(written, str) and written.strip() else info["status"] or "?")
    status = status[:1].upper() + status[1:]     # (as written: .title() made "Superseded By [Adr-0002](0002-Use.Md)")
    note = info["fields"].get("status_note")
    if note is not None and not isinstance(note, str):
        note = yaml_text(note)
    lines.append(f"  Status: {status}" + (f" — {_one_line(note)}" if note else ""))
    lines.append(f"  Kind: {info['kind']}    File: {info['path']}")
    skip = {"id", "title", "status", "status_note", "promote_when"}
    dates = info.get("dates") or {}
    for k, v in info["fields"].items():
        if k in skip:
            continue
        v = dates.get(k, v)           # (epoch milliseconds as their date)
        if isinstance(v, list) and all(not isinstance(x, (list, dict)) for x in v):
            v = ", ".join(x if isinstance(x, str) else yaml_text(x) for x in v)
        elif not isinstance(v, str):
            v = yaml_text(v, limit=width)
        lines.append(f"  {k.replace('_', ' ').capitalize()}: {v}")
    if info["relations"] or info["derived"]:
        lines.append("")
        lines.append("Relations")
        for rel, targets in info["relations"].items():
            for t in targets:
                title = t["title"] if t["exists"] else _not_there(t)
                lines.append(f"  {rel}: {t['id']} — {_short(title, width - len(rel) - len(t['id']) - 8)}")
        for rel, targets in info["derived"].items():
            for t in targets:
                lines.append(f"  {rel} (derived from {t['via']}): {t['id']} — {_short(t['title'], 60)}")
    pw = info["fields"].get("promote_when")
    if pw:
        lines.append("")
        lines.append("Promote when")
        if isinstance(pw, dict):
            summary = pw.get("summary")
            if summary:
                summary = summary if isinstance(summary, str) else yaml_text(summary, limit=10 * width)
                lines.extend(textwrap.wrap(summary, width, initial_indent="  ", subsequent_indent="  "))
            state = {r.get("text"): r for r in (info.get("promote") or {}).get("requires", [])}
            requires = pw.get("requires") or []
            for item in requires if isinstance(requires, list) else [requires]:
                text = requirement_text(item)
                st = state.get(text)
                if st is None:
                    mark = ""
                elif st.get("ok"):
                    mark = "  [met]"
                else:
                    state_word = st.get('state') or 'unmet'
                    reason = str(st.get('reason') or "").removeprefix(f"{state_word}: ")
                    mark = f"  [{state_word}: {reason}]"
                lines.append(f"  requires {text}{mark}")
        else:
            lines.append(f"  {pw if isinstance(pw, str) else yaml_text(pw, limit=width)}")
    if info.get("standing"):
        lines.append("")
        detail = info.get("standing_detail")
        lines.append(f"Standing: {info['standing']}" + (f" — {detail}" if detail else ""))
    if info["backlinks"]:
        lines.append("")
        lines.append("Backlinks")
        for label, srcs in info["backlinks"].items():
            lines.append(f"  {label}")
            for s in srcs:
                lines.append(f"    {s['id']} — {_short(s['title'], width - len(s['id']) - 7)}")
    if info["mentions"]:
        lines.append("")
        lines.append("Mentions " + ", ".join(m["id"] + ("" if m["exists"] else " " + _not_there(m))
                                             for m in info["mentions"]))
    if info["mentioned_by"]:
        lines.append(f"{mention_label} " + ", ".join(m["id"] for m in info["mentioned_by"]))
    if info.get("checks"):
        lines.append("")
        lines.append("Checks")
        for c in info["checks"]:
            d, tol = c.get("discrepancy"), c.get("tolerance")
            measured = ""
            if isinstance(d, (int, float)) and isinstance(tol, (int, float)):
                measured = f" (discrepancy {d:.3g} {'≤' if d <= tol else '>'} {tol:.3g})"
            lines.append(f"  {c['id']}: {c.get('verdict', 'unknown')}{measured}")
    return "\n".join(lines)


def _one_line(text: str) -> str:
    """A value printed on one line: its own line breaks show as ``\\n``."""
    return terminal_safe(text, keep_newlines=False)


def _short(text: str, n: int) -> str:
    text = _one_line(text or "")
    n = max(n, 20)
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"
