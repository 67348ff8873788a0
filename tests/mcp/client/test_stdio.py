"""A stdio server's command: a bare program name is found on PATH, then beside the
running interpreter (an un-activated virtual environment's console scripts); closing
leaves nothing for the interpreter's exit."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import anyio

from tooldeck import Host
from tooldeck.host.config.config import McpServerConfig
from tooldeck.mcp.client.specs import ServerSpec
from tooldeck.mcp.client.stdio import resolved_command, stdio_transport

from ...processes import children_of, hold_after_fork, running

BESIDE = Path(sys.executable).parent


def test_a_program_on_path_wins(tmp_path):
    program = tmp_path / "tooldeck"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    assert resolved_command(("tooldeck", "-x"), {"PATH": str(tmp_path)}) == (str(program), "-x")


def test_a_program_missing_from_path_is_found_beside_the_interpreter(tmp_path):
    assert (BESIDE / "tooldeck").is_file()  # this environment's console script
    found = resolved_command(("tooldeck", "--version"), {"PATH": str(tmp_path)})
    assert found == (str(BESIDE / "tooldeck"), "--version")


def test_paths_and_unknown_programs_are_left_as_written(tmp_path):
    assert resolved_command(("./server", "a"), {"PATH": ""}) == ("./server", "a")
    unknown = ("no-such-program-anywhere",)
    assert resolved_command(unknown, {"PATH": str(tmp_path)}) == unknown


def test_a_server_named_by_its_console_script_mounts_without_an_activated_venv(
    tooldeck_env, tmp_path
):
    served, root = tmp_path / "served", tmp_path / "project"
    served.mkdir()
    root.mkdir()
    command = json.dumps(["tooldeck", "mcp", "serve", "--location", str(served)])
    (root / "tooldeck.toml").write_text(
        f"[mcp.servers.td]\ncommand = {command}\ncodemode = false\ntimeout_s = 60\n"
        '[mcp.servers.td.env]\nPATH = "/usr/bin:/bin"\n'
    )
    with Host.open(root, plugins=[], trust=True) as host:
        row = next(p for p in host.plugins if p.name == "mcp:td")
        assert (row.status, row.reason) == ("active", None)
        assert "td_read" in host.snapshot().catalog.tools


def _script_server(root: Path, command: list[str]) -> None:
    """A project whose server is a script next to its tooldeck.toml, named relatively."""
    server = Path(__file__).parent.parent / "servers" / "calc_server.py"
    (root / "calc_server.py").write_text(server.read_text())
    (root / "tooldeck.toml").write_text(
        f"[mcp.servers.calc]\ncommand = {json.dumps(command)}\ncodemode = false\n"
    )


def test_a_server_without_cwd_runs_in_the_location_root(tooldeck_env, tmp_path, monkeypatch):
    """``python server.py`` in a project's tooldeck.toml mounts whatever directory the
    host process runs in (``tooldeck --location``, a desktop client, an app serving
    several projects): the server's cwd is the Location root unless ``cwd`` says."""
    root, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    root.mkdir()
    elsewhere.mkdir()
    _script_server(root, [sys.executable, "calc_server.py"])
    monkeypatch.chdir(elsewhere)
    with Host.open(root, plugins=[], trust=True) as host:
        row = next(p for p in host.plugins if p.name == "mcp:calc")
        assert (row.status, row.reason) == ("active", None)
        assert "calc_add" in host.snapshot().names


def test_a_relative_program_path_is_the_servers_cwds(tooldeck_env, tmp_path, monkeypatch):
    """``.venv/bin/python`` (a project's own interpreter, which bare ``python`` on PATH is
    not) is found from the server's cwd, as its script argument is."""
    root, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    (root / ".venv" / "bin").mkdir(parents=True)
    elsewhere.mkdir()
    python = root / ".venv" / "bin" / "python"  # stands for a venv's: runs this one's
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    _script_server(root, [".venv/bin/python", "calc_server.py"])
    monkeypatch.chdir(elsewhere)
    with Host.open(root, plugins=[], trust=True) as host:
        row = next(p for p in host.plugins if p.name == "mcp:calc")
        assert (row.status, row.reason) == ("active", None)


