"""``recordkit build``: the record as a static site (see docs/site.md).

The pipeline, read top to bottom in :mod:`.build`: gather (:mod:`.load`:
record, checks, standings, dates) → publish (:mod:`.privacy`) → views
(:mod:`.views`, JSON-ready page data; :mod:`.context`) → changes
(:mod:`.changes`) → emitters (:mod:`.emitters`, one module an output;
bodies by :mod:`.markdown`) → write (:mod:`.writer`: atomic writes,
manifest).  :mod:`.state` is what ``serve`` keeps between rebuilds.
"""
from .build import BuildReport, build_site
from .options import SiteOptions, site_options

__all__ = ["build_site", "BuildReport", "SiteOptions", "site_options"]
