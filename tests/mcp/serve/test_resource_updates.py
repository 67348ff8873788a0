"""A pack says its resource changed (``ctx.resource_updated`` in a call,
``location.resource_updated`` from its own watcher): the clients subscribed to it through
``tooldeck mcp serve --http`` (real processes) hear ``notifications/resources/updated``,
in both protocol eras; replicas share no subscriptions, so each tells its own."""

from __future__ import annotations

import warnings

import anyio
import pytest
from mcp.shared.exceptions import MCPDeprecationWarning

from mcp import Client
from tooldeck import grant_trust, trust_status

from ...ports import free_port
from .test_serve import http_served

PACK = '''
import os, threading, time
from pathlib import Path
from tooldeck import Resource, Tool, ToolResult, hookimpl

SHARED = Path(os.environ["SHARED_FILE"])
_watching = set()

def counter(ctx):
    path = ctx.location.root / "count.txt"
    return path.read_text() if path.exists() else "0"

def bump(input, ctx):
    path = ctx.location.root / "count.txt"
    path.write_text(str(int(counter(ctx)) + 1))
    ctx.resource_updated("test://counter")
    return ToolResult("bumped")

def watch(location):
    """The pack's own watcher: the shared file changed, say so (outside any call)."""
    stop = threading.Event()
    location.on_close(stop.set)
    def run():
        seen = SHARED.stat().st_mtime_ns
        while not stop.wait(0.05):
            now = SHARED.stat().st_mtime_ns
            if now != seen:
                seen = now
                location.resource_updated("test://shared")
    threading.Thread(target=run, daemon=True).start()

@hookimpl
def tool_transform(editor, location):
    editor.add_resource(Resource("test://counter", "counter", read=counter))
    editor.add_resource(Resource("test://shared", "shared", read=lambda ctx: SHARED.read_text()))
    editor.add(Tool(name="bump", description="Count one more.", execute=bump, codemode=False))
    if id(location) not in _watching:
        _watching.add(id(location))
        watch(location)
'''


CONFIG = """
[plugins]
only = ["local:changing"]

[[permission]]
action = "resource"
effect = "allow"
"""


@pytest.fixture
def shared(tooldeck_env):
    path = tooldeck_env / "shared.txt"
    path.write_text("v1")
    return path


def replica(root, shared):
    (root / ".tooldeck" / "plugins").mkdir(parents=True)
    (root / ".tooldeck" / "plugins" / "changing.py").write_text(PACK)
    (root / "tooldeck.toml").write_text(CONFIG)
    grant_trust(trust_status(root))
    return root


def replace_text(path, text: str) -> None:
    """``path`` holds ``text`` at once: written beside it, then renamed over it, so the
    pack's watcher sees one change (``write_text`` truncates, then writes: two changes of
    the file's mtime a poll may fall between)."""
    beside = path.with_suffix(".new")
    beside.write_text(text)
    beside.replace(path)


async def subscribe(client: Client, uri: str, on: bool = True) -> None:
    """``resources/subscribe`` (or unsubscribe), the handshake era's way, which the SDK
    warns is gone at 2026-07-28."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        if on:
            await client.subscribe_resource(uri)
        else:
            await client.unsubscribe_resource(uri)


class Heard:
    """The resource updates a client heard, in order, and a way to wait for the next."""

    def __init__(self) -> None:
        self.uris: list[str] = []
        self._more = anyio.Event()

    async def message(self, message) -> None:
        if getattr(message, "method", None) == "notifications/resources/updated":
            self.uris.append(str(message.params.uri))
            self._more.set()

    async def until(self, count: int) -> list[str]:
        with anyio.fail_after(30):
            while len(self.uris) < count:
                self._more = anyio.Event()
                await self._more.wait()
        return self.uris


def test_subscribed_clients_hear_a_resource_a_pack_says_changed(tooldeck_env, shared):
    root = replica(tooldeck_env / "project", shared)
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    legacy = Heard()

    async def scenario():
        async with (
            http_served(root, port, env={"SHARED_FILE": str(shared)}),
            Client(url, mode="legacy", message_handler=legacy.message) as old,
            Client(url) as new,
        ):
            await subscribe(old, "test://counter")
            async with new.listen(resource_subscriptions=["test://counter"]) as events:
                await old.call_tool("bump", {})  # in a call: ctx.resource_updated
                with anyio.fail_after(30):
                    event = await events.__anext__()
            await subscribe(old, "test://counter", on=False)
            await subscribe(old, "test://shared")
            await new.call_tool("bump", {})  # unsubscribed now: not heard
            replace_text(shared, "v2")  # outside any call: the pack's watcher says it
            heard = await legacy.until(2)
            text = (await old.read_resource("test://counter")).contents[0].text
            return new.protocol_version, event, heard, text

    version, event, heard, text = anyio.run(scenario)
    assert version == "2026-07-28"
    assert str(event.uri) == "test://counter"
    assert heard == ["test://counter", "test://shared"]
    assert text == "2"


def test_replicas_sharing_nothing_each_tell_their_own_subscribers(tooldeck_env, shared):
    """Two replicas, each its own Location copy and data dir (no store): a change made
    through one is heard by that one's subscribers only; a change each replica's pack
    notices itself (the shared file) is heard on both."""
    roots = [replica(tooldeck_env / f"replica{n}", shared) for n in (1, 2)]
    ports = free_port(), free_port()
    heard = Heard(), Heard()
    env = {"SHARED_FILE": str(shared)}

    async def scenario():
        urls = [f"http://127.0.0.1:{p}/mcp" for p in ports]
        async with (
            http_served(roots[0], ports[0], env=env),
            http_served(roots[1], ports[1], env=env),
            Client(urls[0], mode="legacy", message_handler=heard[0].message) as on_a,
            Client(urls[1], mode="legacy", message_handler=heard[1].message) as on_b,
        ):
            for each in (on_a, on_b):
                await subscribe(each, "test://counter")
                await subscribe(each, "test://shared")
            await on_a.call_tool("bump", {})
            await heard[0].until(1)
            replace_text(shared, "v2")
            return await heard[0].until(2), await heard[1].until(1)

    on_a, on_b = anyio.run(scenario)
    assert on_a == ["test://counter", "test://shared"]
    assert on_b == ["test://shared"]  # replica B never heard of A's bump
