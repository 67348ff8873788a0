"""Sandbox workers for programs, taken and driven without blocking the event loop.

A program's steps (``start``, every ``resume``) run inside a monty worker, and one step
can compute for the program's whole ``timeout_s`` (``while True: pass``). So each step
runs on the pool's own bounded threads (``WorkerSlots.threads``, never the loop's default
executor), and the loop only awaits it. Cancelling the awaiting call kills the worker
process, which ends the step at once; the worker is given back when the step has ended.

Taking a worker is asynchronous too: ``WorkerSlots.acquire`` waits on a future, not in a
thread, so waiting programs hold no thread, and the wait counts against the program's
limit (the runner's ``asyncio.timeout`` is already running).
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from tooldeck.codemode.sandbox import SandboxSession

T = TypeVar("T")

_HELD: contextvars.ContextVar[frozenset[int]] = contextvars.ContextVar(
    "tooldeck_sandbox_slots_held", default=frozenset()
)
"""The pools (by id) whose workers the programs enclosing this call already hold."""


class WorkerSlots:
    """How many programs may hold a worker at once; thread-safe, usable from any loop."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.threads = ThreadPoolExecutor(2 * size, thread_name_prefix="tooldeck-sandbox")
        self._lock = threading.Lock()
        self._in_use = 0
        self._waiters: deque[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = deque()

    @property
    def in_use(self) -> int:
        return self._in_use

    @property
    def busy(self) -> bool:
        """Every worker is held: a new program would wait for one."""
        return self._in_use >= self.size

    def held_here(self) -> bool:
        """Whether a program enclosing the current call holds one of these workers."""
        return id(self) in _HELD.get()

    async def acquire(self) -> None:
        """Wait (without a thread) until a worker is free, and take it."""
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._in_use < self.size and not self._waiters:
                self._in_use += 1
                return
            waiter: asyncio.Future[None] = loop.create_future()
            self._waiters.append((loop, waiter))
        try:
            await waiter
        except BaseException:
            with self._lock:
                granted = (loop, waiter) not in self._waiters
                if not granted:
                    self._waiters.remove((loop, waiter))
            if granted:  # the slot was handed over as the wait ended: pass it on
                self.release()
            raise

    def release(self) -> None:
        """Give a worker back, to the longest waiter if there is one."""
        with self._lock:
            while self._waiters:
                loop, waiter = self._waiters.popleft()
                try:
                    loop.call_soon_threadsafe(self._grant, waiter)
                except RuntimeError:  # that loop is closed: its waiter is gone
                    continue
                return
            self._in_use -= 1

    def _grant(self, waiter: asyncio.Future[None]) -> None:
        if waiter.done():  # cancelled meanwhile; its except-branch saw it granted
            return
        waiter.set_result(None)

    def mark_held(self) -> contextvars.Token[frozenset[int]]:
        """Record, for nested calls, that the current program holds one of these workers."""
        return _HELD.set(_HELD.get() | {id(self)})

    def close(self) -> None:
        self.threads.shutdown(wait=False)


class ProgramWorker:
    """One program's hold on a worker: ``open``, ``run`` each step, ``close``."""

    def __init__(self, slots: WorkerSlots, session: SandboxSession) -> None:
        self._slots = slots
        self._session = session
        self._last: Future[Any] | None = None
        self._lock = threading.Lock()
        self._entered = False
        self._done = False
        self._slot = False

    @property
    def has_slot(self) -> bool:
        """Whether the program got its worker slot (it may still be entering it)."""
        return self._slot

    def mark_held(self) -> contextvars.Token[frozenset[int]]:
        """Record, for calls nested in this program, that it holds a worker."""
        return self._slots.mark_held()

    def unmark_held(self, token: contextvars.Token[frozenset[int]]) -> None:
        _HELD.reset(token)

    async def open(self) -> None:
        """Take a worker slot (waiting as long as the caller's timeout allows), then enter
        the session on the sandbox threads."""
        await self._slots.acquire()
        self._slot = True
        await self.run(self._enter)

    def _enter(self) -> None:
        self._session.__enter__()
        self._entered = True

    async def run(self, step: Callable[..., T], *args: Any) -> T:
        """``step(*args)`` on the sandbox threads; cancelled, the worker is killed."""
        try:
            future = self._slots.threads.submit(step, *args)
        except RuntimeError:  # the pool closed with its Location
            from tooldeck.codemode.sandbox import SandboxFailure

            raise SandboxFailure("crashed", "the sandbox was closed with its Location") from None
        self._last = future
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            self._session.kill()
            raise

    async def close(self) -> None:
        """Give the worker back once the step in flight (if any) has ended."""
        await asyncio.shield(asyncio.wrap_future(self._close_soon()))

    def _close_soon(self) -> Future[None]:
        closed: Future[None] = Future()

        def teardown(_: object = None) -> None:
            try:
                self._teardown()
            except BaseException as exc:
                closed.set_exception(exc)
            else:
                closed.set_result(None)

        last = self._last
        if last is None or last.done():
            try:
                self._slots.threads.submit(teardown)
            except RuntimeError:  # the pool closed: nothing runs there any more
                teardown()
        else:
            last.add_done_callback(teardown)
        return closed

    def _teardown(self) -> None:
        with self._lock:
            if self._done:
                return
            self._done = True
        try:
            if self._entered:
                self._session.__exit__(None, None, None)
        finally:
            if self._slot:
                self._slots.release()
