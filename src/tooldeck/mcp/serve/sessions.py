"""The clients of ``tooldeck mcp serve``: each client's session scope, its view, its calls.

A served call runs in the session scope of the client that sent it, so permission asks
and their ``once`` answers, asks in flight and ``session_transform`` packs belong to one
client and never reach another. The client is told apart by its transport:

* a handshake-era HTTP client by its ``Mcp-Session-Id`` (the SDK binds the id to the
  connection that created it);
* the stdio client (one per process) by the fixed key ``mcp-stdio``;
* a stateless client (a 2026-07-28 request carries no session) has no scope: each of its
  calls runs in the Location's view, its asks tracked under that call alone, and its
  answers travel with the call itself (``request_state``).

What a client is served is its **view** (``ClientView``): the snapshot of its session
(the Location's, for a stateless client) hiding what its principal's rules deny, and
those rules, which its calls run under. A view is kept while the host, the principal
and the snapshot stay the same, so a call or a listing only asks the service whether
the snapshot is still current (an identity check); a changed catalog, a new host (the
config changed: new rules) or another principal makes a new view.

The scope lives on the host being served; when the config changes and a new host opens,
the old host's scopes close with it and each client's next request opens a fresh one. A
scope closes when the client ends its session (``DELETE``) or after ``idle_timeout_s``
without a call. No SDK import here: it works on plain ASGI scopes and keys.

One context variable remains, ``_PRINCIPAL``: the SDK checks a 2026-07-28 call's
``Mcp-Param-*`` headers through ``get_tool_input_schema(name)``, a callback given the
tool's name alone, so the principal of the request reaches it only through the task
(``RequestScope`` marks it). Every handler reads the principal from its own request.
"""

from __future__ import annotations

import contextvars
import itertools
import time
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tooldeck.mcp.serve.auth import PRINCIPAL_KEY
from tooldeck.mcp.serve.principals import Principals

if TYPE_CHECKING:
    from tooldeck import Host, Snapshot
    from tooldeck.host.permissions.call_rules import CallRules
    from tooldeck.host.permissions.layers import Policy
    from tooldeck.mcp.serve.watch import Serving

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

SESSION_HEADER = b"mcp-session-id"
STDIO_KEY = "mcp-stdio"
PREFIX = "mcp-"


def client_key(request: Any) -> str | None:
    """The session key of the client that sent ``request`` (a Starlette request, or None
    over stdio); None for a stateless request."""
    if request is None:
        return STDIO_KEY
    session_id = request.headers.get("mcp-session-id")
    return PREFIX + session_id if session_id else None


def principal_of(request: Any) -> str | None:
    """The principal ``BearerCheck`` found for ``request`` (None: stdio, or no tokens)."""
    return request.scope.get(PRINCIPAL_KEY) if request is not None else None


@dataclass(frozen=True, slots=True)
class ClientView:
    """What one client is served: ``snapshot``, taken under ``rules`` (its principal's,
    ``None``: the Location's own), which its calls also run under; ``permissions`` is the
    policy the snapshot hides by.

    ``outputs`` remembers, per tool name, whether the advertised tool declares an object
    output (its result then carries ``structured_content``); it belongs to this snapshot.
    """

    host: Host
    principal: str | None
    rules: CallRules | None
    permissions: Policy
    snapshot: Snapshot
    outputs: dict[str, bool]


