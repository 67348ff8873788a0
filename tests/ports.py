"""Free TCP ports on 127.0.0.1 that no two pytest-xdist workers of a run hand out.

A test finds a port by binding port 0 and closing the socket, then starts a server that
binds it a moment later. Within that moment another worker could be handed the same
port, start its own server there, and the first test's "is it listening?" would talk to
the wrong server. So the ports are shared out among the workers: a worker hands out only
the ports that hash onto it (crc32 rather than ``port % workers``: Linux hands out
``bind(("127.0.0.1", 0))`` ports of one parity first, so a plain modulus would starve a
worker), and never the same port twice in one process.
"""

from __future__ import annotations

import os
import socket
import zlib

__all__ = ["free_port"]

_handed_out: set[int] = set()
"""Ports this process gave a test already: the server on one may not be listening yet."""


def _worker() -> tuple[int, int]:
    """This process's (index, count) among the run's xdist workers; (0, 1) without xdist."""
    name = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if not name.startswith("gw") or count < 2:
        return 0, 1
    return int(name[2:]), count


def _owner(port: int, count: int) -> int:
    return zlib.crc32(port.to_bytes(2, "big")) % count


def free_port() -> int:
    """A port nothing listens on now, which no other worker of this run hands out and
    this process has not handed out before."""
    index, count = _worker()
    for _ in range(1000):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port: int = probe.getsockname()[1]
        if _owner(port, count) == index and port not in _handed_out:
            _handed_out.add(port)
            return port
    raise RuntimeError(f"no free port of worker {index} of {count} in 1000 tries")
