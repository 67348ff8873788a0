"""One shell command in its own process group, its output going straight to a file.

Why a process group: a command is a tree (``make`` and its compilers, ``a & b``), and
killing only the shell would orphan the rest. ``start_new_session=True`` makes the shell
the leader of a new session and group whose id is its pid, so ``killpg`` reaches
everything it started that stayed in the group.

Why a marker: ``setsid``, ``nohup ... &`` under some shells and daemons leave the group.
Every process of a run inherits ``TOOLDECK_SHELL_RUN=<random token>`` in its
environment, and ``/proc/<pid>/environ`` still shows it after the process left the
group or was re-parented, so those are found too. Best effort: a process that replaces
its own environment (``env -i``) escapes, and without ``/proc`` only the group is seen.

Why a file: stdout and stderr share one descriptor, so the output keeps the order the
command wrote it in; its size is unbounded while memory stays flat; nothing can block on
a full pipe; and the model only ever reads a tail of it (``read_tail``), with the file as
the place to find the rest.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:
    from asyncio.subprocess import Process

_KILL_SETTLE_SECONDS = 2.0  # SIGKILL cannot be ignored; this only bounds a stuck D state
KILL_GRACE_SECONDS = 2.0
"""How long a timed-out or cancelled command has between SIGTERM and SIGKILL."""

MARKER = "TOOLDECK_SHELL_RUN"
"""The environment variable that marks every process one run started."""

_POLL_SECONDS = 0.02
_CHUNK = 1 << 20


LATE_SECONDS = 0.5
"""How far past its limit a timed-out run must end before its message says when it did."""


@dataclass(frozen=True, slots=True)
class Finished:
    """How the command ended: ``returncode`` as asyncio reports it (``-N``: signal N);
    ``seconds`` from its start until the last of its processes was gone; ``forced`` when
    something outlived SIGTERM's grace and had to be killed."""

    returncode: int | None
    timed_out: bool
    seconds: float = 0.0
    forced: bool = False

    def overrun(self, limit_s: float) -> str:
        """``""`` when a timed-out run ended at its ``limit_s``; else when it did, and
        why, for its message: the limit alone would understate how long it ran."""
        if self.seconds - limit_s < LATE_SECONDS:
            return ""
        why = ": it ignored SIGTERM until it was killed" if self.forced else ""
        return f" (it ended {self.seconds:.1f} s after it started{why})"


@dataclass(frozen=True, slots=True)
class Run:
    """What identifies the processes of one run: its group and its environment marker."""

    pgid: int
    marker: bytes
    signalled: set[int] = field(default_factory=set)
    """The marked processes signalled so far, watched by pid: an exiting process
    releases its environment (so it no longer reads as marked) before it stops
    running."""

    def alive(self) -> bool:
        return (
            group_alive(self.pgid)
            or bool(marked(self.marker))
            or any(_running(pid) for pid in self.signalled)
        )

    def signal(self, signum: signal.Signals) -> None:
        _signal_group(self.pgid, signum)
        for pid in marked(self.marker):
            self.signalled.add(pid)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signum)


async def run_in_group(
    argv: Sequence[str],
    *,
    cwd: Path,
    output: int,
    timeout: float,
    grace: float = KILL_GRACE_SECONDS,
    keep_background: bool = False,
) -> Finished:
    """Run ``argv`` with stdout and stderr on the descriptor ``output``, stdin empty.

    On timeout everything the run started is killed and ``timed_out`` is set. On
    cancellation it is killed *before* ``CancelledError`` propagates, so nothing outlives
    the call. When the command exits on its own, what it left running in the background
    is stopped too, unless ``keep_background``. ``OSError`` means it could not start.
    """
    token = secrets.token_hex(8)
    marker = f"{MARKER}={token}".encode()
    started = time.monotonic()
    creating = asyncio.ensure_future(
        asyncio.create_subprocess_exec(
            *argv,
            cwd=cwd,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=output,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,
            env={**os.environ, MARKER: token},
        )
    )
    try:
        process = await asyncio.shield(creating)
    except asyncio.CancelledError:
        await _stop_created(creating, marker, grace)
        raise
    run = Run(process.pid, marker)
    try:
        await asyncio.wait_for(process.wait(), timeout)
    except TimeoutError:
        forced = await stop(run, grace)
        await process.wait()
        return Finished(process.returncode, True, time.monotonic() - started, forced)
    except asyncio.CancelledError:
        await stop(run, grace)
        await process.wait()
        raise
    forced = False
    if not keep_background and run.alive():
        forced = await stop(run, grace)
    return Finished(process.returncode, False, time.monotonic() - started, forced)


async def _stop_created(creating: asyncio.Future[Process], marker: bytes, grace: float) -> None:
    """A call cancelled while asyncio was still setting up its process: the command runs
    already (it was forked first) and may have started others. Cancelled there, asyncio
    would kill the command alone and leave those running, so the setup is shielded and
    finished here, and the whole run stopped as any cancelled run is. The setup stays
    shielded from a further cancellation too (it takes a few loop rounds); ``stop``
    ends the run whatever comes after."""
    while True:
        try:
            process = await asyncio.shield(creating)
            break
        except asyncio.CancelledError:
            if creating.cancelled():
                return  # cancelled before it forked: nothing runs
        except OSError:
            return  # it never started
    await stop(Run(process.pid, marker), grace)
    await process.wait()