class ClientSessions:
    """The clients seen lately: when each was last used, its calls in flight, its view.

    ``serving.host`` is the host served right now (replaced when the config changes).
    Thread-confined to the event loop.
    """

    def __init__(
        self,
        serving: Serving,
        *,
        idle_timeout_s: float,
        max_calls: int,
        principals: Principals | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._serving = serving
        self.idle_timeout_s = idle_timeout_s
        self.max_calls = max_calls
        self.principals = principals or Principals()
        self._clock = clock
        self._last: dict[str, float] = {}
        self._in_flight: dict[str, int] = {}
        self._views: dict[str, ClientView] = {}  # by session key
        self._stateless: dict[str | None, ClientView] = {}  # by principal
        self._stateless_calls = itertools.count(1)

    # -- views --------------------------------------------------------------------------------
    def view(self, key: str | None, principal: str | None) -> ClientView:
        """The view of ``key``'s client as ``principal`` (``key=None``: a stateless
        client's, the Location's view), the one kept while nothing it depends on changed."""
        views: dict[Any, ClientView] = self._views if key is not None else self._stateless
        slot = key if key is not None else principal
        host = self._serving.host
        view = views.get(slot)
        if (
            view is not None
            and view.host is host
            and view.principal == principal
            and host.service.snapshot(view.permissions, session=key) is view.snapshot
        ):
            return view  # the catalog, the config and the principal are as they were
        rules = self.principals.rules(host, principal)  # kept per host: the config's
        view = views[slot] = _open_view(host, key, principal, rules)
        return view

    def stateless_key(self) -> str:
        """A key for one stateless call's asks (never a scope: nothing opens for it)."""
        return f"{PREFIX}call-{next(self._stateless_calls)}"

    # -- activity -----------------------------------------------------------------------------
    def enter(self, key: str) -> bool:
        """Count a call of ``key`` in; False (not counted) with ``max_calls`` in flight."""
        count = self._in_flight.get(key, 0)
        if count >= self.max_calls:
            return False
        self._in_flight[key] = count + 1
        self._last[key] = self._clock()
        return True

    def leave(self, key: str) -> None:
        """Count a call of ``key`` out (its session counts as used now)."""
        count = self._in_flight.pop(key, 1) - 1
        if count > 0:
            self._in_flight[key] = count
        if key in self._last:
            self._last[key] = self._clock()

    def touch(self, key: str) -> None:
        """Mark ``key`` used now (a listing counts as activity too)."""
        self._last[key] = self._clock()

    @property
    def keys(self) -> tuple[str, ...]:
        """The sessions being tracked, oldest first."""
        return tuple(self._last)

    # -- closing ------------------------------------------------------------------------------
    def end(self, key: str) -> None:
        """The client ended its session: close its scope now."""
        self._last.pop(key, None)
        self._views.pop(key, None)
        _close(self._serving.host, key)

    def reap(self) -> list[str]:
        """Close the scopes of sessions idle for ``idle_timeout_s`` (calls in flight keep
        a session alive); the keys closed."""
        cutoff = self._clock() - self.idle_timeout_s
        idle = [k for k, t in self._last.items() if t <= cutoff and k not in self._in_flight]
        host = self._serving.host
        for key in idle:
            del self._last[key]
            self._views.pop(key, None)
            _close(host, key)
        return idle

    def check_every_s(self) -> float:
        """How often ``reap`` should run: often enough to close within a quarter of the
        timeout past it, at most every 30 s."""
        return min(30.0, max(0.05, self.idle_timeout_s / 4))


def _open_view(
    host: Host, key: str | None, principal: str | None, rules: CallRules | None
) -> ClientView:
    """A new view: the client's session scope opened (if it has one) and its snapshot
    taken, hiding what ``rules`` deny (``None``: the Location's policy)."""
    permissions = rules.policy if rules is not None else host.location.policy
    if key is not None:
        host.session(key)  # opened on first use; reopened if it was closed meanwhile
    snapshot = host.service.snapshot(permissions, session=key)
    return ClientView(host, principal, rules, permissions, snapshot, {})


def _close(host: Host, key: str) -> None:
    if key in host.service.sessions:
        host.session(key).close()


_PRINCIPAL: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "tooldeck_mcp_principal", default=None
)


def current_principal() -> str | None:
    """The principal of the HTTP request being handled in this task (None: none), for
    the SDK's tool-schema lookup alone (see the module doc)."""
    return _PRINCIPAL.get()


class RequestScope:
    """ASGI wrapper: marks the request's principal for code the SDK calls without the
    request (its tool-schema lookup), and closes a session's scope when the client ends
    the session with ``DELETE``."""

    def __init__(self, app: Any, sessions: ClientSessions) -> None:
        self.app = app
        self._sessions = sessions

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        token = _PRINCIPAL.set(scope.get(PRINCIPAL_KEY))
        try:
            if scope.get("method") == "DELETE":
                await self._delete(scope, receive, send)
            else:
                await self.app(scope, receive, send)
        finally:
            _PRINCIPAL.reset(token)

    async def _delete(self, scope: Scope, receive: Receive, send: Send) -> None:
        session_id = dict(scope.get("headers") or ()).get(SESSION_HEADER, b"")
        status = 0

        async def sending(message: MutableMapping[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        await self.app(scope, receive, sending)
        if session_id and 200 <= status < 300:
            self._sessions.end(PREFIX + session_id.decode("latin-1"))
