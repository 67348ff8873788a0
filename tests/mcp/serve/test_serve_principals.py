"""Principals of ``tooldeck mcp serve --http``: each token its own rules, listing and calls."""

from __future__ import annotations

import os
import subprocess

import anyio
import pytest

from mcp import Client, MCPError
from tooldeck import grant_trust, trust_status

from ...ports import free_port
from .test_serve import ADDER, TOOLDECK, http_served

CONFIG = """
[plugins]
only = ["local:adder"]

[mcp.serve.principals.alice]
token_env = "ALICE_TOKEN"
[[mcp.serve.principals.alice.permission]]
action = "add"
effect = "deny"

[mcp.serve.principals.bob]
token_env = "BOB_TOKEN"
[[mcp.serve.principals.bob.permission]]
action = "coded"
effect = "deny"
"""

TOKENS = {"ALICE_TOKEN": "alice-secret", "BOB_TOKEN": "bob-secret"}


@pytest.fixture
def project(tooldeck_env):
    root = tooldeck_env / "project"
    (root / ".tooldeck" / "plugins").mkdir(parents=True)
    (root / ".tooldeck" / "plugins" / "adder.py").write_text(ADDER)
    (root / "tooldeck.toml").write_text(CONFIG)
    grant_trust(trust_status(root))
    return root


async def seen_by(url: str, token: str) -> dict[str, object]:
    """What one principal's SDK client lists and gets from calls."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"}
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        tools = {t.name: t for t in (await client.list_tools()).tools}

        async def called(name: str, arguments: dict[str, int]) -> tuple[object, str]:
            try:
                result = await client.call_tool(name, arguments)
            except MCPError as exc:  # an unknown tool is a protocol error
                return "error", exc.message
            return result.is_error, result.content[0].text

        return {
            "names": set(tools),
            "execute": tools["execute"].description if "execute" in tools else "",
            "add": await called("add", {"a": 2, "b": 3}),
            "missing": await called("no_such_tool", {}),
        }


def test_two_principals_see_and_call_only_what_their_rules_allow(project):
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"

    async def scenario():
        async with http_served(project, port, env=TOKENS):
            return await seen_by(url, "alice-secret"), await seen_by(url, "bob-secret")

    alice, bob = anyio.run(scenario)
    assert "add" not in alice["names"]
    assert "add" in bob["names"]
    assert bob["add"] == (False, "5")
    # a hidden tool's call fails exactly as a tool that does not exist
    assert alice["missing"] == ("error", "Unknown tool: no_such_tool")
    assert alice["add"] == ("error", "Unknown tool: add")
    # code mode lists only the tools a principal's rules leave it: bob has none left
    assert "coded" in alice["execute"]
    assert "execute" not in bob["names"]


def test_a_principal_whose_token_variable_is_unset_does_not_start(project):
    done = subprocess.run(
        [*TOOLDECK, "mcp", "serve", "--location", str(project), "--http", str(free_port())],
        capture_output=True,
        text=True,
        env={**os.environ, "ALICE_TOKEN": "a"},
        timeout=60,
    )
    assert done.returncode == 2
    assert "[mcp.serve.principals.bob] token_env: BOB_TOKEN is not set" in done.stderr


def test_the_sdks_schema_lookup_answers_as_the_requests_principal_was_listed(project):
    from tooldeck import Host
    from tooldeck.mcp.serve.asking import ElicitingAsker
    from tooldeck.mcp.serve.auth import PRINCIPAL_KEY
    from tooldeck.mcp.serve.server import CatalogServer
    from tooldeck.mcp.serve.sessions import RequestScope
    from tooldeck.mcp.serve.watch import Serving

    with Host.open(project) as host:
        server = CatalogServer(Serving(lambda: host), ElicitingAsker())
        seen = {}

        async def app(scope, receive, send):
            seen[scope.get(PRINCIPAL_KEY)] = server.tool_listing.input_schema("add")

        async def scenario():
            for principal in (None, "alice", "bob"):
                scope = {"type": "http", "method": "POST", "headers": []}
                if principal is not None:
                    scope[PRINCIPAL_KEY] = principal
                await RequestScope(app, server.sessions)(scope, None, None)

        anyio.run(scenario)
    assert seen[None]["required"] == ["a", "b"]
    assert seen["bob"] == seen[None]
    assert seen["alice"] is None  # hidden from alice: not looked up for her either


async def guarded_as(url: str, token: str, answer: str, asked: list[str], mode: str) -> str:
    """One principal's SDK client calls ``guarded``, answering ``answer`` (a handshake-era
    client is asked mid-call, a 2026-07-28 one through an ``input_required`` round trip)."""
    import httpx2
    import mcp.types as types
    from mcp.client.streamable_http import streamable_http_client

    async def elicit(ctx, params):
        asked.append(token)
        return types.ElicitResult(action="accept", content={"decision": answer})

    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}) as http,
        Client(
            streamable_http_client(url, http_client=http), mode=mode, elicitation_callback=elicit
        ) as client,
    ):
        result = await client.call_tool("guarded", {})
        return result.content[0].text


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_a_principals_always_outlives_a_restart_and_stays_its_own(project, mode):
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    asked: list[str] = []

    async def scenario():
        async with http_served(project, port, env=TOKENS):
            first = await guarded_as(url, "alice-secret", "always", asked, mode)
        async with http_served(project, port, env=TOKENS):  # a new server process
            again = await guarded_as(url, "alice-secret", "reject", asked, mode)
            bob = await guarded_as(url, "bob-secret", "reject", asked, mode)
        return first, again, bob

    first, again, bob = anyio.run(scenario)
    assert (first, again) == ("ran", "ran")
    assert asked == ["alice-secret", "bob-secret"]  # alice once, before the restart; bob asked
    assert bob.startswith("The user declined this tool call")
