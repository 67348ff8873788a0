"""``CatalogServer`` in this process, spoken to by the SDK's ``Client`` in memory: each call
runs against its client's kept view, and a catalog change reaches the very next call."""

from __future__ import annotations

import anyio
import pytest

from mcp import Client
from tooldeck import Host, Tool, ToolResult, hookimpl, tool
from tooldeck.mcp.serve.asking import ElicitingAsker
from tooldeck.mcp.serve.server import CatalogServer
from tooldeck.mcp.serve.sessions import STDIO_KEY
from tooldeck.mcp.serve.watch import Serving


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


class Adder:
    @hookimpl
    def tool_transform(self, editor):
        editor.add(add.replace(codemode=False))


@pytest.fixture
def served(tooldeck_env):
    asker = ElicitingAsker()
    with Host.open(tooldeck_env, plugins=[Adder()], asker=asker, trust=True) as host:
        yield host, CatalogServer(Serving(lambda: host), asker)


def test_calls_reuse_the_clients_view_until_the_catalog_changes(served):
    host, server = served
    views = []

    async def scenario():
        async with Client(server.server, mode="legacy") as client:  # one session: stdio's key
            first = await client.call_tool("add", {"a": 1, "b": 2})
            views.append(server.sessions.view(STDIO_KEY, None))
            second = await client.call_tool("add", {"a": 2, "b": 2})
            views.append(server.sessions.view(STDIO_KEY, None))
            host.service.transform(
                lambda editor: editor.add(
                    Tool(
                        name="later",
                        description="Added while serving.",
                        execute=lambda i, c: ToolResult("later"),
                        codemode=False,
                    )
                ),
                source="test",
            )
            later = await client.call_tool("later", {})  # no listing, no watcher in between
            views.append(server.sessions.view(STDIO_KEY, None))
            listed = [t.name for t in (await client.list_tools()).tools]
            return [first, second, later], listed

    results, listed = anyio.run(scenario)
    assert [r.content[0].text for r in results] == ["3", "4", "later"]
    assert views[0] is views[1]
    assert views[2] is not views[1] and "later" in views[2].snapshot.names
    assert "later" in listed
