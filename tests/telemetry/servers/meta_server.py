"""A real MCP server (the SDK's low-level ``Server``) whose one tool answers with the
``params._meta`` its request carried, as JSON: what a mounted call propagated. Over
HTTP it speaks the handshake era only (``server/discover`` is "method not found", so a
client falls back to ``initialize`` and a session) and adds ``session``: the
``Mcp-Session-Id`` header the request came with.

    python meta_server.py              (stdio)
    python meta_server.py --http PORT  (streamable HTTP on 127.0.0.1:PORT/mcp)
"""

from __future__ import annotations

import json
import sys
from typing import Any

import anyio
from mcp.server import Server
from mcp.server.lowlevel import NotificationOptions
from mcp.server.stdio import stdio_server
from mcp.types import CallToolResult, ListToolsResult, RequestParams, TextContent, Tool
from mcp_types.jsonrpc import METHOD_NOT_FOUND

from mcp import MCPError


async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
    schema = {"type": "object", "properties": {}}
    return ListToolsResult(tools=[Tool(name="meta", description="The _meta.", input_schema=schema)])


async def call_tool(ctx: Any, params: Any) -> CallToolResult:
    meta = {k: v for k, v in dict(ctx.meta or {}).items() if k in ("traceparent", "tracestate")}
    if ctx.request is not None:
        meta["session"] = ctx.request.headers.get("mcp-session-id")
    return CallToolResult(content=[TextContent(type="text", text=json.dumps(meta))])


server = Server("meta", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    options = server.create_initialization_options(NotificationOptions())
    async with stdio_server() as (read, write):
        await server.run(read, write, options)


async def not_found(ctx: Any, params: Any) -> Any:
    raise MCPError(METHOD_NOT_FOUND, "Method not found")


async def http(port: int) -> None:
    import uvicorn

    server.add_request_handler("server/discover", RequestParams, not_found)
    app = server.streamable_http_app(streamable_http_path="/mcp", host="127.0.0.1")
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    await uvicorn.Server(config).serve()


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        anyio.run(http, int(sys.argv[2]))
    else:
        anyio.run(main)
