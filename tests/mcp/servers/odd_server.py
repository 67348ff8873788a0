"""A misbehaving MCP server (the SDK's low-level ``Server``) for the bad-input tests.

    python odd_server.py [--many N] [--garbage]

Lists ``ok``, a tool with an invalid input schema, a duplicate, a 200-character name, a
tool whose structured output breaks its own output schema and one without a
description; ``--many N`` lists N more tools; ``--garbage`` writes lines that are not
JSON-RPC to stdout before and while serving.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

import anyio
import mcp.types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

OBJECT = {"type": "object", "properties": {}}
TOOLS = [
    types.Tool(name="ok", description="Answer ok.", input_schema=OBJECT),
    types.Tool(
        name="bad_schema",
        description="Invalid input schema.",
        input_schema={"type": "object", "properties": {"a": {"type": "nonsense"}}},
    ),
    types.Tool(name="dup", description="First of two.", input_schema=OBJECT),
    types.Tool(name="dup", description="Second of two.", input_schema=OBJECT),
    types.Tool(name="n" * 200, description="A very long name.", input_schema=OBJECT),
    types.Tool(
        name="bad_output",
        description="Output that breaks its schema.",
        input_schema=OBJECT,
        output_schema={
            "type": "object",
            "properties": {"n": {"type": "integer"}},
            "required": ["n"],
        },
    ),
    types.Tool(
        name="garbage", description="Write garbage to stdout, then answer.", input_schema=OBJECT
    ),
    types.Tool(name="undescribed", input_schema=OBJECT),
]


def build(many: int) -> Server[Any]:
    tools = TOOLS + [
        types.Tool(name=f"t{k:05d}", description=f"Tool {k}.", input_schema=OBJECT)
        for k in range(many)
    ]

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name == "bad_output":
            return types.CallToolResult(content=[], structured_content={"n": "not a number"})
        if params.name == "garbage":
            os.write(1, b'this is not JSON-RPC\n{"jsonrpc": "2.0", "method": 5}\n')
        return types.CallToolResult(content=[types.TextContent(type="text", text="ok")])

    return Server("odd", on_list_tools=list_tools, on_call_tool=call_tool)


async def main(many: int) -> None:
    server = build(many)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--many", type=int, default=0)
    parser.add_argument("--garbage", action="store_true")
    args = parser.parse_args()
    if args.garbage:
        sys.stdout.write("garbage before the handshake\n[1, 2, 3]\n")
        sys.stdout.flush()
    anyio.run(main, args.many)
