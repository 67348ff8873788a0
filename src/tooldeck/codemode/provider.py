"""``CodeMode``: the provider ``ToolService``/``Snapshot`` call to build ``execute``.

One per Location (``Host.open`` makes it). Importing it is cheap: the stubs, the
runner and the sandbox load when a snapshot first needs ``execute``. It owns the
Location's warm sandbox pool: created on the first program, closed by
``Location.close()`` (``Host.close()``, the end of ``with Host.open(...)``) or at
interpreter exit, whichever comes first.
"""

from __future__ import annotations

import atexit
import os
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tooldeck._public import public
from tooldeck.codemode.availability import off_reason, sandbox_missing

if TYPE_CHECKING:
    from tooldeck._tool import AnyTool
    from tooldeck.codemode.sandbox import SandboxPool
    from tooldeck.host.execution.snapshot import Snapshot
    from tooldeck.host.location.location import Location
    from tooldeck.host.registry.editor import CatalogEntry

REQUEST_GRACE_S = 10.0
"""Seconds past ``timeout_s`` after which a worker stuck in one turn is killed."""


@public
class CodeMode:
    """The code-mode provider of one Location: availability, the ``execute`` tool, the pool."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pool: SandboxPool | None = None
        self._broken: str | None = None

    def available(self, location: Location) -> bool:
        """Code mode is on in config and the sandbox can run (cheap: no import)."""
        return (
            location.config.codemode.enabled and self._broken is None and sandbox_missing() is None
        )

    def unavailable_reason(self, location: Location) -> str | None:
        """One line saying why code mode is off here, or ``None`` when it is on."""
        return off_reason(location) or self._broken or _missing_reason()

    def build(self, snapshot: Snapshot, tools: Sequence[CatalogEntry]) -> AnyTool:
        """The ``execute`` tool for ``snapshot``; stubs are rendered on first use."""
        from tooldeck.codemode.execute_tool import execute_tool, limits_text
        from tooldeck.codemode.plan import ProgramPlan

        config = snapshot.location.config.codemode
        plan = ProgramPlan(
            tools,
            snapshot.catalog.namespaces,
            budget_tokens=config.budget_tokens,
            limits_text=limits_text(config.timeout_s, config.memory_mb, config.max_tool_calls),
        )
        return execute_tool(plan, snapshot, lambda: self._started(snapshot.location))

    async def _started(self, location: Location) -> SandboxPool:
        """The Location's sandbox pool, started on first use off the event loop: importing
        monty and spawning the first worker takes seconds on a busy machine."""
        import asyncio

        pool = self._sandbox(location)
        if pool.started:
            return pool
        try:
            try:
                starting = pool.slots.threads.submit(pool.start)
            except RuntimeError:  # closed with its Location: start says so at once
                pool.start()
            await asyncio.wrap_future(starting)
        except Exception as exc:
            self._broken = f"code mode is unavailable ({exc})"
            raise
        return pool

    def _sandbox(self, location: Location) -> SandboxPool:
        """The Location's sandbox pool (created on first use; ``_started`` starts it)."""
        with self._lock:
            if self._pool is None:
                from tooldeck.codemode.sandbox import SandboxPool

                timeout = location.config.codemode.timeout_s
                pool = SandboxPool(
                    request_timeout=timeout + REQUEST_GRACE_S,
                    max_processes=max(2, os.cpu_count() or 2),
                )
                self._pool = pool
                atexit.register(pool.close)
                location.on_close(lambda: _close(pool))
            return self._pool

    def close(self) -> None:
        """Stop the sandbox workers now (the Location's close does this too). Idempotent."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            _close(pool)


def _close(pool: SandboxPool) -> None:
    atexit.unregister(pool.close)
    pool.close()


def _missing_reason() -> str | None:
    missing = sandbox_missing()
    return f"code mode is unavailable: {missing}" if missing else None
