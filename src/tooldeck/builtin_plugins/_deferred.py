"""An executor whose implementation module is imported on the tool's first call.

Every ``Host.open`` loads every built-in, and most processes call few of them. So a
built-in's plugin module only declares its tool, and ``deferred`` stands in for the
executor until the first call imports ``tooldeck.builtin_plugins._run.<name>``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tooldeck._tool import ToolContext, ToolResult
    from tooldeck.host.location.location import Location

RunFn = Callable[[Any, "ToolContext"], Awaitable["ToolResult"]]


def deferred(name: str, location: Location) -> RunFn:
    """An async executor that runs ``_run.<name>.executor(location)``, built on first use.

    Two threads racing on the first call may each build the executor once; executors
    hold no state of their own beyond what they read from the Location, so either wins.
    """
    run: RunFn | None = None

    async def execute(data: Any, ctx: ToolContext) -> ToolResult:
        nonlocal run
        if run is None:
            run = import_module(f"tooldeck.builtin_plugins._run.{name}").executor(location)
        return await run(data, ctx)

    execute.__qualname__ = execute.__name__ = name
    return execute
