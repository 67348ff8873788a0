"""The configured servers as the MCP layer keeps them, and as the plugin report shows them.

Each server in ``[mcp.servers]`` is one ``ConfiguredServer``: its selection status, its
connection and what was last mounted from it. A resource URI is served by one server
only, the first configured one that lists it (``shadowed``); a later server's row says
where its URI is mounted instead. ``rows`` gives each server's ``mcp:NAME`` row.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from tooldeck._tool import AnyTool

if TYPE_CHECKING:
    from tooldeck.host.plugins.report import PluginStatus
    from tooldeck.mcp.client.connection import Connection
    from tooldeck.mcp.client.mount import Mounted
    from tooldeck.mcp.client.mount_features import MountedFeatures
    from tooldeck.mcp.client.specs import ServerSpec


class ServerRow(NamedTuple):
    """A server's row in the plugin report (``host/plugins/report`` adds the effects)."""

    name: str
    status: PluginStatus
    reason: str | None
    origin: str
    namespace: str
    tools: frozenset[str]
    notes: tuple[str, ...]


class ConfiguredServer:
    """One configured server as the layer keeps it: its row, connection and tools."""

    __slots__ = (
        "cache_note",
        "connection",
        "features",
        "mounted",
        "notes",
        "reason",
        "spec",
        "status",
        "tools",
    )

    def __init__(self, spec: ServerSpec, status: PluginStatus, reason: str | None = None) -> None:
        self.spec = spec
        self.status: PluginStatus = status
        self.reason = reason
        self.connection: Connection | None = None
        self.tools: tuple[AnyTool, ...] = ()
        self.mounted: Mounted = {}
        self.features: MountedFeatures | None = None
        """Its resources and prompts, once the server listed them."""
        self.notes: tuple[str, ...] = ()
        self.cache_note: tuple[str, ...] = ()
        """Why the kept listing was ignored, when it was unusable."""


Reported = tuple[ConfiguredServer, tuple[AnyTool, ...], tuple[str, ...]]
"""A server with the tools and notes it had when the report was asked for."""


def shadowed(servers: list[ConfiguredServer]) -> dict[int, dict[str, str]]:
    """The resource URIs each server lists that a server configured before it mounts
    (``id(server)`` → URI → that server's name): a URI is served by one server."""
    owners: dict[str, str] = {}
    found: dict[int, dict[str, str]] = {}
    for server in servers:
        for uri in server.features.resources if server.features is not None else ():
            owner = owners.setdefault(uri, server.spec.name)
            if owner != server.spec.name:
                found.setdefault(id(server), {})[uri] = owner
    return found


def rows(servers: list[Reported]) -> list[ServerRow]:
    """Each server's row (``mcp:NAME``), in configuration order."""
    elsewhere = shadowed([server for server, _, _ in servers])
    return [
        ServerRow(
            server.spec.plugin_name,
            *_status(server),
            server.spec.origin,
            server.spec.namespace,
            _effective_names(tools),
            notes + _elsewhere(elsewhere.get(id(server), {})),
        )
        for server, tools, notes in servers
    ]


def _status(server: ConfiguredServer) -> tuple[PluginStatus, str | None]:
    connection = server.connection
    if connection is None or connection.failure is None:
        return server.status, server.reason
    return "failed", connection.failure


def _elsewhere(shadowed: dict[str, str]) -> tuple[str, ...]:
    return tuple(
        f"resource {uri!r} is mounted from server {owner!r}, not here"
        for uri, owner in sorted(shadowed.items())
    )


def _effective_names(tools: tuple[AnyTool, ...]) -> frozenset[str]:
    from tooldeck.host.registry.record import record_of

    return frozenset(record_of(tool).effective for tool in tools)
