"""``views.mention_sentence`` as it was before it read a window around the
mention (2026-12-05): it walked the whole paragraph for each mention, so a
long paragraph naming many records took time growing with the square of
its length.  Kept, frozen, for tests/emit/site/test_sentence_window.py to
hold the new one to on paragraphs of ordinary length."""
from __future__ import annotations

import re

from recordkit.emit.site.views import (_BLOCK_START, _ITEM_START, _SENTENCE_END, _first_mentions, plain_text,
                                       transient_text)

class _Lines:
    """The lines of a text (as ``text.split("\\n")`` gives them), cut out
    when asked for from the offsets of the line starts."""
    __slots__ = ("text", "starts")

    def __init__(self, text: str, starts):
        self.text, self.starts = text, starts

    def __len__(self) -> int:
        return len(self.starts)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[j] for j in range(*k.indices(len(self.starts)))]
        starts = self.starts
        return self.text[starts[k]:starts[k + 1] - 1 if k + 1 < len(starts) else len(self.text)]


_NEWLINE = re.compile("\n")


def mention_sentence(rec, target: str, limit: int = 320, lines_cache: dict | None = None,
                     label_first: bool = False) -> str | None:
    """The sentence of ``rec``'s body in which ``target`` is first
    mentioned, as plain text.  ``lines_cache``: a dict kept across calls
    (record id -> the first mention of each target and the line starts;
    small, unlike the texts, which are decoded again when needed).
    ``label_first``: see :func:`.markdown.plain_text`."""
    from array import array
    if lines_cache is None:
        lines_cache = {}
    cached = lines_cache.get(rec.id)
    text = transient_text(rec)
    if cached is None:
        cached = lines_cache[rec.id] = (_first_mentions(rec, text),
                                        array("I", [0, *(m.end() for m in _NEWLINE.finditer(text))]))
    first, starts = cached
    lines = _Lines(text, starts)
    pos = first.get(target)
    if pos is not None:
        line, col = pos
        i = line - 1
        if not 0 <= i < len(lines):
            return None
        start = i
        while start > 0 and lines[start - 1].strip() and not lines[start - 1].lstrip().startswith(("#", "|")) \
                and not _ITEM_START.match(lines[start]):
            start -= 1
        end = i
        while end + 1 < len(lines) and lines[end + 1].strip() and not _BLOCK_START.match(lines[end + 1]):
            end += 1
        para = lines[start:end + 1]
        offset = sum(len(x) + 1 for x in lines[start:i]) + col - 1
        text = "\n".join(para)
        s0 = 0
        for sm in _SENTENCE_END.finditer(text):
            if sm.end() <= offset:
                s0 = sm.end()
            else:
                break
        # the first end whose break is at or after max(offset, s0): its mark
        # is one character before the break
        em = _SENTENCE_END.search(text, max(offset, s0, 1) - 1)
        sentence = text[s0: em.start() + 1 if em else len(text)]
        sentence = " ".join(plain_text(sentence, label_first).split())
        if len(sentence) > limit:
            k = sentence.find(target)
            a = max(0, k - limit // 2)
            sentence = ("…" if a else "") + sentence[a:a + limit] + "…"
        return sentence
    return None
