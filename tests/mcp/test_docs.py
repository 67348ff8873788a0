"""Every fenced block of ``docs/mcp.md`` runs, against real servers and the real SDK.

The page's placeholders become real things here: ``/path/to/project`` a temporary
project with a README, ``/path/to/project/.venv/bin/tooldeck`` this environment's
``tooldeck`` console script, and port ``8765`` a free port. Otherwise each block runs as
written:

* the ``pip install`` line names an extra this distribution declares, with the SDK
  range the page states;
* every ``toml`` block loads as a project ``tooldeck.toml`` through the config loader
  (an unknown key or a wrong type fails), and the mounting ones mount a real server;
* the ``mcp serve`` synopsis is the command's own usage line;
* the ``python`` blocks run in this process: the stdio client starts its own server,
  the HTTP clients talk to the servers the ``bash`` blocks start (the token client with
  the right token, then a wrong one);
* the desktop client's ``json`` entry starts a server the way such a client does;
* the principals block is served, and its rules hold for a client with its token.

``tests/test_docs_meta.py`` keeps it that way for blocks added later.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import anyio
import httpx
import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

from mcp import Client, MCPError, StdioServerParameters
from tooldeck import Host, ToolCall, grant_trust, run_tool_call, trust_status
from tooldeck.host.config.config_files import load_config

from ..docs_blocks import page
from ..ports import free_port
from .conftest import SERVERS, wait_for

PAGE = page("mcp.md")
PIP = PAGE.take("bash", "pip install")
SERVERS_TOML = PAGE.take("toml", "[mcp.servers.calc]")
CALC_RULE = PAGE.take("toml", 'action = "calc_*"')
VENV_SERVER = PAGE.take("toml", '".venv/bin/python"')
PRINCIPALS = PAGE.take("toml", "[mcp.serve.principals.ci]")
SYNOPSIS = PAGE.take("bash", "tooldeck mcp serve [--location DIR]")
STDIO_CLIENT = PAGE.take("python", "StdioServerParameters")
HTTP_SERVE = PAGE.claim(
    next(
        b
        for b in PAGE.blocks
        if b.lang == "bash" and b.code.startswith("tooldeck mcp serve --location")
    )
)
HTTP_CLIENT = PAGE.take("python", 'Client("http://127.0.0.1:8765/mcp")')
TOKEN_SERVE = PAGE.take("bash", "TOOLDECK_MCP_TOKEN=")
TOKEN_CLIENT = PAGE.take("python", "httpx2.AsyncClient(headers=headers)")
DESKTOP = PAGE.take("json", '"mcpServers"')
CONFORMANCE = PAGE.take("bash", "tests/mcp/conformance/run.py")

CONSOLE_SCRIPT = Path(sys.executable).parent / "tooldeck"
BUILTINS = {"edit", "glob", "grep", "patch", "question", "read", "shell", "webfetch", "write"}
README = "# A served project\n"


def real(code: str, project: Path, port: int | None = None) -> str:
    """``code`` with the page's placeholders replaced by this test's real things."""
    code = code.replace("/path/to/project/.venv/bin/tooldeck", str(CONSOLE_SCRIPT))
    code = code.replace("/path/to/project", str(project))
    return code if port is None else code.replace("8765", str(port))


def run_python(code: str, name: str) -> None:
    exec(compile(code, name, "exec"), {"__name__": "__doc_example__"})


@pytest.fixture(scope="module", autouse=True)
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A temporary home, and no ``XDG_*`` or ``TOOLDECK_*`` variables: the servers the SDK
    starts get ``HOME`` and a few more variables, never ``XDG_*``, so this is how they
    (and this process) keep their config and data out of the real home."""
    home = tmp_path_factory.mktemp("home")
    with pytest.MonkeyPatch.context() as patch:
        for name in [n for n in os.environ if n.startswith(("TOOLDECK_", "XDG_"))]:
            patch.delenv(name)
        patch.setenv("HOME", str(home))
        yield home


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The served project: a README to read."""
    root = tmp_path_factory.mktemp("mcp-doc") / "project"
    root.mkdir()
    (root / "README.md").write_text(README)
    return root


# -- installing and configuring ---------------------------------------------------------------
def test_the_install_extra_brings_the_sdk_range_the_page_states():
    (extra,) = re.findall(r"^pip install 'tooldeck\[(\w+)\]'$", PIP.code, re.M)
    assert extra in (metadata.metadata("tooldeck").get_all("Provides-Extra") or [])
    (stated,) = re.findall(r"official SDK \(`mcp([<>=,.\d]+)`\)", PAGE.text)
    requirements = [Requirement(r) for r in metadata.requires("tooldeck") or ()]
    declared = [
        r.specifier
        for r in requirements
        if r.name == "mcp" and r.marker is not None and r.marker.evaluate({"extra": extra})
    ]
    assert declared == [SpecifierSet(stated)]
    assert metadata.version("mcp") in SpecifierSet(stated)


@pytest.mark.parametrize("block", [SERVERS_TOML, CALC_RULE, VENV_SERVER, PRINCIPALS], ids=str)
def test_each_toml_block_loads_as_a_project_file(block, tmp_path):
    (tmp_path / "tooldeck.toml").write_text(block.code)
    load_config(tmp_path)  # strict: an unknown key or a wrong type raises ConfigError


def test_the_server_entries_read_as_their_comments_say(tmp_path):
    (tmp_path / "tooldeck.toml").write_text(SERVERS_TOML.code)
    servers = load_config(tmp_path).mcp.servers
    calc, search = servers["calc"], servers["search"]
    assert calc.command == ("python", "-m", "calc_server")
    assert (calc.env, calc.cwd, calc.timeout_s, calc.enabled) == (
        {"CALC_API_KEY": "..."},
        "tools",
        10,
        True,
    )
    assert (search.url, search.headers) == (
        "https://search.example.com/mcp",
        {"Authorization": "Bearer ..."},
    )
    assert (search.enabled, search.codemode) == (False, False)


def test_the_servers_mount_and_the_rule_trusts_their_tools(tmp_path, monkeypatch):
    """The two blocks as one project file: ``calc`` really starts (``python -m
    calc_server`` in ``tools/``, with its ``env``), ``search`` stays off, and ``calc_*``
    lets calls through with no asker."""
    root = tmp_path / "mounting"
    (root / "tools").mkdir(parents=True)
    shutil.copy(SERVERS / "calc_server.py", root / "tools" / "calc_server.py")
    (root / "tooldeck.toml").write_text(SERVERS_TOML.code + "\n" + CALC_RULE.code)
    # `python` is this interpreter, as in an activated venv (the server imports the SDK)
    monkeypatch.setenv("PATH", f"{CONSOLE_SCRIPT.parent}{os.pathsep}{os.environ['PATH']}")
    with Host.open(root, trust=True) as host:
        rows = {p.name: p for p in host.plugins if p.layer == "mcp"}
        assert (rows["mcp:calc"].status, rows["mcp:search"].status) == ("active", "disabled")
        snapshot = host.snapshot()
        assert "calc_add" in {e.name for e in snapshot.codemode_catalog}  # codemode unset
        assert "calc_add" not in {d["name"] for d in snapshot.definitions_for("mcp")}

        async def call(name: str, arguments: dict[str, object]) -> object:
            call = ToolCall("c1", name, arguments)
            return await run_tool_call(snapshot, call, session_id="s", message_id="m")

        added = asyncio.run(call("calc_add", {"a": 2, "b": 3}))
        key = asyncio.run(call("calc_env", {"name": "CALC_API_KEY"}))
    assert (added.status, added.content[0].text) == ("completed", "5")
    assert (key.status, key.content[0].text) == ("completed", "...")


def test_a_venvs_interpreter_by_relative_path_mounts_from_anywhere(tmp_path, monkeypatch):
    """The venv block as written: the program and the script are both the Location
    root's, even when the host process runs in another directory."""
    root, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    (root / ".venv" / "bin").mkdir(parents=True)
    elsewhere.mkdir()
    python = root / ".venv" / "bin" / "python"  # stands for the project's venv: this one
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    shutil.copy(SERVERS / "calc_server.py", root / "my_server.py")
    (root / "tooldeck.toml").write_text(VENV_SERVER.code)
    monkeypatch.chdir(elsewhere)
    with Host.open(root, trust=True) as host:
        row = next(p for p in host.plugins if p.name == "mcp:mine")
        assert (row.status, row.reason) == ("active", None)
        assert "mine_add" in host.snapshot().catalog.tools


