"""Which tool a folder of notes was written with, when it carries no mark
of the tool (no ``.obsidian/``: most public vaults leave it out of git; no
file of MADR's): read from the notes themselves (docs/init.md).

- a MADR log: most files (an index or a template aside) are named
  ``NNNN-title.md``, with any letters (``0001-use-CC0-or-MIT-as-license``,
  ``#`` too);
- an Obsidian vault: Obsidian's own syntax, which no other tool writes:
  ``%% comments %%``, callouts (``> [!note]``), embeds (``![[note]]``);
  or wikilinks in many notes when no other syntax says more (not to
  ``KIND-NNN`` ids: the research record links so too).

Only the first :data:`MAX_FILES` notes and the first :data:`MAX_BYTES` of
each are read: a guess, said as such by ``init``.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

MAX_FILES = 2000
MAX_BYTES = 64 * 1024
NUMBERED_RE = re.compile(r"^[0-9]{4}-[^\s/]+\.md$")
PAGE_NAMES = {"readme.md", "index.md", "template.md", "adr-template.md"}
_COMMENT_RE = re.compile(r"%%.+?%%", re.S)
_CALLOUT_RE = re.compile(r"^\s*>\s*\[![\w-]+\][+-]?", re.M)
_EMBED_RE = re.compile(r"!\[\[[^\]\n]+\]\]")
_WIKI_RE = re.compile(r"(?<!!)\[\[([^\]\n|#]+)(?:[#|][^\]\n]*)?\]\]")
#: a wikilink to a research record's id (``[[THEORY-001]]``) is no sign of Obsidian
_RESEARCH_ID_RE = re.compile(r"^[A-Z][A-Z0-9_]*-[0-9]{3,}$")
_FENCE_RE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)


def _notes(folder: Path) -> list[Path]:
    out = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "node_modules")
        for name in sorted(filenames):
            if name.endswith(".md") and not name.startswith("."):
                out.append(Path(dirpath) / name)
                if len(out) >= MAX_FILES:
                    return out
    return out


def sniff_tool(folder: Path) -> tuple[str, str] | None:
    """(preset, what was found) read from the notes of ``folder``, or None."""
    notes = _notes(folder)
    decisions = [p for p in notes if p.name.lower() not in PAGE_NAMES and not p.name.endswith("-template.md")]
    numbered = sum(1 for p in decisions if NUMBERED_RE.match(p.name))
    if numbered >= 2 and numbered >= 0.8 * len(decisions):
        return "madr", f"{numbered} of {len(decisions)} notes named NNNN-title.md (a MADR decision log)"
    comments = callouts = embeds = wiki = 0
    for p in notes:
        try:
            with open(p, "rb") as f:
                text = f.read(MAX_BYTES).decode("utf-8", "replace")
        except OSError:
            continue
        text = _FENCE_RE.sub("", text)
        comments += bool(_COMMENT_RE.search(text))
        callouts += bool(_CALLOUT_RE.search(text))
        embeds += bool(_EMBED_RE.search(text))
        wiki += any(not _RESEARCH_ID_RE.match(m.group(1).strip()) for m in _WIKI_RE.finditer(text))
    signs = [f"{n} {what}" for n, what in ((comments, "with %% comments %%"), (callouts, "with callouts"),
                                            (embeds, "with ![[embeds]]")) if n]
    if signs:
        return "obsidian", f"Obsidian's syntax in the notes ({', '.join(signs)}; no .obsidian/ folder)"
    dotted = sum(1 for p in notes if p.name.count(".") >= 2)
    if notes and wiki >= max(2, 0.2 * len(notes)) and dotted < 0.5 * len(notes):
        return "obsidian", f"[[wikilinks]] in {wiki} of {len(notes)} notes (an Obsidian-style vault; no .obsidian/ folder)"
    return None
