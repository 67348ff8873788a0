"""Principals of ``tooldeck mcp serve``: who a request is, and the rules it is served under.

A principal is named in ``[mcp.serve.principals.NAME]``; its bearer token is read from
the environment variable its ``token_env`` names, once, at start. ``TOOLDECK_MCP_TOKEN``
is the principal ``default``. A principal with rules of its own is served under the
Location's rules followed by its own (last match wins), and the same ruleset decides
both what ``tools/list`` shows it and what its calls may do, so the two cannot drift. A
principal without rules (``default``, or none configured) is served as the Location is.
The rules follow the config when it is reloaded; the tokens need a restart.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from tooldeck.errors import UsageError
from tooldeck.host.location.call_rules import CallRules
from tooldeck.host.location.config import McpServeConfig, PermissionRule
from tooldeck.host.location.wildcard import Ruleset
from tooldeck.mcp.auth import DEFAULT_PRINCIPAL, TOKEN_ENV

if TYPE_CHECKING:
    from tooldeck import Host


def tokens(config: McpServeConfig, environ: Mapping[str, str]) -> dict[str, str]:
    """Every configured token and the principal it selects (empty: no token needed).

    A principal whose variable is unset, or two principals sharing a token, is a
    mistake that would let the wrong client in or lock the right one out: refused.
    """
    found: dict[str, str] = {}
    named = [(name, p.token_env) for name, p in sorted(config.principals.items())]
    if environ.get(TOKEN_ENV):
        named.append((DEFAULT_PRINCIPAL, TOKEN_ENV))
    for name, variable in named:
        token = environ.get(variable, "")
        if not token:
            raise UsageError(
                f"[mcp.serve.principals.{name}] token_env: {variable} is not set "
                "(the principal's bearer token is read from it)"
            )
        other = found.get(token)
        if other is not None and other != name:
            raise UsageError(
                f"principals {other!r} and {name!r} have the same token: give each its own"
            )
        found[token] = name
    return found


class Principals:
    """The ``CallRules`` of each principal with rules, kept across config reloads (their
    ``always`` answers live in them)."""

    def __init__(self) -> None:
        self._rules: dict[str, tuple[object, CallRules]] = {}

    def rules(self, host: Host, name: str | None) -> CallRules | None:
        """``name``'s rules on ``host``'s Location, or None: the Location's own rules."""
        if name is None:
            return None
        configured = host.location.config.mcp.serve.principals.get(name)
        if configured is None or not configured.permission:
            return None
        location = host.location.policy
        kept = self._rules.get(name)
        key = (location, configured.permission)
        if kept is None:
            kept = (key, CallRules(name, _policy(location, configured.permission)))
            self._rules[name] = kept
        elif kept[0] != key:  # the config changed: same approvals, new rules
            kept[1].policy = _policy(location, configured.permission)
            self._rules[name] = (key, kept[1])
        return kept[1]


def _policy(location: Ruleset, own: tuple[PermissionRule, ...]) -> Ruleset:
    return Ruleset((*location.rules, *own))
