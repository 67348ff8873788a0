"""Who hears what changed: list changes for every client, resource updates for the
clients subscribed to the resource.

Each client hears it in its own protocol era: 2026-07-28 clients through
``subscriptions/listen`` (events on the bus; the SDK's listen handler delivers each only
to the streams that asked for its kind, resource updates to the streams subscribed to
that URI), handshake-era clients through notifications on their connection. The SDK
has no broadcast, so a middleware remembers one request session per handshake-era
connection (the most recent ``MAX_SESSIONS``), keyed by the identity of its initialize
params (one object per connection), and the URIs it subscribed to
(``resources/subscribe``).

A pack says one of its resources changed with ``location.resource_updated(uri)`` (or
``ctx.resource_updated``), from any thread: ``updated_soon`` takes it to the server's
event loop (the loop its requests run on, noted by ``remember``), where its subscribers
are told. Each server process tells its own subscribers: replicas share no
subscriptions, so a change is heard on a replica only if the pack says it there too.

Each subscription is also an interest in the resource at its source
(``location.follow_resource``: a mounted server that offers subscriptions is
subscribed upstream, once per URI, and its updates come back as ``resource_updated``):
a handshake-era client's from its ``resources/subscribe`` until its
``resources/unsubscribe`` (or until it is forgotten), a 2026-07-28 client's for as long
as its ``subscriptions/listen`` stream naming the URI is open (``FollowingListen``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from tooldeck.host.features.templates import match
from tooldeck.mcp.sdk import (
    InMemorySubscriptionBus,
    ListenHandler,
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated,
    ToolsListChanged,
)
from tooldeck.mcp.serve.asking import MODERN

if TYPE_CHECKING:
    from tooldeck import Snapshot

log = logging.getLogger("tooldeck.mcp")

MAX_SESSIONS = 100


class Announcer:
    """The bus and the handshake-era connections of one server, and their subscriptions."""

    def __init__(self) -> None:
        self.bus = InMemorySubscriptionBus()
        self._sessions: dict[int, Any] = {}
        self._subscribed: dict[int, set[str]] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._sending: set[asyncio.Future[None]] = set()
        self._follow: Follow = _nobody
        """Who follows a subscribed URI at its source (the served Location's
        ``follow_resource``, ``follow_with``)."""
        self._following: dict[tuple[object, str], Callable[[], None]] = {}

    async def remember(self, ctx: Any, call_next: Callable[[Any], Awaitable[Any]]) -> Any:
        """Server middleware: note the connection of every handshake-era request (and
        the loop requests are served on)."""
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        session = ctx.session
        params = session.client_params
        if params is not None and session.protocol_version != MODERN:
            self._sessions.pop(id(params), None)
            self._sessions[id(params)] = session
            while len(self._sessions) > MAX_SESSIONS:
                gone = next(iter(self._sessions))
                del self._sessions[gone]
                self._unsubscribed(gone)
        return await call_next(ctx)

    # -- subscriptions --------------------------------------------------------------------
    def subscribe(self, ctx: Any, uri: str) -> None:
        params = ctx.session.client_params
        if params is None:
            return
        self._subscribed.setdefault(id(params), set()).add(uri)
        self.following(id(params), uri)

    def unsubscribe(self, ctx: Any, uri: str) -> None:
        params = ctx.session.client_params
        if params is not None:
            self._subscribed.get(id(params), set()).discard(uri)
            self.unfollowing(id(params), uri)

    def _unsubscribed(self, key: int) -> None:
        """A connection is forgotten: its subscriptions end."""
        for uri in self._subscribed.pop(key, ()):
            self.unfollowing(key, uri)

    # -- following subscribed URIs at their source ------------------------------------------
    def following(self, key: object, uri: str) -> None:
        """Subscriber ``key`` (a connection, a listen stream) follows ``uri``."""
        if (key, uri) not in self._following:
            self._following[(key, uri)] = self._follow(uri)

    def unfollowing(self, key: object, uri: str) -> None:
        unfollow = self._following.pop((key, uri), None)
        if unfollow is not None:
            unfollow()

    def follow_with(self, follow: Follow) -> None:
        """Follow subscribed URIs with ``follow`` from now on (the Location of a host
        just opened), and everything followed so far again with it."""
        self._follow = follow
        for key, uri in list(self._following):
            self._following.pop((key, uri))()
            self._following[(key, uri)] = follow(uri)

    @property
    def subscribed(self) -> frozenset[str]:
        """Every URI some handshake-era client is subscribed to."""
        return frozenset(uri for uris in self._subscribed.values() for uri in uris)

    # -- announcing -----------------------------------------------------------------------
    async def catalog_changed(self, before: Snapshot, after: Snapshot) -> None:
        """Announce what differs from ``before`` to ``after`` (the Location's snapshots):
        each list that changed, and each resource whose serving definition changed (the
        subscribed ones, and every static one for 2026-07-28 listeners)."""
        old, new = before.definitions_for("mcp"), after.definitions_for("mcp")
        if old is not new and old != new:
            await self.tools_changed()
        was, now = before.catalog.resources, after.catalog.resources
        if list(was) != list(now):
            await self.resources_changed()
        if list(before.catalog.prompts) != list(after.catalog.prompts):
            await self.prompts_changed()
        uris = self.subscribed | set(was) | set(now)
        await self.updated(uri for uri in uris if _serving(was, uri) is not _serving(now, uri))

    async def tools_changed(self) -> None:
        await self.bus.publish(ToolsListChanged())
        await self._tell_all(lambda s: s.send_tool_list_changed())

    async def resources_changed(self) -> None:
        await self.bus.publish(ResourcesListChanged())
        await self._tell_all(lambda s: s.send_resource_list_changed())

    async def prompts_changed(self) -> None:
        await self.bus.publish(PromptsListChanged())
        await self._tell_all(lambda s: s.send_prompt_list_changed())

    async def updated(self, uris: Iterable[str]) -> None:
        """``notifications/resources/updated`` for each of ``uris``, to its subscribers."""
        for uri in sorted(set(uris)):
            await self.bus.publish(ResourceUpdated(uri=uri))
            for key, session in list(self._sessions.items()):
                if uri in self._subscribed.get(key, ()):
                    await self._tell(key, session, _resource_updated(uri))

    def updated_soon(self, uri: str) -> None:
        """``updated([uri])`` on the serving loop, from any thread; before any request
        was served no one can be subscribed, and nothing is sent."""
        loop = self._loop
        if loop is None or loop.is_closed():
            return
        loop.call_soon_threadsafe(self._send_updated, uri)

    def _send_updated(self, uri: str) -> None:
        sending = asyncio.ensure_future(self.updated([uri]))
        self._sending.add(sending)
        sending.add_done_callback(self._sending.discard)

    async def _tell_all(self, send: Callable[[Any], Awaitable[None]]) -> None:
        for key, session in list(self._sessions.items()):
            await self._tell(key, session, send)

    async def _tell(self, key: int, session: Any, send: Callable[[Any], Awaitable[None]]) -> None:
        try:
            await send(session)
        except Exception as exc:  # a client that left: forget it
            log.debug("could not notify an MCP client: %s", exc)
            self._sessions.pop(key, None)
            self._unsubscribed(key)


class FollowingListen:
    """The ``subscriptions/listen`` handler: ``ListenHandler``'s, and while a stream is
    open, an interest at their source in each URI it subscribes to."""

    def __init__(self, announcer: Announcer) -> None:
        self._announcer = announcer
        self._listen = ListenHandler(announcer.bus)

    async def __call__(self, ctx: Any, params: Any) -> Any:
        uris = [str(uri) for uri in params.notifications.resource_subscriptions or ()]
        stream = object()
        for uri in uris:
            self._announcer.following(stream, uri)
        try:
            return await self._listen(ctx, params)
        finally:
            for uri in uris:
                self._announcer.unfollowing(stream, uri)


Follow = Callable[[str], Callable[[], None]]
"""``follow(uri)``: an interest in ``uri`` at its source; returns what ends it."""


def _nobody(uri: str) -> Callable[[], None]:
    return _nothing


def _nothing() -> None:
    return None


def _resource_updated(uri: str) -> Callable[[Any], Awaitable[None]]:
    async def send(session: Any) -> None:
        await session.send_resource_updated(uri)

    return send


def _serving(resources: Mapping[str, Any], uri: str) -> object:
    """What would serve a read of ``uri``: its resource, or a template it matches."""
    entry = resources.get(uri)
    if entry is not None:
        return entry.resource
    for pattern, each in resources.items():
        if "{" in pattern and match(pattern, uri) is not None:
            return each.resource
    return None
