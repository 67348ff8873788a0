"""The deployment of ``docs/mcp.md#scale-out``, as a test: three ``tooldeck mcp serve
--http`` replicas behind HAProxy (Debian's package, started here with the page's own
``haproxy.cfg``), on the test session's real PostgreSQL, spoken to by the SDK's own
clients of both protocol eras through the balancer, and by the ``tooldeck`` CLI from
another "machine" (its own data dir).

Each replica is a process with its own data dir, as on another machine; they share the
project folder (each watches it) and the store. A tool named ``replica`` answers which
replica ran it, and the counted tool writes where it ran, so a test can tell where its
requests went without reading the balancer's logs.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import mcp.types as types
import pytest

from mcp import Client
from tooldeck import PostgresStore
from tooldeck.host.config.config_files import load_config

from ...docs_blocks import page
from ..conftest import free_port, wait_for
from .test_serve import LATER, TOOLDECK, _listening

PAGE = page("mcp.md")
HAPROXY_CFG = PAGE.take("haproxy", "stick match req.hdr(mcp-session-id)")
REPLICA_COMMAND = PAGE.take("bash", "--allowed-host 127.0.0.1:8080")
ALLOWED_HOSTS_TOML = PAGE.take("toml", "allowed_hosts = [")
STORE_TOML = PAGE.take("toml", "[store]\ntimeout_s")

DOC_LB_PORT = 8080
DOC_REPLICA_PORTS = {"r1": 8001, "r2": 8002, "r3": 8003}
TOKEN = "balanced-secret"

PLUGIN = """
import os
from tooldeck import Tool, ToolResult, hookimpl

REPLICA = os.environ.get("REPLICA", "cli")

def replica(input, ctx):
    return ToolResult(REPLICA)

async def guarded(input, ctx):
    await ctx.permission.assert_("guarded", [])
    return ToolResult("ran on " + REPLICA)

async def counted(input, ctx):
    with open(ctx.location.root / "asked.txt", "a") as file:
        file.write(REPLICA + "\\n")
    await ctx.permission.assert_("counted", [])
    with open(ctx.location.root / "counted.txt", "a") as file:
        file.write(REPLICA + "\\n")
    return ToolResult("counted on " + REPLICA)

def add(input, ctx):
    return ToolResult(str(input["a"] + input["b"]))

ADD = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
       "required": ["a", "b"]}

@hookimpl
def tool_transform(editor):
    for name, run, schema in (("replica", replica, None), ("guarded", guarded, None),
                              ("counted", counted, None), ("add", add, ADD)):
        editor.add(Tool(name=name, description=name, execute=run, input=schema,
                        codemode=False))
