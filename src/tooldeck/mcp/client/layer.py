"""The MCP layer: one stable transform mounting every connected server's latest tools,
resources and prompts (``mount``, ``mount_features``).

It fills the reserved MCP position of discovery (after built-ins, before entry points)
as one registration. Each configured server is one row ``mcp:NAME`` of the plugin
report (``servers``), and one failing server never stops the others or the host.

A server's list change replaces that server's captured tools (resources, prompts) and
reloads the service:
the transform keeps its place, so a later plugin that overrides or removes
``<server>_<tool>`` still wins after the change; snapshots taken before keep theirs.

Every good listing is kept on disk (``cache``). With ``listings="cached"`` a server whose
kept listing is still valid is mounted from it without being started: the first call of
one of its tools starts it (and only it), and a host that stays open revalidates it in
the background after ``REVALIDATE_AFTER_S``. ``"fresh"`` connects every server and waits
for its listing, as a long-lived host wants.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import threading
import time
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Literal

from tooldeck.errors import PluginError, UsageError
from tooldeck.hookspecs import hookimpl
from tooldeck.host.config.config_files import default_data_dir, user_data_dir
from tooldeck.mcp.client.cache import ListingCache, kept_tools, wire_tools
from tooldeck.mcp.client.servers import ConfiguredServer, ServerRow, rows, shadowed
from tooldeck.mcp.client.specs import server_specs

if TYPE_CHECKING:
    from tooldeck.host.location.location import Location
    from tooldeck.host.registry.editor import ToolEditor
    from tooldeck.host.service import ToolService
    from tooldeck.mcp.client.connection import Connection, StartWatcher
    from tooldeck.mcp.client.loop import LoopThread
    from tooldeck.mcp.client.oauth.signin import Authorizer

log = logging.getLogger("tooldeck.mcp")

SOURCE = "mcp"
"""The layer's registration source (and the reserved candidate's name)."""
INSTALL_HINT = "the MCP extra is not installed: pip install 'tooldeck[mcp]'"

Excluded = Callable[[str], "str | None"]
"""Why selection leaves plugin ``mcp:NAME`` out (``disable``, ...), or None."""
Listings = Literal["cached", "fresh"]
"""Where a server's tools come from at load: its kept listing when valid, or the server."""
REVALIDATE_AFTER_S = 30.0
"""How long a host that mounted a kept listing (one without a declared time-to-live)
stays open before the server is started in the background to list again: a short
command ends first and starts no server it did not call."""


