"""Real MCP servers (built with the SDK) as processes, and projects that mount them.

Each server process imports the SDK (about a second), so hosts are shared per module
where the tests only read, and every wait is bounded.
"""

from __future__ import annotations

import inspect
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ..ports import free_port
from ..warm import warm

SERVERS = Path(__file__).parent / "servers"


def server_command(script: str, *args: str, plain: bool = False) -> list[str]:
    """The argv of a fixture server under ``servers/`` run by this interpreter: started
    warm (``tests/warm``) unless ``plain``, for a test about the server's process."""
    argv = [sys.executable, str(SERVERS / script), *args]
    return argv if plain else warm(argv)


def toml_list(argv: list[str]) -> str:
    """A TOML array of strings (JSON string escapes are valid TOML basic strings)."""
    return "[" + ", ".join(json.dumps(a) for a in argv) + "]"


def stdio_server(name: str, script: str, *args: str, extra: str = "", plain: bool = False) -> str:
    """A ``[mcp.servers.NAME]`` table running a fixture server over stdio."""
    command = server_command(script, *args, plain=plain)
    return f"[mcp.servers.{name}]\ncommand = {toml_list(command)}\n{extra}\n"


def make_project(root: Path, config: str, plugins: dict[str, str] | None = None) -> Path:
    """A Location with ``tooldeck.toml`` and ``.tooldeck/plugins/<stem>.py`` files."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "tooldeck.toml").write_text(config)
    folder = root / ".tooldeck" / "plugins"
    folder.mkdir(parents=True, exist_ok=True)
    for stem, text in (plugins or {}).items():
        (folder / f"{stem}.py").write_text(text)
    return root


def trusted_project(root: Path, config: str) -> Path:
    """``make_project(root, config)``, the folder then trusted as its user would."""
    from tooldeck import grant_trust, trust_status

    make_project(root, config)
    grant_trust(trust_status(root))
    return root


def wait_for(predicate: Callable[[], object], timeout: float = 60.0) -> object:
    """Poll until ``predicate()`` is truthy; fail after ``timeout`` seconds (a bound on a
    wait that ends as soon as the condition holds: generous, since parallel workers on a
    loaded box start real servers slowly)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"condition not reached within {timeout}s")
        time.sleep(0.05)


def process_gone(pid: int) -> bool:
    """True when ``pid`` no longer runs (exited and reaped, or a zombie nobody waits for)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] == "Z"
    except OSError:
        return True


@pytest.fixture(scope="module")
def module_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """``tooldeck_env`` for a module: XDG dirs in a temp dir, no TOOLDECK_* variables but
    ``TOOLDECK_TRUST=1``."""
    base = tmp_path_factory.mktemp("env")
    with pytest.MonkeyPatch.context() as patch:
        for name in [n for n in os.environ if n.startswith("TOOLDECK_")]:
            patch.delenv(name)
        patch.setenv("XDG_CONFIG_HOME", str(base / "xdg-config"))
        patch.setenv("XDG_DATA_HOME", str(base / "xdg-data"))
        # The tests write these projects' servers and plugins themselves: trusted for the
        # process, as CI does (tests/host/plugins/test_trust.py covers untrusted ones).
        patch.setenv("TOOLDECK_TRUST", "1")
        yield base


@pytest.fixture(scope="module")
def http_calc() -> Iterator[str]:
    """The calc server over streamable HTTP on 127.0.0.1; yields its URL."""
    port = free_port()
    process = subprocess.Popen(
        server_command("calc_server.py", "--http", str(port)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:

        def listening() -> bool:
            assert process.poll() is None, "the HTTP server exited"
            with socket.socket() as sock:
                return sock.connect_ex(("127.0.0.1", port)) == 0

        wait_for(listening)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.fixture(autouse=True)
def loop_guard(request: pytest.FixtureRequest) -> None:
    """Async tests here fail when their event loop stalls (``tooldeck_loop_guard``)."""
    if inspect.iscoroutinefunction(request.function):
        request.getfixturevalue("tooldeck_loop_guard")
