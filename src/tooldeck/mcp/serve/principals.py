"""Principals of ``tooldeck mcp serve``: who a request is, and the rules it is served under.

A principal is named in ``[mcp.serve.principals.NAME]``; its bearer token is read from
the environment variable its ``token_env`` names, once, at start. ``TOOLDECK_MCP_TOKEN``
is the principal ``default``. A principal with rules of its own is served under the
Location's rules followed by its own (last match wins inside the user's file and inside
the project's, the two combined by strictest wins), and the same rules decide
both what ``tools/list`` shows it and what its calls may do, so the two cannot drift. A
principal without rules of its own (``default``) is served under the Location's rules.
A principal's ``always`` answers are saved in the Location's store under its name, so
they survive a restart and no other principal sees them; with no token configured at
all, requests have no principal and answers are saved for the Location. The rules
follow the config when it is reloaded; the tokens need a restart.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from tooldeck.errors import UsageError
from tooldeck.host.config.config import McpServeConfig
from tooldeck.host.permissions.call_rules import CallRules
from tooldeck.host.permissions.permission import principal_rules
from tooldeck.mcp.serve.auth import DEFAULT_PRINCIPAL, TOKEN_ENV

if TYPE_CHECKING:
    from tooldeck import Host, Location


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


def names(config: McpServeConfig, environ: Mapping[str, str]) -> tuple[str, ...]:
    """The principals a server with this config and environment may serve."""
    found = tuple(sorted(config.principals))
    return (*found, DEFAULT_PRINCIPAL) if environ.get(TOKEN_ENV) else found


def admitted(host: Host, name: str) -> bool:
    """Whether ``host`` still serves the principal ``name``: its token was read at start,
    but a principal that left the config (its folder no longer trusted) is let in no
    more."""
    return name == DEFAULT_PRINCIPAL or name in host.location.config.mcp.serve.principals


def load_approvals(host: Host, principals: Iterable[str]) -> None:
    """Read each principal's saved approvals now (blocking I/O: called in a thread when
    the served host opens), so no call on the event loop waits on the store."""
    for name in principals:
        principal_rules(host.location.permission, name, host.location.policy)


class Principals:
    """The ``CallRules`` of each principal, rebuilt when the host or its config changes
    (the approvals are the store's, so nothing is lost by rebuilding)."""

    def __init__(self) -> None:
        self._rules: dict[str, tuple[Location, object, object, CallRules]] = {}

    def rules(self, host: Host, name: str | None) -> CallRules | None:
        """``name``'s rules on ``host``'s Location, or None (no principal: the Location's
        own rules and approvals)."""
        if name is None:
            return None
        location = host.location
        configured = location.config.mcp.serve.principals.get(name)
        own = configured.permission if configured is not None else ()
        policy = location.policy
        kept = self._rules.get(name)
        if kept is not None and kept[0] is location and kept[1] is policy and kept[2] is own:
            return kept[3]
        rules = principal_rules(location.permission, name, location.principal_policy(name))
        self._rules[name] = (location, policy, own, rules)
        return rules
