""""Did you mean …?", the one place it is worked out, with one behaviour for
ids and one for words:

* an id (a record id such as ``THEORY-715``): the existing ids one edit
  away (:class:`IdIndex`);
* a word (a key, a kind, a status, a relation, a check id, a rule code):
  the close matches of :func:`difflib.get_close_matches` at
  :data:`WORD_CUTOFF` (:func:`near_words`); where the suggestion becomes an
  automatic fix, at the stricter :data:`FIX_CUTOFF`.

:func:`hint` puts either in words: ``" (did you mean X?)"``.

One edit is a character changed, dropped, added, or two neighbours swapped
(``THEORY-715`` → ``THEORY-175``), ignoring case.  :class:`IdIndex` files
every id under itself and each of its one-character deletions (the
"symmetric delete" scheme): two strings one edit apart share such a key, so
a query looks up a dozen keys, whatever the number of ids, and checks the
few candidates exactly (about 20 µs).  Building it for 10,000 ids takes
60 ms, once per corpus; generating every one-edit variant of a query took
0.5 ms a query, and difflib over the ids 40 ms.
"""
from __future__ import annotations

import difflib
from typing import Iterable

from .order import id_sort_key

#: how alike a word must be to a known one to be suggested
WORD_CUTOFF = 0.6
#: how alike it must be for the suggestion to be applied as a fix
FIX_CUTOFF = 0.75


def near_words(word: str, choices: Iterable[str], n: int = 1, *, for_fix: bool = False) -> list[str]:
    """The known words closest to ``word``, best first (at most ``n``)."""
    return difflib.get_close_matches(word, list(choices), n=n, cutoff=FIX_CUTOFF if for_fix else WORD_CUTOFF)


def hint(names: Iterable[str]) -> str:
    """``" (did you mean A?)"`` / ``" (did you mean A, B?)"``, or ``""``."""
    names = list(names)
    return f" (did you mean {', '.join(names)}?)" if names else ""


#: ids longer than this get no suggestion and suggest nothing: their
#: one-character deletions would take memory quadratic in their length (a
#: 37 KB id took 0.8 GB), and no one mistypes an id that long
MAX_ID_LENGTH = 64


def _deletions(s: str) -> set[str]:
    return {s[:i] + s[i + 1:] for i in range(len(s))}


def one_edit(a: str, b: str) -> bool:
    """Whether ``b`` is ``a`` with exactly one character changed, dropped,
    added, or two neighbours swapped."""
    la, lb = len(a), len(b)
    if a == b or abs(la - lb) > 1:
        return False
    i = 0
    while i < min(la, lb) and a[i] == b[i]:
        i += 1
    if la == lb:
        if a[i + 1:] == b[i + 1:]:
            return True                                   # changed
        return i + 1 < la and a[i] == b[i + 1] and a[i + 1] == b[i] and a[i + 2:] == b[i + 2:]   # swapped
    if la > lb:
        return a[i + 1:] == b[i:]                          # dropped
    return a[i:] == b[i + 1:]                              # added


class IdIndex:
    """The ids of a record, for :meth:`nearest` queries."""

    def __init__(self, ids: Iterable[str], keys: dict[str, list[str]] | None = None):
        self.ids = set(ids)
        if keys is not None:       # (made by :meth:`updated`)
            self._keys = keys
            return
        keys = {}
        for i in self.ids:
            if len(i) > MAX_ID_LENGTH:
                continue
            u = i.upper()
            keys.setdefault(u, []).append(i)
            for d in _deletions(u):
                keys.setdefault(d, []).append(i)
        self._keys = keys

    def updated(self, removed: Iterable[str], added: Iterable[str]) -> "IdIndex":
        """The index of these ids less ``removed``, plus ``added`` (an id
        renamed in an editor), at the cost of those ids: this one is left
        as it was, the keys they do not touch are shared."""
        removed, added = set(removed) & self.ids, set(added) - self.ids
        keys = dict(self._keys)
        for i in removed:
            if len(i) <= MAX_ID_LENGTH:
                for k in _deletions(i.upper()) | {i.upper()}:
                    left = [x for x in keys.get(k, ()) if x != i]
                    if left:
                        keys[k] = left
                    else:
                        keys.pop(k, None)
        for i in added:
            if len(i) <= MAX_ID_LENGTH:
                for k in _deletions(i.upper()) | {i.upper()}:
                    keys[k] = keys.get(k, []) + [i]
        return IdIndex((self.ids - removed) | added, keys)

    def closest(self, target: str, exclude: str | None = None) -> str | None:
        """The existing id one edit (or only case) away from ``target``,
        preferring the same kind, then the lowest id; None when there is none."""
        near = self.nearest(target, exclude, 1)
        return near[0] if near else None

    def nearest(self, target: str, exclude: str | None = None, n: int = 1) -> list[str]:
        """Up to ``n`` existing ids one edit (or only case) away from
        ``target``, the same kind first, then in id order."""
        if len(target) > MAX_ID_LENGTH + 1:
            return []
        t = target.upper()
        found = set()
        for k in _deletions(t) | {t}:
            found.update(self._keys.get(k, ()))
        hits = [c for c in found
                if c != target and c != exclude and (c.upper() == t or one_edit(t, c.upper()))]
        kind = target.rpartition("-")[0]
        return sorted(hits, key=lambda h: (h.rpartition("-")[0] != kind, id_sort_key(h)))[:n]
