"""Adds the lifecycle to ``recordkit show``: ``standing``,
``standing_detail``, ``standings`` (every standing that applies, displayed
one first) and, for a record with a ``promote_when``, ``promote`` =
``{"summary", "requires": [{"text", "ok", "state", "reason", "by", "index"}]}``.

Importing this module registers the extra once.
"""
from __future__ import annotations

import weakref

from .. import lifecycle as lc
from .describe import register_extra

_CACHE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _analysis(corpus) -> lc.Lifecycle:
    a = _CACHE.get(corpus)
    if a is None:
        a = _CACHE[corpus] = lc.analyze(corpus)
    return a


def lifecycle_extra(corpus, rec) -> dict:
    st = _analysis(corpus).standing(rec.id)
    out = {}
    if st.state:
        out["standing"] = st.state
        out["standing_detail"] = st.detail
        out["standings"] = list(st.states)
        if st.path:
            out["undermined_path"] = list(st.path)
    ev = st.evaluation
    if ev is not None and ev.promote_when.present:
        out["promote"] = ev.to_dict()
    return out


register_extra(lifecycle_extra)
