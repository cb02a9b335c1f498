"""``graph.html``: the interactive graph page of the published records,
linking into the site (and back to its home page), in the site's light or
dark theme; its inline scripts and styles are allowed by hash.  Kept when
no node's graph signature (:func:`..changes.find_candidates`), check
verdict or the page's code changed."""
from __future__ import annotations

import base64
import hashlib
import re

from ...graph_page import SCRIPT_PARTS, TEMPLATE
from ...templates import read_text
from ..context import BuildContext
from ..views import scrubbed
from ..writer import digest


def emit(ctx: BuildContext) -> None:
    site = ctx.site
    results = site.data.results
    graph_sig = ctx.changes.graph_sig
    page_code = "".join(read_text(n, ctx.user_templates) for n in (TEMPLATE, "graph.css", *SCRIPT_PARTS))
    key = digest((ctx.changes.salt + page_code + "\n".join(f"{r}\t{graph_sig[r]}" for r in site.ids) + repr(
        sorted((cid, r.verdict, r.stale, r.discrepancy) for cid, r in results.items()))).encode(
        "utf-8", "surrogatepass"))
    if ctx.writer.unchanged("graph.html", key):
        return
    from ....views.index import build_index
    from ...graph_page import render_graph_parts
    urls = {rid: site.url(rid) for rid in site.ids}
    index = build_index(site.corpus, site_urls=urls, title=ctx.opts.title, results=site.data.results)
    _published_only(index, site.published)
    index["nodes"] = scrubbed(site, index["nodes"])
    index["meta"]["counts"] = {"nodes": len(index["nodes"]), "links": len(index["links"])}
    index["meta"]["generated"] = None
    # graph.html sits at the site's root: its header links back to the
    # home page, and its light/dark toggle shares the site's choice (the
    # localStorage key of assets/theme.js and site.js)
    head, data, tail = render_graph_parts(index, title=f"{ctx.opts.title} — graph",
                                          templates=ctx.user_templates, home="index.html",
                                          home_label=ctx.opts.title, theme_key="rk-theme")
    del index
    ctx.writer.put("graph.html", [_with_csp(head, tail), *data, tail], key=key)


def _published_only(index: dict, pub) -> None:
    """The content index's nodes, links, backlinks, relations and standing
    paths, of published records only."""
    index["nodes"] = [n for n in index["nodes"] if n["id"] in pub]
    index["links"] = [l for l in index["links"] if l["source"] in pub and l["target"] in pub]
    for n in index["nodes"]:
        n["backlinks"] = {k: [x for x in v if x in pub] for k, v in n["backlinks"].items()}
        n["backlinks"] = {k: v for k, v in n["backlinks"].items() if v}
        if any(x not in pub for x in n.get("standing_path") or []):
            n["standing_path"] = [x for x in n["standing_path"] if x in pub]
            n["standing_detail"] = None
        n["relations"] = {k: [x for x in v if x in pub] for k, v in n["relations"].items()}
        n["relations"] = {k: v for k, v in n["relations"].items() if v}
        if isinstance((n.get("promote") or {}).get("requires"), list):
            for q in n["promote"]["requires"]:
                if q.get("by") and q["by"] not in pub:
                    q["by"] = None


def _with_csp(page: str, *rest: str) -> str:
    """The graph page with a Content-Security-Policy that allows its own
    inline script and style by hash, its blob workers, and nothing else.
    ``rest``: the parts of the page after ``page`` that hold inline
    scripts or styles (the index between them holds no ``<``, so no
    element starts in it)."""
    hashes = {"script": [], "style": []}
    for kind in ("script", "style"):
        for m in (m for part in (page, *rest) for m in re.finditer(rf"<{kind}>(.*?)</{kind}>", part, re.S)):
            h = base64.b64encode(hashlib.sha256(m.group(1).encode("utf-8")).digest()).decode()
            hashes[kind].append(f"'sha256-{h}'")
    csp = ("default-src 'none'; script-src " + " ".join(hashes["script"]) + "; style-src 'unsafe-inline'; "
           "worker-src blob:; img-src data:; connect-src 'none'; base-uri 'none'; form-action 'none'")
    return page.replace('<meta charset="utf-8">',
                        f'<meta charset="utf-8">\n<meta http-equiv="Content-Security-Policy" content="{csp}">', 1)
