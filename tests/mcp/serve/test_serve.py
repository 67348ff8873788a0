"""``tooldeck mcp serve`` in a subprocess, spoken to by the SDK's own ``Client``.

Each server is an interpreter that imports the MCP SDK (about a second of CPU), so the
tests that only list, call and answer questions share one server per kind of client
(``shared``); a test that changes its project, or the server's options, starts its own.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from contextlib import ExitStack, asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import anyio.from_thread
import httpx
import mcp.types as types
import pytest

from mcp import Client, StdioServerParameters
from tooldeck import Host, grant_trust, trust_status

from ...ports import free_port
from ...warm import warm
from ..conftest import wait_for

TOOLDECK = [sys.executable, "-c", "import sys; from tooldeck.cli import main; sys.exit(main())"]

ADDER = '''
from tooldeck import Tool, ToolResult, hookimpl, tool

@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b

async def guarded(input, ctx):
    await ctx.permission.assert_("guarded", [])
    return ToolResult("ran")

async def noted(input, ctx):
    metadata = {"note": "Ship it", "diff": "-old\\n+new\\n"}
    await ctx.permission.assert_("noted", ["NOTES.md"], metadata=metadata)
    return ToolResult("noted")

async def twice(input, ctx):
    await ctx.permission.assert_("twice", ["first"])
    await ctx.permission.assert_("twice", ["second"])
    return ToolResult("ran twice")

async def counted(input, ctx):
    await ctx.permission.assert_("counted", [])
    with open(ctx.location.root / "counted.txt", "a") as file:
        file.write("ran\\n")
    return ToolResult("counted")

@tool
def coded() -> str:
    """A code-mode tool."""
    return "coded"

@hookimpl
def tool_transform(editor):
    editor.add(add.replace(codemode=False))
    editor.add(Tool(name="guarded", description="Ask first.", execute=guarded, codemode=False))
    editor.add(Tool(name="noted", description="Ask, showing what.", execute=noted,
                    codemode=False))
    editor.add(Tool(name="twice", description="Ask two questions.", execute=twice,
                    codemode=False))
    editor.add(Tool(name="counted", description="Ask, then count.", execute=counted,
                    codemode=False))
    editor.add(coded)
'''

LATER = '''
from tooldeck import hookimpl, tool

@tool
def later() -> str:
    """Added after the server started."""
    return "later"

@hookimpl
def tool_transform(editor):
    editor.add(later.replace(codemode=False))
'''


def make_project(root: Path) -> Path:
    (root / ".tooldeck" / "plugins").mkdir(parents=True)
    (root / ".tooldeck" / "plugins" / "adder.py").write_text(ADDER)
    (root / "tooldeck.toml").write_text('[plugins]\nonly = ["local:adder", "local:later"]\n')
    grant_trust(trust_status(root))  # as `tooldeck trust --yes` does; the server reads it
    return root


@pytest.fixture
def project(tooldeck_env):
    """A project of this test's own, for a test that changes it or its server's options."""
    return make_project(tooldeck_env / "project")


def served(root: Path, *extra: str, **options) -> Client:
    env = {
        **{k: v for k, v in os.environ.items() if k.startswith(("XDG_", "TOOLDECK_TRUST"))},
        "PYTHONPATH": os.pathsep.join(sys.path),
    }
    command = warm([*TOOLDECK, "mcp", "serve", "--location", str(root), *extra])
    params = StdioServerParameters(
        command=command[0],
        args=command[1:],
        env=env,
    )
    return Client(params, **options)


Answer = Callable[[Any, types.ElicitRequestParams], Awaitable[types.ElicitResult]]


class SharedServers:
    """Servers of one project kept open for the module, one per kind of client (its
    protocol mode, and whether it can be asked), each with one client on a portal's event
    loop. A test runs ``scenario(client)`` there; the questions a server asks go to the
    test's ``answer``."""

    def __init__(self, root: Path, portal: anyio.from_thread.BlockingPortal, stack: ExitStack):
        self.root = root
        self.portal = portal
        self.stack = stack
        self.clients: dict[tuple[str, bool], Client] = {}
        self.answer: Answer | None = None

    async def elicit(self, ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        assert self.answer is not None, f"a question no test expected: {params.message}"
        return await self.answer(ctx, params)

    def client(self, mode: str, askable: bool) -> Client:
        if (mode, askable) not in self.clients:
            options: dict[str, Any] = {"elicitation_callback": self.elicit} if askable else {}
            opened = served(self.root, mode=mode, **options)
            self.clients[mode, askable] = self.stack.enter_context(
                self.portal.wrap_async_context_manager(opened)
            )
        return self.clients[mode, askable]

    def run(
        self,
        scenario: Callable[[Client], Awaitable[Any]],
        *,
        mode: str = "auto",
        answer: Answer | None = None,
    ) -> Any:
        self.answer = answer
        try:
            return self.portal.call(scenario, self.client(mode, answer is not None))
        finally:
            self.answer = None


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedServers]:
    """The module's shared servers of one project (``make_project``), with the same
    environment ``tooldeck_env`` gives a test: no TOOLDECK_* variables, XDG dirs of its
    own, the folder trusted by a stored grant."""
    base = tmp_path_factory.mktemp("shared")
    with pytest.MonkeyPatch.context() as patch, ExitStack() as stack:
        for name in [n for n in os.environ if n.startswith("TOOLDECK_")]:
            patch.delenv(name)
        patch.setenv("XDG_CONFIG_HOME", str(base / "xdg-config"))
        patch.setenv("XDG_DATA_HOME", str(base / "xdg-data"))
        portal = stack.enter_context(anyio.from_thread.start_blocking_portal())
        yield SharedServers(make_project(base / "project"), portal, stack)


