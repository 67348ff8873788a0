"""How talking to an MCP server failed, said in one line for its report row or a call.

Used by ``connection`` for every failure a server can cause: not found, not executable,
timed out, a protocol error, a malformed or refused result, a closed connection.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import anyio

from tooldeck.mcp.client.specs import ServerSpec


def closed_connection(exc: BaseException) -> bool:
    """Whether ``exc`` (possibly inside exception groups) is the SDK's closed connection."""
    from tooldeck.mcp.sdk import CONNECTION_CLOSED, MCPError

    exc = _leaf(exc)
    return isinstance(exc, MCPError) and exc.code == CONNECTION_CLOSED


def _not_found(program: str, spec: ServerSpec) -> str:
    """Where a program that did not start was looked for: a bare name on PATH and beside
    the interpreter (``stdio.resolved_command``), a relative path in the server's cwd."""
    if not spec.cwd.is_dir():
        return f"the server's cwd {str(spec.cwd)!r} is not a directory"
    if os.sep not in program:
        return f"command {program!r} not found on PATH or next to the running interpreter"
    if Path(program).is_absolute():
        return f"command {program!r} not found"
    return f"command {program!r} not found in {spec.cwd}, the server's cwd"


def describe(exc: BaseException, spec: ServerSpec) -> str:
    """One line saying how talking to ``spec``'s server failed."""
    from pydantic import ValidationError

    from tooldeck.mcp.sdk import MCPError, OAuthFlowError

    exc = _leaf(exc)
    command = spec.config.command
    if isinstance(exc, FileNotFoundError) and command is not None:
        return f"{_not_found(command[0], spec)} (configured command: {spec.origin})"
    if isinstance(exc, PermissionError) and command is not None:
        return f"command {command[0]!r} cannot be executed: {exc.strerror}"
    if isinstance(exc, TimeoutError):
        return f"timed out after {spec.config.timeout_s:g}s (timeout_s)"
    if isinstance(exc, MCPError):
        return f"protocol error: {exc.message} (code {exc.code})"
    if isinstance(exc, OAuthFlowError):
        return f"authorization failed: {first_line(str(exc))}"
    if isinstance(exc, ValidationError):
        return f"protocol error: malformed response ({first_line(str(exc))})"
    if isinstance(exc, OSError):
        return f"cannot start the server: {exc}"
    if isinstance(exc, RuntimeError):  # the SDK's checks of a result (output schema, ...)
        return f"the server's result was refused: {first_line(str(exc).split(chr(10))[0])}"
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def refusal(spec: ServerSpec, status: int, challenge: str) -> str:
    """Why a server without ``auth = "oauth"`` answered 401 or 403, and what to do."""
    said = f"HTTP {status}" + (f", {first_line(challenge)}" if challenge else "")
    if any(name.lower() == "authorization" for name in spec.config.headers):
        return f"the server refused the Authorization header configured in headers ({said})"
    return (
        f'the server requires authorization ({said}); set auth = "oauth" in '
        f"[mcp.servers.{spec.name}] and run `tooldeck mcp login {spec.name}`"
    )


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside (possibly nested) exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        inner: Sequence[BaseException] = exc.exceptions
        exc = next(
            (e for e in inner if not isinstance(e, anyio.get_cancelled_exc_class())), inner[0]
        )
    return exc


def first_line(text: str) -> str:
    """``text`` on one line, at most 200 characters."""
    return " ".join(text.split())[:200]
