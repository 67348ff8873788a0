"""The resources of one server that someone follows (a client of ``tooldeck mcp serve``
subscribed to them), each followed on the server once, however many subscribers.

The first interest in a URI subscribes to it on the server (when the server declares
``resources.subscribe``); the last one ending unsubscribes. A handshake-era server is
sent ``resources/subscribe`` / ``resources/unsubscribe`` and tells of a change with
``notifications/resources/updated`` on the session (``noticed``); a 2026-07-28 server
has no subscribe request: each followed URI gets its own ``subscriptions/listen``
stream asking for that URI's updates, closed when the last interest ends. Either way a
change becomes ``updated(uri)`` (the Location's ``resource_updated``, which tells the
subscribers of ``tooldeck mcp serve``).

Interests outlive the session: a server that reconnects is subscribed again to what is
still followed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import anyio

if TYPE_CHECKING:
    from anyio.abc import TaskGroup

    from tooldeck.mcp.client.connection import Connection
    from tooldeck.mcp.client.mount_features import MountedFeatures
    from tooldeck.mcp.sdk import Client

log = logging.getLogger("tooldeck.mcp")


def serving(
    uri: str, servers: Sequence[tuple[MountedFeatures | None, Connection | None]]
) -> Connection | None:
    """The connection of the server whose mounted resource serves ``uri``: the first
    server (in configured order, as the layer mounts a URI several list) listing it,
    else the first with a template it matches."""
    from tooldeck.host.features.templates import match

    for features, connection in servers:
        if features is not None and uri in features.resources:
            return connection
    for features, connection in servers:
        for pattern in features.resources if features is not None else ():
            if "{" in pattern and match(pattern, uri) is not None:
                return connection
    return None


class FollowedResources:
    """One server's followed URIs and how each is followed on the current session."""

    def __init__(self, server: str, updated: Callable[[str], None]) -> None:
        self.server = server
        self._updated = updated
        self._interest: dict[str, int] = {}
        self._client: Client | None = None
        self._group: TaskGroup | None = None
        self._modern = False
        self._streams: dict[str, anyio.CancelScope] = {}

    @property
    def followed(self) -> frozenset[str]:
        """The URIs someone follows now."""
        return frozenset(self._interest)

    # -- the session -------------------------------------------------------------------------
    async def attached(self, client: Client, group: TaskGroup, modern: bool) -> None:
        """A session is open (``group`` lives as long): follow what is followed."""
        self._client, self._group, self._modern = client, group, modern
        for uri in list(self._interest):
            await self._start(uri)

    def detached(self) -> None:
        """The session ended: its subscriptions and streams went with it."""
        self._client = self._group = None
        self._streams.clear()

    def noticed(self, message: Any) -> bool:
        """A handshake-era ``notifications/resources/updated``: tell it; False otherwise."""
        from tooldeck.mcp.sdk import types

        if not isinstance(message, types.ResourceUpdatedNotification):
            return False
        self._updated(str(message.params.uri))
        return True

    # -- interests -----------------------------------------------------------------------------
    async def follow(self, uri: str) -> None:
        """One more interest in ``uri`` (the first one subscribes on the server)."""
        count = self._interest.get(uri, 0)
        self._interest[uri] = count + 1
        if count == 0:
            await self._start(uri)

    async def unfollow(self, uri: str) -> None:
        """One interest in ``uri`` ended (the last one unsubscribes on the server)."""
        count = self._interest.get(uri, 0)
        if count > 1:
            self._interest[uri] = count - 1
            return
        self._interest.pop(uri, None)
        if count == 1:
            await self._stop(uri)

    def _subscribes(self) -> bool:
        client = self._client
        resources = client.server_capabilities.resources if client is not None else None
        return bool(resources is not None and resources.subscribe)

    async def _start(self, uri: str) -> None:
        client, group = self._client, self._group
        if client is None or group is None or not self._subscribes():
            return
        if self._modern:
            scope = anyio.CancelScope()
            self._streams[uri] = scope
            group.start_soon(self._listen, client, uri, scope)
            return
        try:
            await _send(client, "subscribe", uri)
        except Exception as exc:  # the server's refusal: its updates are not heard
            log.warning("MCP server %r: subscribing to %r failed: %s", self.server, uri, exc)

    async def _stop(self, uri: str) -> None:
        scope = self._streams.pop(uri, None)
        if scope is not None:
            scope.cancel()
            return
        client = self._client
        if client is None or self._modern or not self._subscribes():
            return
        try:
            await _send(client, "unsubscribe", uri)
        except Exception as exc:  # a server that left has nothing to unsubscribe
            log.debug("MCP server %r: unsubscribing from %r failed: %s", self.server, uri, exc)

    async def _listen(self, client: Client, uri: str, scope: anyio.CancelScope) -> None:
        """Follow one URI on a 2026-07-28 server until unfollowed or the session ends."""
        from tooldeck.mcp.sdk import ResourceUpdated

        with scope:
            try:
                async with client.listen(resource_subscriptions=[uri]) as subscription:
                    async for event in subscription:
                        if isinstance(event, ResourceUpdated):
                            self._updated(str(event.uri))
            except Exception as exc:  # the stream is an extra: calls and reads go on
                log.debug("MCP server %r: following %r ended: %s", self.server, uri, exc)


async def _send(client: Client, which: str, uri: str) -> None:
    """``resources/subscribe`` or ``resources/unsubscribe``, sent as the request itself:
    the SDK's methods for them warn that the 2026-07-28 era has none, which is true but
    not this session's era."""
    from tooldeck.mcp.sdk import types

    request: Any = (
        types.SubscribeRequest(params=types.SubscribeRequestParams(uri=uri))
        if which == "subscribe"
        else types.UnsubscribeRequest(params=types.UnsubscribeRequestParams(uri=uri))
    )
    await client.session.send_request(request, types.EmptyResult)
