"""Task lists (``- [ ] to do``, ``- [x] done``) in time linear in the body.

The same tokens as ``mdit_py_plugins.tasklists`` with its default options
(disabled checkboxes, no labels), which finds each task item's list by
scanning back from the item to the body's start: a checklist of n items took
time growing with n² (25,000 items: 44 s in ``build``, 39 s in ``lint``).
Here one pass keeps, for each nesting level, the last token seen at it: a
task item's list is the last token one level up.
"""
from __future__ import annotations

import re

#: a task item's marker (GFM's whitespace after the brackets), as the plugin's
_TODO = re.compile(r"\[[ xX]][ \t\n\v\f\r]+")
_BOX = '<input class="task-list-item-checkbox" {}disabled="disabled" type="checkbox">'


def _checkbox(content: str):
    from markdown_it.token import Token
    box = Token("html_inline", "", 0)
    if content.startswith("[ ] "):
        box.content = _BOX.format("")
    elif content.startswith(("[x] ", "[X] ")):
        box.content = _BOX.format('checked="checked" ')
    return box


def tasklists_rule(state) -> None:
    """The core rule: a list item whose paragraph begins ``[ ]``/``[x]``
    gets a disabled checkbox and the class ``task-list-item``, its list
    ``contains-task-list``."""
    tokens = state.tokens
    last_at: dict[int, int] = {}        # level -> index of the last token seen at it
    for i in range(len(tokens) - 1):
        tok = tokens[i]
        if i >= 2:
            item, para = tokens[i - 2], tokens[i - 1]
            if (tok.type == "inline" and para.type == "paragraph_open" and item.type == "list_item_open"
                    and _TODO.match(tok.content)):
                tok.children.insert(0, _checkbox(tok.content))
                tok.children[1].content = tok.children[1].content[3:]
                tok.content = tok.content[3:]
                item.attrSet("class", "task-list-item")
                # the list: the last token before the item one level up
                # (the plugin's -1, no such token, is the last token)
                tokens[last_at.get(item.level - 1, -1)].attrSet("class", "contains-task-list")
        if i >= 2:
            # tokens[i - 2] is now behind every later item's scan
            last_at[tokens[i - 2].level] = i - 2
    return None


def use(md) -> None:
    """Add the rule where the plugin puts its own: after ``inline``."""
    md.core.ruler.after("inline", "github-tasklists", tasklists_rule)
