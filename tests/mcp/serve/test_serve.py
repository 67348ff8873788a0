"""``tooldeck mcp serve`` in a subprocess, spoken to by the SDK's own ``Client``."""

from __future__ import annotations

import os
import subprocess
import sys
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import httpx
import mcp.types as types
import pytest

from mcp import Client, StdioServerParameters
from tooldeck import Host, grant_trust, trust_status

from ...ports import free_port
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


@pytest.fixture
def project(tooldeck_env):
    root = tooldeck_env / "project"
    (root / ".tooldeck" / "plugins").mkdir(parents=True)
    (root / ".tooldeck" / "plugins" / "adder.py").write_text(ADDER)
    (root / "tooldeck.toml").write_text('[plugins]\nonly = ["local:adder", "local:later"]\n')
    grant_trust(trust_status(root))  # as `tooldeck trust --yes` does; the server reads it
    return root


def served(root: Path, *extra: str, **options) -> Client:
    env = {
        **{k: v for k, v in os.environ.items() if k.startswith(("XDG_", "TOOLDECK_TRUST"))},
        "PYTHONPATH": os.pathsep.join(sys.path),
    }
    params = StdioServerParameters(
        command=TOOLDECK[0],
        args=[*TOOLDECK[1:], "mcp", "serve", "--location", str(root), *extra],
        env=env,
    )
    return Client(params, **options)


def test_list_is_the_snapshot_and_calls_run_through_the_boundary(project):
    with Host.open(project) as host:
        expected = [dict(d) for d in host.snapshot().definitions_for("mcp")]

    async def scenario():
        async with served(project) as client:
            listed = (await client.list_tools()).tools
            added = await client.call_tool("add", {"a": 2, "b": 3})
            invalid = await client.call_tool("add", {"a": "x", "b": 1})
            return listed, added, invalid

    listed, added, invalid = anyio.run(scenario)
    assert [t.name for t in listed] == [d["name"] for d in expected]
    add = next(t for t in listed if t.name == "add")
    definition = next(d for d in expected if d["name"] == "add")
    assert add.description == definition["description"]
    assert add.input_schema == definition["inputSchema"]
    assert (added.is_error, added.content[0].text) == (False, "5")
    assert invalid.is_error
    assert "Invalid input for tool 'add'" in invalid.content[0].text


@pytest.mark.parametrize(
    ("extra", "listed", "unlisted"),
    [((), "execute", "coded"), (("--no-codemode",), "coded", "execute")],
)
def test_code_mode_is_served_unless_turned_off(project, extra, listed, unlisted):
    async def scenario():
        async with served(project, *extra) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            by_name = await client.call_tool("coded", {})
            return names, by_name

    names, by_name = anyio.run(scenario)
    assert listed in names
    assert unlisted not in names
    assert by_name.content[0].text == "coded"  # callable by name either way


def test_an_ask_without_elicitation_is_declined_with_the_rule_to_add(project):
    async def scenario():
        async with served(project) as client:
            return await client.call_tool("guarded", {})

    result = anyio.run(scenario)
    assert result.is_error
    text = result.content[0].text
    assert "cannot be asked" in text
    assert '[[permission]]\naction = "guarded"\neffect = "allow"' in text


@pytest.mark.parametrize(("decision", "expected"), [("once", "ran"), ("reject", None)])
def test_an_ask_becomes_an_elicitation(project, decision, expected):
    asked = []

    async def elicit(ctx, params):
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"decision": decision})

    async def scenario():
        async with served(project, mode="legacy", elicitation_callback=elicit) as client:
            return await client.call_tool("guarded", {})

    result = anyio.run(scenario)
    assert asked == ["Allow 'guarded' on *?"]
    assert result.is_error is (expected is None)
    if expected:
        assert result.content[0].text == expected


@pytest.mark.parametrize(("decision", "expected"), [("once", "ran"), ("reject", None)])
def test_a_2026_client_is_asked_through_an_input_required_round_trip(project, decision, expected):
    asked = []

    async def elicit(ctx, params):
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"decision": decision})

    async def scenario():
        async with served(project, elicitation_callback=elicit) as client:
            return client.protocol_version, await client.call_tool("guarded", {})

    version, result = anyio.run(scenario)
    assert version == "2026-07-28"
    assert asked == ["Allow 'guarded' on *?"]
    assert result.is_error is (expected is None)
    if expected:
        assert result.content[0].text == expected
    else:
        assert "cannot be asked" not in result.content[0].text


def test_a_2026_client_answers_each_question_of_a_call_once(project):
    asked = []

    async def elicit(ctx, params):
        asked.append(params.message)
        feedback = "not the second" if "second" in params.message else ""
        decision = "reject" if feedback else "once"
        return types.ElicitResult(
            action="accept", content={"decision": decision, "feedback": feedback}
        )

    async def scenario():
        async with served(project, elicitation_callback=elicit) as client:
            return await client.call_tool("twice", {})

    result = anyio.run(scenario)
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


def test_a_2026_answer_sent_twice_runs_the_tool_once(project):
    async def never(ctx, params):
        raise AssertionError("the test answers by hand")

    async def scenario():
        async with served(project, elicitation_callback=never) as client:
            first = await client.session.call_tool("counted", {}, allow_input_required=True)
            retries = [await answered_once(client, "counted", first) for _ in range(2)]
            return first, retries

    first, retries = anyio.run(scenario)
    assert isinstance(first, types.InputRequiredResult)
    assert [(r.is_error, r.content[0].text) for r in retries] == [(False, "counted")] * 2
    assert (project / "counted.txt").read_text() == "ran\n"  # the retry replayed the record


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_feedback_on_a_served_call_reaches_the_client_as_a_failure(project, mode):
    """The served path: the client's user rejects with feedback, the executor lets
    ``Reject("use X instead")`` through, and the client reads it as a failed call."""

    async def elicit(ctx, params):
        return types.ElicitResult(
            action="accept", content={"decision": "reject", "feedback": "use X instead"}
        )

    async def scenario():
        async with served(project, mode=mode, elicitation_callback=elicit) as client:
            return await client.call_tool("guarded", {})

    result = anyio.run(scenario)
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


@asynccontextmanager
async def http_served(root, port, *extra, env=None):
    environment = {**os.environ, **(env or {})}
    process = subprocess.Popen(
        [*TOOLDECK, "mcp", "serve", "--location", str(root), "--http", f"127.0.0.1:{port}", *extra],
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(lambda: process.poll() is None and _listening(port))
        yield
    finally:
        process.terminate()
        process.wait(timeout=10)


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
