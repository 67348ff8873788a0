"""A misbehaving MCP server (the SDK's low-level ``Server``) for the bad-input tests.

    python odd_server.py [--many N] [--garbage] [--deep N] [--bool-schema] [--helper PIDFILE]

Lists ``ok``, a tool with an invalid input schema, a duplicate, a 200-character name, a
tool whose structured output breaks its own output schema, one without a description,
``evil_output`` (its output schema's pattern backtracks on its output), ``hang``
(never answers) and
``huge`` (answers with a 33 MiB line whose first ``id`` key is nested in the result);
``--many N`` lists N more tools; ``--bool-schema`` lists (raw, as the SDK would refuse
to) one more tool whose input schema is ``true``; ``--garbage`` writes lines that are
not JSON-RPC to stdout before and while serving; ``--deep N`` lists a tool whose schema
nests N levels (raw too);
``--helper PIDFILE`` starts ``sleep 300`` (its pid in PIDFILE) that outlives the server
unless its process group is ended.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from typing import Any

import anyio
import mcp.types as types
from mcp.server import Server
from mcp.server.stdio import stdio_server

OBJECT = {"type": "object", "properties": {}}
WIRE = os.dup(1)
"""The protocol's stdout, kept before the SDK moves fd 1 to stderr: raw replies go here."""
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
    types.Tool(name="hang", description="Never answers.", input_schema=OBJECT),
    types.Tool(name="huge", description="Answers 33 MiB.", input_schema=OBJECT),
    types.Tool(
        name="evil_output",
        description="Output whose schema pattern backtracks on it.",
        input_schema=OBJECT,
        output_schema={
            "type": "object",
            "properties": {"s": {"type": "string", "pattern": "^(a+)+$"}},
            "required": ["s"],
        },
    ),
]


def deep_schema(levels: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(levels):
        schema = {"type": "object", "properties": {"a": schema}}
    return schema


def huge_reply(request_id: Any) -> bytes:
    """A reply over 32 MiB whose first ``"id"`` is a nested one, not the request's."""
    result = {"content": [{"type": "text", "text": "x", "id": 999_999}], "pad": "p" * (33 << 20)}
    line = {"jsonrpc": "2.0", "result": result, "id": request_id}
    return json.dumps(line).encode() + b"\n"


def raw_listing(request_id: Any, tools: list[types.Tool], extra: list[dict[str, Any]]) -> bytes:
    """A ``tools/list`` reply written by hand, with ``extra`` tools the SDK would refuse."""
    listed = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
    listed += extra
    line = {"jsonrpc": "2.0", "id": request_id, "result": {"tools": listed}}
    return json.dumps(line).encode() + b"\n"


def build(many: int, deep: int, bool_schema: bool) -> Server[Any]:
    tools = TOOLS + [
        types.Tool(name=f"t{k:05d}", description=f"Tool {k}.", input_schema=OBJECT)
        for k in range(many)
    ]
    extra: list[dict[str, Any]] = []
    if bool_schema:
        extra.append({"name": "bool_schema", "description": "Schema true.", "inputSchema": True})
    if deep:
        extra.append({"name": "deep", "description": "Deep.", "inputSchema": deep_schema(deep)})

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        if extra:
            os.write(WIRE, raw_listing(ctx.request_id, tools, extra))
            await anyio.sleep_forever()  # the SDK's own reply would follow otherwise
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name == "evil_output":
            return types.CallToolResult(content=[], structured_content={"s": "a" * 40 + "!"})
        if params.name == "bad_output":
            return types.CallToolResult(content=[], structured_content={"n": "not a number"})
        if params.name == "hang":
            await anyio.sleep_forever()
        if params.name == "huge":
            os.write(WIRE, huge_reply(ctx.request_id))
            await anyio.sleep_forever()  # the SDK's own reply would follow otherwise
        if params.name == "garbage":
            os.write(1, b'this is not JSON-RPC\n{"jsonrpc": "2.0", "method": 5}\n')
        return types.CallToolResult(content=[types.TextContent(type="text", text="ok")])

    return Server("odd", on_list_tools=list_tools, on_call_tool=call_tool)


async def main(many: int, deep: int, bool_schema: bool) -> None:
    server = build(many, deep, bool_schema)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--many", type=int, default=0)
    parser.add_argument("--garbage", action="store_true")
    parser.add_argument("--deep", type=int, default=0)
    parser.add_argument("--helper")
    parser.add_argument("--bool-schema", action="store_true")
    args = parser.parse_args()
    if args.helper:
        helper = subprocess.Popen(["sleep", "300"])
        with open(args.helper, "w") as out:
            out.write(str(helper.pid))
    if args.garbage:
        sys.stdout.write("garbage before the handshake\n[1, 2, 3]\n")
        sys.stdout.flush()
    anyio.run(main, args.many, args.deep, args.bool_schema)
