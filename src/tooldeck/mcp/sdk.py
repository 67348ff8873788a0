"""The MCP SDK as tooldeck uses it: the only module that imports ``mcp`` and ``mcp_types``.

Every other module of ``tooldeck.mcp`` takes the SDK's names from here, so an SDK
upgrade that moves or renames them touches this file alone (``tests/mcp/test_sdk.py``
keeps it so). ``codemode/sandbox.py`` does the same for pydantic-monty.

Importing this module imports the SDK: ``import mcp`` alone already loads its client
and server sides, so naming them all here costs nothing more. Modules that need the SDK
only on a cold path (connecting, serving) import this module there, which keeps
``Host.open`` without MCP servers free of it. Two names stay out of the import: the
POSIX process-tree helper (imported when a server is stopped, so the module loads on
every platform) and the transport stream type (a private SDK module, for type checkers).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import mcp.types as types
from mcp.client.stdio import get_default_environment
from mcp.client.streamable_http import streamable_http_client
from mcp.server import Server
from mcp.server.lowlevel import NotificationOptions
from mcp.server.stdio import stdio_server
from mcp.server.subscriptions import InMemorySubscriptionBus, ListenHandler, ToolsListChanged
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.message import SessionMessage
from mcp_types.jsonrpc import CONNECTION_CLOSED, INTERNAL_ERROR
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from mcp import Client, MCPError

if TYPE_CHECKING:
    from anyio.abc import Process
    from mcp.client._transport import TransportStreams as TransportStreams


async def terminate_process_tree(process: Process) -> None:
    """End a stdio server's process and its children the SDK's way (POSIX only)."""
    from mcp.os.posix.utilities import terminate_posix_process_tree

    await terminate_posix_process_tree(process)


__all__ = [
    "CONNECTION_CLOSED",
    "INTERNAL_ERROR",
    "MODERN_PROTOCOL_VERSIONS",
    "Client",
    "InMemorySubscriptionBus",
    "ListenHandler",
    "MCPError",
    "NotificationOptions",
    "Server",
    "SessionMessage",
    "ToolsListChanged",
    "TransportSecuritySettings",
    "get_default_environment",
    "stdio_server",
    "streamable_http_client",
    "terminate_process_tree",
    "types",
]
