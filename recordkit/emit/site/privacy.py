"""Which records the site publishes.

A record is kept out when its front matter says ``publish: false``, when
its status is one of ``exclude_statuses``, or when its path (relative to
the record root) or its id matches a glob of ``exclude``.  Nothing of a
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


def publication(corpus, opts) -> Publication:
    from ...common.order import id_sort_key
    statuses = set(opts.exclude_statuses)
    globs = list(opts.exclude)
    ids, excluded = [], {}
    for rid in sorted(corpus.records, key=id_sort_key):
        rec = corpus.records[rid]
        why = None
        if rec.get("publish") is False:
            why = "publish: false"
        elif rec.status in statuses:
            why = f"status {rec.status}"
        else:
            for g in globs:
                if fnmatch.fnmatchcase(rec.relpath, g) or fnmatch.fnmatchcase(rid, g):
                    why = f"matches {g}"
                    break
        if why:
            excluded[rid] = why
        else:
            ids.append(rid)
    return Publication(ids, excluded)
