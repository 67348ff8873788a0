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


# -- the protocol around the catalog -------------------------------------------------------


def conformance(tooldeck_env, **options):
    from ..conformance.serving import served as conformance_served

    return conformance_served(tooldeck_env / "conformance", **options)


def test_the_capabilities_tell_what_is_served(tooldeck_env):
    async def scenario(server):
        async with Client(server.server, mode="legacy") as client:
            return client.server_capabilities

    with conformance(tooldeck_env) as server:
        capabilities = anyio.run(scenario, server)
    assert capabilities.tools.list_changed is True  # it sends notifications/tools/list_changed
    assert (capabilities.resources.subscribe, capabilities.resources.list_changed) == (True, True)
    assert capabilities.prompts.list_changed is True
    assert capabilities.logging is not None and capabilities.completions is not None


def test_an_unknown_tool_and_a_foreign_cursor_are_protocol_errors(tooldeck_env):
    from mcp import MCPError

    async def scenario(server):
        async with Client(server.server, mode="legacy") as client:
            with pytest.raises(MCPError) as unknown:
                await client.call_tool("no_such_tool", {})
            with pytest.raises(MCPError) as cursor:
                await client.list_tools(cursor="not-a-cursor")
            return unknown.value, cursor.value

    with conformance(tooldeck_env) as server:
        unknown, cursor = anyio.run(scenario, server)
    assert (unknown.code, unknown.message) == (-32602, "Unknown tool: no_such_tool")
    assert cursor.code == -32602 and "Invalid cursor" in cursor.message


def test_long_lists_come_in_pages(tooldeck_env):
    async def scenario(server):
        async with Client(server.server, mode="legacy") as client:
            tools, cursor, pages = [], None, 0
            while True:
                result = await client.list_tools(cursor=cursor)
                tools += [t.name for t in result.tools]
                pages, cursor = pages + 1, result.next_cursor
                if cursor is None:
                    break
            first = await client.list_resources()
            rest = await client.list_resources(cursor=first.next_cursor)
            return tools, pages, [r.uri for r in first.resources + rest.resources]

    with conformance(tooldeck_env) as server:
        server.page_size = 2
        tools, pages, resources = anyio.run(scenario, server)
        listed = [
            d["name"] for d in server.sessions.view(None, None).snapshot.definitions_for("mcp")
        ]
    assert tools == listed and pages == (len(listed) + 1) // 2
    assert resources == ["test://static-binary", "test://static-text", "test://watched-resource"]


def test_served_schemas_keep_defs_and_audio_is_audio(tooldeck_env):
    async def scenario(server):
        async with Client(server.server, mode="legacy") as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            audio = await client.call_tool("test_audio_content", {})
            return tools["json_schema_2020_12_tool"].input_schema, audio.content[0]

    with conformance(tooldeck_env) as server:
        schema, audio = anyio.run(scenario, server)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["properties"]["address"] == {"$ref": "#/$defs/address"}
    assert "address" in schema["$defs"] and schema["additionalProperties"] is False
    assert (audio.type, audio.mime_type) == ("audio", "audio/wav")
