"""One stderr line for an MCP server start that keeps a command waiting.

A server mounted from its kept listing starts only when one of its tools is called, and
a real one takes seconds to start (one that hangs, its whole ``timeout_s``). A command
that falls silent that long looks stuck, so each start that is still running after
``SLOW_AFTER_S`` prints ``tooldeck: starting MCP server 'NAME'…`` on stderr, once; a
quicker one prints nothing, and stdout is never touched.

The starts are announced on the logger ``tooldeck.mcp.progress`` (``mcp/client/
connection.py``); ``watch_starts`` listens there for the length of a command.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Callable

PROGRESS_LOGGER = "tooldeck.mcp.progress"
SLOW_AFTER_S = 1.0
"""How long a start may take before the command says what it waits for."""


class SlowStarts(logging.Handler):
    """Prints a line for each start still running ``after`` seconds after it began."""

    def __init__(self, after: float = SLOW_AFTER_S) -> None:
        super().__init__(logging.INFO)
        self.after = after
        self._timers: dict[str, threading.Timer] = {}
        self._timers_lock = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        server = getattr(record, "mcp_server", None)
        phase = getattr(record, "mcp_phase", None)
        if not isinstance(server, str):
            return
        with self._timers_lock:
            previous = self._timers.pop(server, None)
            if previous is not None:
                previous.cancel()
            if phase == "starting":
                timer = threading.Timer(self.after, _say_starting, (server,))
                timer.daemon = True  # a line never keeps the process alive
                self._timers[server] = timer
                timer.start()

    def close(self) -> None:
        with self._timers_lock:
            timers, self._timers = list(self._timers.values()), {}
        for timer in timers:
            timer.cancel()
        super().close()


def _say_starting(server: str) -> None:
    print(f"tooldeck: starting MCP server {server!r}…", file=sys.stderr, flush=True)


def watch_starts(after: float = SLOW_AFTER_S) -> Callable[[], None]:
    """Listen for server starts until the returned function is called (idempotent)."""
    logger = logging.getLogger(PROGRESS_LOGGER)
    handler = SlowStarts(after)
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)  # the records exist only when someone listens

    def stop() -> None:
        if handler in logger.handlers:
            logger.removeHandler(handler)
            logger.setLevel(level)
        handler.close()

    return stop