def test_a_user_server_runs_in_the_user_config_folder_not_in_the_opened_folder(
    tooldeck_env, tmp_path
):
    """A repository opened with no config of its own counts as trusted, so what it holds
    must not reach the user's servers: ``python -m calc_server`` from the user config
    imports the user's module, never a ``calc_server.py`` the repository planted."""
    folder = tooldeck_env / "xdg-config" / "tooldeck"
    folder.mkdir(parents=True)
    server = Path(__file__).parent.parent / "servers" / "calc_server.py"
    (folder / "calc_server.py").write_text(server.read_text())
    command = json.dumps([sys.executable, "-m", "calc_server"])
    (folder / "config.toml").write_text(
        f"[mcp.servers.calc]\ncommand = {command}\ncodemode = false\n"
    )
    root, marker = tmp_path / "repository", tmp_path / "planted-ran"
    root.mkdir()
    (root / "calc_server.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    with Host.open(root, plugins=[]) as host:
        row = next(p for p in host.plugins if p.name == "mcp:calc")
        assert (row.status, row.reason) == ("active", None)
        assert "calc_add" in host.snapshot().names
    assert not marker.exists()


def test_a_missing_relative_program_is_reported_with_the_directory_it_was_looked_in(
    tooldeck_env, tmp_path
):
    root = tmp_path / "project"
    root.mkdir()
    _script_server(root, ["bin/nothing-here", "calc_server.py"])
    with Host.open(root, plugins=[], trust=True) as host:
        row = next(p for p in host.plugins if p.name == "mcp:calc")
    assert row.status == "failed"
    assert f"command 'bin/nothing-here' not found in {root}" in row.reason


CLOSE_AND_EXIT = """
import asyncio, sys
from tooldeck import Host, ToolCall, run_tool_call

host = Host.open(sys.argv[1], plugins=[], trust=True)
outcome = asyncio.run(run_tool_call(host.snapshot(), ToolCall("c", "calc_add", {"a": 1, "b": 2})))
host.close()
print(outcome.status)
"""


def test_close_leaves_nothing_for_exit_when_a_helper_holds_the_servers_stdout(
    tooldeck_env, tmp_path
):
    """A helper that escaped the server's group keeps its stdout open, so the pipe never
    ends; ``close`` still closes it on the loop: Python prints nothing at exit."""
    servers = Path(__file__).parents[1] / "servers"
    pidfile = tmp_path / "helper.pid"
    root = tmp_path / "project"
    root.mkdir()
    command = json.dumps([sys.executable, str(servers / "escaping_server.py"), str(pidfile)])
    (root / "tooldeck.toml").write_text(
        f"[mcp.servers.calc]\ncommand = {command}\ncodemode = false\n\n"
        '[[permission]]\naction = "calc_*"\neffect = "allow"\n'
    )
    try:
        done = subprocess.run(
            [sys.executable, "-W", "always", "-c", CLOSE_AND_EXIT, str(root)],
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        if pidfile.exists():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pidfile.read_text()), signal.SIGKILL)
    assert (done.returncode, done.stdout) == (0, "completed\n"), done.stderr
    assert "Event loop is closed" not in done.stderr
    assert "unclosed transport" not in done.stderr


def test_a_server_cancelled_while_its_process_is_being_set_up_leaves_nothing_running(tmp_path):
    """asyncio forks the command first, then finishes setting it up; cancelled in between,
    it would kill the server alone. What the server started must not outlive it."""
    child = tmp_path / "child"
    command = ["sh", "-c", f"sleep 30 & echo $! > {child}; wait"]
    spec = ServerSpec("s", "s", McpServerConfig.model_validate({"command": command}), tmp_path)

    async def connect(scope: anyio.CancelScope, errlog) -> None:
        with scope:
            async with stdio_transport(spec, errlog, lambda process: None):
                await anyio.sleep(60)

    async def scenario() -> None:
        others = children_of(os.getpid())
        scope = anyio.CancelScope()
        with open(tmp_path / "errlog", "w") as errlog:
            task = asyncio.create_task(connect(scope, errlog))
            await hold_after_fork(others, child)
            scope.cancel()
            await task

    asyncio.run(scenario())
    assert not running(int(child.read_text()))
