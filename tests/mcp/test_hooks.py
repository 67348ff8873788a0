"""``tool_call`` wrappers around mounted MCP tools and around calls served over MCP."""

from __future__ import annotations

import asyncio

import anyio
import pytest

from mcp import MCPError
from tooldeck import Host, ToolCall, ToolResult, grant_trust, run_tool_call, trust_status

from .conftest import make_project, stdio_server
from .serve.test_serve import served

ADDER = '''
from tooldeck import ToolResult, hookimpl, tool

@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b

@hookimpl
def tool_transform(editor):
    editor.add(add.replace(codemode=False))
'''

WATCH = (
    ADDER
    + """
@hookimpl(wrapper=True)
def tool_call(call, context):
    result = yield
    seen = f"{context.via} mounted={context.mounted} source={context.source}"
    return ToolResult(content=f"{seen}: {result.content[0].text}", output=result.output)
"""
)


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


def test_a_session_hook_wraps_that_sessions_mounted_calls_only(tooldeck_env):
    def tag(call, context):
        result = yield
        text = f"{result.content[0].text} in {context.session_id}"
        return ToolResult(content=text, output=result.output)

    root = make_project(
        tooldeck_env / "project",
        stdio_server("calc", "calc_server.py", extra="codemode = false")
        + '[[permission]]\naction = "calc_*"\neffect = "allow"\n',
    )
    with Host.open(root, plugins=[], trust=True) as host:
        host.session("s1").call_hook(tag, source="tagger")
        host.session("s2")

        async def both():
            add = ToolCall("c1", "calc_add", {"a": 2, "b": 3})
            one = await run_tool_call(host.snapshot(session="s1"), add)
            two = await run_tool_call(host.snapshot(session="s2"), add)
            return one, two

        one, two = asyncio.run(both())
    assert (one.status, one.content[0].text) == ("completed", "5 in s1")
    assert (two.status, two.content[0].text) == ("completed", "5")


GUARDS = (
    ADDER
    + """
@hookimpl(wrapper=True)
def tool_call(call, context):
    if call.input.get("a") == 13:
        raise ValueError("unlucky")
    return (yield)
"""
)

SESSION_TAG = """
from tooldeck import ToolResult, hookimpl

def tag(call, context):
    result = yield
    return ToolResult(content=f"{result.content[0].text} (session hook)", output=result.output)

@hookimpl
def session_transform(editor):
    editor.add_call_hook(tag)
"""


def test_a_served_calls_defective_hook_names_its_plugin_and_the_rest_keeps_serving(tooldeck_env):
    root = make_project(
        tooldeck_env / "project",
        '[plugins]\nonly = ["local:guards", "local:tagged"]\n',
        {"guards": GUARDS, "tagged": SESSION_TAG},
    )
    grant_trust(trust_status(root))

    async def scenario():
        async with served(root, "--no-codemode") as client:
            first = await client.call_tool("add", {"a": 2, "b": 3})
            broken = await client.call_tool("add", {"a": 13, "b": 0})
            with pytest.raises(MCPError) as after:  # the tool left with its plugin
                await client.call_tool("add", {"a": 13, "b": 0})
            other = await client.call_tool("glob", {"pattern": "*.toml"})
            return first, broken, after, other

    first, broken, after, other = anyio.run(scenario)
    # The served client's session runs the plugin's session hook, outside the Location's.
    assert (first.is_error, first.content[0].text) == (False, "5 (session hook)")
    assert broken.is_error and "plugin 'local:guards'" in broken.content[0].text
    assert "ValueError: unlucky" in broken.content[0].text
    # local:guards failed and left with its tool; local:tagged keeps serving.
    assert after.value.message == "Unknown tool: add"
    assert (other.is_error, other.content[0].text) == (False, "tooldeck.toml (session hook)")


VIA = '''
from tooldeck import ToolResult, hookimpl, tool

@tool
def shout(text: str) -> str:
    """Shout the text."""
    return text.upper()

@hookimpl
def tool_transform(editor):
    editor.add(shout)  # a code-mode tool: served programs call it nested

@hookimpl(wrapper=True)
def tool_call(call, context):
    result = yield
    output = result.output
    if isinstance(output, str):
        output = f"{output} via {context.via}"
    return ToolResult(content=f"{result.content[0].text} via {context.via}", output=output)
'''


def test_a_served_programs_nested_calls_cross_the_wrappers(tooldeck_env):
    root = make_project(tooldeck_env / "project", '[plugins]\nonly = ["local:via"]\n', {"via": VIA})
    grant_trust(trust_status(root))

    async def scenario():
        async with served(root) as client:
            return await client.call_tool("execute", {"code": 'await tools.shout(text="hi")'})

    result = anyio.run(scenario)
    assert (result.is_error, result.content[0].text) == (False, "HI via nested via served")
