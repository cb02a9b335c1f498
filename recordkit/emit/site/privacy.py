"""Which records the site publishes.

A record is kept out when its front matter says ``publish: false`` (Obsidian
Publish) or ``draft: true`` (Quartz, also ``"true"``), when the vault's
tool keeps it out (Quartz's ``ignorePatterns``, Obsidian's "Excluded
files": :mod:`recordkit.corpus.toolsettings`), when its status is one of
``exclude_statuses``, or when its path (relative to the record root) or
its id matches a glob of ``exclude``.  (Obsidian's template folders and
its ``.trash/`` are not walked at all: no record.)  Nothing of a
record kept out reaches any output: every later stage asks
:meth:`Publication.published` or iterates :attr:`Publication.ids`.
"""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field


@dataclass
class Publication:
    ids: list[str]                                 # published, in id order
    excluded: dict[str, str] = field(default_factory=dict)   # id -> why (for the report)

    def __post_init__(self):
        self._set = set(self.ids)

    def published(self, rid: str) -> bool:
        return rid in self._set


    def reasons(self) -> list[tuple[str, int]]:
        """(why, how many) of the records kept out, the most common first."""
        counts: dict[str, int] = {}
        for why in self.excluded.values():
            counts[why] = counts.get(why, 0) + 1
        return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def _flag(value) -> bool | None:
    """A front-matter flag as Quartz and Obsidian Publish read it: true or
    ``"true"``, false or ``"false"`` (any case); anything else None."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None


def publication(corpus, opts) -> Publication:
    from ...common.order import id_sort_key
    from ...corpus.toolsettings import read_settings
    statuses = set(opts.exclude_statuses)
    globs = list(opts.exclude)
    tool = read_settings(corpus.root)
    ids, excluded = [], {}
    for rid in sorted(corpus.records, key=id_sort_key):
        rec = corpus.records[rid]
        why = None
        if _flag(rec.get("publish")) is False:
            why = "publish: false"
        elif _flag(rec.get("draft")) is True:
            why = "draft: true"
        elif rec.status in statuses:
            why = f"status {rec.status}"
        else:
            why = tool.unpublished(rec.relpath)
            for g in globs if why is None else ():
                if fnmatch.fnmatchcase(rec.relpath, g) or fnmatch.fnmatchcase(rid, g):
                    why = f"exclude {g}"
                    break
        if why:
            excluded[rid] = why
        else:
            ids.append(rid)
    return Publication(ids, excluded)
