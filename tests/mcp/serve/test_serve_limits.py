"""``tooldeck mcp serve --http`` under abuse: slow clients, no descriptors, broken config files.

The server runs as a subprocess on 127.0.0.1 with its stderr in a file; every wait is
bounded, and the server must still answer the SDK's own ``Client`` afterwards. Tests of
one config that leave the server as they found it share one server (each start is an
interpreter importing the MCP SDK, about a second of CPU).
"""

from __future__ import annotations

import os
import resource
import socket
import subprocess
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import anyio
import pytest

from mcp import Client
from tooldeck import grant_trust, trust_status

from ...ports import free_port
from ..conftest import wait_for
from .test_serve import ADDER, TOOLDECK, _listening

CONFIG = '[plugins]\nonly = ["local:adder"]\n'


def make_project(root: Path, config: str = CONFIG) -> Path:
    (root / ".tooldeck" / "plugins").mkdir(parents=True)
    (root / ".tooldeck" / "plugins" / "adder.py").write_text(ADDER)
    (root / "tooldeck.toml").write_text(config)
    grant_trust(trust_status(root))
    return root


@pytest.fixture
def project(tooldeck_env):
    return make_project(tooldeck_env / "project")


@pytest.fixture(scope="module")
def served_with(module_env: Path) -> Iterator[Callable[[str], Served]]:
    """``served_with(config)``: the module's one server of a project with that config."""
    with ExitStack() as stack:
        started: dict[str, Served] = {}

        def server(config: str) -> Served:
            if config not in started:
                root = make_project(module_env / f"project-{len(started)}", config)
                started[config] = stack.enter_context(served(root))
            return started[config]

        yield server


class Served:
    def __init__(self, process: subprocess.Popen[bytes], port: int, log: Path) -> None:
        self.process = process
        self.port = port
        self.url = f"http://127.0.0.1:{port}/mcp"
        self.log = log

    @property
    def stderr(self) -> str:
        return self.log.read_text(errors="replace")

    def names(self) -> set[str]:
        async def listed() -> set[str]:
            with anyio.fail_after(20):
                async with Client(self.url) as client:
                    return {t.name for t in (await client.list_tools()).tools}

        return anyio.run(listed)


@contextmanager
def served(root: Path, *, nofile: int | None = None) -> Iterator[Served]:
    port = free_port()
    log = root.parent / f"serve-{port}.log"

    def limit() -> None:  # in the child only: the test process keeps its descriptors
        if nofile is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))

    with log.open("wb") as sink:
        process = subprocess.Popen(
            [*TOOLDECK, "mcp", "serve", "--location", str(root), "--http", f"127.0.0.1:{port}"],
            env=dict(os.environ),
            stdout=subprocess.DEVNULL,
            stderr=sink,
            preexec_fn=limit,
        )
    try:
        wait_for(lambda: process.poll() is None and _listening(port))
        yield Served(process, port, log)
    finally:
        process.terminate()
        process.wait(timeout=10)


def closed_by_peer(sock: socket.socket, trickle: bytes) -> bool:
    """Send ``trickle`` a byte at a time until the server hangs up (bounded)."""
    sock.settimeout(0.2)
    for index in range(200):
        try:
            sock.send(trickle[index % len(trickle) : index % len(trickle) + 1])
            if sock.recv(1024) == b"":
                return True
        except TimeoutError:
            continue
        except OSError:
            return True
    return False


HEAD = b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n"


@pytest.mark.parametrize(
    ("start", "trickle"),
    [
        (HEAD, b"X-Slow: yes\r\n"),
        (HEAD + b"Content-Type: application/json\r\nContent-Length: 9999\r\n\r\n{", b" "),
    ],
    ids=["headers", "body"],
)
def test_a_client_trickling_its_request_is_dropped_and_others_are_served(
    served_with, start, trickle
):
    server = served_with(CONFIG + "[mcp.serve]\nheader_timeout_s = 0.5\nbody_timeout_s = 0.5\n")
    with socket.create_connection(("127.0.0.1", server.port)) as slow:
        slow.sendall(start)
        assert closed_by_peer(slow, trickle)
        assert "add" in server.names()
        assert server.process.poll() is None


def test_running_out_of_descriptors_leaves_the_server_serving(project):
    with served(project, nofile=96) as server:
        assert "shell" in server.names()
        with ExitStack() as stack:
            for _ in range(140):  # more than the server may hold: it hits EMFILE
                held = stack.enter_context(socket.socket())
                held.connect(("127.0.0.1", server.port))
            (project / "tooldeck.toml").write_text(
                '[plugins]\nonly = ["local:adder"]\ndisable = ["builtin:shell"]\n'
            )
            wait_for(lambda: "Too many open files" in server.stderr)
        # the sockets are closed: the server frees their descriptors and applies the change
        wait_for(lambda: "shell" not in server.names(), timeout=30)
        assert server.process.poll() is None


