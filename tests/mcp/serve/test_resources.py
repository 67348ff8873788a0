"""``resources/*`` served from a client's view: listed, read (text, bytes, templates),
permitted like a call, subscribed to; the files a call returned read back."""

from __future__ import annotations

import base64

import anyio
import pytest
from mcp.shared.exceptions import MCPDeprecationWarning

from mcp import Client, MCPError
from mcp import types as mcp_types
from tooldeck import FilePart, Resource, Tool, ToolResult, hookimpl

from ..conformance.pack import PNG
from ..conformance.serving import served

ASK_RESOURCES = """\
[[permission]]
action = "test_*"
resource = "*"
effect = "allow"
"""


def legacy(server, **callbacks):
    return Client(server.server, mode="legacy", **callbacks)


def test_listed_resources_and_templates(tooldeck_env):
    async def scenario(server):
        async with legacy(server) as client:
            return await client.list_resources(), await client.list_resource_templates()

    with served(tooldeck_env / "p") as server:
        resources, templates = anyio.run(scenario, server)
    assert [r.uri for r in resources.resources] == [
        "test://static-binary",
        "test://static-text",
        "test://watched-resource",
    ]
    text = resources.resources[1]
    assert (text.name, text.description, text.mime_type) == (
        "static-text",
        "A static text resource.",
        "text/plain",
    )
    [template] = templates.resource_templates
    assert (template.uri_template, template.mime_type) == (
        "test://template/{id}/data",
        "application/json",
    )


def test_reads_text_bytes_and_templates(tooldeck_env):
    async def scenario(server):
        async with legacy(server) as client:
            return [
                (await client.read_resource(uri)).contents[0]
                for uri in ("test://static-text", "test://static-binary", "test://template/7/data")
            ]

    with served(tooldeck_env / "p") as server:
        text, binary, templated = anyio.run(scenario, server)
    assert text.text == "This is the content of the static text resource."
    assert (binary.mime_type, base64.b64decode(binary.blob)) == ("image/png", PNG)
    assert templated.uri == "test://template/7/data"
    assert '"Data for ID: 7"' in templated.text


def test_an_unknown_uri_is_a_protocol_error(tooldeck_env):
    async def scenario(server):
        async with legacy(server) as client:
            with pytest.raises(MCPError) as raised:
                await client.read_resource("test://nope")
            return raised.value

    with served(tooldeck_env / "p") as server:
        error = anyio.run(scenario, server)
    assert (error.code, error.message) == (-32002, "Resource not found: test://nope")


def test_a_read_asks_the_clients_user_and_without_elicitation_says_what_rule_to_add(
    tooldeck_env,
):
    asked = []

    async def answer(context, params):
        asked.append(params.message)
        return mcp_types.ElicitResult(action="accept", content={"decision": "once"})

    async def scenario(server):
        async with legacy(server, elicitation_callback=answer) as client:
            read = await client.read_resource("test://static-text")
        async with legacy(server) as client:  # no elicitation: declined, with the rule
            with pytest.raises(MCPError) as raised:
                await client.read_resource("test://static-text")
        return read, raised.value

    with served(tooldeck_env / "p", ASK_RESOURCES) as server:
        read, refused = anyio.run(scenario, server)
    assert read.contents[0].text.startswith("This is the content")
    assert asked == ["Allow 'resource' on test://static-text?"]
    assert 'action = "resource"' in refused.message
    assert 'resource = "test://static-text"' in refused.message


def test_a_wholly_denied_read_action_hides_the_resources(tooldeck_env):
    deny = '[[permission]]\naction = "resource"\nresource = "*"\neffect = "deny"\n'

    async def scenario(server):
        async with legacy(server) as client:
            listed = await client.list_resources()
            with pytest.raises(MCPError):
                await client.read_resource("test://static-text")
            return listed

    with served(tooldeck_env / "p", deny) as server:
        assert anyio.run(scenario, server).resources == []


class Report:
    @hookimpl
    def tool_transform(self, editor):
        def report(input, ctx):
            return ToolResult([FilePart(b"a,b\n1,2\n", "text/csv", "report.csv")])

        editor.add(Tool(name="report", description="A report.", execute=report, codemode=False))


def test_a_file_a_call_returned_is_read_back_by_its_session_only(tooldeck_env):
    async def scenario(server):
        async with legacy(server) as client:
            result = await client.call_tool("report", {})
            uri = result.content[0].resource.uri
            again = await client.read_resource(uri)
        server.files.forget("mcp-stdio")  # what ending the session does
        async with legacy(server) as client:
            with pytest.raises(MCPError) as gone:
                await client.read_resource(uri)
        return result, again, gone.value

    with served(tooldeck_env / "p", plugins=(Report(),)) as server:
        result, again, gone = anyio.run(scenario, server)
    embedded = result.content[0].resource
    assert embedded.uri.startswith("tooldeck://calls/mcp-") and embedded.text == "a,b\n1,2\n"
    assert again.contents[0].text == "a,b\n1,2\n"
    assert gone.code == -32002


def test_subscribers_hear_of_a_changed_resource_and_every_client_of_a_changed_list(
    tooldeck_env,
):
    heard = []

    async def note(message):
        if isinstance(message, mcp_types.ServerNotification):
            heard.append(message.method)
            if message.method == "notifications/resources/updated":
                heard.append(message.params.uri)

    async def scenario(server, host):
        async with legacy(server, message_handler=note) as client:
            # handshake-era requests: the SDK's client warns they leave at 2026-07-28
            with pytest.warns(MCPDeprecationWarning):
                await client.subscribe_resource("test://watched-resource")
                await client.subscribe_resource("test://template/9/data")
                await client.unsubscribe_resource("test://template/9/data")
            before = host.snapshot()
            changed = Resource("test://watched-resource", "watched", read=lambda ctx: "changed")
            host.service.transform(lambda e: e.add_resource(changed), source="test")
            await server.catalog_changed(before, host.snapshot())
            middle = host.snapshot()
            added = Resource("test://new", "new", read=lambda ctx: "new")
            host.service.transform(lambda e: e.add_resource(added), source="test")
            await server.catalog_changed(middle, host.snapshot())
            await anyio.sleep(0.1)
            return (await client.read_resource("test://watched-resource")).contents[0].text

    with served(tooldeck_env / "p") as server:
        host = server.sessions._serving.host
        text = anyio.run(scenario, server, host)
    assert text == "changed"
    assert heard == [
        "notifications/resources/updated",
        "test://watched-resource",
        "notifications/resources/list_changed",
    ]
