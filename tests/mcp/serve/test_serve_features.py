"""``tooldeck mcp serve`` over its real transports, with the conformance pack: resources,
prompts and logs over stdio; over HTTP, resumable streams and list changes heard."""

from __future__ import annotations

import shutil

import anyio
import httpx
import pytest

from mcp import types as mcp_types
from tooldeck import grant_trust, trust_status

from ..conformance.run import CONFIG, HERE
from ..conftest import free_port, wait_for
from .test_serve import http_served, served

NEW_RESOURCE = """
from tooldeck import Resource, hookimpl

@hookimpl
def tool_transform(editor):
    editor.add_resource(Resource("test://late", "late", read=lambda ctx: "late"))
"""


@pytest.fixture
def project(tooldeck_env):
    root = tooldeck_env / "project"
    (root / ".tooldeck" / "plugins").mkdir(parents=True)
    shutil.copy(HERE / "pack.py", root / ".tooldeck" / "plugins" / "conformance.py")
    (root / "tooldeck.toml").write_text(CONFIG)
    grant_trust(trust_status(root))
    return root


def test_resources_prompts_and_logs_over_stdio(project):
    logs = []

    async def heard(params):
        logs.append(params.data)

    async def scenario():
        async with served(project, "--no-codemode", mode="legacy", logging_callback=heard) as c:
            capabilities = c.server_capabilities
            text = (await c.read_resource("test://static-text")).contents[0].text
            prompt = await c.get_prompt("test_prompt_with_arguments", {"arg1": "a", "arg2": "b"})
            await c.call_tool("test_tool_with_logging", {})
            return capabilities, text, prompt.messages[0].content.text

    capabilities, text, prompt = anyio.run(scenario)
    assert capabilities.tools.list_changed and capabilities.resources.subscribe
    assert text == "This is the content of the static text resource."
    assert prompt == "Prompt with arguments: arg1='a', arg2='b'"
    assert logs == ["Tool execution started", "Tool processing data", "Tool execution completed"]


def post(url, body, session=None, version="2025-11-25"):
    headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": version}
    if session:
        headers["Mcp-Session-Id"] = session
    return httpx.post(url, json=body, headers=headers, timeout=30)


def test_http_streams_are_resumable_and_clients_hear_list_changes(project):
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    heard = []

    async def note(message):
        if isinstance(message, mcp_types.ServerNotification):
            heard.append(message.method)

    async def scenario():
        from mcp import Client

        # a file added while serving runs only in a folder trusted for the whole process
        async with http_served(project, port, "--no-codemode", env={"TOOLDECK_TRUST": "1"}):
            hello = {"protocolVersion": "2025-11-25", "capabilities": {}}
            hello["clientInfo"] = {"name": "raw", "version": "1"}
            started = await anyio.to_thread.run_sync(
                lambda: post(
                    url, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}
                )
            )
            session = started.headers["mcp-session-id"]
            await anyio.to_thread.run_sync(
                lambda: post(
                    url, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session
                )
            )
            call = {"name": "test_simple_text", "arguments": {}}
            answered = await anyio.to_thread.run_sync(
                lambda: post(
                    url,
                    {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call},
                    session,
                )
            )
            async with Client(url, mode="legacy", message_handler=note) as client:
                await client.list_resources()
                late = project / ".tooldeck" / "plugins" / "late.py"
                late.write_text(NEW_RESOURCE)
                await anyio.to_thread.run_sync(
                    lambda: wait_for(lambda: "notifications/resources/list_changed" in heard)
                )
                listed = [r.uri for r in (await client.list_resources()).resources]
            return answered, listed

    answered, listed = anyio.run(scenario)
    first = answered.text.split("\n\n")[0]
    assert first.startswith("id: ") and "\nretry: 1000" in first  # the priming event
    assert "This is a simple text response for testing." in answered.text
    assert "test://late" in listed
