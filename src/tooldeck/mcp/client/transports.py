"""The two ways to reach a configured server, as transports the SDK's ``Client`` enters.

Both add what the report needs: the read stream tells its connection when the server
went away (so a crash shows up without waiting for a call), and a stdio server's stderr
goes to a temporary file whose tail explains the crash (``stdio`` has the process side).
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, TextIO

from tooldeck.mcp.client.specs import ServerSpec
from tooldeck.mcp.client.stdio import StdioProcess, stdio_transport

if TYPE_CHECKING:
    import httpx2

    from tooldeck.mcp.sdk import TransportStreams

STDERR_TAIL = 2000
"""Characters of a failed stdio server's stderr quoted in its report row."""


class StderrLog:
    """A stdio server's stderr, kept in a temporary file (the child writes to its fd)."""

    def __init__(self) -> None:
        # A real file: the child process writes to its descriptor.
        self.file: TextIO = tempfile.TemporaryFile(  # noqa: SIM115 (closed by close())
            "w+", encoding="utf-8", errors="replace"
        )

    def tail(self) -> str:
        """The last lines the server wrote to stderr, or ``""``."""
        try:
            self.file.flush()
            size = self.file.seek(0, 2)
            self.file.seek(max(0, size - STDERR_TAIL * 4))
            text = self.file.read()
        except (OSError, ValueError):  # closed already
            return ""
        return text[-STDERR_TAIL:].strip()

    def close(self) -> None:
        self.file.close()


class _WatchedReadStream:
    """The SDK's read stream, calling ``on_end`` once when the server side ends."""

    def __init__(self, inner: Any, on_end: Callable[[], None]) -> None:
        self._inner = inner
        self._on_end = on_end

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def __aenter__(self) -> _WatchedReadStream:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc_info: Any) -> Any:
        return await self._inner.__aexit__(*exc_info)

    def __aiter__(self) -> _WatchedReadStream:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self._inner.__anext__()
        except StopAsyncIteration:
            self._on_end()
            raise

    async def receive(self) -> Any:
        import anyio

        try:
            return await self._inner.receive()
        except anyio.EndOfStream:
            self._on_end()
            raise


@asynccontextmanager
async def open_transport(
    spec: ServerSpec,
    stderr: StderrLog | None,
    on_end: Callable[[], None],
    on_start: Callable[[StdioProcess], None],
    on_session: Callable[[str], None],
    auth: httpx2.Auth | None = None,
    on_refused: Callable[[int, str], None] = lambda status, challenge: None,
) -> AsyncIterator[TransportStreams]:
    """The transport of ``spec``: stdio for a command, streamable HTTP for a url.

    ``on_end()``: the server side ended; ``on_start(process)``: a stdio child started;
    ``on_session(id)``: an HTTP server named its session (``Mcp-Session-Id``);
    ``auth``: authorizes every HTTP request (OAuth); ``on_refused(status, challenge)``:
    an HTTP server answered 401 or 403 (with its ``WWW-Authenticate``), which the SDK's
    transport reports only as a failed request.
    """
    if spec.config.command is not None:
        errlog = stderr.file if stderr is not None else sys.stderr
        streams = stdio_transport(spec, errlog, on_start)
    else:
        streams = _http(spec, on_session, auth, on_refused)
    async with streams as (read, write):
        yield _WatchedReadStream(read, on_end), write


@asynccontextmanager
async def _http(
    spec: ServerSpec,
    on_session: Callable[[str], None],
    auth: httpx2.Auth | None,
    on_refused: Callable[[int, str], None],
) -> AsyncIterator[TransportStreams]:
    import httpx2

    from tooldeck.mcp.sdk import streamable_http_client

    async def seen(response: httpx2.Response) -> None:
        # The SDK keeps the session id inside its transport; the header it reads it
        # from passes through our client first (MCP spec: ``Mcp-Session-Id``).
        session = response.headers.get("mcp-session-id")
        if session:
            on_session(session)
        if response.status_code in (401, 403):
            on_refused(response.status_code, response.headers.get("www-authenticate", ""))

    timeout = httpx2.Timeout(30.0, read=300.0)  # the SDK's defaults: a stream may stay open
    http = httpx2.AsyncClient(
        headers=dict(spec.config.headers),
        timeout=timeout,
        auth=auth,
        event_hooks={"response": [seen]},
    )
    async with http, streamable_http_client(spec.config.url or "", http_client=http) as streams:
        yield streams
