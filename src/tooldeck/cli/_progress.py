"""One stderr line for an MCP server start that keeps a command waiting.

A server mounted from its kept listing starts only when one of its tools is called, and
a real one takes seconds to start (one that hangs, its whole ``timeout_s``). A command
that falls silent that long looks stuck, so each start that is still running after
``SLOW_AFTER_S`` prints ``tooldeck: starting MCP server 'NAME'…`` on stderr, once; a
quicker one prints nothing, and stdout is never touched. ``open_host`` gives
``slow_start_line`` to ``Host.open(on_mcp_start=...)``.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable

SLOW_AFTER_S = 1.0
"""How long a start may take before the command says what it waits for."""


def slow_start_line(server: str, after: float = SLOW_AFTER_S) -> Callable[[], None]:
    """Start the clock for ``server``'s line; the result stops it (the start ended)."""
    timer = threading.Timer(after, _say_starting, (server,))
    timer.daemon = True  # a pending line never keeps the process alive
    timer.start()
    return timer.cancel


_WRITING = threading.Lock()
"""Servers start together, each line from its own timer's thread: one line at a time
(``print`` writes the text and its newline apart, so two lines could merge)."""


def _say_starting(server: str) -> None:
    with _WRITING:
        sys.stderr.write(f"tooldeck: starting MCP server {server!r}…\n")
        sys.stderr.flush()
