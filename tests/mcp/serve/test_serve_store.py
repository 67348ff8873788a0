"""Replicas of ``tooldeck mcp serve --http`` sharing one ``PostgresStore`` (``TOOLDECK_STORE_URL``).

Each replica is its own process with its own data directory, as on another machine: the
only thing they share is the PostgreSQL server the test session starts. The SDK's own
``Client`` talks to them over real HTTP.
"""

from __future__ import annotations

import os
import subprocess
import uuid
from contextlib import AsyncExitStack

import anyio
import mcp.types as types
import pytest

from mcp import Client

from ...ports import free_port
from .test_serve import (  # noqa: F401  (project: the fixture)
    TOOLDECK,
    answered_once,
    http_served,
    project,
)

TOKEN = {"TOOLDECK_MCP_TOKEN": "replica-secret"}


@pytest.fixture
def shared(tooldeck_env, postgres_dsn):
    """The environment of two replicas: one store (a fresh schema), two data dirs."""
    schema = f"t_{uuid.uuid4().hex[:16]}"
    store = {"TOOLDECK_STORE_URL": postgres_dsn, "TOOLDECK_STORE_SCHEMA": schema}

    def replica(name: str, **extra: str) -> dict[str, str]:
        data = tooldeck_env / f"data-{name}"
        return {**store, "XDG_DATA_HOME": str(data), "TOOLDECK_TRUST": "1", **extra}

    return replica


async def replicas(stack: AsyncExitStack, root, *envs: dict[str, str]) -> list[str]:
    """One ``tooldeck mcp serve --http`` of ``root`` per environment; their URLs."""
    urls = []
    for env in envs:
        port = free_port()
        await stack.enter_async_context(http_served(root, port, env=env))
        urls.append(f"http://127.0.0.1:{port}/mcp")
    return urls


async def connect(stack: AsyncExitStack, url: str, elicit, token: str | None = None) -> Client:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    http = await stack.enter_async_context(httpx2.AsyncClient(headers=headers))
    transport = streamable_http_client(url, http_client=http)
    return await stack.enter_async_context(Client(transport, elicitation_callback=elicit))


def answering(decision: str, asked: list[str]):
    async def elicit(ctx, params):
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"decision": decision})

    return elicit


def test_an_always_given_through_one_replica_is_honoured_by_another(project, shared):  # noqa: F811
    """Replica B reads the saved approvals before A's ``always`` exists (its first ask is
    declined), yet its next call runs without asking: B looks at the store again before
    it asks anyone. The answers belong to the token's principal on both replicas."""
    asked_a: list[str] = []
    asked_b: list[str] = []

    async def scenario():
        async with AsyncExitStack() as stack:
            url_a, url_b = await replicas(
                stack, project, shared("a", **TOKEN), shared("b", **TOKEN)
            )
            token = TOKEN["TOOLDECK_MCP_TOKEN"]
            on_b = await connect(stack, url_b, answering("reject", asked_b), token)
            before = await on_b.call_tool("guarded", {})
            on_a = await connect(stack, url_a, answering("always", asked_a), token)
            granted = await on_a.call_tool("guarded", {})
            after = await on_b.call_tool("guarded", {})
            return before, granted, after

    before, granted, after = anyio.run(scenario)
    assert before.is_error
    assert (granted.is_error, granted.content[0].text) == (False, "ran")
    assert (after.is_error, after.content[0].text) == (False, "ran")
    assert asked_a == ["Allow 'guarded' on *?"]
    assert asked_b == ["Allow 'guarded' on *?"]  # only before A's answer: not asked again


def test_a_2026_retry_sent_to_another_replica_resumes_the_call_once(project, shared):  # noqa: F811
    async def never(ctx, params):
        raise AssertionError("the test answers by hand")

    async def scenario():
        async with AsyncExitStack() as stack:
            url_a, url_b = await replicas(stack, project, shared("a"), shared("b"))
            on_a = await connect(stack, url_a, never)
            on_b = await connect(stack, url_b, never)
            first = await on_a.session.call_tool("counted", {}, allow_input_required=True)
            retries = [
                await answered_once(client, "counted", first) for client in (on_b, on_b, on_a)
            ]
            return first, retries

    first, retries = anyio.run(scenario)
    assert isinstance(first, types.InputRequiredResult)
    assert [(r.is_error, r.content[0].text) for r in retries] == [(False, "counted")] * 3
    assert (project / "counted.txt").read_text() == "ran\n"  # ran on B, once


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("mysql://u:hunter2@db/x", "a mysql:// URL is not a store tooldeck knows"),
        ("hunter2", "expected a postgresql:// URL or a libpq conninfo"),
        ("postgresql://u:hunter2@db/x?bogus=1", 'invalid URI query parameter: "bogus"'),
        (
            "postgresql://u:hunter2@127.0.0.1:1/x",
            "TOOLDECK_STORE_URL: could not open the PostgreSQL store: connection failed",
        ),
    ],
    ids=["other-scheme", "no-form", "bad-url", "unreachable"],
)
def test_a_wrong_store_url_fails_at_start_naming_the_variable_not_the_password(
    project,  # noqa: F811
    value,
    message,
):
    done = subprocess.run(
        [*TOOLDECK, "mcp", "serve", "--location", str(project), "--http", str(free_port())],
        capture_output=True,
        text=True,
        env={**os.environ, "TOOLDECK_STORE_URL": value},
        timeout=60,
    )
    assert done.returncode == 2
    assert "TOOLDECK_STORE_URL" in done.stderr
    assert message in done.stderr
    assert "hunter2" not in done.stderr