"""


# -- the deployment ------------------------------------------------------------------------
@dataclass
class Deployment:
    """The balancer's URL, the replicas by name, and how to (re)start one."""

    root: Path
    base_env: dict[str, str]
    lb_port: int
    ports: dict[str, int]
    replicas: dict[str, subprocess.Popen[bytes]] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.lb_port}/mcp"

    def replica_env(self, name: str) -> dict[str, str]:
        data = self.root.parent / f"data-{name}"
        return {**self.base_env, "XDG_DATA_HOME": str(data), "REPLICA": name}

    def start(self, name: str) -> None:
        """Start replica ``name`` as the page's command line starts one."""
        argv = _doc_argv(self.root, self.ports[name], self.lb_port)
        self.replicas[name] = subprocess.Popen(
            [*TOOLDECK, *argv],
            env=self.replica_env(name),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    @property
    def schema(self) -> str:
        return self.base_env["TOOLDECK_STORE_SCHEMA"]

    def all_up(self) -> Deployment:
        """Every replica running: one a test killed is started again (on its port)."""
        dead = [name for name, process in self.replicas.items() if process.poll() is not None]
        for name in dead:
            self.start(name)
        for name in dead:
            self.wait_ready(name)
        return self

    def wait_ready(self, name: str) -> None:
        process, port = self.replicas[name], self.ports[name]
        wait_for(lambda: process.poll() is None and _listening(port), timeout=60)

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        """``tooldeck --location ROOT ARGS`` from another machine: its own data dir."""
        env = {**self.base_env, "XDG_DATA_HOME": str(self.root.parent / "data-operator")}
        env.pop("TOOLDECK_MCP_TOKEN")
        return subprocess.run(
            [*TOOLDECK, "--location", str(self.root), *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )


def _doc_argv(root: Path, port: int, lb_port: int) -> list[str]:
    """The page's replica command (``tooldeck mcp serve ...``), with this test's ports."""
    [line] = [line for line in REPLICA_COMMAND.code.splitlines() if "mcp serve" in line]
    argv = line.split()[1:]  # after "tooldeck"
    text = " ".join(argv).replace("/srv/project", str(root))
    text = text.replace(f"127.0.0.1:{DOC_LB_PORT}", f"127.0.0.1:{lb_port}")
    return text.replace("127.0.0.1:8001", f"127.0.0.1:{port}").split()


def haproxy_config(lb_port: int, ports: dict[str, int]) -> str:
    """The page's ``haproxy.cfg`` with this test's ports."""
    text = HAPROXY_CFG.code.replace(f"127.0.0.1:{DOC_LB_PORT}", f"127.0.0.1:{lb_port}")
    for name, doc_port in DOC_REPLICA_PORTS.items():
        text = text.replace(f"127.0.0.1:{doc_port}", f"127.0.0.1:{ports[name]}")
    return text


def _haproxy() -> str:
    found = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/usr/local/sbin")
    if found is None:
        pytest.fail("the balancer test needs HAProxy: apt-get install -y haproxy (.ci/run does)")
    return found


@pytest.fixture(scope="module")
def deployment(module_env, postgres_dsn, tmp_path_factory) -> Iterator[Deployment]:
    root = tmp_path_factory.mktemp("balanced") / "project"
    plugins = root / ".tooldeck" / "plugins"
    plugins.mkdir(parents=True)
    (plugins / "balanced.py").write_text(PLUGIN)
    (root / "tooldeck.toml").write_text('[plugins]\nonly = ["local:balanced", "local:later"]\n')
    base_env = {
        **os.environ,
        "TOOLDECK_STORE_URL": postgres_dsn,
        "TOOLDECK_STORE_SCHEMA": f"t_{uuid.uuid4().hex[:16]}",
        "TOOLDECK_MCP_TOKEN": TOKEN,
        "TOOLDECK_TRUST": "1",
        "PYTHONPATH": os.pathsep.join(sys.path),
    }
    ports = {name: free_port() for name in DOC_REPLICA_PORTS}
    found = Deployment(root, base_env, free_port(), ports)
    config = root.parent / "haproxy.cfg"
    config.write_text(haproxy_config(found.lb_port, ports))
    balancer = None
    try:
        for name in ports:  # all start at once: each imports for about a second
            found.start(name)
        for name in ports:
            found.wait_ready(name)
        with open(root.parent / "haproxy.log", "wb") as log:
            balancer = subprocess.Popen(
                [_haproxy(), "-db", "-f", str(config)], stdout=log, stderr=subprocess.STDOUT
            )
        wait_for(lambda: balancer.poll() is None and _listening(found.lb_port), timeout=30)
        yield found
    finally:
        if balancer is not None:
            balancer.terminate()
            balancer.wait(timeout=10)
        for process in found.replicas.values():
            process.terminate()
        for process in found.replicas.values():
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)


# -- clients --------------------------------------------------------------------------------
async def connect(
    stack: AsyncExitStack,
    url: str,
    *,
    mode: str = "auto",
    elicit=None,
    on_message=None,
) -> Client:
    """An SDK client through ``url`` with the replicas' bearer token."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    http = await stack.enter_async_context(
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60)
    )
    options = {"mode": mode}
    if elicit is not None:
        options["elicitation_callback"] = elicit
    if on_message is not None:
        options["message_handler"] = on_message
    transport = streamable_http_client(url, http_client=http)
    return await stack.enter_async_context(Client(transport, **options))


async def text_of(client: Client, name: str, arguments: dict | None = None) -> str:
    result = await client.call_tool(name, arguments or {})
    assert not result.is_error, result.content[0].text
    return result.content[0].text


async def on_replica(stack: AsyncExitStack, url: str, wanted: str, **options) -> Client:
    """A handshake-era client whose session the balancer put on replica ``wanted``
    (round robin hands out new sessions in turn: a bounded number of tries finds it)."""
    for _ in range(12):
        inner = AsyncExitStack()
        await inner.__aenter__()
        client = await connect(inner, url, mode="legacy", **options)
        if await text_of(client, "replica") == wanted:
            stack.push_async_callback(inner.aclose)
            return client
        await inner.aclose()
    pytest.fail(f"no session landed on {wanted} in 12 tries")


def _messages(exc: BaseException) -> str:
    """Every message in ``exc`` and the groups inside it, one per line."""
    if isinstance(exc, BaseExceptionGroup):
        return "\n".join(_messages(inner) for inner in exc.exceptions)
    return f"{type(exc).__name__}: {exc}"


def never_asked(asked: list[str]):
    async def elicit(ctx, params):
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"decision": "reject"})

    return elicit


def answering(decision: str, asked: list[str]):
    async def elicit(ctx, params):
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"decision": decision})

    return elicit


# -- the page's blocks ------------------------------------------------------------------------
def test_the_pages_config_blocks_load(tmp_path):
    (tmp_path / "tooldeck.toml").write_text(ALLOWED_HOSTS_TOML.code + "\n" + STORE_TOML.code)
    config = load_config(tmp_path)
    assert config.mcp.serve.allowed_hosts == ("mcp.example.com", "127.0.0.1:8080")
    assert (config.store.timeout_s, config.store.pool_min_size, config.store.pool_max_size) == (
        10,
        1,
        8,
    )


def test_the_pages_haproxy_cfg_is_valid_for_haproxy(tmp_path):
    config = tmp_path / "haproxy.cfg"
    config.write_text(HAPROXY_CFG.code)
    checked = subprocess.run(
        [_haproxy(), "-c", "-f", str(config)], capture_output=True, text=True, timeout=30
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


# -- routing --------------------------------------------------------------------------------
def test_stateless_requests_spread_and_a_handshake_session_sticks(deployment):
    deployment.all_up()

    async def scenario():
        async with AsyncExitStack() as stack:
            modern = await connect(stack, deployment.url)
            spread: set[str] = set()
            for _ in range(30):  # round robin reaches every replica in a few calls
                spread.add(await text_of(modern, "replica"))
                if len(spread) == 3:
                    break
            legacy = await connect(stack, deployment.url, mode="legacy")
            stuck = {await text_of(legacy, "replica") for _ in range(9)}
            return modern.protocol_version, spread, legacy.protocol_version, stuck

    modern, spread, legacy, stuck = anyio.run(scenario)
    assert (modern, legacy) == ("2026-07-28", "2025-11-25")
    assert spread == {"r1", "r2", "r3"}  # round robin: every replica answered
    assert len(stuck) == 1  # the session's requests all went to its replica


def test_the_balancers_host_is_allowed_and_any_other_still_refused(deployment):
    import httpx

    deployment.all_up()
    port = deployment.ports["r1"]
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    headers = {
        "Authorization": f"Bearer {TOKEN}",
        "Accept": "application/json, text/event-stream",
        "Mcp-Protocol-Version": "2026-07-28",
    }
    url = f"http://127.0.0.1:{port}/mcp"
    answers = {}
    for host in (f"127.0.0.1:{deployment.lb_port}", "evil.example:80"):
        answers[host] = httpx.post(url, json=body, headers={**headers, "Host": host}).status_code
    assert answers[f"127.0.0.1:{deployment.lb_port}"] != 421
    assert answers["evil.example:80"] == 421


# -- approvals and pending calls across replicas ---------------------------------------------
def test_an_always_given_on_one_replica_is_honoured_on_every_other(deployment):
    deployment.all_up()
    asked_first: list[str] = []
    asked_after: list[str] = []

    async def scenario():
        async with AsyncExitStack() as stack:
            giver = await on_replica(
                stack, deployment.url, "r2", elicit=answering("always", asked_first)
            )
            granted = await text_of(giver, "guarded")
            modern = await connect(stack, deployment.url, elicit=never_asked(asked_after))
            after = {await text_of(modern, "guarded") for _ in range(6)}
            return granted, after

    granted, after = anyio.run(scenario)
    assert granted == "ran on r2"
    assert asked_first == ["Allow 'guarded' on *?"]
    assert after == {"ran on r1", "ran on r2", "ran on r3"}  # every replica ran it...
    assert asked_after == []  # ...and none asked


def test_a_deferred_call_resumes_exactly_once_from_another_replica_and_from_the_cli(deployment):
    deployment.all_up()
    root = deployment.root
    for name in ("asked.txt", "counted.txt"):
        (root / name).unlink(missing_ok=True)

    async def ask(stack) -> tuple[Client, types.InputRequiredResult]:
        client = await connect(stack, deployment.url, elicit=never_asked([]))
        first = await client.session.call_tool("counted", {}, allow_input_required=True)
        assert isinstance(first, types.InputRequiredResult)
        return client, first

    async def retry(client, first):
        [key] = first.input_requests
        answer = {key: types.ElicitResult(action="accept", content={"decision": "once"})}
        return await client.session.call_tool(
            "counted",
            {},
            input_responses=answer,
            request_state=first.request_state,
            allow_input_required=True,
        )

    async def through_replicas():
        """Three retries at once: round robin sends them to three replicas, two of them
        not the one that asked; they race to resume, and one runs the call."""
        async with AsyncExitStack() as stack:
            client, first = await ask(stack)
            results = []

            async def one():
                results.append(await retry(client, first))

            async with anyio.create_task_group() as group:
                for _ in range(3):
                    group.start_soon(one)
            return results

    results = anyio.run(through_replicas)
    texts = {result.content[0].text for result in results}
    [ran_on] = (root / "counted.txt").read_text().split()
    assert texts == {f"counted on {ran_on}"}  # all three got the one recorded outcome

    async def asked_then(then):
        async with AsyncExitStack() as stack:
            client, first = await ask(stack)
            pending = json.loads(first.request_state)["pending"]
            await anyio.to_thread.run_sync(then, pending)
            return pending, await retry(client, first)

    listed: dict = {}
    resumed: dict = {}

    def from_the_cli(pending):
        entries = json.loads(deployment.cli("pending", "--json").stdout)
        listed.update(next(entry for entry in entries if entry["id"] == pending))
        done = deployment.cli("resume", pending, "once")
        again = deployment.cli("resume", pending, "once")
        resumed.update(first=done, again=again)

    pending, retried = anyio.run(asked_then, from_the_cli)
    assert listed["id"] == pending
    assert (listed["tool"], listed["principal"], listed["input"]) == ("counted", "default", {})
    assert resumed["first"].returncode == 0, resumed["first"].stderr
    assert resumed["first"].stdout == "counted on cli\n"
    assert resumed["again"].returncode == 1
    assert f"pending call {pending} was already answered (once); nothing was run" in (
        resumed["again"].stderr
    )
    assert retried.content[0].text == "counted on cli"  # the client's retry: recorded
    assert (root / "counted.txt").read_text().split() == [ran_on, "cli"]  # twice in all


# -- the catalog ------------------------------------------------------------------------------
def test_a_catalog_change_reaches_clients_on_every_replica(deployment):
    deployment.all_up()
    later = deployment.root / ".tooldeck" / "plugins" / "later.py"
    heard: dict[str, anyio.Event] = {}

    def hearing(name):
        heard[name] = anyio.Event()

        async def on_message(message):
            if isinstance(message, types.ToolListChangedNotification):
                heard[name].set()

        return on_message

    async def listen(client):
        async with client.listen(tools_list_changed=True) as subscription:
            async for _event in subscription:
                heard["modern"].set()
                return

    async def scenario():
        async with AsyncExitStack() as stack:
            clients = {
                name: await on_replica(stack, deployment.url, name, on_message=hearing(name))
                for name in ("r1", "r2", "r3")
            }
            modern = await connect(stack, deployment.url)
            heard["modern"] = anyio.Event()
            async with anyio.create_task_group() as group:
                group.start_soon(listen, modern)
                await anyio.sleep(0.5)  # the subscription is open
                later.write_text(LATER)
                with anyio.fail_after(20):
                    for event in heard.values():
                        await event.wait()
                group.cancel_scope.cancel()
            listed = {}
            for name, client in {**clients, "modern": modern}.items():
                tools = (await client.list_tools(cache_mode="refresh")).tools
                listed[name] = "later" in [t.name for t in tools]
            return listed

    try:
        listed = anyio.run(scenario)
    finally:
        later.unlink(missing_ok=True)
    assert listed == {"r1": True, "r2": True, "r3": True, "modern": True}


# -- a replica dies under load ----------------------------------------------------------------
def test_killing_a_replica_mid_load_loses_nothing_and_its_clients_go_on(deployment):
    """Stateless clients call in a loop while replica r3 is killed (SIGKILL): a call it
    was answering fails at the client (the balancer closes its connection without a
    response: the SDK ends that client, and a new one is made), every later call
    succeeds on the others; a handshake-era client stuck to it is told its session ended and a new
    session works; an approval and a pending call saved through it are still there."""
    deployment.all_up()

    asked: list[str] = []
    outcomes: list[str] = []

    async def caller(rounds: int) -> None:
        """``rounds`` calls, each recorded; a client the SDK ended (its transport broke
        with the replica) is replaced by a new one, as an application would."""
        done = 0
        while done < rounds:
            try:
                async with AsyncExitStack() as own:
                    client = await connect(own, deployment.url)
                    while done < rounds:
                        outcomes.append(await text_of(client, "add", {"a": done, "b": 1}))
                        done += 1
            except Exception as exc:  # every failure is recorded, and judged below
                outcomes.append(f"error: {_messages(exc)}")
                done += 1

    told: list[str] = []

    async def stuck_to_r3(ready: anyio.Event, killed: anyio.Event) -> None:
        """A handshake-era client on r3, in a task of its own: when its replica dies the
        SDK ends the client (its stream broke) or its next call fails; either is told."""
        try:
            async with AsyncExitStack() as stack:
                doomed = await on_replica(
                    stack, deployment.url, "r3", elicit=answering("always", asked)
                )
                await text_of(doomed, "guarded")  # an always saved through r3 (if not yet)
                ready.set()
                await killed.wait()
                await doomed.call_tool("replica", {})
                told.append("answered")
        except Exception as exc:  # MCPError, or the SDK's group of transport errors
            told.append(_messages(exc))

    async def scenario():
        async with anyio.create_task_group() as outer:
            ready, killed = anyio.Event(), anyio.Event()
            outer.start_soon(stuck_to_r3, ready, killed)
            await ready.wait()
            async with AsyncExitStack() as stack:
                waiting = await connect(stack, deployment.url, elicit=never_asked([]))  # pending
                first = await waiting.session.call_tool("counted", {}, allow_input_required=True)
                async with anyio.create_task_group() as group:
                    for _ in range(6):
                        group.start_soon(caller, 12)
                    await anyio.sleep(1.0)  # mid-load
                    deployment.replicas["r3"].send_signal(signal.SIGKILL)
                killed.set()
                later = await connect(stack, deployment.url)
                after = [await text_of(later, "add", {"a": 2, "b": 2}) for _ in range(6)]
                fresh = await connect(stack, deployment.url, mode="legacy")
                moved = await text_of(fresh, "replica")
                guarded = await text_of(fresh, "guarded")  # the always saved earlier still holds
                return first, after, moved, guarded

    first, after, moved, guarded = anyio.run(scenario)
    errors = [outcome for outcome in outcomes if outcome.startswith("error")]
    assert len(outcomes) == 72
    # at most the call each client had in flight on r3 when it died, and one sent on a
    # connection to r3 the balancer still held: transport failures, never a wrong answer
    assert len(errors) <= 12, errors
    assert all(
        outcome in (str(n + 1) for n in range(12)) for outcome in outcomes if outcome not in errors
    )
    assert after == ["4"] * 6  # every later call answered by the living replicas
    [stuck] = told  # the stuck client is told its session is gone, and starts anew
    gone = ("Session not found", "Server disconnected", "peer closed connection")
    assert any(said in stuck for said in gone), stuck
    assert moved in ("r1", "r2")
    assert guarded.startswith("ran on r")
    pending = json.loads(first.request_state)["pending"]
    store = PostgresStore(deployment.base_env["TOOLDECK_STORE_URL"], schema=deployment.schema)
    try:
        assert store.get_pending(pending).state == "open"  # the pending call survived too
    finally:
        store.close()
