"""One configured MCP server: its client session, its latest lists, and the session its
requests run against (``calls`` sends them).

Everything here runs on the Location's background loop (``loop.LoopThread``). Each
connection has one *owner task* that enters the SDK's ``Client`` and exits it, because
the SDK's task groups must be entered and exited in one task; calls and listings run in
other tasks against the open session.

The owner also keeps the lists current in both protocol eras: tools, and the resources,
templates and prompts of a server that offers them (``features``). A relister waits for
a burst of change signals to end (``changes``), lists the kinds they named again, and
tells the layer only when something changed.

Each start (connecting and the first listing) calls the host's ``on_start`` watcher (a
command line says what it waits for when a start is slow) and is logged at INFO on
``tooldeck.mcp.progress`` as it begins and as it ends, so an application that logs INFO
sees every start.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import anyio

from tooldeck._tool import ToolFailure
from tooldeck.mcp.client.cache import wire_tools
from tooldeck.mcp.client.changes import Stale, listen
from tooldeck.mcp.client.client_side import ClientSide
from tooldeck.mcp.client.failures import closed_connection, describe, first_line
from tooldeck.mcp.client.features import KINDS, NONE, TOOLS, Features, list_features
from tooldeck.mcp.client.followed import FollowedResources
from tooldeck.mcp.client.listing import list_all
from tooldeck.mcp.client.specs import ServerSpec
from tooldeck.mcp.client.stdio import StdioProcess
from tooldeck.mcp.client.transports import StderrLog, open_transport

if TYPE_CHECKING:
    from tooldeck.host.permissions.request import Asker
    from tooldeck.mcp.client.oauth.signin import Authorizer
    from tooldeck.mcp.sdk import Client, types

log = logging.getLogger("tooldeck.mcp")
progress = logging.getLogger("tooldeck.mcp.progress")

CLOSE_TIMEOUT_S = 10.0

Spawn = Callable[..., None]
"""``spawn(coroutine_function, *args)``: start a long-lived task on the loop."""
Listed = Callable[["Connection"], None]
"""``on_listed(connection)``: a listing succeeded (called in a worker thread, so it may
write files); its tools, notes and ``ttl_ms`` are the connection's."""
StartWatcher = Callable[[str], Callable[[], None]]
"""``on_start(server_name)`` as a start begins (on the loop: keep it short); it returns
the function called as the start ends, successfully or not."""


