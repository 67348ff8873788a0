"""A real MCP server (the SDK's ``MCPServer``) for the mounting tests, run as a process.

    python calc_server.py [--http PORT]

stdio by default; ``--http PORT`` serves streamable HTTP on 127.0.0.1:PORT/mcp.
"""

from __future__ import annotations

import argparse
import base64
import os
import sys

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
    return [TextContent(type="text", text="a pixel"),
            ImageContent(type="image", data=base64.b64encode(PNG).decode(), mime_type="image/png")]


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


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int)
    args = parser.parse_args()
    if args.http:
        server.run("streamable-http", host="127.0.0.1", port=args.http)
    else:
        server.run()
