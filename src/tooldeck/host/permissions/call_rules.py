"""Policy that stand in for the Location's policy during one call: a served principal's.

``tooldeck mcp serve`` serves one Location to several principals, each with its own
``[[mcp.serve.principals.NAME.permission]]`` rules, evaluated after the Location's in the
layer (user or project) whose file wrote them (``Location.principal_policy``). The
rules travel with the call (a context variable, so tools and code-mode programs the call
runs see them too) rather than through every signature between the server and
``PermissionService``. ``always`` answers given under a principal are saved in the
Location's store under that principal's name (``permission.principal_rules`` builds
the rules with them): they survive a restart, and neither another principal nor the
Location's own approvals see them.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterable, Iterator, Sequence

from tooldeck.host.config.config import PermissionRule
from tooldeck.host.permissions.approvals import Approvals
from tooldeck.host.permissions.layers import Policy


class CallRules:
    """A principal's policy (each layer's rules, then its own) and its approvals."""

    def __init__(self, name: str, policy: Policy, approvals: Approvals) -> None:
        self.name = name
        self.policy = policy
        self._approvals = approvals

    def approved(self, action: str, names: Sequence[str]) -> PermissionRule | None:
        """The principal's saved ``always`` answer matching, if any."""
        return self._approvals.rules.rule_for(action, names)

    async def refresh(self) -> bool:
        """Read this principal's approvals from the store again (``Approvals.refresh``)."""
        return await self._approvals.refresh()

    def approve(self, rules: Iterable[PermissionRule]) -> None:
        """Save ``always`` answers for this principal alone (blocking I/O: async code
        calls it in a thread)."""
        self._approvals.add(rules)


_CURRENT: contextvars.ContextVar[CallRules | None] = contextvars.ContextVar(
    "tooldeck_call_rules", default=None
)


def current() -> CallRules | None:
    """The rules of the call running in this context, or None (the Location's own)."""
    return _CURRENT.get()


@contextlib.contextmanager
def applying(rules: CallRules | None) -> Iterator[None]:
    """Run the calls of this block under ``rules`` (None: the Location's policy)."""
    token = _CURRENT.set(rules)
    try:
        yield
    finally:
        _CURRENT.reset(token)
