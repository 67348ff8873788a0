"""``tooldeck mcp serve --http``: the bearer token on every request, and the start lines.

The token matrix: loopback or a non-loopback address, ``TOOLDECK_MCP_TOKEN`` set or
unset, a right, wrong, missing or lowercase-scheme ``Authorization`` header, each
spoken by the SDK's own client over real HTTP. The served project is an untrusted
clone, so the same servers show that serving it serves its untrusted view.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import anyio
import httpx
import pytest

from mcp import Client

from ...ports import free_port
from ..conftest import wait_for
from .test_serve import TOOLDECK, http_command

TOKEN = "s3cret-token"

PLUGIN = """
from tooldeck import hookimpl, tool

@tool
def add(a: int, b: int) -> int:
    "Add two integers."
    return a + b

@hookimpl
def tool_transform(editor):
    editor.add(add.replace(codemode=False))
"""


def remote_address() -> str:
    """An address the server treats as non-loopback (only 127.0.0.1, localhost and ::1
    count as loopback) while the traffic stays on this machine's loopback range."""
    return "127.0.0.2"


class Served(NamedTuple):
    url: str
    process: subprocess.Popen[bytes]
    stderr: Path


def start(root: Path, host: str, *extra: str, token: str | None) -> Served:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLDECK_")}
    if token is not None:
        env["TOOLDECK_MCP_TOKEN"] = token
    stderr = root.parent / f"stderr-{host}-{port}.txt"
    with open(stderr, "wb") as sink:
        process = subprocess.Popen(
            http_command(root, f"{host}:{port}", *extra),
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=sink,
        )
    return Served(f"http://{host}:{port}/mcp", process, stderr)


def listening(served: Served) -> bool:
    assert served.process.poll() is None, served.stderr.read_text()
    host, port = served.url.split("//")[1].split("/")[0].rsplit(":", 1)
    with socket.socket() as sock:
        return sock.connect_ex((host, int(port))) == 0


@pytest.fixture(scope="module")
def servers(module_env: Path) -> Iterator[dict[str, Served]]:
    root = module_env / "clone"
    (root / ".tooldeck" / "plugins").mkdir(parents=True)
    (root / ".tooldeck" / "plugins" / "add.py").write_text(PLUGIN)
    remote = remote_address()
    started = {
        "loopback-set": start(root, "127.0.0.1", token=TOKEN),
        "loopback-unset": start(root, "127.0.0.1", token=None),
        "remote-set": start(root, remote, "--allow-remote", token=TOKEN),
    }
    try:
        for served in started.values():
            wait_for(lambda served=served: listening(served), timeout=60)
        yield started
    finally:
        for served in started.values():
            served.process.terminate()
            served.process.wait(timeout=10)


HEADERS = {
    "right": {"Authorization": f"Bearer {TOKEN}"},
    "lowercase": {"Authorization": f"bearer {TOKEN}"},
    "wrong": {"Authorization": "Bearer not-the-token"},
    "missing": {},
}


async def sdk_list(url: str, headers: dict[str, str]) -> list[str] | str:
    """The tool names the SDK client lists, or ``refused (STATUS)`` when it cannot."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    async with httpx2.AsyncClient(headers=headers) as http:
        try:
            async with Client(streamable_http_client(url, http_client=http)) as client:
                return sorted(t.name for t in (await client.list_tools()).tools)
        except Exception:  # the SDK's MCPError, raised out of its task group
            return f"refused ({(await http.post(url, json={})).status_code})"


@pytest.mark.parametrize("server", ["loopback-set", "remote-set"])
@pytest.mark.parametrize(
    ("header", "allowed"),
    [("right", True), ("lowercase", True), ("wrong", False), ("missing", False)],
)
def test_a_set_token_is_required_on_every_request(servers, server, header, allowed):
    listed = anyio.run(sdk_list, servers[server].url, HEADERS[header])
    if allowed:
        assert isinstance(listed, list) and "read" in listed
    else:
        assert listed == "refused (401)"


@pytest.mark.parametrize("header", sorted(HEADERS))
def test_loopback_without_a_token_serves_anyone_and_says_so(servers, header):
    listed = anyio.run(sdk_list, servers["loopback-unset"].url, HEADERS[header])
    assert isinstance(listed, list) and "read" in listed


def test_a_refused_request_names_the_variable(servers):
    answer = httpx.post(servers["loopback-set"].url, json={}, headers=HEADERS["wrong"])
    assert (answer.status_code, answer.headers["www-authenticate"]) == (401, "Bearer")
    assert answer.json() == {  # a JSON-RPC error, as every refusal of mcp serve
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32001, "message": "missing or wrong bearer token (TOOLDECK_MCP_TOKEN)"},
    }


def test_the_sdk_client_reads_why_it_was_refused(servers):
    async def refusal() -> str:
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        async with httpx2.AsyncClient(headers=HEADERS["wrong"]) as http:
            try:
                async with Client(
                    streamable_http_client(servers["loopback-set"].url, http_client=http)
                ) as client:
                    await client.list_tools()
            except Exception as exc:  # the SDK's MCPError, inside its task groups
                return repr(exc)
        return "listed"

    shown = anyio.run(refusal)
    assert "MCPError(-32001, 'missing or wrong bearer token (TOOLDECK_MCP_TOKEN)'" in shown


def test_remote_without_a_token_does_not_start(module_env):
    done = subprocess.run(
        [
            *TOOLDECK,
            "mcp",
            "serve",
            "--location",
            str(module_env),
            "--http",
            f"{remote_address()}:{free_port()}",
            "--allow-remote",
        ],
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("TOOLDECK_")},
        timeout=60,
    )
    assert done.returncode == 2
    assert "--allow-remote needs a bearer token in TOOLDECK_MCP_TOKEN" in done.stderr


def test_start_lines_name_the_url_the_warning_and_the_untrusted_view(servers):
    for name, served in servers.items():
        lines = served.stderr.read_text().splitlines()
        assert lines[0] == f"tooldeck: serving MCP at {served.url}", name
        warnings = [line for line in lines if line.startswith("tooldeck: warning: no TOOLDECK")]
        assert len(warnings) == (name == "loopback-unset"), name
        assert any(line.startswith("tooldeck: this folder is not trusted;") for line in lines)
    listed = anyio.run(sdk_list, servers["loopback-unset"].url, {})
    assert "add" not in listed  # the clone's plugin: untrusted, never imported


def test_trusting_a_served_folder_reopens_it(tooldeck_env):
    from mcp import StdioServerParameters
    from tooldeck import grant_trust, trust_status

    root = tooldeck_env / "served"
    (root / ".tooldeck" / "plugins").mkdir(parents=True)
    (root / ".tooldeck" / "plugins" / "add.py").write_text(PLUGIN)
    env = {k: v for k, v in os.environ.items() if k.startswith("XDG_")}
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    params = StdioServerParameters(
        command=TOOLDECK[0],
        args=[*TOOLDECK[1:], "mcp", "serve", "--location", str(root)],
        env=env,
    )

    async def scenario():
        async with Client(params) as client:
            before = [t.name for t in (await client.list_tools()).tools]
            grant_trust(trust_status(root))
            with anyio.fail_after(15):
                while True:
                    await anyio.sleep(0.2)
                    listed = await client.list_tools(cache_mode="refresh")
                    after = [t.name for t in listed.tools]
                    if "add" in after:
                        return before, after

    before, after = anyio.run(scenario)
    assert "add" not in before and "read" in before
    assert "add" in after
