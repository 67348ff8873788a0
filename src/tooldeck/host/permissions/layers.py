"""Rules from the user and from the project, combined by *strictest wins*.

Inside one layer the last matching rule wins, as a person ordering the rules of one file
expects. Between layers, position means nothing: for each resource, ``deny`` beats
``ask`` beats ``allow`` among the layers that have a matching rule, and nothing matching
anywhere is ``ask``. So a project can add an ask or a deny to what its user allows, and
never lift a deny or an ask of the user's, whatever order the files are read in.

An untrusted project's ``allow`` is no opinion: where the project's last matching rule
is an allow, the user's rules alone decide, as if the project had said nothing about that
resource. (Dropping the allow instead would let an earlier project ``ask`` decide, and
override the user's own allow for it.) Trusted, a project's allow counts like the
user's: it allows what no rule of the user's asks about or denies.

This module is pure (no I/O, no asks), like ``wildcard``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Protocol

from tooldeck._public import public
from tooldeck.host.config.config import PermissionRule
from tooldeck.host.permissions.wildcard import Effect, Ruleset

STRICTNESS: Final[dict[str, int]] = {"allow": 0, "ask": 1, "deny": 2}


@public
class Policy(Protocol):
    """What decides one action on one resource: a ``Ruleset`` (one layer of rules, last
    match wins) or the user's and the project's layered (``Location.policy``). Also the
    ``Visibility`` a snapshot hides by."""

    def rule_for(self, action: str, names: Sequence[str]) -> PermissionRule | None: ...

    def evaluate(self, action: str, resource: str) -> Effect: ...

    def hidden(self, action: str) -> bool: ...


@dataclass(frozen=True, slots=True)
class LayeredRules:
    """The user's rules (built-in defaults first) and the project's, strictest wins.

    ``project_allows``: whether the project's ``allow`` rules count (a trusted folder).
    Frozen and hashable: a snapshot cache keys on it.
    """

    user: Ruleset
    project: Ruleset
    project_allows: bool

    def rule_for(self, action: str, names: Sequence[str]) -> PermissionRule | None:
        """The deciding rule: the stricter of each layer's last match (the user's on a
        tie); ``None`` when neither layer has an opinion."""
        mine = self.user.rule_for(action, names)
        theirs = self.project.rule_for(action, names)
        if theirs is None or (theirs.effect == "allow" and not self.project_allows):
            return mine
        if mine is None or STRICTNESS[theirs.effect] > STRICTNESS[mine.effect]:
            return theirs
        return mine

    def evaluate(self, action: str, resource: str) -> Effect:
        """The effect for one resource; ``ask`` when no layer has an opinion."""
        rule = self.rule_for(action, (resource,))
        return rule.effect if rule is not None else "ask"

    def hidden(self, action: str) -> bool:
        """True when either layer denies every resource of ``action``: a deny is the
        strictest effect, so it decides whatever the other layer says."""
        return self.user.hidden(action) or self.project.hidden(action)


def layered(
    user: Ruleset, project: tuple[PermissionRule, ...], *, project_allows: bool
) -> Ruleset | LayeredRules:
    """``user`` combined with the ``project`` rules; ``user`` itself when the project
    has none (the one-layer path stays what it always was)."""
    if not project:
        return user
    return LayeredRules(user, Ruleset(project), project_allows)
