"""The interactive graph page: the content index rendered into one
self-contained HTML file (``recordkit graph --html``).

The page is the template ``graph.html.j2`` into which the styles
(``graph.css``), the script (the parts listed in :data:`SCRIPT_PARTS`, joined
in that order inside one closure) and the index itself (as JSON in a
``<script type="application/json">`` element) are inlined.  Nothing is loaded
from the network; the page works from ``file://``.  Every file is looked up
through :mod:`recordkit.emit.templates`, so the user's templates folder can
replace any of them.

The index is embedded as given (the contract shared with the site), with every
``<`` written as ``\\u003c`` so no string in it can close the script element.
Kind colours come from the index (``meta.kinds``, i.e. the schema), never from
the script; the page's other colours, the canvas's too, are ``graph.css``'s,
light or dark as the system prefers or the reader chose (kept under
``theme_key``; the site's graph page shares the site's key and links back to
its home page, see :func:`render_graph_parts`).
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from .templates import get_template, read_text

__all__ = ["render_graph_html", "render_graph_parts", "write_graph_html", "page_script", "SCRIPT_PARTS", "TEMPLATE",
           "STYLESHEET", "THEME_KEY"]

TEMPLATE = "graph.html.j2"
STYLESHEET = "graph.css"
#: The localStorage key of the standalone page's light/dark choice (the
#: site's graph page keeps it under the site's own key, see
#: ``SiteBuild._graph_page``).
THEME_KEY = "rk-graph-theme"

#: The page's script, in the order its parts are joined.  Each part is a
#: section of one closure (``(function () { "use strict"; ... })()`` in the
#: template) and may use what an earlier part defined.
SCRIPT_PARTS = (
    "graph/data.js",       # the embedded index and configuration, kinds, relations, colours, adjacency
    "graph/layout.js",     # the force layout (Barnes-Hut), in a Web Worker or in time slices
    "graph/state.js",      # what the reader has chosen: filters, the visible set, focus, selection
    "graph/canvas.js",     # the view (camera) and drawing: the cached base layer, its worker, the overlay
    "graph/hit.js",        # which record is under the pointer (a uniform grid)
    "graph/focus.js",      # a record and its k-hop neighbourhood, with its own layout
    "graph/search.js",     # the search box: id and title words, ranked results
    "graph/panel.js",      # the selected record's panel: fields, relations, backlinks, checks
    "graph/controls.js",   # the sidebar: kind, status, tag, relation and origin filters, legend
    "graph/events.js",     # pointer, wheel, keyboard and resize handling
    "graph/api.js",        # window.recordkitGraph, what the browser tests and the bench drive
    "graph/start.js",      # first layout, first frame
)


def _finite(value: Any) -> Any:
    """Copy of ``value`` with non-finite floats as strings (JSON has no NaN)."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _script_json(value: Any) -> str:
    """JSON text that is safe inside a ``<script>`` element."""
    kw = dict(ensure_ascii=False, separators=(",", ":"), default=str)
    try:
        text = json.dumps(value, allow_nan=False, **kw)
    except ValueError:  # NaN or infinity somewhere in the fields
        text = json.dumps(_finite(value), allow_nan=False, **kw)
    # "<" occurs only inside JSON strings, where \u003c means the same thing;
    # this rules out "</script", "<!--" and "<script" in the element's text.
    return text.replace("<", "\\u003c")


def _inline_code(text: str, element: str, name: str) -> str:
    """Check that ``text`` (the file ``name``) can be inlined in a
    ``<script>``/``<style>`` element."""
    low = text.lower()
    if f"</{element}" in low or (element == "script" and "<!--" in low):
        raise ValueError(f"{name}: inlined {element} text must not contain '</{element}' or '<!--'")
    return text


def render_graph_html(index: dict, *, title: str = "recordkit graph",
                      focus: str | None = None, depth: int = 1,
                      templates: str | Path | None = None, **look: Any) -> str:
    """Return the interactive graph page for ``index`` as one HTML string.

    ``focus`` opens the page focused on that record and its ``depth``-hop
    neighbourhood (``recordkit graph --focus ID --depth K``).  ``templates``
    is the user's templates folder (``Config.templates``), searched before the
    package's.  ``look``: ``home``, ``home_label`` and ``theme_key``, as
    :func:`render_graph_parts` takes them.  Raises ``ValueError`` for an
    unknown focus id or a negative depth, ``jinja2.TemplateError`` for a
    broken template.
    """
    head, data, tail = render_graph_parts(index, title=title, focus=focus, depth=depth, templates=templates,
                                          **look)
    return head + b"".join(data).decode("utf-8", "surrogatepass") + tail


