"""The most-wanted notes: in a vault where a link to a note not written yet
is how the vault grows (Obsidian's "unresolved links", RK305 as info), the
notes that would answer the most links, counted by how many notes link to
each (``lint --statistics``)."""
from __future__ import annotations

#: how many most-wanted notes ``--statistics`` names
SHOWN = 10
#: what RK305 says of a link whose path leaves the record root
OUTSIDE_ROOT = "outside the record root"


def most_wanted(diags) -> list[tuple[str, int]]:
    """(the note as the links name it, how many notes link to it) of every
    RK305 reported as info, most first; links that differ only in case name
    one note (Obsidian opens one note for both), spelt as first written."""
    spelling: dict[str, str] = {}
    linkers: dict[str, set] = {}
    for d in diags:
        if d.code != "RK305" or d.severity != "info" or not d.about or OUTSIDE_ROOT in d.message:
            continue        # (a path that leaves the root is no note to write)
        target = str(d.about[0])
        if target[-3:].lower() == ".md":
            target = target[:-3]        # [a](Note.md) and [[Note]]: one note
        key = target.casefold()
        spelling.setdefault(key, target)
        linkers.setdefault(key, set()).add(str(d.path))
    ranked = sorted(linkers.items(), key=lambda kv: (-len(kv[1]), spelling[kv[0]].casefold()))
    return [(spelling[k], len(v)) for k, v in ranked]


def format_most_wanted(diags) -> str:
    """The lines ``--statistics`` adds after its counts ("" when there is
    no link to a note not written yet reported as info)."""
    wanted = most_wanted(diags)
    if not wanted:
        return ""
    lines = [f"most-wanted notes (links to notes not written yet, by how many notes link to each; "
             f"{len(wanted)} in all):"]
    for target, n in wanted[:SHOWN]:
        lines.append(f"{n:6d}\t{target}")
    if len(wanted) > SHOWN:
        lines.append(f"     …\t{len(wanted) - SHOWN} more")
    return "\n".join(lines)
