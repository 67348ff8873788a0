"""The stdio transport: spawn a server, exchange newline-delimited JSON-RPC, stop it.

Written here rather than taken from the SDK for two reasons. The SDK's reader re-joins
its whole line buffer for every chunk it reads, so one 50 MB message takes minutes;
this reader is linear in the message size. And a message larger than
``MAX_MESSAGE_BYTES`` is skipped without being held in memory: the request it answered
fails with an error saying so, and the connection goes on.

The child gets the SDK's safe environment (``HOME``, ``PATH``, ...) plus the configured
``env``, runs in its own process group, and its stderr goes to the caller's log file.
Stopping follows the MCP shutdown sequence: close stdin, wait, then terminate the
whole process group.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from typing import TYPE_CHECKING, Any, TextIO

import anyio

if TYPE_CHECKING:
    from anyio.abc import Process

    from tooldeck.mcp.sdk import SessionMessage
    from tooldeck.mcp.specs import ServerSpec

MAX_MESSAGE_BYTES = 32 * 1024 * 1024
"""The largest message read from a server; a larger one fails the request it answers."""
EXIT_GRACE_S = 2.0
"""How long a server may take to exit after its stdin closes before it is terminated."""

_ID = re.compile(rb'"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)')


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

    command = spec.config.command or ("",)
    process = await anyio.open_process(
        list(command),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=errlog,
        env=get_default_environment() | dict(spec.config.env),
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


async def _read(process: Process, incoming: Any) -> None:
    """Split stdout into lines (linear time) and hand each parsed message on."""
    assert process.stdout is not None
    line = bytearray()
    skipping = False
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
                    line.clear()
                    skipping = False
                    start = end + 1
                if not skipping:
                    line += chunk[start:]
                    if len(line) > MAX_MESSAGE_BYTES:
                        await _too_large(line, incoming)
                        line.clear()
                        skipping = True
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            return  # our own shutdown, or the session is gone


def _parse(line: bytes) -> SessionMessage | Exception:
    """One message, or the parse error as a value (the session logs and skips it)."""
    from tooldeck.mcp.sdk import SessionMessage, types

    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:
        return exc


async def _too_large(head: bytearray, incoming: Any) -> None:
    """Fail the request a too-large message answers (its id comes early in the JSON)."""
    import json

    from tooldeck.mcp.sdk import INTERNAL_ERROR, SessionMessage, types

    found = _ID.search(bytes(head[:512]))
    message = (
        f"the server sent a message larger than {MAX_MESSAGE_BYTES // (1024 * 1024)} "
        "MiB; it was dropped"
    )
    if found is None:
        await incoming.send(ValueError(message))
        return
    error = types.ErrorData(code=INTERNAL_ERROR, message=message)
    await incoming.send(
        SessionMessage(
            types.JSONRPCError(jsonrpc="2.0", id=json.loads(found.group(1)), error=error)
        )
    )


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
    if not await _exited(process, EXIT_GRACE_S):
        await _terminate(process)
        await _exited(process, EXIT_GRACE_S)
    if process.stdout is not None:
        with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            await process.stdout.aclose()


async def _exited(process: Process, timeout: float) -> bool:
    """Poll the return code (``wait()`` would also wait for inherited pipes to close)."""
    with anyio.move_on_after(timeout):
        while process.returncode is None:
            await anyio.sleep(0.01)
    return process.returncode is not None


async def _terminate(process: Process) -> None:
    terminate: Callable[[Process], Awaitable[None]]
    if sys.platform == "win32":
        process.kill()
        return
    from tooldeck.mcp.sdk import terminate_process_tree as terminate

    await terminate(process)
