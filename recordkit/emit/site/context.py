"""What every step of a site build reads: :class:`BuildContext` (the site,
the options, the writer, the templates, the report, the progress bar), made
once a build by :func:`open_context`; and the build's report and errors."""
from __future__ import annotations

import os
import sys
import time
import traceback
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Callable

import jinja2

from ...corpus.resolve import is_research_default
from ..templates import environment, site_fingerprint, templates_listing, unusable_files
from . import page_links
from .home import count_noun, counted
from .markdown import BodyRenderer
from .options import SiteOptions
from .search import bucket_count
from .state import BuildState
from .syntax import line_breaks
from .views import Site
from .writer import SiteWriter

#: No script but the site's own files, no inline handler, nothing from the network.
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self'; "
       "font-src 'self'; connect-src 'none'; base-uri 'none'; form-action 'none'")


@dataclass
class BuildReport:
    out: Path
    records: int = 0                 # published records (pages)
    excluded: int = 0
    #: (why, how many) of the records kept out (``draft: true``, ``publish: false``, ...)
    excluded_reasons: list = field(default_factory=list)
    #: what the vault's tool settings kept out of the walk (its template folders, its trash)
    not_walked: list = field(default_factory=list)
    written: list = field(default_factory=list)
    kept: int = 0
    removed: list = field(default_factory=list)
    rendered: int = 0                # record pages rendered this time
    seconds: float = 0.0
    timings: dict = field(default_factory=dict)
    load_diagnostics: int = 0
    #: files of the record that could not be read as records (bad YAML, not
    #: UTF-8, unreadable): not in the site
    unreadable: int = 0
    #: files a folder that was no site held, which a forced build wrote over
    replaced: list = field(default_factory=list)
    #: (path, what it is) of each entry of the user's templates folders that
    #: is no file (a named pipe, a device, a dangling link): not read, the
    #: package's template or asset of its name used instead
    unusable_templates: list = field(default_factory=list)
    #: pages that could not have the URL their style gives them, aliases with no redirect (urls.py)
    url_warnings: list = field(default_factory=list)
    #: (path, line, col, target, why) of each attachment link of a published
    #: page that was refused (out of the root, hidden, too large): named as text
    attachments_refused: list = field(default_factory=list)

    def summary(self) -> str:
        return (f"{self.records} record pages ({self.rendered} rendered), {len(self.written)} files written, "
                f"{self.kept} unchanged, {len(self.removed)} removed, "
                f"{self.excluded} record{'' if self.excluded == 1 else 's'} kept out{self._why()}; "
                f"{self.seconds:.2f} s")

    def _why(self) -> str:
        why = ", ".join(f"{n} {why}" for why, n in self.excluded_reasons)
        if self.not_walked:
            why += ("; " if why else "") + "not read: " + ", ".join(self.not_walked)
        return f" ({why})" if why else ""


class Progress:
    def __init__(self, total: int, enabled: bool):
        self.total, self.enabled, self.done, self.last = total, enabled and total > 200, 0, 0.0

    def step(self, n: int = 1) -> None:
        self.done += n
        if self.enabled and (time.monotonic() - self.last > 0.1 or self.done >= self.total):
            self.last = time.monotonic()
            width = 30
            fill = int(width * self.done / max(1, self.total))
            sys.stderr.write(f"\r[{'#' * fill}{'.' * (width - fill)}] {self.done}/{self.total} pages")
            sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\n")


class TemplateFailed(Exception):
    """A page template raised an error: the message names the template's
    file and line, and the page it was rendering."""


def template_failed(exc: BaseException, page: str) -> TemplateFailed:
    """``exc`` (raised while rendering ``page``) as :class:`TemplateFailed`,
    located at the innermost template line of its traceback (Jinja gives
    template code its file name and line in a traceback)."""
    where = None
    if getattr(exc, "filename", None) and getattr(exc, "lineno", None):      # a TemplateSyntaxError
        where = f"{exc.filename}:{exc.lineno}"
    else:
        for frame in traceback.extract_tb(exc.__traceback__):
            if frame.filename.endswith(".j2"):
                where = f"{frame.filename}:{frame.lineno}"
    msg = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    # recordkit's words; Jinja2's message (its own wording) as the detail
    if isinstance(exc, jinja2.TemplateSyntaxError):
        what = "not valid template syntax"
    elif isinstance(exc, jinja2.UndefinedError):
        what = "the template uses a value that is not defined"
    else:
        what = f"the template raised {type(exc).__name__}"
    return TemplateFailed(f"template error: {where or 'a template'}: {what}: {msg} (rendering {page})")


class BuildCancelled(Exception):
    """``cancel()`` said stop (a newer change superseded this build): what
    was written is whole files, and the manifest is the last build's, so the
    next build puts everything right."""