class Connection:
    """A server's session on the loop: connect, list, follow changes, reconnect, close
    (its requests are sent by ``calls``)."""

    def __init__(
        self,
        spec: ServerSpec,
        on_change: Callable[[Connection], None],
        spawn: Spawn,
        on_listed: Listed | None = None,
        on_start: StartWatcher | None = None,
        *,
        asker: Callable[[], Asker | None] = lambda: None,
        authorizer: Authorizer | None = None,
        on_resource_updated: Callable[[str], None] = lambda uri: None,
    ) -> None:
        """``on_change(connection)``: its tools changed (called on the loop);
        ``spawn(fn, *args)``: start a task that outlives the call starting it;
        ``on_listed(connection)``: a listing succeeded (``Listed``);
        ``on_start(name)``: a start begins (``StartWatcher``); ``asker``: the
        Location's asker, for the server's elicitations; ``authorizer``: how a person
        signs in when the server needs OAuth (``None``: the row says what to run);
        ``on_resource_updated(uri)``: a followed resource changed (``followed``)."""
        self.spec = spec
        self._spawn = spawn
        self.tools: tuple[types.Tool, ...] = ()
        self.features: Features = NONE
        """The resources, templates and prompts the server offers, as listed."""
        self.notes: tuple[str, ...] = ()
        """Problems of the latest listing (cut short, ...), shown in the report row."""
        self.failure: str | None = "not connected yet"
        self.protocol_version: str | None = None
        self.session_id: str | None = None
        """The MCP session an HTTP server gave this connection (``None`` over stdio)."""
        self.process: StdioProcess | None = None
        """A stdio server's process (its pid, and its exit status once it ended)."""
        self.listings = 0
        """Completed listings (the first one included): debouncing is measured by it."""
        self.ttl_ms: int | None = None
        """The time-to-live the server declared for its latest listing, if any."""
        self.deferred = False
        """Tools came from a kept listing and the server has not been started yet: the
        first call (or ``wake``) starts it."""
        self._on_change = on_change
        self._on_listed = on_listed
        self._on_start = on_start
        self.side = ClientSide(spec, asker, authorizer)
        """Who we are, what we answer the server, how we authorize (``client_side``)."""
        self.deadlines = self.side.deadlines
        self._kept: tuple[dict[str, Any], ...] | None = None
        self._client: Client | None = None
        self._stderr: StderrLog | None = None
        self._scope: anyio.CancelScope | None = None
        self._done = anyio.Event()
        self._stale = Stale()
        self.followed = FollowedResources(spec.name, on_resource_updated)
        """The server's resources someone subscribed to (``follow``), followed there."""
        self._lost = anyio.Event()
        self._may_reconnect = False
        self._reconnecting = anyio.Lock()
        self._closed = False

    @property
    def name(self) -> str:
        return self.spec.name

    # -- lifetime ------------------------------------------------------------------------
    async def start(self) -> None:
        """Connect and list, bounded by ``timeout_s``; on failure ``self.failure`` says why."""
        progress.info("starting MCP server %r", self.name)
        done = self._on_start(self.name) if self._on_start is not None else None
        try:
            await self._start()
        finally:
            if done is not None:
                done()
            progress.info("MCP server %r: %s", self.name, self.failure or "started")

    async def _start(self) -> None:
        timeout = self.spec.config.timeout_s
        ready = anyio.Event()
        self._done = anyio.Event()
        self._lost = anyio.Event()
        self.failure = None
        self.side.connecting()
        self._spawn(self._own, ready)
        with self.deadlines.move_on_after(timeout):
            await ready.wait()
        if not ready.is_set():
            await self._stop()
            self.failure = self._with_stderr(self.side.timed_out(timeout))
        if self.failure is None:
            self._may_reconnect = True

    def preload(
        self,
        tools: tuple[Any, ...],
        wire: tuple[dict[str, Any], ...],
        notes: tuple[str, ...],
        ttl_ms: int | None,
    ) -> None:
        """Take a kept listing as the server's tools without starting it; the first call
        or ``wake`` starts the server (whose listing then replaces these). ``tools`` have
        the attributes mounting reads (``cache.KeptTool``); ``wire`` is the listing as
        kept, to tell whether the server's own listing differs."""
        self.tools, self.notes, self.ttl_ms = tools, notes, ttl_ms
        self._kept = wire
        self.failure = None
        self.deferred = True
        self._may_reconnect = True

    async def wake(self) -> None:
        """Start a server whose tools came from a kept listing (no-op once started)."""
        if self.deferred:
            await self._reconnected()

    async def close(self) -> None:
        """End the session (and a stdio server's process). Idempotent."""
        self._closed = True
        if not self.deferred:  # a server never started has nothing to end
            await self._stop()
        self.failure = "closed"
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None

    async def _stop(self) -> None:
        if self._scope is not None:
            self._scope.cancel()
        with anyio.move_on_after(CLOSE_TIMEOUT_S):
            await self._done.wait()

    async def _own(self, ready: anyio.Event) -> None:
        from tooldeck.mcp.sdk import Client

        if self._stderr is None and self.spec.config.command is not None:
            self._stderr = StderrLog()
        self.side.attempt()
        try:
            with anyio.CancelScope() as scope:
                self._scope = scope
                self.session_id = None
                transport = open_transport(
                    self.spec,
                    self._stderr,
                    self._lost.set,
                    self._started,
                    self._session,
                    auth=self.side.http_auth(),
                    on_refused=self.side.refused,
                )
                options = self.side.client_options()
                async with Client(transport, message_handler=self._on_message, **options) as client:
                    self.protocol_version = client.protocol_version
                    await self._list(client)
                    self._client = client
                    ready.set()
                    await self._serve(client)
                self.failure = self.failure or self._with_stderr(self.gone())
        except Exception as exc:  # every way a server can fail ends up in its report row
            reason = self.side.refusal() or (
                self.gone() if closed_connection(exc) else describe(exc, self.spec)
            )
            self.failure = self._with_stderr(reason)
            log.debug("MCP server %r failed", self.name, exc_info=True)
        finally:
            self._client = None
            self._scope = None
            ready.set()
            self._done.set()

    def _started(self, process: StdioProcess) -> None:
        self.process = process

    def _session(self, session_id: str) -> None:
        self.session_id = session_id

    async def _serve(self, client: Client) -> None:
        """Follow list changes until the server goes away or the connection is closed."""
        modern = _modern(client.protocol_version)
        async with anyio.create_task_group() as group:
            group.start_soon(self._relister, client)
            if modern:
                group.start_soon(listen, client, self._stale, self.name)
            await self.followed.attached(client, group, modern)
            try:
                await self._lost.wait()
            finally:
                self.followed.detached()
            group.cancel_scope.cancel()
        if not self._closed:
            await self._reaped()
            self.failure = self._with_stderr(self.gone())

    async def _reaped(self) -> None:
        """Give a stdio child that closed its stdout a moment to report its exit status."""
        with anyio.move_on_after(1.0):
            while self.process is not None and self.process.returncode is None:
                await anyio.sleep(0.01)

    # -- listing ---------------------------------------------------------------------------
    async def _list(self, client: Client, kinds: frozenset[str] = KINDS) -> bool:
        """List every page of ``kinds`` (bounded); True when something differs from the
        last listing. Only the kinds the server offers are asked for."""
        changed = False
        with self.deadlines.fail_after(self.spec.config.timeout_s):
            if TOOLS in kinds:
                listed = await list_all(client)
                changed = listed.tools != self.tools
                self.tools, self.notes, self.ttl_ms = listed
            features = await list_features(client, kinds, self.features)  # offered only
            changed = changed or features[:3] != self.features[:3]
            self.features = features
        self.listings += 1
        if self._on_listed is not None and TOOLS in kinds:
            await anyio.to_thread.run_sync(self._on_listed, self)
        return changed

    async def _on_message(self, message: Any) -> None:
        if (
            self._stale.noticed(message)
            or self.followed.noticed(message)
            or self.side.requests.urls.completed(message)
        ):
            return
        if isinstance(message, Exception):
            if self._client is None:  # still connecting
                self.side.unreadable(message)
            log.warning(
                "MCP server %r sent a line that is not JSON-RPC: %s",
                self.name,
                first_line(str(message)),
            )

    async def _relister(self, client: Client) -> None:
        while True:
            kinds = await self._stale.settled()
            try:
                changed = await self._list(client, kinds)
            except Exception as exc:
                log.warning(
                    "MCP server %r: listing after a change failed: %s",
                    self.name,
                    describe(exc, self.spec),
                )
                continue
            if changed:
                self._on_change(self)

    async def refresh(self) -> bool:
        """List again now (as after a change signal); True when the list changed."""
        client = self._client
        if client is None:
            raise ToolFailure(self.unavailable())
        changed = await self._list(client)
        if changed:
            self._on_change(self)
        return changed

    # -- the session requests run against (``calls``) -----------------------------------
    async def open_client(self) -> Client:
        """The open session's client; a lost server is reconnected once, then reported
        as failed (``ToolFailure``)."""
        client = self._client if not self._lost.is_set() else None
        return client if client is not None else await self._reconnected()

    def lost(self) -> None:
        """A request found the connection closed: the next request reconnects."""
        self._lost.set()

    async def _reconnected(self) -> Client:
        async with self._reconnecting:
            if self._client is not None and not self._lost.is_set():
                return self._client
            if self._closed or not self._may_reconnect:
                raise ToolFailure(self.unavailable())
            self._may_reconnect = False
            if not self.deferred:  # a deferred server has no session to end yet
                await self._stop()
            self.deferred = False
            before, features_before = self.tools, self.features
            await self.start()
            if self._client is None:
                raise ToolFailure(self.unavailable())
            kept, self._kept = self._kept, None
            if kept is not None and self.tools is not before:  # listed after a kept listing
                changed = wire_tools(self.tools) != list(kept)
            else:
                changed = self.tools != before
            if changed or self.features[:3] != features_before[:3]:
                self._on_change(self)
            return self._client

    def unavailable(self) -> str:
        """Why no request can be sent: the server's failure, or that it never connected."""
        return f"MCP server {self.name!r} is not available: {self.failure or 'not connected'}"

    # -- helpers -------------------------------------------------------------------------------
    def gone(self) -> str:
        """How the server went away: its exit status when it was our child."""
        code = self.process.returncode if self.process is not None else None
        if code is None:
            return "the server closed the connection"
        return f"the server exited with status {code}"

    def _with_stderr(self, reason: str) -> str:
        return reason + self.stderr_suffix()

    def stderr_suffix(self) -> str:
        """A stdio server's last stderr lines, for a failure's text (``""``: none)."""
        tail = self._stderr.tail() if self._stderr is not None else ""
        return f"; its stderr ends with:\n{tail}" if tail else ""


def _modern(version: str | None) -> bool:
    from tooldeck.mcp.sdk import MODERN_PROTOCOL_VERSIONS

    return version in MODERN_PROTOCOL_VERSIONS
