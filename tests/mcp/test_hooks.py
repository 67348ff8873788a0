"""``tool_call`` wrappers around mounted MCP tools and around calls served over MCP."""

from __future__ import annotations

import asyncio

import anyio

from tooldeck import Host, ToolCall, grant_trust, run_tool_call, trust_status

from .conftest import make_project, stdio_server
from .test_serve import served

WATCH = '''
from tooldeck import ToolResult, hookimpl, tool

@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b

@hookimpl
def tool_transform(editor):
    editor.add(add.replace(codemode=False))

@hookimpl(wrapper=True)
def tool_call(call, context):
    result = yield
    seen = f"{context.via} mounted={context.mounted} source={context.source}"
    return ToolResult(content=f"{seen}: {result.content[0].text}", output=result.output)
'''


def test_a_mounted_tools_call_crosses_the_wrappers(tooldeck_env):
    root = make_project(
        tooldeck_env / "project",
        stdio_server("calc", "calc_server.py", extra="codemode = false")
        + '[[permission]]\naction = "calc_*"\neffect = "allow"\n',
        {"watch": WATCH},
    )
    with Host.open(root, plugins=["local:watch"], trust=True) as host:
        outcome = asyncio.run(
            run_tool_call(host.snapshot(), ToolCall("c1", "calc_add", {"a": 2, "b": 3}))
        )
    assert outcome.status == "completed", outcome.content
    assert outcome.content[0].text == "native mounted=True source=mcp: 5"


def test_a_served_call_crosses_the_wrappers(tooldeck_env):
    root = make_project(
        tooldeck_env / "project", '[plugins]\nonly = ["local:watch"]\n', {"watch": WATCH}
    )
    grant_trust(trust_status(root))  # as `tooldeck trust --yes` does; the server reads it

    async def scenario():
        async with served(root, "--no-codemode") as client:
            return await client.call_tool("add", {"a": 2, "b": 3})

    result = anyio.run(scenario)
    assert (result.is_error, result.content[0].text) == (
        False,
        "served mounted=False source=local:watch: 5",
    )
