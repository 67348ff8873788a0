"""A mounted server's resource that a client of ``tooldeck mcp serve`` subscribes to is
followed on the server (once per URI, until the last subscriber leaves), and the
server's updates reach the subscriber.

Real processes all the way: an SDK client of either era → ``tooldeck mcp serve --http``
→ the mounted ``servers/features_server.py`` (stdio) of either era.
"""

from __future__ import annotations

import anyio
import pytest

from mcp import Client
from tooldeck import grant_trust, trust_status

from ...ports import free_port
from ..conftest import make_project, stdio_server
from ..serve.test_resource_updates import subscribe
from ..serve.test_serve import http_served

COUNTER = "counter://value"
ALLOW = (
    '[[permission]]\naction = "features_*"\neffect = "allow"\n'
    '[[permission]]\naction = "resource"\nresource = "*"\neffect = "allow"\n'
)


@pytest.fixture(scope="module", params=["handshake", "modern"])
def project(module_env, request):
    """A served Location mounting the features server in one era (``request.param``)."""
    era = ("--modern",) if request.param == "modern" else ()
    config = stdio_server("features", "features_server.py", *era, extra="timeout_s = 60")
    root = make_project(module_env / request.param, config + ALLOW)
    grant_trust(trust_status(root))
    return root


async def _eventually(predicate, timeout: float = 60.0) -> None:
    with anyio.fail_after(timeout):
        while not await predicate():
            await anyio.sleep(0.1)


def test_a_handshake_era_subscriber_hears_the_mounted_servers_updates(project):
    port = free_port()
    updated: list[str] = []

    async def note(message):
        if getattr(message, "method", "") == "notifications/resources/updated":
            updated.append(str(message.params.uri))

    async def subscribed(c) -> str:
        return (await c.call_tool("features_subscribed", {})).content[0].text

    async def scenario():
        async with (
            http_served(project, port, "--no-codemode"),
            Client(f"http://127.0.0.1:{port}/mcp", mode="legacy", message_handler=note) as c,
        ):
            before = (await c.read_resource(COUNTER)).contents[0].text
            await subscribe(c, COUNTER)
            if "modern" not in str(project):  # a handshake-era server is subscribed once
                await _eventually(lambda: _says(subscribed(c), COUNTER))
            await c.call_tool("features_bump", {})

            async def heard() -> bool:
                return COUNTER in updated

            await _eventually(heard)
            after = (await c.read_resource(COUNTER)).contents[0].text
            await subscribe(c, COUNTER, on=False)
            if "modern" not in str(project):  # the last subscriber left: unsubscribed
                await _eventually(lambda: _says(subscribed(c), "none"))
            return before, after

    before, after = anyio.run(scenario)
    assert int(after) == int(before) + 1


async def _says(text, expected: str) -> bool:
    return await text == expected


def test_a_2026_era_listener_hears_the_mounted_servers_updates(project):
    from mcp.client.subscriptions import ResourceUpdated

    port = free_port()

    async def scenario():
        async with (
            http_served(project, port, "--no-codemode"),
            Client(f"http://127.0.0.1:{port}/mcp") as c,
        ):
            assert c.protocol_version == "2026-07-28"
            async with c.listen(resource_subscriptions=[COUNTER]) as subscription:
                heard: list[str] = []

                async def follow() -> None:
                    async for event in subscription:
                        if isinstance(event, ResourceUpdated):
                            heard.append(str(event.uri))
                            return

                async with anyio.create_task_group() as group:
                    group.start_soon(follow)
                    with anyio.fail_after(60):
                        # The server is subscribed as the stream opens: bump until heard.
                        while not heard:
                            await c.call_tool("features_bump", {})
                            await anyio.sleep(0.5)
                return heard

    assert anyio.run(scenario) == [COUNTER]