@dataclass
class BuildContext:
    """One build: what it builds from and with, and what its steps hand on
    to each other (set as the pipeline goes: :mod:`.changes` sets
    ``changes``, :mod:`.queries` the query blocks, the list pages ``rows``)."""
    site: Site
    opts: SiteOptions
    writer: SiteWriter
    report: BuildReport
    state: BuildState
    #: the templates: the one environment, the user's folder, their fingerprint
    env: jinja2.Environment
    user_templates: Any
    fingerprint: str
    timings: dict
    #: polled between pages: true stops the build (:class:`BuildCancelled`)
    cancel: Callable[[], bool] | None = None
    #: this process builds the site again (serve): see :func:`.build.build_site`
    resident: bool = False
    #: the text and preview buckets
    buckets: int = 1
    #: wikilinks are [[label|target]]: the search texts, previews and
    #: backlink sentences show the label, as the pages do
    label_first: bool = False
    wikilink_order: str = ""
    #: links are ids (the research defaults): a backlink's sentence finds
    #: its mention where the loader found it (see views.mention_sentence)
    mention_places: bool = False
    renderer: BodyRenderer | None = None
    #: what every page's template is given
    common: dict = field(default_factory=dict)
    changes: Any = None                 # .changes.Changes
    #: id -> the headings and blocks of its page (Anchors), False: none
    anchors: dict = field(default_factory=dict)
    #: (id, backlink sentences) of the page a page key saw last (see changes.page_key)
    sentences: tuple = (None, {})
    #: published records with a ```query block -> their page key; the database they query
    query_keys: dict = field(default_factory=dict)
    query_db: str | None = None
    query_dir: str | None = None
    #: the list pages' rows (the feed and the sitemap read them)
    rows: dict | None = None
    others_done: bool = False
    #: the list pages are made beside the search index's helper (an incremental build)
    lists_elsewhere: bool = False
    #: the attachments the published pages name (.attachments.Plan)
    attachments: Any = None

    @property
    def progress(self) -> bool:
        return self.opts.progress


def open_context(site: Site, opts: SiteOptions, writer: SiteWriter, report: BuildReport, timings: dict,
                 state: BuildState, cancel=None, resident: bool = False) -> BuildContext:
    """The context of one build: the template environment (one a process
    and templates listing, kept in ``state``), the body renderer, what every
    page shows."""
    user_templates = site.corpus.config.templates if site.corpus.config is not None else None
    ekey = (str(user_templates), str(opts.templates),
            templates_listing(str(user_templates) if user_templates else None,
                              str(opts.templates) if opts.templates else None))
    envs = state.environments
    env = envs.get(ekey)
    if env is None:
        if len(envs) > 8:
            envs.clear()
        env = envs[ekey] = environment(user_templates, opts.templates)
    report.unusable_templates = unusable_files(opts.templates, user_templates)
    order = site.corpus.schema.links.wikilink_order
    noun = count_noun(site)
    buckets = bucket_count(len(site.ids))
    ctx = BuildContext(site, opts, writer, report, state, env, user_templates,
                       site_fingerprint(opts.templates, user_templates), timings, cancel, resident, buckets,
                       label_first=order == "label-first", wikilink_order=order,
                       mention_places=is_research_default(site.corpus.schema.links))
    ctx.renderer = BodyRenderer(site.corpus.schema.mention_re, site.resolve, prefix="../",
                                wikilink_order=order, resolve_file=site.resolve_file,
                                resolve_link=site.resolve_link, embed=partial(page_links.embedded, ctx),
                                extensionless=site.corpus.schema.links.markdown_extensionless,
                                has_anchor=partial(page_links.has_anchor, ctx),
                                line_breaks=line_breaks(site.corpus),
                                raw_html=(opts.raw_html or site.corpus.schema.raw_html) == "sanitize",
                                tag_url=site.tag_url if site.corpus.schema.inline_tags else None,
                                shows_id=partial(_shows_id, site))
    ctx.common = {"site_title": opts.title, "kinds": site.kinds, "csp": CSP, "buckets": buckets,
                  # links: see changes.find_candidates; noun, text: "note"/"record", "1 note", "8 records"
                  "counts": {"records": len(site.ids), "links": None, "noun": noun,
                             "text": counted(len(site.ids), noun)},
                  "feed": bool(opts.site_url), "generated": None}
    return ctx


def keep_compiled_templates(ctx: BuildContext) -> None:
    """Compiled templates kept in the cache folder (Jinja2's bytecode
    cache: by template and a checksum of its source), so that a fresh
    build that renders a few pages does not compile every template they
    use again (0.2 s)."""
    env = ctx.env
    if ctx.site.corpus.config is None:
        return
    folder = str(Path(ctx.site.corpus.config.cache_dir) / "site-templates")
    if not (isinstance(env.bytecode_cache, _TemplateCache) and env.bytecode_cache.directory == folder):
        env.bytecode_cache = _TemplateCache(folder)


class _TemplateCache(jinja2.FileSystemBytecodeCache):
    """Jinja2's bytecode cache in a folder that may be missing or
    unwritable: then templates are compiled as without it."""

    def load_bytecode(self, bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:
            bucket.reset()

    def dump_bytecode(self, bucket) -> None:
        try:
            os.makedirs(self.directory, exist_ok=True)
            super().dump_bytecode(bucket)
        except Exception:
            pass


def _shows_id(site, rid: str) -> bool:
    """Whether the pages name ``rid`` ``ID: title`` (its ref says: titles.shows_id)."""
    return site.ref(rid)["show_id"]
