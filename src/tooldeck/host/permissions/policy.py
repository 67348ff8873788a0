"""The permission policy of a Location: built-in defaults under the user's configured
rules, combined with the project's rules (``layers``: strictest wins).

Apart from ``permission`` (asks, approvals, pending replies) because every
``host.snapshot()`` needs the policy to hide wholly denied tools, and most processes
never ask anything.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Final

from tooldeck.host.config.config import PermissionRule
from tooldeck.host.config.layers import NO_PROJECT, ProjectLayer
from tooldeck.host.permissions.layers import Rules, layered
from tooldeck.host.permissions.wildcard import Ruleset

# model_construct: constants need no validation, and validating would build the
# model's validator on import; a test checks they equal validated rules.
DEFAULT_RULES: tuple[PermissionRule, ...] = tuple(
    PermissionRule.model_construct(action=action, resource="*", effect="allow")
    for action in ("read", "glob", "grep", "question")
)
"""Built-in defaults, under any configured rule; everything else asks."""


def policy(configured: Iterable[PermissionRule]) -> Ruleset:
    """The defaults, then ``configured`` (the last matching rule wins): one layer."""
    return Ruleset((*DEFAULT_RULES, *configured))


class CurrentPolicy:
    """The policy of configured rules that may be replaced (a served Location reloads its
    config): calling it gives the policy of the rules ``configured()`` returns now,
    combined with the ``project`` layer, rebuilt only when they are another tuple than
    last time.

    One is shared by the Location (``location.policy``, what snapshots hide by) and its
    permission service, so both decide by the same rules and build them once.
    """

    __slots__ = ("_cached", "_configured", "_project")

    def __init__(
        self,
        configured: Callable[[], tuple[PermissionRule, ...]],
        project: ProjectLayer = NO_PROJECT,
    ) -> None:
        self._configured = configured
        self._project = project
        self._cached: tuple[object, Rules] = _UNSET

    def __call__(self) -> Rules:
        configured = self._configured()
        cached = self._cached
        if cached[0] is not configured:
            cached = self._cached = (configured, self._layered(policy(configured), ()))
        return cached[1]

    def principal(self, name: str, own: tuple[PermissionRule, ...]) -> Rules:
        """A served principal's policy: each layer's rules followed by that layer's own
        rules for ``name`` (``own``: the user's; the project's come from its layer),
        the layers combined as the Location's are."""
        if not own and not self._project.principal_rules(name):
            return self()
        user = policy((*self._configured(), *own))
        return self._layered(user, self._project.principal_rules(name))

    def _layered(self, user: Ruleset, extra: tuple[PermissionRule, ...]) -> Rules:
        project = self._project
        return layered(user, (*project.permission, *extra), project_allows=project.trusted)


_UNSET: Final = (object(), Ruleset())
