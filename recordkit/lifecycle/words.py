"""The lifecycle's words, from the schema: what to call the records that
have a lifecycle (the kinds whose fields include ``promote_when``), so that
``recordkit promote`` speaks of theories in a research record and of ADRs
in a log of decisions, and never of theories in a vault that has none."""
from __future__ import annotations

from .conditions import PROMOTE_FIELD

#: irregular plurals of the words kinds are named by
_PLURALS = {"thesis": "theses", "hypothesis": "hypotheses", "analysis": "analyses", "criterion": "criteria",
            "datum": "data", "index": "indices", "person": "people"}


def lifecycle_kinds(schema) -> list[str]:
    """The kinds that take part in the lifecycle, in the schema's order."""
    return [name for name, kind in schema.kinds.items() if PROMOTE_FIELD in kind.fields]


def _is_word(name: str) -> bool:
    """Whether a kind's name reads as a word (``THEORY``, ``Decision``)
    rather than an abbreviation (``ADR``, ``LIT``, ``RFC``): four letters or
    more, with a vowel."""
    return name.isalpha() and len(name) >= 4 and any(c in "aeiouy" for c in name.lower())


def plural(name: str) -> str:
    """What to call several records of kind ``name``: ``THEORY`` →
    "theories", ``Decision`` → "decisions", ``ADR`` → "ADRs"."""
    if not _is_word(name):
        return f"{name}s" if name[-1:].isalnum() and not name.endswith(("s", "S")) else f"{name} records"
    w = name.lower()
    if w in _PLURALS:
        return _PLURALS[w]
    if w.endswith("y") and w[-2:-1] not in "aeiou":
        return w[:-1] + "ies"
    if w.endswith(("s", "x", "z", "ch", "sh")):
        return w + "es"
    return w + "s"


def singular(name: str) -> str:
    """What to call one record of kind ``name``: ``THEORY`` → "theory", ``ADR`` → "ADR"."""
    return name.lower() if _is_word(name) else name


def lifecycle_noun(schema, *, many: bool = True) -> str:
    """The lifecycle records of ``schema`` named together: "theories" (the
    research schema), "ADRs", "theories or ADRs"; "records" when no kind
    has a lifecycle."""
    kinds = lifecycle_kinds(schema)
    if not kinds:
        return "records" if many else "record"
    words = [plural(k) if many else singular(k) for k in kinds]
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]


def with_article(word: str) -> str:
    """``word`` after "a" or "an" as it is said: "a theory", "an idea",
    "an ADR" (an abbreviation is read letter by letter)."""
    if not word:
        return word
    if word.isupper() and not _is_word(word):
        return ("an " if word[0] in "AEFHILMNORSX" else "a ") + word
    return ("an " if word[0].lower() in "aeiou" else "a ") + word
