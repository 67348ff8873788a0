"""The stdio transport: spawn a server, exchange newline-delimited JSON-RPC, stop it.

Written here rather than taken from the SDK for two reasons. The SDK's reader re-joins
its whole line buffer for every chunk it reads, so one 50 MB message takes minutes;
this reader is linear in the message size. And a message larger than
``MAX_MESSAGE_BYTES`` is skipped without being held in memory: the request it answered
fails with an error saying so, and the connection goes on.

The child gets the SDK's safe environment (``HOME``, ``PATH``, ...) plus the configured
``env``, runs in its own process group, and its stderr goes to the caller's log file.
Stopping follows the MCP shutdown sequence: close stdin, wait, then end the whole
process group, always: a server that exits on stdin close may leave helpers behind.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

import anyio

from tooldeck.mcp.client.reply_id import TAIL_BYTES, last_member_id, read_head

if TYPE_CHECKING:
    from anyio.abc import Process

    from tooldeck.mcp.client.specs import ServerSpec
    from tooldeck.mcp.sdk import SessionMessage

_T = TypeVar("_T")

MAX_MESSAGE_BYTES = 32 * 1024 * 1024
"""The largest message read from a server; a larger one fails the request it answers."""
EXIT_GRACE_S = 2.0
"""How long a server may take to exit after its stdin closes before it is terminated."""


class StdioProcess:
    """The running child, for reports: its pid and, once it ended, its exit status."""

    def __init__(self, process: Process) -> None:
        self._process = process

    @property
    def pid(self) -> int:
        return self._process.pid

    @property
    def returncode(self) -> int | None:
        return self._process.returncode


@asynccontextmanager
async def stdio_transport(
    spec: ServerSpec, errlog: TextIO, on_start: Callable[[StdioProcess], None]
) -> AsyncIterator[tuple[Any, Any]]:
    """Spawn ``spec``'s command; yield the SDK's (read stream, write stream) pair."""
    from tooldeck.mcp.sdk import get_default_environment

    env = get_default_environment() | dict(spec.config.env)
    command = resolved_command(spec.config.command or ("",), env)
    # Shielded: cancelled while asyncio still sets the process up (it forks first), it
    # would kill the server alone and leave what the server started; a cancellation
    # arrives just after, where the process is stopped like any other.
    with anyio.CancelScope(shield=True):
        process = await anyio.open_process(
            list(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errlog,
            env=env,
            cwd=spec.cwd,
            start_new_session=True,
        )
    on_start(StdioProcess(process))
    incoming, read_stream = anyio.create_memory_object_stream[Any](0)
    write_stream, outgoing = anyio.create_memory_object_stream[Any](0)
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(_read, process, incoming)
            group.start_soon(_write, process, outgoing)
            try:
                yield read_stream, write_stream
            finally:
                group.cancel_scope.cancel()
    finally:
        with anyio.CancelScope(shield=True):
            await _stop(process)
            for stream in (read_stream, write_stream, incoming, outgoing):
                await stream.aclose()


def resolved_command(command: Sequence[str], env: Mapping[str, str]) -> tuple[str, ...]:
    """``command`` with a bare program name found: on the server's ``PATH`` first, then
    next to the running interpreter, where a virtual environment that was never
    activated keeps its console scripts (``.venv/bin/python -m ...`` style). A name with
    a path separator, or one found nowhere, is left as written (the start then fails
    with "not found", naming it)."""
    program = command[0]
    if not program or os.sep in program:
        return tuple(command)
    found = shutil.which(program, path=env.get("PATH"))
    if found is None:
        beside = Path(sys.executable).parent / program
        found = str(beside) if os.access(beside, os.X_OK) and beside.is_file() else None
    return (found or program, *command[1:])


async def _read(process: Process, incoming: Any) -> None:
    """Split stdout into lines (linear time) and hand each parsed message on."""
    assert process.stdout is not None
    line = bytearray()
    skipping = False
    tail: bytearray | None = None  # the end of a skipped message whose id is still unknown
    async with incoming:
        try:
            async for chunk in process.stdout:
                start = 0
                while True:
                    end = chunk.find(b"\n", start)
                    if end < 0:
                        break
                    if not skipping:
                        line += chunk[start:end]
                        await incoming.send(_parse(bytes(line)))
                    elif tail is not None:
                        tail += chunk[start:end]
                        await incoming.send(_too_large_ended(bytes(tail[-TAIL_BYTES:])))
                    line.clear()
                    skipping, tail = False, None
                    start = end + 1
                if not skipping:
                    line += chunk[start:]
                    if len(line) > MAX_MESSAGE_BYTES:
                        routed = await _too_large(line, incoming)
                        tail = None if routed else bytearray(line[-TAIL_BYTES:])
                        line.clear()
                        skipping = True
                elif tail is not None:
                    tail += chunk[start:]
                    del tail[:-TAIL_BYTES]
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            return  # our own shutdown, or the session is gone


class NotJsonRpc(ValueError):
    """A line from the server that is not a JSON-RPC message (its start kept)."""

    def __init__(self, line: bytes, reason: str) -> None:
        super().__init__(reason)
        self.line = line[:200].decode("utf-8", "replace")


def _parse(line: bytes) -> SessionMessage | Exception:
    """One message; a reply that cannot be read fails the request it answers; anything
    else unreadable is the parse error as a value (the session logs and skips it)."""
    from tooldeck.mcp.sdk import SessionMessage, types

    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except (ValueError, RecursionError) as exc:
        reason = " ".join(str(exc).split())[:200] or type(exc).__name__
        failed = NotJsonRpc(line, reason)
        return _reply_failed(line, f"the server's reply could not be read: {reason}", failed)


_TOO_LARGE = (
    f"the server sent a message larger than {MAX_MESSAGE_BYTES // (1024 * 1024)} MiB; "
    "it was dropped"
)


async def _too_large(head: bytearray, incoming: Any) -> bool:
    """Fail the request a too-large message answers when its head names it (by the
    top-level ``id``); False when the id must come from the message's end."""
    failed = _reply_failed(bytes(head), _TOO_LARGE, None)
    if failed is None:
        return False
    await incoming.send(failed)
    return True


