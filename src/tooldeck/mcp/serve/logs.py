"""Logs of ``tooldeck mcp serve``: the level each client asked for, and Python ``logging``
records of a served call forwarded to its client.

``logging/setLevel`` sets a client session's level (``info`` until it does); a call's
``ctx.log`` and the records its code emits reach the client at or above it.

A record does not say which call emitted it, so the served call marks its peer in its
task (``peer.current_peer``, a context variable: asyncio tasks and ``to_thread`` workers
inherit it) and the forwarding handler on the root logger reads it there. The server's own
machinery (the SDK, the web server, tooldeck's MCP layer) is never forwarded, and
nothing outside a served call is. ``forwarding()`` installs the handler for the
serve command, lowers the root logger to the lowest level a client asked for, and
keeps printing warnings to stderr as Python does while no handler is configured.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterator

from tooldeck._peer import LOG_LEVELS, PYTHON_LEVELS, LogLevel
from tooldeck.mcp.serve.peer import running_peer

DEFAULT: LogLevel = "info"
MACHINERY = ("mcp", "mcp_types", "uvicorn", "starlette", "httpx", "httpcore", "anyio")
"""Loggers of the server itself: what they say is not the tool's to tell its client."""


class LogLevels:
    """The level each client session set, by session key."""

    def __init__(self) -> None:
        self._levels: dict[str | None, LogLevel] = {}
        self.handler: ForwardingHandler | None = None
        """The forwarding handler while ``forwarding`` is on: told of every level set."""

    def set(self, key: str | None, level: LogLevel) -> None:
        self._levels[key] = level
        if self.handler is not None:
            self.handler.lower_to(level)

    def of(self, key: str | None) -> LogLevel:
        return self._levels.get(key, DEFAULT)

    def forget(self, key: str) -> None:
        self._levels.pop(key, None)


class ForwardingHandler(logging.Handler):
    """Sends a record emitted inside a served call to that call's client."""

    def emit(self, record: logging.LogRecord) -> None:
        peer = running_peer()
        if peer is None or record.name.split(".")[0] in MACHINERY:
            return
        if record.name.startswith("tooldeck.mcp"):
            return
        try:
            message = self.format(record)
        except Exception:  # a record that does not format is not worth failing a call
            return
        peer.log(_mcp_level(record.levelno), message, logger=record.name)

    def lower_to(self, level: LogLevel) -> None:
        """Let records at ``level`` be created (the root logger filters before handlers)."""
        root = logging.getLogger()
        wanted = PYTHON_LEVELS[level]
        if root.level > wanted:
            root.setLevel(wanted)


def _mcp_level(levelno: int) -> LogLevel:
    found: LogLevel = "debug"
    for level in LOG_LEVELS:
        if PYTHON_LEVELS[level] <= levelno:
            found = level
        else:
            break
    return "critical" if found in ("alert", "emergency") else found


@contextlib.contextmanager
def forwarding(levels: LogLevels) -> Iterator[ForwardingHandler]:
    """Forward served calls' records while serving; the root logger as it was after."""
    root = logging.getLogger()
    before, handlers = root.level, list(root.handlers)
    handler = ForwardingHandler()
    added: list[logging.Handler] = [handler]
    if not handlers:  # Python's last resort prints warnings; a handler of ours ends that
        stderr = logging.StreamHandler(sys.stderr)
        stderr.setLevel(logging.WARNING)
        added.append(stderr)
    for each in added:
        root.addHandler(each)
    handler.lower_to(DEFAULT)
    levels.handler = handler
    try:
        yield handler
    finally:
        levels.handler = None
        for each in added:
            root.removeHandler(each)
        root.setLevel(before)
