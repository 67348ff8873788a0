"""The permission policy of a Location: built-in defaults under its configured rules.

Apart from ``permission`` (asks, approvals, pending replies) because every
``host.snapshot()`` needs the policy to hide wholly denied tools, and most processes
never ask anything.
"""

from __future__ import annotations

from collections.abc import Iterable

from tooldeck.host.location.config import PermissionRule
from tooldeck.host.permissions.wildcard import Ruleset

# model_construct: constants need no validation, and validating would build the
# model's validator on import; a test checks they equal validated rules.
DEFAULT_RULES: tuple[PermissionRule, ...] = tuple(
    PermissionRule.model_construct(action=action, resource="*", effect="allow")
    for action in ("read", "glob", "grep", "question")
)
"""Built-in defaults, under any configured rule; everything else asks."""


def policy(configured: Iterable[PermissionRule]) -> Ruleset:
    """The defaults, then ``configured`` (the last matching rule wins)."""
    return Ruleset((*DEFAULT_RULES, *configured))