def test_list_is_the_snapshot_and_calls_run_through_the_boundary(shared):
    with Host.open(shared.root) as host:
        expected = [dict(d) for d in host.snapshot().definitions_for("mcp")]

    async def scenario(client):
        listed = (await client.list_tools()).tools
        added = await client.call_tool("add", {"a": 2, "b": 3})
        invalid = await client.call_tool("add", {"a": "x", "b": 1})
        return listed, added, invalid

    listed, added, invalid = shared.run(scenario)
    assert [t.name for t in listed] == [d["name"] for d in expected]
    add = next(t for t in listed if t.name == "add")
    definition = next(d for d in expected if d["name"] == "add")
    assert add.description == definition["description"]
    assert add.input_schema == definition["inputSchema"]
    assert (added.is_error, added.content[0].text) == (False, "5")
    assert invalid.is_error
    assert "Invalid input for tool 'add'" in invalid.content[0].text


async def names_and_coded(client):
    names = [t.name for t in (await client.list_tools()).tools]
    return names, await client.call_tool("coded", {})


def test_code_mode_is_served(shared):
    names, by_name = shared.run(names_and_coded)
    assert "execute" in names
    assert "coded" not in names
    assert by_name.content[0].text == "coded"  # callable by name either way


def test_code_mode_is_not_served_when_turned_off(project):
    async def scenario():
        async with served(project, "--no-codemode") as client:
            return await names_and_coded(client)

    names, by_name = anyio.run(scenario)
    assert "coded" in names
    assert "execute" not in names
    assert by_name.content[0].text == "coded"  # callable by name either way


def test_an_ask_without_elicitation_is_declined_with_the_rule_to_add(shared):
    async def scenario(client):
        return await client.call_tool("guarded", {})

    result = shared.run(scenario)
    assert result.is_error
    text = result.content[0].text
    assert "cannot be asked" in text
    assert '[[permission]]\naction = "guarded"\neffect = "allow"' in text


@pytest.mark.parametrize(("decision", "expected"), [("once", "ran"), ("reject", None)])
def test_an_ask_becomes_an_elicitation(shared, decision, expected):
    asked = []

    async def elicit(ctx, params):
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"decision": decision})

    async def scenario(client):
        return await client.call_tool("guarded", {})

    result = shared.run(scenario, mode="legacy", answer=elicit)
    assert asked == ["Allow 'guarded' on *?"]
    assert result.is_error is (expected is None)
    if expected:
        assert result.content[0].text == expected


@pytest.mark.parametrize("mode", ["legacy", "modern"])
def test_the_question_shows_what_the_tool_attached(shared, mode):
    """The client's user answers having seen the tool's metadata (an edit's diff, a
    note), as at the terminal, in either protocol era."""
    asked = []

    async def elicit(ctx, params):
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"decision": "once"})

    async def scenario(client):
        return await client.call_tool("noted", {})

    kwargs = {"mode": "legacy"} if mode == "legacy" else {}
    result = shared.run(scenario, answer=elicit, **kwargs)
    assert asked == ["Allow 'noted' on NOTES.md?\n  note: Ship it\n-old\n+new"]
    assert result.content[0].text == "noted"


