"""The site's settings: ``[tool.recordkit.site]`` (or ``[site]`` in
recordkit.toml) over the defaults, then the command line's."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ...config import ConfigError, where

KEYS = {"out", "title", "exclude", "exclude_statuses", "templates", "toc_min_headings", "dates",
        "recent", "feed_entries", "urls", "explorer", "attachment_max_size",
        "raw_html"}


@dataclass
class SiteOptions:
    title: str = "recordkit"
    site_url: str | None = None          # absolute URL of the site's root: feed and sitemap
    out: Path = Path("site")
    exclude: list[str] = field(default_factory=list)            # globs on the file's path or the id
    exclude_statuses: list[str] = field(default_factory=list)
    templates: Path | None = None        # the user's templates folder (overrides by file name)
    toc_min_headings: int = 4            # a table of contents from this many headings on
    dates: str = "fields"                # "fields" (updated/created) or "git"
    recent: int = 20
    feed_entries: int = 50
    jobs: int | None = None              # processes for rendering (default: every core, up to 4)
    progress: bool = False               # a progress bar on stderr
    force: bool = False                  # write into a non-empty folder that is not a recordkit site
    urls: str = "auto"                   # where pages are: recordkit, quartz, obsidian-publish (urls.py)
    explorer: bool | None = None         # the folder tree on every page (None: where ids are paths)
    attachment_max_size: int = 50 * 1024 * 1024   # bytes: a larger attachment is not copied
    #: raw HTML in bodies: "escape" (as text) or "sanitize" (through the
    #: allow-list); None: as the schema says (its preset's default)
    raw_html: str | None = None


def site_options(config, **overrides) -> SiteOptions:
    """The options for ``config`` (a :class:`recordkit.config.Config`);
    ``overrides`` that are not None win."""
    from ...config import resolved_root
    resolved_root(config)       # a root that is a symbolic link loop: a ConfigError, not a RuntimeError later
    table = config.raw.get("site", {})    # (false, [], "" are no table either)
    if not isinstance(table, dict):
        raise ConfigError(f"{where(config.file, 'site')}: site must be a table ([site] in recordkit.toml, "
                          f"[tool.recordkit.site] in pyproject.toml)")
    unknown = set(table) - KEYS
    if unknown:
        raise ConfigError(f"{config.file}: unknown site key(s): {', '.join(sorted(unknown))}")

    def at(key):
        return where(config.file, key, "site")

    def path(key, default=None):
        v = table.get(key, default)
        if not isinstance(v, str) or not v.strip():
            raise ConfigError(f"{at(key)}: site.{key} must be the path of a folder, not {v!r}")
        p = Path(v)
        return p if p.is_absolute() else config.base / p

    def strings(key):
        v = table.get(key, [])
        if isinstance(v, str):
            v = [v]
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise ConfigError(f"{at(key)}: site.{key} must be a list of strings")
        return v

    if "title" in table and not isinstance(table["title"], str):
        raise ConfigError(f"{at('title')}: site.title must be a string")
    title = table["title"] if "title" in table else \
        config.site_title if "site_title" in config.raw else folder_title(config)
    opts = SiteOptions(title=title,
                       site_url=config.site_url or None,
                       out=path("out", "site"),
                       exclude=strings("exclude"), exclude_statuses=strings("exclude_statuses"),
                       templates=path("templates") if table.get("templates") not in (None, "") else None)
    if opts.templates is not None and not opts.templates.is_dir():
        # (said here, where the key's line is known; the environment would say it without)
        raise ConfigError(f"{at('templates')}: site.templates {opts.templates} is not a folder")
    for key in ("toc_min_headings", "recent", "feed_entries", "attachment_max_size"):
        if key in table:
            v = table[key]
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise ConfigError(f"{at(key)}: site.{key} must be a non-negative integer")
            setattr(opts, key, v)
    _url_keys(opts, table, at)
    if "raw_html" in table:
        if table["raw_html"] not in ("escape", "sanitize"):
            raise ConfigError(f"{at('raw_html')}: site.raw_html must be \"escape\" (raw HTML shown as text) or "
                              f"\"sanitize\" (rendered through an allow-list)")
        opts.raw_html = table["raw_html"]
    if "dates" in table:
        if table["dates"] not in ("fields", "git"):
            raise ConfigError(f"{at('dates')}: site.dates must be \"fields\" or \"git\"")
        opts.dates = table["dates"]
    for k, v in overrides.items():
        if v is not None:
            setattr(opts, k, Path(v) if k in ("out", "templates") else v)
    if opts.site_url is not None:
        if not isinstance(opts.site_url, str) or not opts.site_url.startswith(("http://", "https://")):
            raise ConfigError(f"{where(config.file, 'site_url')}: site_url must be an http(s) URL (the address "
                              f"the site is published at, such as \"https://example.org/notes/\"), not "
                              f"{opts.site_url!r}")
        if not opts.site_url.endswith("/"):
            opts.site_url += "/"
    return opts


def _url_keys(opts: SiteOptions, table: dict, at) -> None:
    """``urls`` (docs/site.md, "URLs") and ``explorer`` ("The explorer")."""
    from .urls import SETTINGS
    if "urls" in table:
        if table["urls"] not in SETTINGS:
            raise ConfigError(f"{at('urls')}: site.urls must be one of "
                              f"{', '.join(repr(s) for s in SETTINGS)}, not {table['urls']!r}")
        opts.urls = table["urls"]
    if "explorer" in table:
        if not (isinstance(table["explorer"], bool) or table["explorer"] == "auto"):
            raise ConfigError(f"{at('explorer')}: site.explorer must be true, false or \"auto\", "
                              f"not {table['explorer']!r}")
        opts.explorer = None if table["explorer"] == "auto" else table["explorer"]


def folder_title(config) -> str:
    """The site's title when the configuration names none: the name of the
    project's folder, that is the record root's, or the folder of the
    configuration file when the root is inside it (``content/`` of a
    Quartz site, ``docs/decisions/`` of a MADR log, ``records/``: the
    project is named by its folder, not by where it keeps its notes)."""
    try:
        root = Path(config.root).resolve()
        base = Path(config.base).resolve() if config.file is not None else None
    except (OSError, RuntimeError):
        return "recordkit"
    folder = base if base is not None and (root == base or base in root.parents) else root
    return folder.name or "recordkit"
