"""A real MCP server (the SDK's low-level ``Server``) whose one tool answers with the
``params._meta`` its request carried, as JSON: what a mounted call propagated.

    python meta_server.py      (stdio)
"""

from __future__ import annotations

import json
from typing import Any

import anyio
from mcp.server import Server
from mcp.server.lowlevel import NotificationOptions
from mcp.server.stdio import stdio_server
from mcp.types import CallToolResult, ListToolsResult, TextContent, Tool


async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
    schema = {"type": "object", "properties": {}}
    return ListToolsResult(tools=[Tool(name="meta", description="The _meta.", input_schema=schema)])


async def call_tool(ctx: Any, params: Any) -> CallToolResult:
    meta = {k: v for k, v in dict(ctx.meta or {}).items() if k in ("traceparent", "tracestate")}
    return CallToolResult(content=[TextContent(type="text", text=json.dumps(meta))])


server = Server("meta", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    options = server.create_initialization_options(NotificationOptions())
    async with stdio_server() as (read, write):
        await server.run(read, write, options)


if __name__ == "__main__":
    anyio.run(main)