# -- serving ----------------------------------------------------------------------------------
def test_the_synopsis_is_the_commands_usage():
    done = subprocess.run(
        [str(CONSOLE_SCRIPT), "mcp", "serve", "--help"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    usage = " ".join(done.stdout.split("\n\n")[0].split())
    (synopsis,) = SYNOPSIS.code.splitlines()
    command, *options = re.split(r" (?=\[--)", synopsis)
    assert usage.startswith(f"usage: {command} [-h] ")
    for option in options:
        assert option in usage, option
    for flag in re.findall(r"--[\w-]+", usage):
        assert flag in PAGE.text, f"{flag} of `tooldeck mcp serve` is not on the page"


def listed(output: str) -> set[str]:
    """The tool names a block printed as a list on its first line."""
    return set(json.loads(output.splitlines()[0].replace("'", '"')))


def test_the_stdio_client_block_lists_and_reads(project, capsys):
    run_python(real(STDIO_CLIENT.code, project), str(STDIO_CLIENT))
    out = capsys.readouterr().out
    assert listed(out) >= BUILTINS
    assert out.splitlines()[1].startswith("False README.md")
    assert README.strip() in out


@pytest.fixture(scope="module")
def http_server(project: Path) -> Iterator[tuple[int, Path]]:
    """The ``bash`` block's server (its ``tooldeck`` the console script); yields its port
    and the file its stderr goes to."""
    port = free_port()
    argv = shlex.split(real(HTTP_SERVE.code, project, port))
    assert argv[0] == "tooldeck"
    log = project.parent / "http-server.stderr"
    with log.open("w") as stderr:
        process = subprocess.Popen([str(CONSOLE_SCRIPT), *argv[1:]], stderr=stderr)
    try:
        wait_for(lambda: listening(process, port), timeout=60)
        yield port, log
    finally:
        process.terminate()
        process.wait(timeout=10)


def listening(process: subprocess.Popen[bytes], port: int) -> bool:
    assert process.poll() is None, "the server exited"
    try:
        httpx.get(f"http://127.0.0.1:{port}/", timeout=5)
    except httpx.ConnectError:
        return False
    return True


def test_the_http_server_prints_its_url_and_the_loopback_warning(http_server):
    port, log = http_server
    lines = log.read_text().splitlines()
    assert f"tooldeck: serving MCP at http://127.0.0.1:{port}/mcp" in lines
    warnings = [line for line in lines if "warning" in line]
    assert len(warnings) == 1
    assert "TOOLDECK_MCP_TOKEN" in warnings[0]
    assert "any process on this machine" in warnings[0]


def test_the_http_client_block_lists_the_served_catalog(project, http_server, capsys):
    port, _ = http_server
    run_python(real(HTTP_CLIENT.code, project, port), str(HTTP_CLIENT))
    assert listed(capsys.readouterr().out) >= BUILTINS


@pytest.fixture(scope="module")
def token_server(project: Path) -> Iterator[tuple[int, str]]:
    """The token ``bash`` block's server; yields its port and the block's token."""
    port = free_port()
    assignment, *argv = shlex.split(real(TOKEN_SERVE.code, project, port))
    name, token = assignment.split("=", 1)
    assert name == "TOOLDECK_MCP_TOKEN" and argv[0] == "tooldeck"
    env = {**os.environ, name: token}
    process = subprocess.Popen([str(CONSOLE_SCRIPT), *argv[1:]], env=env, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: listening(process, port), timeout=60)
        yield port, token
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_the_token_client_block_lists_the_catalog(project, token_server, capsys, monkeypatch):
    port, token = token_server
    monkeypatch.setenv("TOOLDECK_MCP_TOKEN", token)
    run_python(real(TOKEN_CLIENT.code, project, port), str(TOKEN_CLIENT))
    assert listed(capsys.readouterr().out) >= BUILTINS


def test_the_token_client_block_reports_a_wrong_token(project, token_server, capsys, monkeypatch):
    port, _ = token_server
    monkeypatch.setenv("TOOLDECK_MCP_TOKEN", "not-the-token")
    run_python(real(TOKEN_CLIENT.code, project, port), str(TOKEN_CLIENT))
    assert capsys.readouterr().out == (
        "refused: missing or wrong bearer token (TOOLDECK_MCP_TOKEN)\n"
    )


def test_a_refused_token_leaves_the_client_as_an_exception_group(token_server):
    """As the page says: ``except MCPError`` around ``async with Client`` misses it."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    port, _ = token_server

    async def connect() -> None:
        headers = {"Authorization": "Bearer not-the-token"}
        url = f"http://127.0.0.1:{port}/mcp"
        async with (
            httpx2.AsyncClient(headers=headers) as http,
            Client(streamable_http_client(url, http_client=http)),
        ):
            pass

    with pytest.raises(ExceptionGroup) as raised:
        anyio.run(connect)
    assert raised.group_contains(MCPError, match="missing or wrong bearer token", depth=2)


def test_the_desktop_clients_entry_starts_a_server(project):
    entry = json.loads(real(DESKTOP.code, project))["mcpServers"]["tooldeck"]
    assert Path(entry["command"]).is_absolute()  # as the page asks: no venv, no cwd
    server = StdioServerParameters(command=entry["command"], args=entry["args"])

    async def names() -> set[str]:
        async with Client(server) as client:
            return {tool.name for tool in (await client.list_tools()).tools}

    assert anyio.run(names) >= BUILTINS


# -- principals -------------------------------------------------------------------------------
def test_the_principals_block_hides_and_refuses_what_it_denies(tmp_path):
    root = tmp_path / "principals"
    root.mkdir()
    (root / "tooldeck.toml").write_text(PRINCIPALS.code)
    grant_trust(trust_status(root))  # a project's principal counts once its folder is trusted
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    argv = [str(CONSOLE_SCRIPT), "mcp", "serve", "--location", str(root), "--http", str(port)]
    env = {**os.environ, "CI_MCP_TOKEN": "ci-secret"}
    process = subprocess.Popen(argv, env=env, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: listening(process, port), timeout=60)
        anonymous = httpx.post(url, json={}, timeout=10)
        names, shell, missing = anyio.run(seen_by_ci, url)
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert anonymous.status_code == 401  # a token is configured: every request needs one
    assert "shell" not in names
    assert BUILTINS - {"shell"} <= names
    assert (shell, missing) == ("Unknown tool: shell", "Unknown tool: no_such_tool")


async def seen_by_ci(url: str) -> tuple[set[str], str, str]:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": "Bearer ci-secret"}
    async with (
        httpx2.AsyncClient(headers=headers) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        names = {tool.name for tool in (await client.list_tools()).tools}
        shell = await unknown(client, "shell", {"command": "echo hi"})
        missing = await unknown(client, "no_such_tool", {})
    return names, shell, missing


async def unknown(client: Client, name: str, arguments: dict[str, str]) -> str:
    """The protocol error a call of a tool the client cannot see answers."""
    try:
        await client.call_tool(name, arguments)
    except MCPError as exc:
        return exc.message
    raise AssertionError(f"{name} was called")


def test_the_conformance_command_is_the_one_ci_runs():
    """The suite itself runs in CI (``.ci/run``, minutes with Node from npm): the page's
    command is that step's script, which exists and says what it does."""
    root = Path(__file__).resolve().parents[2]
    [command] = [line.partition("#")[0].split() for line in CONFORMANCE.code.splitlines()]
    assert command == ["python", "tests/mcp/conformance/run.py"]
    assert f".venv/bin/{' '.join(command)} || status=$?" in (root / ".ci" / "run").read_text()
    assert "--suite" in (root / command[1]).read_text()
