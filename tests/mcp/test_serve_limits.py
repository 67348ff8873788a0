"""``tooldeck mcp serve --http`` under abuse: slow clients, no descriptors, broken config files.

The server runs as a subprocess on 127.0.0.1 with its stderr in a file; every wait is
bounded, and the server must still answer the SDK's own ``Client`` afterwards.
"""

from __future__ import annotations

import os
import resource
import socket
import subprocess
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import anyio
import pytest

from mcp import Client
from tooldeck import grant_trust, trust_status

from .conftest import free_port, wait_for
from .test_serve import ADDER, TOOLDECK, _listening

CONFIG = '[plugins]\nonly = ["local:adder"]\n'


@pytest.fixture
def project(tooldeck_env):
    root = tooldeck_env / "project"
    (root / ".tooldeck" / "plugins").mkdir(parents=True)
    (root / ".tooldeck" / "plugins" / "adder.py").write_text(ADDER)
    (root / "tooldeck.toml").write_text(CONFIG)
    grant_trust(trust_status(root))
    return root


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
def test_a_client_trickling_its_request_is_dropped_and_others_are_served(project, start, trickle):
    (project / "tooldeck.toml").write_text(
        CONFIG + "[mcp.serve]\nheader_timeout_s = 0.5\nbody_timeout_s = 0.5\n"
    )
    with served(project) as server, socket.create_connection(("127.0.0.1", server.port)) as slow:
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
