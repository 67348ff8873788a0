"""A served call's tool talks to its client: logs at the level the client set, progress
for a request that asked, questions (elicitation) and samples; and says clearly when
the client cannot answer."""

from __future__ import annotations

import json
import logging

import anyio
import pytest
from mcp.shared.exceptions import MCPDeprecationWarning

from mcp import Client
from mcp import types as mcp_types
from tooldeck import Tool, ToolResult, hookimpl
from tooldeck.mcp.serve.logs import forwarding

from ..conformance.pack import DEFAULTS, ENUMS
from ..conformance.serving import served


def legacy(server, **callbacks):
    return Client(server.server, mode="legacy", **callbacks)


async def set_level(client, level):
    with pytest.warns(MCPDeprecationWarning):  # logging leaves the protocol at 2026-07-28
        await client.set_logging_level(level)


def test_logs_reach_the_client_at_or_above_its_level_before_the_result(tooldeck_env):
    logs = []

    async def heard(params):
        logs.append((params.level, params.data, params.logger))

    async def scenario(server):
        async with legacy(server, logging_callback=heard) as client:
            await client.call_tool("test_tool_with_logging", {})
            first = list(logs)
            await set_level(client, "warning")
            await client.call_tool("test_tool_with_logging", {})
            return first

    with served(tooldeck_env / "p") as server:
        first = anyio.run(scenario, server)
    assert first == [
        ("info", "Tool execution started", "test_tool_with_logging"),
        ("info", "Tool processing data", "test_tool_with_logging"),
        ("info", "Tool execution completed", "test_tool_with_logging"),
    ]
    assert logs == first  # below the level set: nothing more


class Chatty:
    @hookimpl
    def tool_transform(self, editor):
        def chatty(input, ctx):
            logging.getLogger("chatty.pack").info("working on %s", input["what"])
            logging.getLogger("chatty.pack").debug("details nobody asked for")
            return ToolResult("done")

        schema = {"type": "object", "properties": {"what": {"type": "string"}}}
        editor.add(Tool(name="chatty", description="Logs.", input=schema, execute=chatty))


def test_python_log_records_of_a_call_are_forwarded(tooldeck_env):
    logs = []

    async def heard(params):
        logs.append((params.level, params.data, params.logger))

    async def scenario(server):
        async with legacy(server, logging_callback=heard) as client:
            await client.call_tool("chatty", {"what": "the report"})

    root = logging.getLogger()
    level = root.level
    with served(tooldeck_env / "p", plugins=(Chatty(),)) as server, forwarding(server.levels):
        logging.getLogger("chatty.pack").info("outside any call: not forwarded")
        anyio.run(scenario, server)
    assert logs == [("info", "working on the report", "chatty.pack")]
    assert root.level == level  # forwarding leaves the root logger as it was


def test_progress_reaches_a_request_that_asked_for_it(tooldeck_env):
    seen = []

    async def progress(done, total, message):
        seen.append((done, total, message))

    async def scenario(server):
        async with legacy(server) as client:
            await client.call_tool("test_tool_with_progress", {}, progress_callback=progress)
            return len(seen), await client.call_tool("test_tool_with_progress", {})

    with served(tooldeck_env / "p") as server:
        count, unasked = anyio.run(scenario, server)
    assert seen == [(0.0, 100.0, "step 0"), (50.0, 100.0, "step 50"), (100.0, 100.0, "step 100")]
    assert count == 3 and not unasked.is_error


def test_elicitation_with_custom_fields_defaults_and_enums(tooldeck_env):
    asked = []

    async def answer(context, params):
        asked.append((params.message, params.requested_schema))
        return mcp_types.ElicitResult(
            action="accept", content={"username": "ann", "email": "ann@example.com"}
        )

    async def scenario(server):
        async with legacy(server, elicitation_callback=answer) as client:
            return [
                (await client.call_tool(name, arguments)).content[0].text
                for name, arguments in (
                    ("test_elicitation", {"message": "Who are you?"}),
                    ("test_elicitation_sep1034_defaults", {}),
                    ("test_elicitation_sep1330_enums", {}),
                )
            ]

    with served(tooldeck_env / "p") as server:
        texts = anyio.run(scenario, server)
    assert (
        texts[0]
        == 'User response: action=accept, content={"username": "ann", "email": "ann@example.com"}'
    )
    assert [message for message, _ in asked] == ["Who are you?", "Defaults", "Enums"]
    assert asked[1][1] == json.loads(json.dumps(DEFAULTS))
    assert asked[2][1]["properties"]["titledSingle"] == ENUMS["properties"]["titledSingle"]


def test_sampling_asks_the_clients_model(tooldeck_env):
    prompts = []

    async def model(context, params):
        prompts.append((params.messages[0].content.text, params.max_tokens))
        return mcp_types.CreateMessageResult(
            role="assistant",
            content=mcp_types.TextContent(type="text", text="Paris"),
            model="test-model",
        )

    async def scenario(server):
        async with legacy(server, sampling_callback=model) as client:
            return await client.call_tool("test_sampling", {"prompt": "Capital of France?"})

    with served(tooldeck_env / "p") as server:
        result = anyio.run(scenario, server)
    assert result.content[0].text == "LLM response: Paris"
    assert prompts == [("Capital of France?", 100)]


@pytest.mark.parametrize(
    ("tool", "arguments", "says"),
    [
        ("test_sampling", {"prompt": "hi"}, "needed to ask its model (sampling)"),
        ("test_elicitation", {"message": "hi"}, "needed to ask its user (elicitation)"),
    ],
)
def test_a_client_without_the_capability_gets_a_clear_tool_error(
    tooldeck_env, tool, arguments, says
):
    async def scenario(server):
        async with legacy(server) as client:
            return await client.call_tool(tool, arguments)

    with served(tooldeck_env / "p") as server:
        result = anyio.run(scenario, server)
    assert result.is_error
    assert f"{tool} {says}, and this MCP client does not offer that." in result.content[0].text


def test_a_2026_client_is_asked_through_an_input_required_round_trip(tooldeck_env):
    """No request can reach a 2026-07-28 client mid-call: the call ends ``input_required``
    and the SDK's client answers and retries (``rounds``; over HTTP in test_rounds.py)."""
    asked = []

    async def answer(context, params):
        asked.append(params.message)
        return mcp_types.ElicitResult(
            action="accept", content={"username": "ada", "email": "ada@example.com"}
        )

    async def scenario(server):
        async with Client(server.server, elicitation_callback=answer) as client:
            return await client.call_tool("test_elicitation", {"message": "hi"})

    with served(tooldeck_env / "p") as server:
        result = anyio.run(scenario, server)
    assert asked == ["hi"]
    assert result.content[0].text == (
        'User response: action=accept, content={"username": "ada", "email": "ada@example.com"}'
    )
