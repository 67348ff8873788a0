"""What the tests ask ``/proc`` about processes they started."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from pathlib import Path

__all__ = ["children_of", "hold_after_fork", "running"]


def children_of(pid: int) -> set[int]:
    """The processes whose parent is ``pid``."""
    found = set()
    for name in Path("/proc").iterdir():
        with contextlib.suppress(OSError, ValueError):
            fields = (name / "stat").read_bytes().rpartition(b")")[2].split()
            if int(fields[1]) == pid:
                found.add(int(name.name))
    return found


def running(pid: int) -> bool:
    """Whether ``pid`` runs: one that exited and waits to be reaped (a zombie) does not."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    return stat.rpartition(b")")[2].split()[0] != b"Z"


async def hold_after_fork(others: set[int], pidfile: Path) -> None:
    """Step the running event loop a callback round at a time until this process has a
    child not in ``others`` (asyncio forked a command), then hold the loop, without an
    await, until the command wrote the pid of a process it started to ``pidfile``. In
    between, asyncio's own setup of the forked process cannot finish: a cancellation
    from here lands inside it."""
    deadline = time.monotonic() + 30  # a bound on a start, generous for a loaded box
    while not children_of(os.getpid()) - others:
        assert time.monotonic() < deadline, "nothing was forked"
        await asyncio.sleep(0)
    while not (pidfile.exists() and pidfile.read_text().strip()):
        assert time.monotonic() < deadline, "the command never started its child"
        time.sleep(0.01)
