"""The guards a YAML text a user gives (a front matter, a schema file, a
value typed on the command line) goes through before anything walks it:
aliases that expand without bound ("billion laughs"), aliases inside what
they name, and values nested deeper than :data:`MAX_DEPTH` (every later
step, from the JSON outputs to the graph page, walks values by recursion;
and libyaml's composer, in C, recurses once per level and kills the process
past some 20,000 levels).  The messages say "front matter"; a caller for
another kind of text says what it read instead."""
from __future__ import annotations

import yaml

try:
    from yaml import CSafeLoader as _BaseLoader
except ImportError:  # pragma: no cover - the C loader is several times faster
    from yaml import SafeLoader as _BaseLoader  # type: ignore


#: how many values YAML aliases may add to a front matter once expanded
#: ("billion laughs": 0.5 KB of aliases expanding to millions of values)
MAX_ALIAS_EXPANSION = 10_000
#: how deep front-matter values may nest (lists in mappings in lists ...)
MAX_DEPTH = 100


class AliasBomb(Exception):
    """The front matter's aliases expand to too much, or refer to themselves."""

    def __init__(self, message, node):
        super().__init__(message)
        self.node = node


def check_aliases(node) -> None:
    """Raise :class:`AliasBomb` when aliases make ``node`` (a composed
    document, where an alias is the same node object as its anchor) expand
    to more than ``MAX_ALIAS_EXPANSION`` values beyond its distinct nodes,
    or when an alias refers to a node that contains it, or when values nest
    more than ``MAX_DEPTH`` deep (every later step, from the JSON outputs to
    the graph page, would walk them by recursion).  Linear in the
    distinct nodes: each node's expanded size is worked out once."""
    size: dict[int, int] = {}
    open_: set[int] = set()
    # iterative post-order walk (a deep document must not hit the recursion limit)
    stack = [(node, False, 0)]
    while stack:
        n, done, depth = stack.pop()
        key = id(n)
        if done:
            open_.discard(key)
            total = 1
            if isinstance(n, yaml.MappingNode):
                for k, v in n.value:
                    total += size[id(k)] + size[id(v)]
            elif isinstance(n, yaml.SequenceNode):
                for item in n.value:
                    total += size[id(item)]
            size[key] = total
            if total - len(size) > MAX_ALIAS_EXPANSION:
                raise AliasBomb(f"front matter is too large once its aliases are expanded: {total:,} values "
                                f"or more here, and aliases may add at most {MAX_ALIAS_EXPANSION:,}", n)
            continue
        if key in size:
            continue
        if key in open_:
            raise AliasBomb("front matter has an alias inside the value it refers to (a recursive structure)", n)
        if depth > MAX_DEPTH:
            raise AliasBomb(f"front matter is nested more than {MAX_DEPTH} levels deep here", n)
        open_.add(key)
        stack.append((n, True, depth))
        if isinstance(n, yaml.MappingNode):
            for k, v in reversed(n.value):
                stack.append((v, False, depth + 1))
                stack.append((k, False, depth + 1))
        elif isinstance(n, yaml.SequenceNode):
            for item in reversed(n.value):
                stack.append((item, False, depth + 1))


#: how many characters that open a level (``[``, ``{``, ``-``, ``:``, ``?``)
#: a YAML text may hold and still be composed at once: libyaml's composer
#: (C, by recursion) overflows the stack and kills the process past some
#: 20,000-40,000 levels on an 8 MB stack (a 200 KB front matter of ``[``);
#: a text with more of them has its depth worked out from the parser's
#: events (no recursion) first (:func:`check_depth`)
COMPOSE_SAFE = 1000


class _Mark:
    """Where a too-deep value starts (as a node would have it)."""

    def __init__(self, mark):
        self.start_mark = mark


def check_depth(text: str, loader=None, opens: int | None = None) -> None:
    """Raise :class:`AliasBomb` when a value of the YAML ``text`` nests
    more than :data:`MAX_DEPTH` deep (counted as :func:`check_aliases`
    does, the document's root at 0), before anything is composed, when the
    text could nest deep enough to overflow the composer (more than
    :data:`COMPOSE_SAFE` characters that open a level).  A syntax error is
    raised as the composer would raise it.  ``loader``: the loader class
    whose parser reads the events (the C one by default); ``opens``: how
    many characters open a level, when the caller counted them."""
    if (_opens(text) if opens is None else opens) + text.count("?") <= COMPOSE_SAFE:
        return
    try:
        _walk_depth(text, loader or _BaseLoader)
    except yaml.YAMLError:
        refuse_if_deep(text)
        raise


def refuse_if_deep(text: str) -> None:
    """Raise :class:`AliasBomb` when ``text`` nests past :data:`MAX_DEPTH`
    before any syntax error, read by PyYAML's pure-Python parser.  Called
    when the C parser stopped first: a libyaml of its own nesting limit
    (PyYAML 6.0.4 on) refuses a deep text while scanning ahead, before the
    events that :func:`check_depth` counts, in its own words.  The
    pure-Python parser has no such limit and reads the events one at a
    time, so recordkit's diagnostic, its words and its place, is the same
    whichever PyYAML and whichever loader; on a true syntax error this
    returns and the caller raises the error it had."""
    try:
        _walk_depth(text, yaml.SafeLoader)
    except yaml.YAMLError:
        return


def _walk_depth(text: str, loader) -> None:
    start = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
    end = (yaml.SequenceEndEvent, yaml.MappingEndEvent)
    node = (yaml.ScalarEvent, yaml.AliasEvent) + start
    depth = 0
    for ev in yaml.parse(text, Loader=loader):
        if isinstance(ev, node):
            if depth > MAX_DEPTH:
                raise AliasBomb(f"front matter is nested more than {MAX_DEPTH} levels deep here", _Mark(ev.start_mark))
            if isinstance(ev, start):
                depth += 1
        elif isinstance(ev, end):
            depth -= 1


def may_expand_or_nest(fm_text: str, opens: int | None = None) -> bool:
    """Whether :func:`check_aliases` could refuse ``fm_text``: it holds an
    alias, or enough of the characters that open a level (``[``, ``{``,
    ``-``, ``:``; every level needs one) to nest past ``MAX_DEPTH``."""
    if "*" in fm_text:
        return True
    return (_opens(fm_text) if opens is None else opens) > MAX_DEPTH


def _opens(text: str) -> int:
    """How many of the characters that open a level (``[``, ``{``, ``-``,
    ``:``) ``text`` holds (every level needs one)."""
    return sum(text.count(c) for c in "[{-:")


def compose(text: str, loader_cls=_BaseLoader):
    """``(loader, node)``: ``text`` composed by a ``loader_cls`` once it
    passed the guards (:func:`check_depth` first, :func:`check_aliases`
    after, when the text could need it); ``node`` is None for an empty
    document.  The caller constructs what it needs with ``loader``, then
    disposes of it.  Raises :class:`yaml.YAMLError` or :class:`AliasBomb`."""
    opens = _opens(text)        # (both guards ask: counted once)
    check_depth(text, opens=opens)
    loader = loader_cls(text)
    try:
        node = loader.get_single_node()
        if node is not None and may_expand_or_nest(text, opens):
            check_aliases(node)
    except yaml.YAMLError:
        loader.dispose()
        if opens > MAX_DEPTH:
            refuse_if_deep(text)
        raise
    except BaseException:
        loader.dispose()
        raise
    return loader, node
