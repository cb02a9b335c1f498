"""JUDGE: the theory lifecycle (see :mod:`.standing`)."""
from .standing import *  # noqa: F401,F403
from .standing import (__all__, ACTIVE, PROPOSED, PROMOTE_FIELD, PROMOTED_BY, SUPPORTED,  # noqa: F401
                       requirement_text, _all_hold)