def _too_large_ended(tail: bytes) -> SessionMessage | Exception:
    """Fail the request a too-large message answers, named by an ``id`` that is the
    last member of the message; else the error is only logged."""
    request_id = last_member_id(tail)
    if request_id is None:
        return ValueError(_TOO_LARGE)
    return _error_reply(request_id, _TOO_LARGE)


def _reply_failed(data: bytes, message: str, otherwise: _T) -> SessionMessage | _T:
    """An error reply to the request ``data`` answers, or ``otherwise`` when ``data`` is
    not a reply (no top-level ``id`` in its head, or it is a request)."""
    head = read_head(data)
    if head.id is None or head.is_request:
        return otherwise
    return _error_reply(head.id, message)


def _error_reply(request_id: str | int, message: str) -> SessionMessage:
    from tooldeck.mcp.sdk import INTERNAL_ERROR, SessionMessage, types

    error = types.ErrorData(code=INTERNAL_ERROR, message=message)
    return SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error))


async def _write(process: Process, outgoing: Any) -> None:
    assert process.stdin is not None
    async with outgoing:
        try:
            async for message in outgoing:
                text = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                await process.stdin.send(text.encode("utf-8") + b"\n")
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            return


async def _stop(process: Process) -> None:
    """Close stdin, give the server ``EXIT_GRACE_S`` to exit, then end its process group."""
    if process.stdin is not None:
        with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await process.stdin.aclose()
    await _exited(process, EXIT_GRACE_S)
    await _end_group(process)
    await _exited(process, EXIT_GRACE_S)
    # Close the pipes here, on the loop: a process that left a helper holding its stdout
    # (one that escaped its group with ``setsid``) never sends EOF, so asyncio would
    # close that pipe only when it is collected, after the loop closed, printing
    # "Event loop is closed" at exit. ``aclose`` also reaps the exited child.
    with anyio.move_on_after(EXIT_GRACE_S), suppress(OSError, anyio.BrokenResourceError):
        await process.aclose()
    await anyio.lowlevel.checkpoint()  # the pipes' closing callbacks run now


async def _exited(process: Process, timeout: float) -> bool:
    """Poll the return code (``wait()`` would also wait for inherited pipes to close)."""
    with anyio.move_on_after(timeout):
        while process.returncode is None:
            await anyio.sleep(0.01)
    return process.returncode is not None


async def _end_group(process: Process) -> None:
    """End every process left in the server's group (its own session, so only its own
    processes): SIGTERM, then SIGKILL after ``EXIT_GRACE_S`` for any that stay."""
    if sys.platform == "win32":
        if process.returncode is None:
            process.kill()
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return  # the group is empty: nothing was left behind
    with anyio.move_on_after(EXIT_GRACE_S):
        while _group_alive(process.pid):
            await anyio.sleep(0.01)
    # Whatever is left (a helper ignoring SIGTERM, or a zombie no init reaps) is killed.
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True
