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
from tooldeck.host.permissions.layers import Policy, layered
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
    combined with the ``project()`` layer, rebuilt only when either is another object
    than last time.

    One is shared by the Location (``location.policy``, what snapshots hide by) and its
    permission service, so both decide by the same rules and build them once.
    """

    __slots__ = ("_cached", "_configured", "_project")

    def __init__(
        self,
        configured: Callable[[], tuple[PermissionRule, ...]],
        project: Callable[[], ProjectLayer] = lambda: NO_PROJECT,
    ) -> None:
        self._configured = configured
        self._project = project
        self._cached: tuple[object, object, Policy] = _UNSET

    def __call__(self) -> Policy:
        configured, project = self._configured(), self._project()
        cached = self._cached
        if cached[0] is not configured or cached[1] is not project:
            built = _layered(policy(configured), project, ())
            cached = self._cached = (configured, project, built)
        return cached[2]

    def principal(self, name: str, own: tuple[PermissionRule, ...]) -> Policy:
        """A served principal's policy: each layer's rules followed by that layer's own
        rules for ``name`` (``own``: the user's; the project's come from its layer),
        the layers combined as the Location's are."""
        project = self._project()
        if not own and not project.principal_rules(name):
            return self()
        user = policy((*self._configured(), *own))
        return _layered(user, project, project.principal_rules(name))


def _layered(user: Ruleset, project: ProjectLayer, extra: tuple[PermissionRule, ...]) -> Policy:
    return layered(user, (*project.permission, *extra), project_allows=project.trusted)


_UNSET: Final = (object(), object(), Ruleset())
