"""The Jinja2 environment of the site: the user's templates folder first,
then the package's ``recordkit/templates/site/`` (a page type is overridden
by a file of the same name).  Autoescaping is on for every template.

Kept small on purpose: when ``recordkit.emit.templates`` (the environment
shared by every emitter) lands, :func:`environment` becomes a call to it.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import jinja2

PACKAGE_DIR = Path(__file__).resolve().parents[2] / "templates" / "site"


def folders(user: Path | None) -> list[Path]:
    return ([user] if user is not None and Path(user).is_dir() else []) + [PACKAGE_DIR]


def environment(user: Path | None = None) -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(p) for p in folders(user)]),
        autoescape=True, undefined=jinja2.ChainableUndefined, trim_blocks=True, lstrip_blocks=True,
        keep_trailing_newline=True)
    env.filters["tojson_script"] = script_json
    from .views import slug
    env.filters["slug"] = slug
    return env


def script_json(value) -> str:
    """JSON for a ``<script type="application/json">`` element: no ``<``
    can end the element or open a comment."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    from markupsafe import Markup
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def fingerprint(user: Path | None) -> str:
    """A hash of every template and asset in use: when one changes, every
    page is rendered again."""
    h = hashlib.sha1()
    for folder in folders(user):
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                h.update(p.relative_to(folder).as_posix().encode())
                h.update(p.read_bytes())
    return h.hexdigest()


def asset_files(user: Path | None) -> dict[str, bytes]:
    """``assets/...`` files to copy: the package's, each replaced by the
    user's file of the same path."""
    out: dict[str, bytes] = {}
    for folder in reversed(folders(user)):
        base = folder / "assets"
        if base.is_dir():
            for p in sorted(base.rglob("*")):
                if p.is_file():
                    out["assets/" + p.relative_to(base).as_posix()] = p.read_bytes()
    return out
