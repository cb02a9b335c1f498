"""One record, described: fields, relations with their targets' titles,
typed backlinks, mentions in and out, and (when known) standing and checks."""
from __future__ import annotations


from ..corpus.model import to_plain

from ..graph.build import backlinks, id_sort_key
from ..lifecycle import requirement_text as _requirement_text
from ..lint.output import display_path




def describe(corpus, record_id: str) -> dict | None:
    """A JSON-ready description of the record ``record_id``, or None."""
    rec = corpus.get(record_id)
    if rec is None:
        return None
    schema = corpus.schema
    records = corpus.records
    relations = {}
    for rel, targets in rec.relations.items():
        relations[rel] = [{"id": t.id, "title": records[t.id].title if t.id in records else None,
                           "exists": t.id in records, "line": t.pos[0]} for t in targets]
    derived = {}
    g = corpus.graph
    for _, dst, data in g.out_edges(record_id, data=True):
        if data["origin"] == "derived":
            derived.setdefault(data["relation"], []).append(
                {"id": dst, "title": records[dst].title, "via": data.get("via")})
    mentions_out = []
    seen = set()
    for m in rec.mentions:
        if m.target in seen:
            continue
        seen.add(m.target)
        mentions_out.append({"id": m.target, "exists": m.target in records,
                             "title": records[m.target].title if m.target in records else None,
                             "line": m.line})
    mentioned_by = sorted({src for src, _, d in g.in_edges(record_id, data=True) if d["origin"] == "body"},
                          key=id_sort_key)
    fields = {k: to_plain(v) for k, v in rec.meta.items() if k not in schema.relations}
    info = {
        "id": rec.id, "kind": rec.kind, "title": rec.title, "status": rec.status,
        "path": display_path(rec.path), "fields": fields, "relations": relations, "derived": derived,
        "backlinks": {label: [{"id": s, "title": records[s].title} for s in ids]
                      for label, ids in backlinks(corpus, record_id).items()},
        "mentions": mentions_out,
        "mentioned_by": [{"id": s, "title": records[s].title} for s in mentioned_by],
    }
    for extra in _EXTRAS:
        info.update(extra(corpus, rec) or {})
    return info


#: functions (corpus, record) -> dict merged into a description: lifecycle
#: standing and check results register here when their modules load.
_EXTRAS: list = []


def register_extra(func):
    _EXTRAS.append(func)
    return func


def format_text(info: dict, width: int = 100) -> str:
    """A plain-text rendering of :func:`describe`'s result."""
    import textwrap
    lines = [f"{info['id']}: {info['title']}"]
    status = (info["status"] or "?").title()
    note = info["fields"].get("status_note")
    lines.append(f"  Status: {status}" + (f" — {note}" if note else ""))
    lines.append(f"  Kind: {info['kind']}    File: {info['path']}")
    skip = {"id", "title", "status", "status_note", "promote_when"}
    for k, v in info["fields"].items():
        if k in skip:
            continue
        if isinstance(v, list):
            v = ", ".join(str(x) for x in v)
        lines.append(f"  {k.replace('_', ' ').capitalize()}: {v}")
    if info["relations"] or info["derived"]:
        lines.append("")
        lines.append("Relations")
        for rel, targets in info["relations"].items():
            for t in targets:
                title = t["title"] if t["exists"] else "(missing)"
                lines.append(f"  {rel}: {t['id']} — {_short(title, width - len(rel) - len(t['id']) - 8)}")
        for rel, targets in info["derived"].items():
            for t in targets:
                lines.append(f"  {rel} (derived from {t['via']}): {t['id']} — {_short(t['title'], 60)}")
    pw = info["fields"].get("promote_when")
    if pw:
        lines.append("")
        lines.append("Promote when")
        if isinstance(pw, dict):
            if pw.get("summary"):
                lines.extend(textwrap.wrap(str(pw["summary"]), width, initial_indent="  ", subsequent_indent="  "))
            state = {r.get("text"): r for r in (info.get("promote") or {}).get("requires", [])}
            for item in pw.get("requires") or []:
                text = _requirement_text(item)
                st = state.get(text)
                if st is None:
                    mark = ""
                elif st.get("ok"):
                    mark = "  [met]"
                else:
                    mark = f"  [{st.get('state') or 'unmet'}: {st.get('reason')}]"
                lines.append(f"  requires {text}{mark}")
        else:
            lines.append(f"  {pw}")
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
        lines.append("Mentions " + ", ".join(m["id"] + ("" if m["exists"] else " (missing)") for m in info["mentions"]))
    if info["mentioned_by"]:
        lines.append("Mentioned by " + ", ".join(m["id"] for m in info["mentioned_by"]))
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


def _short(text: str, n: int) -> str:
    n = max(n, 20)
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


# The lifecycle (standing, promote_when state) and the numeric checks add
# their parts of a description through register_extra.
from . import standing  # noqa: E402,F401
from . import checks  # noqa: E402,F401
