"""No module-level mutable cache outside an allow-list (issue 31).

A long-running process (``serve``, a language server) keeps every module's
state between requests: a cache at module level outlives the corpus it was
made for and is shared by every workspace.  What a command computes belongs
to the object it was computed for (a ``Corpus`` field, a ``Resolver``, a
``LintContext``), held by the caller.  A cache is counted as
``tests/architecture/figures.py`` counts it: a module-level name bound to an
empty ``{}``, ``[]``, ``set()``, ``dict()``, ``defaultdict(…)``,
``OrderedDict()`` or weak dictionary.

Allowed, each with why it cannot go stale:

- a compiled-regex cache (keyed by the pattern it was compiled from), or the
  answer a regex gives for a value (YAML's scalar resolvers): a function of
  its key alone, bounded;
- a memo whose entry is used only while every byte it was made from is the
  same (it checks them at each use);
- process state that is the process's, not a command's (the helpers it
  forked and has not reaped).

A table of declarations filled by a decorator (the lint rules, the numeric
checks) is no cache: it is a :class:`recordkit.common.registry.Registry`,
which this count does not see.
"""
from __future__ import annotations

import ast

from figures import PKG, module_caches

#: "path name" -> why it may stay at module level
ALLOWED = {
    "recordkit/corpus/mentions.py _SPOTS_RES":
        "compiled regex: the mention pattern made from a schema's mention_targets_re, keyed by that pattern",
    "recordkit/markdown/frontmatter.py _RESOLVED":
        "a plain YAML scalar -> the tag the resolvers' regexes give it (bounded to 65,536)",
    "recordkit/markdown/frontmatter.py _TIMESTAMPS":
        "a timestamp scalar -> its date (immutable; what the timestamp regex reads; bounded to 65,536)",
    "recordkit/numeric/discover.py _MODULE_MEMO":
        "a check module read with ast, used only while its bytes and those of every file its hash covers "
        "are unchanged (checked at each use); one entry a check module",
    "recordkit/runtime/pool.py _UNREAPED":
        "process state: the helpers this process forked that have ended and are not reaped yet",
}

#: at most this many module-level mutable caches in recordkit/ (issue 31)
MOST = 6

def caches() -> list[str]:
    out = []
    for path in sorted(PKG.rglob("*.py")):
        rel = path.relative_to(PKG.parent).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        out += [f"{rel} {name}" for name, _ in module_caches(tree)]
    return out


def test_no_module_cache_outside_the_allow_list():
    found = caches()
    new = sorted(set(found) - set(ALLOWED))
    assert not new, (
        "module-level mutable caches outside the allow-list of tests/architecture/test_module_state.py:\n  "
        + "\n  ".join(new)
        + "\nkeep the memo on the object it was made for (a Corpus field, a Resolver, a LintContext), "
          "make a declared table a constant (tuple, frozenset) or a Registry, or, for a compiled-regex "
          "cache, add it to ALLOWED saying why it cannot go stale")
    gone = sorted(set(ALLOWED) - set(found))
    assert not gone, "allowed caches that are no longer there (take them off ALLOWED):\n  " + "\n  ".join(gone)


def test_few_module_caches():
    assert len(caches()) <= MOST
