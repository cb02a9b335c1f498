"""Render the content index into one self-contained interactive HTML page.

The page is a Jinja2 template (``recordkit/templates/graph.html.j2``) into which the
script (``graph.js``), the styles (``graph.css``) and the index itself (as JSON
in a ``<script type="application/json">`` element) are inlined.  Nothing is
loaded from the network; the page works from ``file://``.

The index is embedded as given (the contract shared with the site), with every
``<`` written as ``\\u003c`` so no string in it can close the script element.
"""
from __future__ import annotations

import functools
import json
import math
from pathlib import Path
from typing import Any

import jinja2

__all__ = ["render_graph_html", "write_graph_html", "load_template"]

_TEMPLATE_FILES = ("graph.html.j2", "graph.js", "graph.css")


def _template_dir_candidates():
    # recordkit/templates/, package data next to this package.
    yield Path(__file__).resolve().parent.parent / "templates"


@functools.lru_cache(maxsize=None)
def load_template(name: str) -> str:
    """Return the text of one of the page's template files."""
    if name not in _TEMPLATE_FILES:
        raise ValueError(f"not a graph page template: {name}")
    for folder in _template_dir_candidates():
        try:
            candidate = folder / name
            if candidate.is_file():
                return candidate.read_text(encoding="utf-8")
        except (OSError, TypeError):  # pragma: no cover - unusual resource readers
            continue
    raise FileNotFoundError(f"graph page template {name!r} not found")


@functools.lru_cache(maxsize=None)
def _environment_template() -> jinja2.Template:
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined,
                             keep_trailing_newline=True)
    return env.from_string(load_template("graph.html.j2"))


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


def _inline_code(text: str, element: str) -> str:
    """Check that ``text`` can be inlined in a ``<script>``/``<style>`` element."""
    low = text.lower()
    if f"</{element}" in low or (element == "script" and "<!--" in low):
        raise ValueError(f"inlined {element} text must not contain '</{element}' or '<!--'")
    return text


def render_graph_html(index: dict, *, title: str = "recordkit graph",
                      focus: str | None = None, depth: int = 1) -> str:
    """Return the interactive graph page for ``index`` as one HTML string.

    ``focus`` opens the page focused on that record and its ``depth``-hop
    neighbourhood (``recordkit graph --focus ID --depth K``).  Raises
    ``ValueError`` for an unknown focus id or a negative depth.
    """
    if not isinstance(index, dict) or not isinstance(index.get("nodes"), list):
        raise ValueError("index must be a dict with a 'nodes' list")
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
        raise ValueError(f"depth must be a non-negative integer, not {depth!r}")
    if focus is not None:
        if not any(n.get("id") == focus for n in index["nodes"]):
            raise ValueError(f"focus: no record with id {focus!r} in the index")
    meta = index.get("meta") or {}
    config = {"title": title, "focus": focus, "depth": depth,
              "record_title": meta.get("title")}
    return _environment_template().render(
        title=title,
        css=_inline_code(load_template("graph.css"), "style"),
        js=_inline_code(load_template("graph.js"), "script"),
        data=_script_json(index),
        config=_script_json(config),
    )


def write_graph_html(index: dict, path, **kw) -> None:
    """Render the page and write it to ``path`` atomically (see
    :func:`recordkit.edit.atomic_write`), so a reader never sees a
    half-written page.  Keyword arguments go to :func:`render_graph_html`."""
    from ..edit import atomic_write
    atomic_write(Path(path), render_graph_html(index, **kw))