def test_a_corrupted_config_keeps_the_last_good_catalog_until_it_is_fixed(project):
    config = project / "tooldeck.toml"
    with served(project) as server:
        before = server.names()
        assert "shell" in before
        config.write_bytes(CONFIG.encode() + b"# caf\xe9\n")
        wait_for(lambda: "not UTF-8" in server.stderr)
        assert server.names() == before
        config.write_text(CONFIG + "x = " + "[" * 5000 + "]" * 5000 + "\n")
        wait_for(lambda: "nested too deeply" in server.stderr)
        config.write_text(CONFIG + "[output]\nmax_lines = 'many'\n")
        wait_for(lambda: "output.max_lines" in server.stderr)
        assert server.names() == before
        assert server.stderr.count("not UTF-8") == 1  # reported once, not at every poll
        config.write_text('[plugins]\nonly = ["local:adder"]\ndisable = ["builtin:shell"]\n')
        wait_for(lambda: "shell" not in server.names())
        assert server.process.poll() is None


# -- refusals: a JSON-RPC error naming the limit ------------------------------------------------
LIMITED = CONFIG + (
    "[mcp.serve]\nmax_connections = 2\nheader_timeout_s = 60\nmax_body_bytes = 2000\n"
    "max_sessions = 1\n"
)


def refused_by(response, status: int, key: str) -> str:
    """The refusal's message, once its status and JSON-RPC shape are checked."""
    assert response.status_code == status
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert (body["jsonrpc"], body["id"], body["error"]["code"]) == ("2.0", None, -32000)
    assert f"[mcp.serve] {key}" in body["error"]["message"]
    return str(body["error"]["message"])


async def sdk_error(url: str, **call: object) -> str:
    """The SDK client's error when its connection (or ``call``) is refused."""
    with anyio.fail_after(20):
        try:
            async with Client(url) as client:
                if call:
                    await client.call_tool("add", call)
        except Exception as exc:  # the SDK's MCPError, inside the client's task groups
            return repr(exc)
    return ""


def test_a_refused_connection_reads_as_a_json_rpc_error_naming_max_connections(served_with):
    import httpx

    server = served_with(LIMITED)
    with ExitStack() as stack:
        for _ in range(2):  # the limit's worth of connections, held open and idle
            stack.enter_context(socket.create_connection(("127.0.0.1", server.port)))
        refused = httpx.post(server.url, json={}, timeout=10)
        message = refused_by(refused, 503, "max_connections = 2")
        assert refused.headers["retry-after"] == "1"
        assert "MCPError(-32000, 'too many connections" in anyio.run(sdk_error, server.url)
        stack.close()
        assert "add" in server.names()  # the held connections went: served again
        assert "[mcp.serve] max_connections = 2 reached" in server.stderr
    assert "too many connections" in message


def test_a_body_over_the_limit_reads_as_a_json_rpc_error_naming_max_body_bytes(served_with):
    import httpx

    server = served_with(LIMITED)
    big = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"x": "y" * 3000}}
    headers = {"Accept": "application/json, text/event-stream"}
    refused = httpx.post(server.url, json=big, headers=headers, timeout=10)
    refused_by(refused, 413, "max_body_bytes = 2000")
    shown = anyio.run(lambda: sdk_error(server.url, a=1, b="2" * 3000))
    assert "MCPError(-32000, 'request body too large" in shown
    assert "add" in server.names()
    assert server.process.poll() is None


def test_a_session_over_the_limit_reads_as_a_json_rpc_error_naming_max_sessions(project):
    import httpx

    (project / "tooldeck.toml").write_text(
        LIMITED.replace("max_connections = 2", "max_connections = 64")
    )
    opening = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "probe", "version": "1"},
        },
    }
    headers = {"Accept": "application/json, text/event-stream"}

    async def scenario():
        async with Client(server.url, mode="legacy") as holder, httpx.AsyncClient() as http:
            refused = await http.post(server.url, json=opening, headers=headers, timeout=10)
            still = [t.name for t in (await holder.list_tools()).tools]
        return refused, still

    with served(project) as server:
        refused, still = anyio.run(scenario)
        refused_by(refused, 503, "max_sessions = 1")
        assert "add" in still
        assert "add" in server.names()
