"""Per-client sessions of ``tooldeck mcp serve --http``, spoken to by the SDK's ``Client``."""

from __future__ import annotations

import anyio
import mcp.types as types
import pytest

from mcp import Client
from tooldeck import grant_trust, trust_status

from ...ports import free_port
from .test_serve import http_served

PLUGIN = """
from tooldeck import Tool, ToolResult, hookimpl

async def guarded(input, ctx):
    await ctx.permission.assert_("guarded", [])
    return ToolResult("ran")

@hookimpl
def tool_transform(editor):
    editor.add(Tool(name="guarded", description="Ask first.", execute=guarded, codemode=False))

@hookimpl
def session_transform(editor, session_id, state):
    editor.add(Tool(name="whoami", description="The session.", codemode=False,
                    execute=lambda i, c: ToolResult(session_id)))
"""


@pytest.fixture
def project(tooldeck_env):
    root = tooldeck_env / "project"
    (root / ".tooldeck" / "plugins").mkdir(parents=True)
    (root / ".tooldeck" / "plugins" / "guard.py").write_text(PLUGIN)
    (root / "tooldeck.toml").write_text('[plugins]\nonly = ["local:guard"]\n')
    grant_trust(trust_status(root))
    return root


def test_interleaved_asks_of_two_clients_each_resolve_with_their_own_answer(project):
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    b_done = anyio.Event()
    asked = {"a": 0, "b": 0}

    async def elicit_a(ctx, params):
        asked["a"] += 1
        await b_done.wait()  # A's user answers only after B's user said no
        return types.ElicitResult(action="accept", content={"decision": "once"})

    async def elicit_b(ctx, params):
        asked["b"] += 1
        return types.ElicitResult(action="accept", content={"decision": "reject"})

    async def scenario():
        results = {}
        async with (
            http_served(project, port),
            Client(url, mode="legacy", elicitation_callback=elicit_a) as a,
            Client(url, mode="legacy", elicitation_callback=elicit_b) as b,
        ):

            async def call_a():
                results["a"] = await a.call_tool("guarded", {})

            async def call_b():
                while not asked["a"]:  # B asks while A's question is open
                    await anyio.sleep(0.02)
                results["b"] = await b.call_tool("guarded", {})
                b_done.set()

            with anyio.fail_after(30):
                async with anyio.create_task_group() as group:
                    group.start_soon(call_a)
                    group.start_soon(call_b)
            mine = [(await client.call_tool("whoami", {})).content[0].text for client in (a, b)]
        return results, mine

    results, mine = anyio.run(scenario)
    assert asked == {"a": 1, "b": 1}
    assert (results["a"].is_error, results["a"].content[0].text) == (False, "ran")
    assert results["b"].is_error
    assert len(set(mine)) == 2  # each client its own session scope
    assert all(m.startswith("mcp-") for m in mine)