#: where the index goes in the rendered template (see :func:`render_graph_parts`)
_DATA_MARK = "\x00rk-graph-data\x00"


def render_graph_parts(index: dict, *, title: str = "recordkit graph",
                       focus: str | None = None, depth: int = 1,
                       templates: str | Path | None = None, home: str | None = None,
                       home_label: str | None = None,
                       theme_key: str = THEME_KEY) -> tuple[str, list[bytes], str]:
    """The page of :func:`render_graph_html` as the HTML before the index,
    the index's JSON as UTF-8 pieces, and the HTML after it: their
    concatenation is the page.  The JSON of a large record is tens of
    megabytes, and a Python string of it takes two or four bytes a
    character as soon as one title holds a character above U+00FF; made
    a slice at a time, and written as it is (the site's writer takes the
    pieces), no copy of the whole text is ever held: at 10,000 records this
    takes some 160 MB off a site build's peak memory.

    ``home`` is the URL (relative to the page) of the site the page belongs
    to: the header then links back to it, under ``home_label`` (the site's
    title).  ``theme_key`` is the localStorage key under which the page
    reads and keeps the reader's light/dark choice (the page follows the
    system's preference until the reader picks one): the site's graph page
    passes the site's own key, so one choice holds on every page."""
    if not isinstance(index, dict) or not isinstance(index.get("nodes"), list):
        raise ValueError("index must be a dict with a 'nodes' list")
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
        raise ValueError(f"depth must be a non-negative integer, not {depth!r}")
    if not isinstance(theme_key, str) or not theme_key:
        raise ValueError(f"theme_key must be a non-empty string, not {theme_key!r}")
    if focus is not None:
        if not any(n.get("id") == focus for n in index["nodes"]):
            raise ValueError(f"focus: no record with id {focus!r} in the index")
    meta = index.get("meta") or {}
    config = {"title": title, "focus": focus, "depth": depth,
              "record_title": meta.get("title"), "home": home, "theme_key": theme_key}
    look = {"home": home, "home_label": home_label, "theme_key": theme_key}
    page = get_template(TEMPLATE, templates).render(
        title=title,
        css=_inline_code(read_text(STYLESHEET, templates), "style", STYLESHEET),
        js=page_script(templates),
        data=_DATA_MARK,
        config=_script_json(config),
        **look,
    )
    if page.count(_DATA_MARK) == 1:
        head, tail = page.split(_DATA_MARK)
        low = head.lower()
        if low.rfind("<script>") <= low.rfind("</script") and low.rfind("<style>") <= low.rfind("</style"):
            return head, _script_json_parts(index), tail
    # a user's template that shows the data other than once, or inside an
    # inline script whose hash the page's policy needs: render it whole
    page = get_template(TEMPLATE, templates).render(
        title=title,
        css=_inline_code(read_text(STYLESHEET, templates), "style", STYLESHEET),
        js=page_script(templates),
        data=_script_json(index),
        config=_script_json(config),
        **look,
    )
    return page, [], ""


def _script_json_parts(value: Any, chunk: int = 1000) -> list[bytes]:
    """:func:`_script_json` of ``value`` encoded as UTF-8, in pieces: a
    dict's long lists are encoded ``chunk`` items at a time (the same text
    as one :func:`json.dumps`, which the tests check)."""
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        return [_script_json(value).encode("utf-8", "surrogatepass")]
    out = []
    first = True
    for key, item in value.items():
        lead = ("{" if first else ",") + _script_json(key) + ":"
        first = False
        if isinstance(item, list) and len(item) > chunk:
            out.append((lead + "[").encode("utf-8", "surrogatepass"))
            for i in range(0, len(item), chunk):
                text = _script_json(item[i:i + chunk])[1:-1]
                out.append((("," if i else "") + text).encode("utf-8", "surrogatepass"))
            out.append(b"]")
        else:
            out.append((lead + _script_json(item)).encode("utf-8", "surrogatepass"))
    out.append(b"}" if not first else b"{}")
    return out


def page_script(templates: str | Path | None = None) -> str:
    """The page's script: :data:`SCRIPT_PARTS` joined in order (each checked
    to be safe inside a ``<script>`` element)."""
    return "".join(_inline_code(read_text(name, templates), "script", name) for name in SCRIPT_PARTS)


def write_graph_html(index: dict, path, **kw) -> None:
    """Render the page and write it to ``path`` atomically (see
    :func:`recordkit.common.writes.atomic_write`), so a reader never sees a
    half-written page.  Keyword arguments go to :func:`render_graph_html`."""
    from ..common.writes import atomic_write
    atomic_write(Path(path), render_graph_html(index, **kw))
