"""Sandbox workers for programs, taken and driven without blocking the event loop.

A program's steps (starting it, every answer) run inside a monty worker, and one step
can compute for the program's whole ``timeout_s`` (``while True: pass``). So
``program_steps`` drives the sandbox's conversation on one of the pool's own bounded
threads (``WorkerSlots.threads``, never the loop's default executor) for the program's
whole run, and the loop only awaits each step. Cancelling the awaiting call kills the
worker process, which ends the step at once; the worker is given back when the step has
ended.

Taking a worker is asynchronous too: ``WorkerSlots.acquire`` waits on a future, not in a
thread, so waiting programs hold no thread, and the wait counts against the program's
limit (the runner's ``asyncio.timeout`` is already running).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import queue
import threading
from collections import deque
from collections.abc import AsyncGenerator, Callable, Generator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from tooldeck._tool import ToolFailure
from tooldeck.codemode.conversation import Done, SandboxFailure, Settle, Step

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

    def submit(self, step: Callable[..., T], *args: Any) -> Future[T]:
        """``step(*args)`` on the sandbox threads."""
        try:
            return self.threads.submit(step, *args)
        except RuntimeError:  # the pool closed with its Location
            raise SandboxFailure("crashed", "the sandbox was closed with its Location") from None

    def close(self) -> None:
        self.threads.shutdown(wait=False)


def nested_refusal(size: int) -> str:
    """Why ``execute`` run by a tool inside a program cannot get a sandbox worker."""
    return (
        f"Refused: this program was started by a tool inside another program, and all {size} "
        "sandbox workers are held by running programs, including the ones this call is "
        "nested in; waiting would deadlock. Nested execute is refused beyond the pool: call "
        "the tools directly from the outer program instead."
    )


async def program_steps(
    slots: WorkerSlots,
    conversation: Generator[Step, Settle, None],
    kill: Callable[[], None],
) -> AsyncGenerator[Step, Settle]:
    """Drive a program's ``conversation`` (``SandboxSession.conversation``, not started
    yet) on a sandbox thread: yields each step and is sent its answer, like the
    conversation itself, but never blocks the loop. The conversation answers the
    program's calls on that thread; what its ``answer_call`` raises ends the program as
    if raised here.

    Takes a worker slot first (waiting as long as the caller's timeout allows; refused at
    once when the programs this call is nested in hold every slot), and marks it held
    for calls nested in the program. Cancelled mid-step, ``kill`` stops the program's
    worker, which ends the step at once; closed (``aclose``) or ended, the worker and the
    slot are given back once the step in flight has ended.
    """
    if slots.busy and slots.held_here():
        raise ToolFailure(nested_refusal(slots.size))
    await slots.acquire()
    held = slots.mark_held()
    relay = _Relay(conversation, slots)
    try:
        step = await _awaited(relay.start(), kill)
        while True:
            answer = yield step
            step = await _awaited(relay.send(answer), kill)
    finally:
        _HELD.reset(held)
        await asyncio.shield(relay.close())


async def _awaited(step: asyncio.Future[Step], kill: Callable[[], None]) -> Step:
    try:
        return await step
    except asyncio.CancelledError:
        kill()
        raise


class _Relay:
    """One program's conversation, driven by one sandbox thread for the program's whole run.

    The thread runs a step, hands it to the loop, and waits for the loop's answer to run
    the next. Each hand-over wakes one side, where a pool task per step also wakes a pool
    thread and settles a second future (``bench/DECISIONS.md``, code mode).
    """

    def __init__(self, conversation: Generator[Step, Settle, None], slots: WorkerSlots) -> None:
        self._loop = asyncio.get_running_loop()
        self._conversation = conversation
        self._slots = slots
        self._answers: queue.SimpleQueue[Settle | None] = queue.SimpleQueue()
        self._step: asyncio.Future[Step] = self._loop.create_future()
        self._ended: asyncio.Future[None] = self._loop.create_future()
        self._started = False

    def start(self) -> asyncio.Future[Step]:
        """Start the conversation, in a copy of the caller's context (what the calls the
        program's thread runs read, as they would on the loop); the future of its first
        step."""
        self._slots.submit(contextvars.copy_context().run, self._drive)
        self._started = True
        return self._step

    def send(self, answer: Settle) -> asyncio.Future[Step]:
        """Answer the last step; the future of the next."""
        self._step = self._loop.create_future()
        self._answers.put(answer)
        return self._step

    async def close(self) -> None:
        """Stop the conversation (the step in flight, if any, ends first) and wait until
        its worker and slot are given back."""
        if not self._started:
            self._slots.release()
            return
        self._answers.put(None)
        await self._ended

    def _drive(self) -> None:
        """The sandbox thread's loop: one step per answer, until the conversation ends or
        the loop closes it.

        The last step, ``Done``, is handed over only once the conversation is closed and
        its worker and slot are back: the loop then finds the program ended with it,
        where it would otherwise hand a close back to this thread and wait again.
        """
        conversation, answer = self._conversation, None
        last: tuple[asyncio.Future[Step], Step] | None = None
        try:
            while True:
                step = self._step
                try:
                    next_step = next(conversation) if answer is None else conversation.send(answer)
                except BaseException as exc:
                    self._hand_over(step, None, exc)
                    return
                if isinstance(next_step, Done):
                    last = (step, next_step)
                    return
                self._hand_over(step, next_step, None)
                answer = self._answers.get()
                if answer is None:
                    return
        finally:
            problem = None
            try:
                conversation.close()
            except BaseException as exc:
                problem = exc
            self._slots.release()
            if last is not None:
                self._hand_over(*last, None)
            self._hand_over(self._ended, None, problem)

    def _hand_over(
        self, future: asyncio.Future[Any], value: Any, problem: BaseException | None
    ) -> None:
        with contextlib.suppress(RuntimeError):  # the loop closed: nobody awaits it any more
            self._loop.call_soon_threadsafe(_settle, future, value, problem)


def _settle(future: asyncio.Future[Any], value: Any, problem: BaseException | None) -> None:
    if future.done():  # cancelled while the step ran
        return
    if problem is None:
        future.set_result(value)
    elif isinstance(problem, StopIteration):  # futures refuse it; the loop never sends past Done
        future.set_exception(RuntimeError("the program's conversation ended early"))
    else:
        future.set_exception(problem)
