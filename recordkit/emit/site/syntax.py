"""What a vault's syntax asks of the site beyond a body's HTML: how a single
line break shows (the schema's ``line_breaks``, or Obsidian's own setting),
the classes a note gives its page (``cssclasses``), and the diagrams
(```` ```mermaid ````) that need mermaid's script on a page and in the site
(docs/site.md, "Obsidian's syntax")."""
from __future__ import annotations

import re
from importlib import resources

from ...corpus.toolsettings import read_settings

#: where the site keeps mermaid (copied only when a published page has a diagram)
MERMAID = "assets/mermaid/mermaid.min.js"
MERMAID_LICENSE = "assets/mermaid/LICENSE"
DIAGRAMS_JS = "assets/mermaid/diagrams.js"
#: a fenced block of mermaid, as the walk writes it (``<pre class="mermaid …">``)
_FENCE = re.compile(r"^[ \t>]*(?:`{3,}|~{3,})[ \t]*mermaid\b", re.M)
#: a class a note may give its page: a name, not one of the site's own
_CLASS = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,63}")
_OWN = ("rk-", "k-", "st-", "v-")
#: the page's CSP where it draws a diagram: mermaid writes the SVG's
#: styles as <style> elements and style attributes (no script is inline:
#: mermaid and the page's starter are files of the site)
DIAGRAM_CSP_STYLE = "style-src 'self' 'unsafe-inline'"


def line_breaks(corpus) -> bool:
    """Whether a single line break is a ``<br>``: the schema's
    ``line_breaks``; ``obsidian``: as the vault's ``.obsidian/app.json``
    says (a line break unless ``strictLineBreaks`` is true; Obsidian's
    default without the file)."""
    lb = corpus.schema.line_breaks
    if lb != "obsidian":
        return bool(lb)
    return not read_settings(corpus.root).strict_line_breaks


def page_classes(rec) -> str:
    """The classes a note's ``cssclasses`` (or the older ``cssclass``) give
    its page: names only (``[A-Za-z_][A-Za-z0-9_-]*``), none of the site's
    own (``rk-…``), at most 20; a list, or a string of names split at
    blanks and commas."""
    got = []
    for key in ("cssclasses", "cssclass"):
        value = rec.get(key)
        if isinstance(value, str):
            value = re.split(r"[\s,]+", value)
        if not isinstance(value, list):
            continue
        for v in value:
            if isinstance(v, str) and _CLASS.fullmatch(v.strip()) and not v.strip().startswith(_OWN):
                if v.strip() not in got:
                    got.append(v.strip())
    return " ".join(got[:20])


_PERCENT_PAIR = re.compile(r"%%.*?%%", re.S)


def without_percent_comments(text: str, target: str) -> str:
    """A backlink's sentence without Obsidian's ``%% … %%`` comments: each
    pair taken out; a lone ``%%`` left (a comment that began before the
    sentence, or runs on after it) cuts the sentence there, and the side
    that has the mention of ``target`` is kept."""
    text = _PERCENT_PAIR.sub("", text)
    k = text.find("%%")
    if k < 0:
        return text
    after = text[k + 2:]
    return after if target in after else text[:k]


def has_diagram(rec, body_of) -> bool:
    """Whether ``rec``'s body has a mermaid block (its bytes asked first:
    the body is read only when "mermaid" is in the file)."""
    if not rec.source.contains(b"mermaid"):
        return False
    return _FENCE.search(body_of(rec)) is not None


def pages_with_diagrams(ctx, body_of) -> list:
    """The published records whose body has a diagram: the last build's
    answer for each record whose own signature did not change (kept in the
    manifest), the body asked for the others."""
    new, old = ctx.writer.new.meta, ctx.writer.old.meta
    deps_new, deps_old, known = new.get("deps"), old.get("deps"), old.get("diagrams")
    reuse = (isinstance(deps_new, dict) and isinstance(deps_old, dict) and isinstance(known, list)
             and old.get("salt") == new.get("salt"))
    known = set(known) if reuse else set()
    records = ctx.site.corpus.records
    found = []
    for rid in ctx.site.ids:
        if reuse and rid in deps_old and rid in deps_new and deps_old[rid][0] == deps_new[rid][0]:
            if rid in known:
                found.append(rid)
        elif has_diagram(records[rid], body_of):
            found.append(rid)
    new["diagrams"] = found
    return found


def mermaid_files() -> dict:
    """The files of mermaid the site gets (site path -> bytes)."""
    base = resources.files("recordkit") / "templates" / "vendor" / "mermaid"
    return {MERMAID: (base / "mermaid.min.js").read_bytes(), MERMAID_LICENSE: (base / "LICENSE").read_bytes(),
            DIAGRAMS_JS: (base / "diagrams.js").read_bytes()}


def page_syntax(csp: str, rec, rendered) -> dict:
    """What a record's page template is given beyond its body: its
    ``page_classes`` (``cssclasses``), whether it ``diagrams`` (then mermaid
    is loaded, and its ``csp`` allows the styles mermaid writes)."""
    got = {"page_classes": page_classes(rec), "diagrams": rendered.diagrams}
    if rendered.diagrams:
        got["csp"] = diagram_csp(csp)
    return got


def diagram_csp(csp: str) -> str:
    """The pages' CSP with inline styles allowed (a page with a diagram)."""
    return csp.replace("style-src 'self'", DIAGRAM_CSP_STYLE, 1)


__all__ = ["DIAGRAMS_JS", "MERMAID", "diagram_csp", "has_diagram", "line_breaks", "mermaid_files",
           "page_classes", "page_syntax", "pages_with_diagrams", "without_percent_comments"]
