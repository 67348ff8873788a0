"""Rules that stand in for the Location's policy during one call: a served principal's.

``tooldeck mcp serve`` serves one Location to several principals, each with its own
``[[mcp.serve.principals.NAME.permission]]`` rules evaluated after the Location's. The
rules travel with the call (a context variable, so tools and code-mode programs the call
runs see them too) rather than through every signature between the server and
``PermissionService``. ``always`` answers given under a principal are kept for that
principal alone, in memory for the life of the server: another principal, and the
Location's saved approvals, never see them.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Iterable, Iterator, Sequence

from tooldeck.host.location.config import PermissionRule
from tooldeck.host.location.wildcard import Ruleset


class CallRules:
    """A principal's policy (the Location's rules, then its own) and its approvals."""

    def __init__(self, name: str, policy: Ruleset) -> None:
        self.name = name
        self.policy = policy
        self._approved = Ruleset()
        self._lock = threading.Lock()

    def approved(self, action: str, names: Sequence[str]) -> PermissionRule | None:
        """The principal's saved ``always`` answer matching, if any."""
        return self._approved.rule_for(action, names)

    def approve(self, rules: Iterable[PermissionRule]) -> None:
        """Keep ``always`` answers for this principal (not the Location's store)."""
        with self._lock:
            self._approved = Ruleset((*self._approved.rules, *rules))


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
