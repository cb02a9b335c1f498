"""The one template environment every page is rendered with.

A template name is looked up

1. as ``recordkit/<name>``: always the package's own template, so a user's
   template can extend the one it replaces
   (``{% extends "recordkit/graph.html.j2" %}``);
2. in the user's templates folder (``templates = "path"`` in
   ``[tool.recordkit]`` or ``recordkit.toml``), so a file there with a
   package template's name replaces it;
3. in the package's ``recordkit/templates/`` folder.

Names are paths relative to the folder, with ``/``: ``graph.html.j2``,
``graph/search.js``, ``site/record.html.j2``.  Templates whose name ends in
``.html``, ``.htm``, ``.xml`` (optionally followed by ``.j2``) are
autoescaped; the page's scripts and styles are read as plain text with
:func:`read_text`, through the same lookup, so a user can replace one of them
too.  An undefined variable is an error (``StrictUndefined``), not an empty
string.
"""
from __future__ import annotations

import functools
from pathlib import Path

import jinja2

from ..config import ConfigError

__all__ = ["PACKAGE_PREFIX", "environment", "read_text", "get_template", "describe_error"]

PACKAGE_PREFIX = "recordkit"
_AUTOESCAPED = ("html", "htm", "xml", "html.j2", "htm.j2", "xml.j2")


def _key(user_dir) -> str | None:
    return None if user_dir is None else str(Path(user_dir).resolve())


def environment(user_dir: str | Path | None = None) -> jinja2.Environment:
    """The environment for ``user_dir`` (the user's templates folder, or
    ``None`` for the package's templates only).  One environment per folder is
    kept, so compiled templates are reused; a template edited on disk is
    reloaded (Jinja2 checks its modification time).

    Raises :class:`~recordkit.config.ConfigError` when ``user_dir`` is not a
    folder: a misspelt path would otherwise silently give the package's
    pages."""
    key = _key(user_dir)
    if key is not None and not Path(key).is_dir():
        raise ConfigError(f"templates: {user_dir} is not a folder")
    return _environment(key)


@functools.lru_cache(maxsize=16)
def _environment(user_dir: str | None) -> jinja2.Environment:
    package = jinja2.PackageLoader("recordkit", "templates")
    loaders: list[jinja2.BaseLoader] = [jinja2.PrefixLoader({PACKAGE_PREFIX: package})]
    if user_dir is not None:
        loaders.append(jinja2.FileSystemLoader(user_dir, encoding="utf-8"))
    loaders.append(package)
    return jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders),
        autoescape=jinja2.select_autoescape(enabled_extensions=_AUTOESCAPED,
                                            disabled_extensions=(), default_for_string=True,
                                            default=False),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )


def get_template(name: str, user_dir: str | Path | None = None) -> jinja2.Template:
    """The template ``name``, the user's if their folder has one."""
    return environment(user_dir).get_template(name)


def read_text(name: str, user_dir: str | Path | None = None) -> str:
    """The text of the file ``name`` (a script, a stylesheet), looked up as a
    template is but not rendered.  Raises ``jinja2.TemplateNotFound``."""
    env = environment(user_dir)
    source, _filename, _uptodate = env.loader.get_source(env, name)
    return source


def describe_error(exc: jinja2.TemplateError) -> str:
    """``file:line: message`` for an error in a template (a syntax error, an
    undefined variable, a missing include), for a command to print instead of
    a traceback."""
    if isinstance(exc, jinja2.TemplateSyntaxError):
        where = exc.filename or exc.name or "<template>"
        return f"{where}:{exc.lineno}: {exc.message}"
    if isinstance(exc, jinja2.TemplateNotFound):
        return f"template not found: {exc.name}"
    # Jinja2 rewrites the traceback so that a frame of a template carries the
    # template's file name and line; the innermost such frame is the culprit.
    where = None
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_name in ("top-level template code", "template") or \
                code.co_filename.endswith((".j2", ".html", ".htm", ".xml")):
            where = f"{code.co_filename}:{tb.tb_lineno}"
        tb = tb.tb_next
    return f"{where}: {exc}" if where else str(exc)
