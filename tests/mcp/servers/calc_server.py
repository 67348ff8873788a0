"""A real MCP server (the SDK's ``MCPServer``) for the mounting tests, run as a process.

    python calc_server.py [--http PORT]

stdio by default; ``--http PORT`` serves streamable HTTP on 127.0.0.1:PORT/mcp.
"""

from __future__ import annotations

import argparse
import base64
import os
import sys
from typing import Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ImageContent, TextContent
from pydantic import BaseModel

# The smallest valid PNG (1x1, transparent): the boundary checks images by magic bytes.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJ"
    "RU5ErkJggg=="
)

server = MCPServer("calc", log_level="WARNING")


class Weather(BaseModel):
    city: str
    temp_c: float


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def pid() -> int:
    """The server's process id."""
    return os.getpid()


@server.tool()
def env(name: str) -> str:
    """One environment variable of the server process ('' when unset)."""
    return os.environ.get(name, "")


@server.tool()
def weather(city: str) -> Weather:
    """The weather in a city (structured output)."""
    return Weather(city=city, temp_c=21.5)


@server.tool()
def picture() -> list[TextContent | ImageContent]:
    """A caption and a tiny PNG."""
    return [
        TextContent(type="text", text="a pixel"),
        ImageContent(type="image", data=base64.b64encode(PNG).decode(), mime_type="image/png"),
    ]


@server.tool()
def fail(message: str) -> str:
    """Fail with the message."""
    raise ToolError(message)


@server.tool()
def big(megabytes: int) -> str:
    """A text result of the given size."""
    return "x" * (megabytes * 1024 * 1024)


@server.tool()
async def slow(seconds: float, marker: str) -> str:
    """Sleep; write 'cancelled' to the marker file when the request is cancelled."""
    try:
        await anyio.sleep(seconds)
    except anyio.get_cancelled_exc_class():
        with open(marker, "w") as file:
            file.write("cancelled")
        raise
    return "slept"


@server.tool()
async def grow(name: str, ctx: Context) -> str:
    """Add a tool called ``name`` and tell the client (both protocol eras)."""
    server.add_tool(lambda: f"{name} grown", name=name, description=f"Grown tool {name}.")
    await _changed(ctx)
    return f"added {name}"


@server.tool()
async def storm(count: int, ctx: Context) -> str:
    """Send ``count`` list-changed notifications (the list itself does not change)."""
    for _ in range(count):
        await _changed(ctx)
    return f"sent {count}"


@server.tool()
def crash() -> str:
    """Write to stderr and exit at once with status 3."""
    sys.stderr.write("calc: crashing on purpose\n")
    sys.stderr.flush()
    os._exit(3)


async def _changed(ctx: Context) -> None:
    await ctx.notify_tools_changed()  # 2026-07-28 clients (subscriptions/listen)
    session = ctx.request_context.session
    if session.protocol_version != "2026-07-28":
        await session.send_tool_list_changed()  # handshake-era clients


async def _run_handshake_only() -> None:
    """stdio, answering ``server/discover`` with "method not found" before the server sees
    it, so clients fall back to the initialize handshake (a 2025-11-25 connection)."""
    from mcp.server.lowlevel import NotificationOptions
    from mcp.server.stdio import stdio_server
    from mcp.shared.message import SessionMessage
    from mcp_types import ErrorData
    from mcp_types.jsonrpc import JSONRPCError, JSONRPCRequest

    lowlevel = server._lowlevel_server
    options = lowlevel.create_initialization_options(NotificationOptions(tools_changed=True))
    async with stdio_server() as (read, write):
        forward, received = anyio.create_memory_object_stream[Any](0)

        async def relay() -> None:
            async with forward:
                async for item in read:
                    message = getattr(item, "message", None)
                    if isinstance(message, JSONRPCRequest) and message.method == "server/discover":
                        error = ErrorData(code=-32601, message="Method not found")
                        await write.send(
                            SessionMessage(JSONRPCError(jsonrpc="2.0", id=message.id, error=error))
                        )
                        continue
                    await forward.send(item)

        async with anyio.create_task_group() as group:
            group.start_soon(relay)
            await lowlevel.run(received, write, options)
            group.cancel_scope.cancel()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int)
    parser.add_argument(
        "--handshake-only",
        action="store_true",
        help="speak only the handshake-era protocol (2025-11-25)",
    )
    args = parser.parse_args()
    if args.handshake_only:
        anyio.run(_run_handshake_only)
    elif args.http:
        server.run("streamable-http", host="127.0.0.1", port=args.http)
    else:
        server.run()
