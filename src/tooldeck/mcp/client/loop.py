"""The Location's background event loop: where every MCP connection lives.

The SDK's sessions are anyio task groups and cancel scopes that must be entered and
exited in one task, and they must outlive any one caller: a sync host calls through
``execute_sync`` (a private loop per call), an async host from its own loop, the CLI
from ``asyncio.run``. So every connection runs on one daemon thread per Location that
runs an anyio ``BlockingPortal``; callers hand it coroutine functions and wait in their
own way (blocking, or awaiting from another loop, where cancelling the waiter cancels
the work).

A daemon thread, not ``anyio.from_thread.start_blocking_portal``'s executor thread: an
embedder that forgets ``Host.close()`` must not hang at interpreter exit, and a stdio
server whose parent is gone sees its stdin close and exits.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Callable, Coroutine
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, TypeVar

from tooldeck.errors import ExternalError, UsageError

if TYPE_CHECKING:
    from anyio.abc import TaskGroup
    from anyio.from_thread import BlockingPortal

    from tooldeck.host.location.location import Location

T = TypeVar("T")

_LOOPS: dict[int, LoopThread] = {}
_LOOPS_LOCK = threading.Lock()


def location_loop(location: Location) -> LoopThread:
    """The background loop of ``location``, started on first use and ended by its close."""
    with _LOOPS_LOCK:
        loop = _LOOPS.get(id(location))
        if loop is not None and not loop.closed:
            return loop
        loop = LoopThread(f"tooldeck-mcp {location.root.name}")
        _LOOPS[id(location)] = loop

    def close() -> None:
        with _LOOPS_LOCK:
            if _LOOPS.get(id(location)) is loop:
                del _LOOPS[id(location)]
        loop.close()

    location.on_close(close)
    return loop


class LoopThread:
    """One daemon thread running an anyio portal; work is submitted from other threads."""

    def __init__(self, name: str) -> None:
        self._ready = threading.Event()
        self._portal: BlockingPortal | None = None
        self._group: TaskGroup | None = None
        self._ident: int | None = None
        self._failure: BaseException | None = None
        self._closed = False
        self._thread = threading.Thread(target=self._main, name=name, daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._failure is not None:
            raise ExternalError(f"cannot start the MCP event loop: {self._failure}")

    def _main(self) -> None:
        import anyio

        try:
            anyio.run(self._serve)
        except BaseException as exc:  # reported to the thread waiting in __init__
            self._failure = exc
            self._ready.set()

    async def _serve(self) -> None:
        import anyio
        from anyio.from_thread import BlockingPortal

        async with anyio.create_task_group() as group, BlockingPortal() as portal:
            self._group = group
            self._portal = portal
            self._ident = threading.get_ident()
            self._ready.set()
            await portal.sleep_until_stopped()
            group.cancel_scope.cancel()  # long-lived tasks still running end here

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def in_loop(self) -> bool:
        """True in the loop's own thread (where blocking on it would deadlock)."""
        return threading.get_ident() == self._ident

    def submit(self, fn: Callable[..., Awaitable[T]], *args: Any) -> Future[T]:
        """Start ``fn(*args)`` on the loop; cancelling the future cancels the task."""
        if self._closed or self._portal is None:
            raise UsageError("the MCP event loop of this Location is closed")
        return self._portal.start_task_soon(fn, *args)

    def spawn(self, fn: Callable[..., Coroutine[Any, Any, Any]], *args: Any) -> None:
        """Start a long-lived task (a connection's owner) from the loop's own thread."""
        if self._group is None or not self.in_loop:
            raise UsageError("LoopThread.spawn must be called on the loop")
        self._group.start_soon(fn, *args)

    def call(self, fn: Callable[..., Awaitable[T]], *args: Any) -> T:
        """Run ``fn(*args)`` on the loop and block until it returns (not from the loop)."""
        if self.in_loop:
            raise UsageError("LoopThread.call from the loop's own thread would deadlock")
        return self.submit(fn, *args).result()

    async def run(self, fn: Callable[..., Awaitable[T]], *args: Any) -> T:
        """Await ``fn(*args)`` from another asyncio loop; cancelling the caller cancels it."""
        if self.in_loop:
            return await fn(*args)
        return await asyncio.wrap_future(self.submit(fn, *args))

    def close(self) -> None:
        """Cancel what still runs, stop the loop and join its thread. Idempotent."""
        if self._closed:
            return
        self._closed = True
        portal = self._portal
        if portal is not None and not self.in_loop:
            with contextlib.suppress(RuntimeError):  # the portal already stopped
                portal.call(portal.stop, True)
            self._thread.join(timeout=10)