@pytest.mark.parametrize(("decision", "expected"), [("once", "ran"), ("reject", None)])
def test_a_2026_client_is_asked_through_an_input_required_round_trip(shared, decision, expected):
    asked = []

    async def elicit(ctx, params):
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"decision": decision})

    async def scenario(client):
        return client.protocol_version, await client.call_tool("guarded", {})

    version, result = shared.run(scenario, answer=elicit)
    assert version == "2026-07-28"
    assert asked == ["Allow 'guarded' on *?"]
    assert result.is_error is (expected is None)
    if expected:
        assert result.content[0].text == expected
    else:
        assert "cannot be asked" not in result.content[0].text


def test_a_2026_client_answers_each_question_of_a_call_once(shared):
    asked = []

    async def elicit(ctx, params):
        asked.append(params.message)
        feedback = "not the second" if "second" in params.message else ""
        decision = "reject" if feedback else "once"
        return types.ElicitResult(
            action="accept", content={"decision": decision, "feedback": feedback}
        )

    async def scenario(client):
        return await client.call_tool("twice", {})

    result = shared.run(scenario, answer=elicit)
    # Round one asks the first question; round two reruns the call with that answer
    # (from the echoed request state) and asks the second; round three declines.
    assert asked == ["Allow 'twice' on first?", "Allow 'twice' on second?"]
    assert result.is_error
    assert "not the second" in result.content[0].text


async def answered_once(client, name, first):
    """Retry the call to ``name`` that ended in ``first`` (a 2026-07-28 question), answering
    its one question "once" by hand with the request state it echoed."""
    [key] = first.input_requests
    answer = {key: types.ElicitResult(action="accept", content={"decision": "once"})}
    return await client.session.call_tool(
        name,
        {},
        input_responses=answer,
        request_state=first.request_state,
        allow_input_required=True,
    )


def test_a_2026_answer_sent_twice_runs_the_tool_once(shared):
    async def never(ctx, params):
        raise AssertionError("the test answers by hand")

    async def scenario(client):
        first = await client.session.call_tool("counted", {}, allow_input_required=True)
        retries = [await answered_once(client, "counted", first) for _ in range(2)]
        return first, retries

    first, retries = shared.run(scenario, answer=never)
    assert isinstance(first, types.InputRequiredResult)
    assert [(r.is_error, r.content[0].text) for r in retries] == [(False, "counted")] * 2
    # the retry replayed the record (only this test calls ``counted`` in the shared project)
    assert (shared.root / "counted.txt").read_text() == "ran\n"


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_feedback_on_a_served_call_reaches_the_client_as_a_failure(shared, mode):
    """The served path: the client's user rejects with feedback, the executor lets
    ``Reject("use X instead")`` through, and the client reads it as a failed call."""

    async def elicit(ctx, params):
        return types.ElicitResult(
            action="accept", content={"decision": "reject", "feedback": "use X instead"}
        )

    async def scenario(client):
        return await client.call_tool("guarded", {})

    result = shared.run(scenario, mode=mode, answer=elicit)
    assert result.is_error
    assert result.content[0].text == (
        "The user rejected this tool call and said: use X instead\n"
        "Take this feedback into account before trying again."
    )


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_clients_hear_when_a_plugin_file_appears(tooldeck_env, monkeypatch, mode):
    # A file added while serving runs only in a folder trusted for the whole process
    # (a stored trust covers exactly the files that were reviewed).
    monkeypatch.setenv("TOOLDECK_TRUST", "1")
    root = tooldeck_env / "late"
    root.mkdir()  # no .tooldeck/plugins/ yet: it is created after the server started
    (root / "tooldeck.toml").write_text('[plugins]\nonly = ["local:later"]\n')
    heard = anyio.Event()

    async def on_message(message):
        if isinstance(message, types.ToolListChangedNotification):
            heard.set()

    async def listen(client):
        async with client.listen(tools_list_changed=True) as subscription:
            async for _event in subscription:
                heard.set()
                return

    async def scenario():
        async with served(root, mode=mode, message_handler=on_message) as client:
            before = [t.name for t in (await client.list_tools()).tools]
            async with anyio.create_task_group() as group:
                if client.protocol_version == "2026-07-28":
                    group.start_soon(listen, client)
                    await anyio.sleep(0.3)  # the subscription is open
                folder = root / ".tooldeck" / "plugins"
                folder.mkdir(parents=True)
                (folder / "later.py").write_text(LATER)
                with anyio.fail_after(10):
                    await heard.wait()
                group.cancel_scope.cancel()
            after = [t.name for t in (await client.list_tools(cache_mode="refresh")).tools]
            return client.protocol_version, before, after

    version, before, after = anyio.run(scenario)
    assert version == ("2026-07-28" if mode == "auto" else "2025-11-25")
    assert "later" not in before
    assert "later" in after


