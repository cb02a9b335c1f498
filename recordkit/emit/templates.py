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
too.  An undefined variable is an error, not an empty string (a missing
attribute or key of a value that is defined is empty and false: a page's
data leaves out what a record does not have).

The static site (``recordkit build``) renders through the same environment:
its pages are ``site/<page>.html.j2`` in the package, and the site's own
templates folder (``[site] templates``) holds files named as the pages are
(``record.html.j2``, ``assets/site.css``).  For the site a bare name
(``record.html.j2``, ``base.html.j2``, which the site's templates extend and
import) is looked up in the user's folder, then in the site's templates
folder, then in the package's ``site/`` folder; the graph page of the site
is the same page as ``recordkit graph --html``, the user's folder honoured.
Blocks are trimmed (``trim_blocks``, ``lstrip_blocks``) for every page.
"""
from __future__ import annotations

import functools
import os
import hashlib
import json
from pathlib import Path

import jinja2

from ..config import ConfigError
from ..common.walk import every_path

__all__ = ["PACKAGE_PREFIX", "environment", "read_text", "get_template", "describe_error", "site_folders",
           "site_fingerprint", "site_assets", "unusable_files", "script_json"]

PACKAGE_PREFIX = "recordkit"
PACKAGE_DIR = Path(__file__).resolve().parents[1] / "templates"
#: the site's pages in the package
SITE_DIR = PACKAGE_DIR / "site"
_AUTOESCAPED = ("html", "htm", "xml", "html.j2", "htm.j2", "xml.j2")


def _key(user_dir) -> str | None:
    return None if user_dir is None else str(Path(user_dir).resolve())


def environment(user_dir: str | Path | None = None, site_dir: str | Path | None = None) -> jinja2.Environment:
    """The environment for ``user_dir`` (the user's templates folder, or
    ``None`` for the package's templates only) and, for the static site,
    ``site_dir`` (the site's own templates folder, ``[site] templates``).
    One environment per pair of folders is kept, so compiled templates are
    reused; a template edited on disk is reloaded (Jinja2 checks its
    modification time).

    Raises :class:`~recordkit.config.ConfigError` when a folder is not a
    folder: a misspelt path would otherwise silently give the package's
    pages."""
    key = _key(user_dir)
    if key is not None and not Path(key).is_dir():
        raise ConfigError(f"templates: {user_dir} is not a folder (the configuration's templates = names it)")
    site_key = _key(site_dir)
    if site_key is not None and not Path(site_key).is_dir():
        raise ConfigError(f"site templates: {site_dir} is not a folder")
    return _environment(key, site_key, templates_listing(key, site_key))


def templates_listing(user_dir: str | None, site_dir: str | None = None) -> tuple:
    """The names of the files in the user's template folders: a template
    added (or removed) there makes a new environment.  (Jinja2 checks a
    loaded template's own file only: an override added beside it while
    ``serve`` ran was never picked up, the package's page kept.)"""
    out = []
    for folder in (user_dir, user_dir and str(Path(user_dir, "site")), site_dir):
        if folder is not None:
            try:
                out.append((folder, tuple(sorted(os.listdir(folder)))))
            except OSError:
                out.append((folder, None))
    return tuple(out)


@functools.lru_cache(maxsize=16)
def _environment(user_dir: str | None, site_dir: str | None = None, listing: tuple = ()) -> jinja2.Environment:
    package = jinja2.FileSystemLoader(str(PACKAGE_DIR), encoding="utf-8")
    loaders: list[jinja2.BaseLoader] = [jinja2.PrefixLoader({PACKAGE_PREFIX: package})]
    if user_dir is not None:
        loaders.append(jinja2.FileSystemLoader(user_dir, encoding="utf-8"))
    if user_dir is not None and Path(user_dir, "site").is_dir():
        loaders.append(jinja2.FileSystemLoader(str(Path(user_dir, "site")), encoding="utf-8"))
    if site_dir is not None:
        loaders.append(jinja2.FileSystemLoader(site_dir, encoding="utf-8"))
    loaders.append(package)
    # the site's pages by their bare names (``record.html.j2``), as its
    # templates and the site's templates folder name them
    loaders.append(jinja2.FileSystemLoader(str(SITE_DIR), encoding="utf-8"))
    env = _Environment(
        loader=jinja2.ChoiceLoader(loaders),
        autoescape=jinja2.select_autoescape(enabled_extensions=_AUTOESCAPED,
                                            disabled_extensions=(), default_for_string=True,
                                            default=False),
        undefined=_Undefined,
        keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True,
    )
    env.filters["tojson_script"] = script_json
    from .site.views import slug
    env.filters["slug"] = slug
    from .site.titles import title_html, title_text
    env.filters["title_html"] = title_html
    env.filters["title_text"] = title_text
    return env


#: what ``getattr`` finds on a dict before its keys (its methods)
_DICT_ATTRIBUTES = frozenset(dir(dict))


class _Environment(jinja2.Environment):
    """Jinja2's environment, with ``x.name`` on a page's data (plain dicts)
    looked up as the key at once: Jinja2 first tries the attribute, and the
    exception a dict raises for it cost 3% of a site build.  The same
    value as Jinja2's: a dict has no attribute but its methods (those
    names go the usual way), and a missing key is the same undefined."""

    def getattr(self, obj, attribute):
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)


class _Undefined(jinja2.ChainableUndefined):
    """A variable that is not defined is an error wherever it is used; a
    missing attribute or key of a defined value (``r.standing.state`` when
    a page has no standing) is empty and false, as a page's data leaves out
    what a record does not have."""
    __slots__ = ()

    def _fail_if_variable(self):
        if self._undefined_obj is jinja2.utils.missing:
            self._fail_with_undefined_error()

    def __str__(self) -> str:
        self._fail_if_variable()
        return ""

    def __bool__(self) -> bool:
        self._fail_if_variable()
        return False

    def __iter__(self):
        self._fail_if_variable()
        return iter(())

    def __len__(self) -> int:
        self._fail_if_variable()
        return 0

    def __html__(self) -> str:
        return str(self)

    def __getattr__(self, name: str):
        if name[:2] == "__":
            raise AttributeError(name)
        self._fail_if_variable()
        return self

    def __getitem__(self, name):
        self._fail_if_variable()
        return self

    __eq__ = jinja2.StrictUndefined.__eq__
    __ne__ = jinja2.StrictUndefined.__ne__
    __hash__ = jinja2.StrictUndefined.__hash__


def script_json(value) -> str:
    """JSON for a ``<script type="application/json">`` element: no ``<``
    can end the element or open a comment."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    from markupsafe import Markup
    return Markup(text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def site_folders(site_dir: str | Path | None = None, user_dir: str | Path | None = None) -> list[Path]:
    """Where the site's pages and assets are looked up, first to last: the
    user's templates folder's ``site/``, the site's templates folder, the
    package's ``site/``."""
    out = []
    if user_dir is not None and (Path(user_dir) / "site").is_dir():
        out.append(Path(user_dir) / "site")
    if site_dir is not None and Path(site_dir).is_dir():
        out.append(Path(site_dir))
    return out + [SITE_DIR]


def site_fingerprint(site_dir: str | Path | None = None, user_dir: str | Path | None = None) -> str:
    """A hash of every site template and asset in use (and of the user's
    templates folder, which can replace the graph page and any page): when
    one changes, every page is rendered again."""
    h = hashlib.sha1()
    folders = site_folders(site_dir, user_dir)
    if user_dir is not None and Path(user_dir).is_dir():
        folders.append(Path(user_dir))
    for folder in folders:
        for p in sorted(every_path(folder)):
            if p.is_file():
                h.update(p.relative_to(folder).as_posix().encode())
                h.update(p.read_bytes())
    return h.hexdigest()


def unusable_files(site_dir: str | Path | None = None, user_dir: str | Path | None = None) -> list[tuple[str, str]]:
    """``(path, what it is)`` of each entry of the user's templates folders
    that is neither a file nor a folder (a named pipe, a device, a socket, a
    link to one or to nothing): never read (a named pipe would hang the
    build), so the template or asset of that name is the package's."""
    import os
    import stat

    from ..common.reading import file_kind
    out = []
    folders = [f for f in site_folders(site_dir, user_dir) if f != SITE_DIR]
    if user_dir is not None and Path(user_dir).is_dir():
        folders.append(Path(user_dir))
    seen = set()
    for folder in folders:
        for p in sorted(every_path(folder)):
            if p in seen:
                continue
            seen.add(p)
            try:
                mode = os.stat(p).st_mode
            except OSError:
                out.append((str(p), "a link to nothing"))
                continue
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                out.append((str(p), file_kind(mode)))
    return out


def site_assets(site_dir: str | Path | None = None, user_dir: str | Path | None = None) -> dict[str, bytes]:
    """``assets/...`` files of the site: the package's, each replaced by the
    user's file of the same path."""
    out: dict[str, bytes] = {}
    for folder in reversed(site_folders(site_dir, user_dir)):
        base = folder / "assets"
        if base.is_dir():
            for p in sorted(every_path(base)):
                if p.is_file():
                    out["assets/" + p.relative_to(base).as_posix()] = p.read_bytes()
    return out


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
        return f"{where}:{exc.lineno}: not valid template syntax: {exc.message}"
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
    # recordkit's words; Jinja2's message (its own wording) as the detail
    what = "the template uses a value that is not defined" if isinstance(exc, jinja2.UndefinedError) \
        else "the template failed"
    return f"{where or 'a template'}: {what}: {exc}"
