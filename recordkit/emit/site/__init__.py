"""``recordkit build``: the record as a static site (see docs/site.md).

Pipeline, one module a stage: :mod:`.load` (record, checks, standings,
dates) → :mod:`.privacy` (what is published) → :mod:`.views` (JSON-ready
page data) → :mod:`.markdown` (bodies) → :mod:`.build` (pages, search,
previews, graph page, feed) → :mod:`.writer` (atomic writes, manifest).
"""
from .build import BuildReport, build_site
from .options import SiteOptions, site_options

__all__ = ["build_site", "BuildReport", "SiteOptions", "site_options"]