def http_command(root: Path, address: str, *extra: str) -> list[str]:
    """``tooldeck mcp serve --http ADDRESS`` of ``root``, started warm (``tests/warm``)."""
    return warm([*TOOLDECK, "mcp", "serve", "--location", str(root), "--http", address, *extra])


@contextmanager
def http_serving(
    root: Path, port: int, *extra: str, env: dict[str, str] | None = None
) -> Iterator[str]:
    """``tooldeck mcp serve --http`` of ``root`` on ``port`` while the block runs; yields
    its URL. One such server takes any number of clients, each a session with callbacks
    of its own: a module's tests that need only that share one (a server started per test
    is an interpreter importing the MCP SDK each time)."""
    environment = {**os.environ, **(env or {})}
    process = subprocess.Popen(
        http_command(root, f"127.0.0.1:{port}", *extra),
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(lambda: process.poll() is None and _listening(port))
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


@asynccontextmanager
async def http_served(root, port, *extra, env=None):
    with http_serving(root, port, *extra, env=env):
        yield


def _listening(port):
    import socket

    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) == 0


def test_allow_remote_needs_the_bearer_token(project):
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"

    async def scenario():
        async with http_served(
            project, port, "--allow-remote", env={"TOOLDECK_MCP_TOKEN": "s3cret"}
        ):
            async with httpx.AsyncClient() as http:
                anonymous = await http.post(url, json={})
                wrong = await http.post(url, json={}, headers={"Authorization": "Bearer no"})
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            authed = httpx2.AsyncClient(headers={"Authorization": "Bearer s3cret"})
            async with authed, Client(streamable_http_client(url, http_client=authed)) as client:
                names = [t.name for t in (await client.list_tools()).tools]
            return anonymous.status_code, wrong.status_code, names

    anonymous, wrong, names = anyio.run(scenario)
    assert (anonymous, wrong) == (401, 401)
    assert "add" in names


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (["--http", "0.0.0.0:8765"], {}, "refusing to listen on a non-loopback address"),
        (["--http", "8765", "--allow-remote"], {}, "--allow-remote needs a bearer token"),
        (["--http", "x:y"], {}, "expected [HOST:]PORT"),
    ],
)
def test_unsafe_or_wrong_http_options_are_refused(project, args, env, message):
    done = subprocess.run(
        [*TOOLDECK, "mcp", "serve", "--location", str(project), *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=60,
    )
    assert done.returncode == 2
    assert message in done.stderr


def test_http_on_loopback_needs_no_token_and_keeps_dns_rebinding_protection(project):
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"

    async def scenario():
        async with http_served(project, port):
            async with httpx.AsyncClient() as http:
                rebound = await http.post(url, json={}, headers={"Host": "evil.example"})
                foreign = await http.post(
                    url,
                    json={},
                    headers={"Origin": "http://evil.example", "Content-Type": "application/json"},
                )
            async with Client(url) as client:
                names = [t.name for t in (await client.list_tools()).tools]
            return rebound.status_code, foreign.status_code, names

    rebound, foreign, names = anyio.run(scenario)
    assert (rebound, foreign) == (421, 403)
    assert "add" in names


def test_a_config_change_reopens_the_location_and_clients_hear_it(project):
    heard = anyio.Event()

    async def on_message(message):
        if isinstance(message, types.ToolListChangedNotification):
            heard.set()

    async def scenario():
        async with served(project, mode="legacy", message_handler=on_message) as client:
            before = {t.name for t in (await client.list_tools()).tools}
            (project / "tooldeck.toml").write_text(
                '[plugins]\nonly = ["local:adder"]\ndisable = ["builtin:shell"]\n'
            )
            with anyio.fail_after(10):
                await heard.wait()
            after = {t.name for t in (await client.list_tools()).tools}
            return before, after

    before, after = anyio.run(scenario)
    assert before - after == {"shell"}
