"""The permission policy of a Location: built-in defaults under its configured rules.

Apart from ``permission`` (asks, approvals, pending replies) because every
``host.snapshot()`` needs the policy to hide wholly denied tools, and most processes
never ask anything.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Final

from tooldeck.host.config.config import PermissionRule
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


class CurrentPolicy:
    """The policy of configured rules that may be replaced (a served Location reloads its
    config): calling it gives the policy of the rules ``configured()`` returns now,
    rebuilt only when they are another tuple than last time.

    One is shared by the Location (``location.policy``, what snapshots hide by) and its
    permission service, so both decide by the same rules and build them once.
    """

    __slots__ = ("_cached", "_configured")

    def __init__(self, configured: Callable[[], tuple[PermissionRule, ...]]) -> None:
        self._configured = configured
        self._cached: tuple[object, Ruleset] = _UNSET

    def __call__(self) -> Ruleset:
        configured = self._configured()
        cached = self._cached
        if cached[0] is not configured:
            cached = self._cached = (configured, policy(configured))
        return cached[1]


_UNSET: Final = (object(), Ruleset())
