"""Tasks of states of their own: ``- [?] a question``, ``- [/] half done``,
``- [-] dropped``, ``- [>] moved``, ``- [!] important`` (Obsidian's themes
and its Tasks plugin).  pulldown-cmark reads only ``[ ]`` and ``[x]`` as a
task; the walk asks :func:`task_state` of a list item's first text that
begins with ``[``, and the item is written as Obsidian writes it: a task
item with ``data-task="?"`` and its box checked (any state but a blank)."""
from __future__ import annotations

import re

#: ``[c]`` and a blank (or the item's end): one character, no blank, no bracket
_STATE = re.compile(r"\[([^\s\[\]\\])\](?:[ \t]+|$)")
_BOX = '<input class="task-list-item-checkbox" checked="checked" disabled="disabled" type="checkbox"> '


def _add_class(tag: str, cls: str) -> str:
    k = tag.index(">")
    if ' class="' in tag[:k]:
        e = tag.index('"', tag.index(' class="') + 8)
        return tag[:e] + " " + cls + tag[e:]
    return f'{tag[:k]} class="{cls}"{tag[k:]}'


def task_state(out: list, stack: list, para: list, text: str) -> str | None:
    """When ``text`` (the first of ``para``) opens a list item with a task
    state (``[?] …``): its item and list marked, the box written, and the
    text after the state returned; else None (nothing changed)."""
    m = _STATE.match(text)
    if m is None:
        return None
    if para[0] == "tight":
        item = para[2]
    elif para[0] == "p" and len(stack) >= 2 and stack[-2][0] == "li" and stack[-1] is para:
        item = stack[-2]
        if "".join(out[item[1] + 1:para[1]]).strip():
            return None         # (not the item's first paragraph)
    else:
        return None
    if item[0] != "li" or not out[item[1]].startswith("<li"):
        return None
    state = m.group(1)
    if state in "xX":
        return None             # (pulldown-cmark's own: not asked)
    value = state.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")
    tag = _add_class(out[item[1]], "task-list-item")
    k = tag.index(">")
    out[item[1]] = f'{tag[:k]} data-task="{value}"{tag[k:]}'
    lst = item[2]
    if lst is not None and "contains-task-list" not in out[lst[1]]:
        out[lst[1]] = _add_class(out[lst[1]], "contains-task-list")
    out.append(_BOX)
    return text[m.end():]


__all__ = ["task_state"]
