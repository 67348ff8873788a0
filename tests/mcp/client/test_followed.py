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


# The modern-era server runs where every test does (tox, CI): the 2026 listener and the
# handshake subscribers are each heard in the plain run through the handshake-era server.
@pytest.fixture(
    scope="module", params=["handshake", pytest.param("modern", marks=pytest.mark.slow)]
)
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


def test_handshake_era_subscribers_hear_the_mounted_servers_updates(project):
    """Two clients subscribe: the server is subscribed once, and unsubscribed when the
    second one leaves; both hear its update."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    updated: dict[str, list[str]] = {"first": [], "second": []}
    handshake = "modern" not in project.name

    def noting(who: str):
        async def note(message):
            if getattr(message, "method", "") == "notifications/resources/updated":
                updated[who].append(str(message.params.uri))

        return note

    async def requests(c) -> str:
        return (await c.call_tool("features_subscribed", {})).content[0].text

    async def scenario():
        async with (
            http_served(project, port, "--no-codemode"),
            Client(url, mode="legacy", message_handler=noting("first")) as first,
            Client(url, mode="legacy", message_handler=noting("second")) as second,
        ):
            before = (await first.read_resource(COUNTER)).contents[0].text
            await subscribe(first, COUNTER)
            await subscribe(second, COUNTER)
            if handshake:  # subscribed on the server once, for both
                await _eventually(lambda: _says(requests(first), f"+{COUNTER}"))
            await first.call_tool("features_bump", {})

            async def heard() -> bool:
                return all(COUNTER in uris for uris in updated.values())

            await _eventually(heard)
            after = (await first.read_resource(COUNTER)).contents[0].text
            await subscribe(first, COUNTER, on=False)
            if handshake:  # one subscriber is left: still subscribed
                assert await requests(first) == f"+{COUNTER}"
            await subscribe(second, COUNTER, on=False)
            if handshake:  # the last subscriber left: unsubscribed
                await _eventually(lambda: _says(requests(first), f"+{COUNTER} -{COUNTER}"))
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
