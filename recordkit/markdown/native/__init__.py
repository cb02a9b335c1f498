"""The native Markdown engine: pulldown-cmark (through ``pyromark``) reads
a body into an event stream, and one pass of Python over those events
applies recordkit's own syntax and writes the HTML (:mod:`.walk`).

pulldown-cmark gives CommonMark with tables, footnotes, strikethrough, task
lists, dollar math and wikilinks; the pass adds what is recordkit's: id
mentions, wikilinks and embeds read in the preset's order, Obsidian's block
ids, callouts, the claims table's strength cells, unique heading anchors,
raw HTML escaped, unsafe URLs dropped.  What a mention, a link, an image, a
fenced block or math becomes is asked of a :class:`Hooks` object (the site
gives its own, which resolves records); the pass itself knows no record.

:func:`anchors` gives the headings and block ids a body has as the same pass
sees them (the site's links and the lint's RK309 both ask it, so they cannot
disagree); :func:`block_lines` the line span of each heading and block, for
an embed of a section or a block.
"""
from __future__ import annotations

from .walk import OPTIONS, Hooks, Walk, anchors, block_lines, escape

__all__ = ["OPTIONS", "Hooks", "Walk", "anchors", "block_lines", "escape"]