async def stop(run: Run, grace: float) -> bool:
    """SIGTERM the run, give it ``grace`` seconds to exit, then SIGKILL what is left;
    ``True`` when that SIGKILL was needed.

    The SIGKILL is in a ``finally``: a second cancellation during the grace period must
    not leave anything running. A killed process dies asynchronously, so the run waits
    (briefly) until no member is left: when ``stop`` returns, the group is gone.
    """
    run.signal(signal.SIGTERM)
    gone = False
    try:
        gone = await _until_gone(run, grace)
    finally:
        if not gone:
            run.signal(signal.SIGKILL)
            await _until_gone(run, _KILL_SETTLE_SECONDS)
    return not gone


def _signal_group(pgid: int, signum: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


async def _until_gone(run: Run, grace: float) -> bool:
    deadline = time.monotonic() + grace
    while run.alive():
        if time.monotonic() >= deadline:
            return False
        await asyncio.sleep(_POLL_SECONDS)
    return True


def group_alive(pgid: int) -> bool:
    """Whether any process of the group is still running (zombies do not count)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # a member that changed user is alive all the same
    return _live_member(pgid)


def _live_member(pgid: int) -> bool:
    """``killpg(pgid, 0)`` also succeeds for zombies, which pile up where nothing reaps
    orphans (a container whose init does not). ``/proc`` tells them apart; without it,
    assume alive."""
    try:
        names = os.listdir("/proc")
    except OSError:
        return True
    return any(name.isdigit() and _running_in(name, pgid) for name in names)


def _running(pid: int) -> bool:
    """Whether ``pid`` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            stat = file.read()
    except OSError:
        return False
    return stat.rpartition(b")")[2].split()[0] != b"Z"


def _running_in(pid: str, pgid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            stat = file.read()
    except OSError:
        return False  # exited while we looked
    # "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
    fields = stat.rpartition(b")")[2].split()
    return len(fields) > 2 and int(fields[2]) == pgid and fields[0] != b"Z"


def marked(marker: bytes) -> list[int]:
    """The running processes (ours to read) whose environment holds ``marker``.

    A zombie's environment reads as empty, so only live processes are found.
    """
    if not marker:
        return []
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    me = os.getpid()
    return [
        int(name)
        for name in names
        if name.isdigit() and int(name) != me and _has_marker(name, marker)
    ]


def _has_marker(pid: str, marker: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as file:
            return marker in file.read().split(b"\0")
    except OSError:
        return False  # exited, or another user's


# -- the backing file -------------------------------------------------------------------------
def open_new(directory: Path, stem: str) -> tuple[Path, int]:
    """Create ``<directory>/<stem>.log`` exclusively (``_2``, ``_3``... when taken)."""
    directory.mkdir(parents=True, exist_ok=True)
    for attempt in range(1, 1000):
        path = directory / (f"{stem}.log" if attempt == 1 else f"{stem}_{attempt}.log")
        try:
            return path, os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
    raise FileExistsError(f"no free output file name for {stem} in {directory}")


@dataclass(frozen=True, slots=True)
class Tail:
    """The end of an output file, and how much of it was left out before that."""

    text: str
    cut: bool
    omitted_lines: int
    omitted_bytes: int


def read_tail(path: Path, max_lines: int, max_bytes: int) -> Tail:
    """The last whole lines of ``path`` within both limits (the whole file if it fits).

    Reads at most ``max_bytes`` of it (plus one pass counting newlines), however large
    the file. Only when the last line alone is over ``max_bytes`` is a line cut.
    """
    with open(path, "rb") as file:
        size = os.fstat(file.fileno()).st_size
        lines = _count_lines(file)
        if lines <= max_lines and size <= max_bytes:
            file.seek(0)
            return Tail(_decode(file.read()), False, 0, 0)
        start = max(0, size - max_bytes)
        file.seek(start)
        data = _last_lines(file.read(max_bytes), max_lines, partial=start > 0)
    shown = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    return Tail(_decode(data), True, max(lines - shown, 0), max(size - len(data), 0))


def _count_lines(file: BinaryIO) -> int:
    """Lines as an editor counts them: a final newline does not start another line."""
    newlines, last = 0, b""
    while chunk := file.read(_CHUNK):
        newlines += chunk.count(b"\n")
        last = chunk[-1:]
    return newlines + (1 if last and last != b"\n" else 0)


def _last_lines(data: bytes, max_lines: int, *, partial: bool) -> bytes:
    if partial:  # the window starts inside a line: drop that fragment if there is more
        newline = data.find(b"\n")
        if 0 <= newline < len(data) - 1:
            data = data[newline + 1 :]
        else:  # one line longer than the window: start at a UTF-8 character boundary
            data = data.lstrip(bytes(range(0x80, 0xC0)))
    end = len(data) - 1 if data.endswith(b"\n") else len(data)
    for _ in range(max_lines):
        end = data.rfind(b"\n", 0, end)
        if end < 0:
            return data
    return data[end + 1 :]


def _decode(data: bytes) -> str:
    return data.decode("utf-8", "replace")
