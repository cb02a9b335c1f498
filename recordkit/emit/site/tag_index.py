"""The site's tags as the schema reads them: which spellings are one tag
(``tags.case_sensitive: false``: ``#Tag``, ``#tag`` and a front-matter
``TAG`` are one, as Obsidian lists them), which tags hold others
(``tags.nested: true``: ``a/b`` is listed under ``a``), and the spelling a
tag is shown with (the one its records use most; of two used as often,
the one met first in id order).  The tag pages, the tag index, a page's
Tags row and a body's ``#tag`` links all go through here, so they agree
on one page per tag.
"""
from __future__ import annotations


def tag_key(tag: str, fold: bool) -> str:
    """What two spellings of one tag share: the tag itself, or its
    case-folded form when case does not tell tags apart."""
    return tag.casefold() if fold else tag


def own_tags(tags: list, fold: bool) -> list:
    """A record's tags each once (``Tag`` and ``#tag`` once, the first
    spelling kept, when case does not tell them apart)."""
    if not fold or len(tags) < 2:
        return tags
    seen: set = set()
    out = []
    for t in tags:
        k = t.casefold()
        if k not in seen:
            seen.add(k)
            out.append(t)
    return out


def _ancestors(tag: str) -> list:
    """``a/b/c``'s parents, ``a`` and ``a/b`` (no empty one)."""
    parts = tag.split("/")
    return [p for p in ("/".join(parts[:i]) for i in range(1, len(parts))) if p and not p.endswith("/")]


def group_by_tag(records: dict, ids: list, rows: dict, fold: bool, nested: bool) -> dict:
    """``{tag as shown: [row of each record it has, once]}`` for the
    records ``ids`` (``records[id].tags``; ``rows[id]``: its list row).
    A nested tag's parents get the record too (a parent no record names
    on its own is shown as its children spell it)."""
    used: dict = {}             # key -> {spelling: uses}, in the order met
    members: dict = {}          # key -> rows
    for rid in ids:
        tags = records[rid].tags
        if not tags:
            continue
        row = rows[rid]
        mine: set = set()
        for t in tags:
            k = tag_key(t, fold)
            spell = used.setdefault(k, {})
            spell[t] = spell.get(t, 0) + 1
            if k not in mine:
                mine.add(k)
                members.setdefault(k, []).append(row)
            if nested and "/" in t:
                for parent in _ancestors(t):
                    pk = tag_key(parent, fold)
                    used.setdefault(pk, {}).setdefault(parent, 0)
                    if pk not in mine:
                        mine.add(pk)
                        members.setdefault(pk, []).append(row)
    out = {}
    for k, rs in members.items():
        spell = used[k]
        # the most used spelling; max keeps the first of equals (dict order: as met)
        out[max(spell, key=spell.__getitem__)] = rs
    return out