class McpLayer:
    """The configured servers of one Location, mounted as one transform."""

    source = SOURCE

    def __init__(
        self,
        location: Location,
        service: ToolService,
        excluded: Excluded,
        listings: Listings = "fresh",
        on_start: StartWatcher | None = None,
        authorizer: Authorizer | None = None,
    ) -> None:
        """``authorizer``: how a person signs in to a server that needs OAuth; without
        one, such a server's row (or call) says to run ``tooldeck mcp login``."""
        self.location = location
        self.service = service
        self._excluded = excluded
        self._listings = listings
        self._on_start = on_start  # told of every server start (Host.open(on_mcp_start=))
        self._authorizer = authorizer
        # A user's own servers share one folder of listings, unless the host chose where
        # this Location keeps its data (then everything stays there).
        default = location.data_dir == default_data_dir(location.root)
        self._cache = ListingCache(location.data_dir, user_data_dir() if default else None)
        self._servers = [
            ConfiguredServer(spec, "active")
            for spec in server_specs(
                location.config.mcp.servers, location.root, location.project.user_servers
            )
        ]
        self._loop: LoopThread | None = None
        self._lock = threading.Lock()

    # -- loading (the reserved candidate's loader) ----------------------------------------
    def load(self) -> McpLayer:
        """Connect every selected server concurrently; return the plugin object."""
        wanted = self._select()
        if not wanted:
            return self
        if importlib.util.find_spec("mcp") is None:  # checked without importing it
            return self._without_sdk(wanted)
        from tooldeck.mcp.client.connection import Connection
        from tooldeck.mcp.client.loop import location_loop

        self._loop = location_loop(self.location)
        self.location.on_close(self.close)
        self.location.on_close(self.location.on_follow_resource(self._follow))
        for server in wanted:
            server.connection = Connection(
                server.spec,
                self._changed,
                self._spawn,
                self._listed,
                self._on_start,
                asker=lambda: self.location.asker,
                authorizer=self._authorizer,
                on_resource_updated=self.location.resource_updated,
            )
        # Servers mounted from kept listings need neither their process nor the SDK (over
        # a second to import): only the others import it, to connect.
        wanted = [server for server in wanted if not self._from_cache(server)]
        if not wanted:
            return self
        try:
            from tooldeck.mcp import sdk  # noqa: F401  (without the SDK, these rows fail)
        except ImportError:
            return self._without_sdk(wanted)
        try:
            self._loop.call(self._connect_all, wanted)
        except Exception as exc:  # a bug here must not stop the host: report it
            raise PluginError(
                SOURCE, f"connecting MCP servers raised {type(exc).__name__}: {exc}"
            ) from exc
        return self

    def _without_sdk(self, servers: list[ConfiguredServer]) -> McpLayer:
        for server in servers:
            server.status, server.reason = "failed", INSTALL_HINT
            server.connection = None
        return self

    def _from_cache(self, server: ConfiguredServer) -> bool:
        """Mount ``server`` from its kept listing when ``listings="cached"`` and the entry
        is valid; True when it was (the server is then not started)."""
        if self._listings != "cached":
            return False
        entry, problem = self._cache.load(server.spec)
        tools = None
        if entry is not None and entry.fresh(time.time()):
            tools = kept_tools(entry)
            if tools is None:
                problem = (
                    f"the cached tool listing {self._cache.path(server.spec)} holds a tool "
                    "that is not a tool; it was ignored and the server is listed afresh"
                )
        if problem is not None:
            log.warning("MCP server %r: %s", server.spec.name, problem)
            server.cache_note = (problem,)
        if entry is None or tools is None:
            return False
        connection = server.connection
        assert connection is not None and self._loop is not None
        connection.preload(tools, entry.tools, entry.notes, entry.ttl_ms)
        self._mount(server)
        if not entry.declared:
            self._loop.submit(self._revalidate, connection)
        return True

    async def _revalidate(self, connection: Connection) -> None:
        """Start a server mounted from a kept listing once the host has stayed open a
        while; its listing replaces the kept one (and remounts when it changed)."""
        import anyio

        await anyio.sleep(REVALIDATE_AFTER_S)
        try:
            await connection.wake()
        except Exception as exc:  # the row says why; calls report it too
            log.debug("MCP server %r: revalidating its listing failed: %s", connection.name, exc)

    def _listed(self, connection: Connection) -> None:
        """Keep a server's good listing (in a worker thread: this writes a file)."""
        tools = wire_tools(connection.tools)
        self._cache.store(connection.spec, tools, connection.notes, connection.ttl_ms)

    def _select(self) -> list[ConfiguredServer]:
        taken: dict[str, str] = {}
        wanted = []
        for server in self._servers:
            reason = self._exclusion(server, taken)
            if reason is not None:
                server.status, server.reason = (
                    ("failed" if "namespace" in reason else "disabled"),
                    reason,
                )
                continue
            taken[server.spec.namespace] = server.spec.name
            wanted.append(server)
        return wanted

    def _exclusion(self, server: ConfiguredServer, taken: dict[str, str]) -> str | None:
        spec = server.spec
        if not spec.config.enabled:
            return f"disabled by config mcp.servers.{spec.name}.enabled = false"
        excluded = self._excluded(spec.plugin_name)
        if excluded is not None:
            return excluded
        other = taken.get(spec.namespace)
        if other is not None:
            return (
                f"its tool namespace {spec.namespace!r} is already used by server "
                f"{other!r}; rename one of them"
            )
        return None

    async def _connect_all(self, servers: list[ConfiguredServer]) -> None:
        import anyio

        async with anyio.create_task_group() as group:
            for server in servers:
                group.start_soon(self._connect, server)

    async def _connect(self, server: ConfiguredServer) -> None:
        connection = server.connection
        assert connection is not None
        await connection.start()
        self._mount(server)

    def _spawn(self, fn: Callable[..., Coroutine[Any, Any, Any]], *args: object) -> None:
        """Start a connection's owner task so that it outlives the call that started it."""
        assert self._loop is not None
        self._loop.spawn(fn, *args)

    def _mount(self, server: ConfiguredServer) -> None:
        from tooldeck.mcp.client.mount import mounted_tools
        from tooldeck.mcp.client.mount_features import NOTHING, mounted_features

        connection = server.connection
        assert connection is not None and self._loop is not None
        mounted, notes = mounted_tools(connection, self._loop, connection.tools, server.mounted)
        features = mounted_features(
            connection,
            self._loop,
            connection.features,
            server.features or NOTHING,
        )
        with self._lock:
            server.mounted = mounted
            server.tools = tuple(tool for _, tool in mounted.values())
            server.features = features
            server.notes = server.cache_note + connection.notes + notes + features.notes

    def _changed(self, connection: Connection) -> None:
        """A server's list changed (on the loop thread): remount it and reload."""
        for server in self._servers:
            if server.connection is connection:
                self._mount(server)
        self.service.reload()

    def _follow(self, uri: str) -> Callable[[], None] | None:
        """``Location.follow_resource`` for a URI a server mounts (a listed resource,
        or one a listed template matches): that server follows it (``followed``)."""
        from tooldeck.mcp.client.followed import serving

        loop = self._loop
        connection = serving(uri, [(s.features, s.connection) for s in self._mounted()])
        if loop is None or loop.closed or connection is None:
            return None
        followed = connection.followed
        loop.submit(followed.follow, uri)

        def unfollow() -> None:
            with contextlib.suppress(UsageError):  # the loop closed: nothing is followed
                loop.submit(followed.unfollow, uri)

        return unfollow

    def close(self) -> None:
        """Close every connection (ending stdio servers), then the loop. Idempotent."""
        loop, self._loop = self._loop, None
        if loop is None or loop.closed:
            return
        connections = [s.connection for s in self._servers if s.connection is not None]
        try:
            loop.call(_close_all, connections)
        finally:
            loop.close()

    # -- the transform (registered once, at the reserved position) -------------------------
    @hookimpl
    def namespace_descriptions(self, editor: ToolEditor) -> None:
        for server in self._mounted():
            editor.namespace(
                server.spec.namespace, f"Tools of the MCP server {server.spec.name!r}."
            )

    @hookimpl
    def tool_transform(self, editor: ToolEditor) -> None:
        servers = self._mounted()
        shadowed_uris = shadowed(servers)
        for server in servers:
            for tool in server.tools:
                editor.add(tool)
            features = server.features
            if features is None:
                continue
            elsewhere = shadowed_uris.get(id(server), {})
            for uri, (_, resource) in features.resources.items():
                if uri not in elsewhere:
                    editor.add_resource(resource)
            for _, prompt in features.prompts.values():
                editor.add_prompt(prompt)

    def _mounted(self) -> list[ConfiguredServer]:
        with self._lock:
            return [
                s
                for s in self._servers
                if s.connection is not None
                and (s.tools or (s.features and (s.features.resources or s.features.prompts)))
            ]

    # -- the report (one row per configured server) ---------------------------------------
    def members(self) -> list[ServerRow]:
        """Each configured server as the plugin report shows it (``mcp:NAME``)."""
        with self._lock:
            servers = [(s, s.tools, s.notes) for s in self._servers]
        return rows(servers)

    # -- for tests, benchmarks and ``tooldeck mcp`` -----------------------------------------
    def connection(self, name: str) -> Connection | None:
        """The connection of server ``name`` (None when it is not connected)."""
        return next((s.connection for s in self._servers if s.spec.name == name), None)

    def refresh(self, name: str) -> bool:
        """List server ``name`` again now; True (and reloaded) when its tools changed."""
        connection = self.connection(name)
        if connection is None or self._loop is None:
            raise LookupError(f"MCP server {name!r} is not connected")
        return self._loop.call(connection.refresh)


async def _close_all(connections: list[Connection]) -> None:
    import anyio

    async with anyio.create_task_group() as group:
        for connection in connections:
            group.start_soon(connection.close)
