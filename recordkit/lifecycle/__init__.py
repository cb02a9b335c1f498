"""JUDGE: the theory lifecycle.

A record's kind takes part in the lifecycle when the schema gives it a
``promote_when`` field (THEORY in the default schema).  Such a record is
``proposed`` until what its ``promote_when`` asks holds, then ``active``.
The stage has three parts, in the order they build on each other:

:mod:`.conditions`
    the ``promote_when`` grammar: parse, shape problems, what it names (RK403);
:mod:`.standing`
    evaluation against the records and the check results, and the standing
    of every record (ready, blocked, awaiting-judgement, established,
    unestablished, undermined);
:mod:`.promotion`
    whether a theory can be promoted, the lossless edit that promotes it,
    and ``recordkit promote``'s listing as data.

Everything is re-exported here: ``from recordkit import lifecycle as lc``.
See docs/lifecycle.md for the format.
"""
from .conditions import (ACTIVE, PROMOTE_FIELD, PROMOTED_BY, PROPOSED, RECORD_KEYS, REQUIREMENT_KEYS, SUPPORTED,
                         Problem, PromoteWhen, Requirement, parse_promote_when, requirement_text, span, validate)
from .promotion import (PromotionRefused, apply_promotion, entry, listing, not_in_lifecycle, plan_promotion,
                        promotion_edit)
from .standing import (AWAITING, BLOCKED, ESTABLISHED, MALFORMED, MARKS, MET, READY, STANDINGS, UNDERMINED,
                       UNESTABLISHED, UNKNOWN, UNMET, Evaluation, ItemState, Lifecycle, Standing, all_hold,
                       analyze, check_item_state, evaluate, standings)

__all__ = [
    "Problem", "Requirement", "PromoteWhen", "ItemState", "Evaluation", "Standing", "Lifecycle",
    "PromotionRefused", "not_in_lifecycle", "parse_promote_when", "validate", "evaluate", "standings", "analyze",
    "check_item_state", "plan_promotion", "apply_promotion", "promotion_edit", "span", "entry", "listing", "requirement_text",
    "all_hold",
    "MET", "UNMET", "UNKNOWN", "MALFORMED", "MARKS", "READY", "BLOCKED", "AWAITING", "ESTABLISHED",
    "UNESTABLISHED", "UNDERMINED", "STANDINGS", "PROPOSED", "ACTIVE", "SUPPORTED", "PROMOTE_FIELD",
    "PROMOTED_BY", "REQUIREMENT_KEYS", "RECORD_KEYS",
]
