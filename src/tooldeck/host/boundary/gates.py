"""Waiting places shared by every thread and event loop of one service.

A service is shared: a web server may run each request in its own thread with its own
``asyncio.run``, so a limit kept in asyncio's primitives (bound to one loop) would hold
per loop, not per service. Here the state sits behind a ``threading.Lock`` taken only for
a few counter updates (never while waiting), and a waiting call awaits a future of its own
loop, which whoever frees the place completes with ``call_soon_threadsafe``. A waiting
call never blocks its loop's thread, and cancelling it (a timeout, a closed turn) takes it
out of the line or passes on what it was just handed.

asyncio is imported only by the calls that wait, never by building a snapshot.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import asyncio


def _wake(loop: asyncio.AbstractEventLoop, future: asyncio.Future[None]) -> bool:
    """Complete ``future`` on its own loop; ``False`` when that loop is already closed."""

    def complete() -> None:
        if not future.done():
            future.set_result(None)

    try:
        loop.call_soon_threadsafe(complete)
    except RuntimeError:  # its loop closed: nobody is left waiting there
        return False
    return True


def _new_waiter() -> tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]:
    import asyncio

    loop = asyncio.get_running_loop()
    return loop, loop.create_future()


class Slots:
    """At most ``most`` holders at once across threads and loops, served in arrival order."""

    __slots__ = ("_free", "_lock", "_waiting")

    def __init__(self, most: int) -> None:
        self._free = most
        self._lock = threading.Lock()
        self._waiting: deque[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = deque()

    async def __aenter__(self) -> None:
        with self._lock:
            if self._free and not self._waiting:
                self._free -= 1
                return
            waiter = _new_waiter()
            self._waiting.append(waiter)
        try:
            await waiter[1]
        except BaseException:
            with self._lock:
                try:
                    self._waiting.remove(waiter)
                    handed = False
                except ValueError:  # released to us meanwhile: the slot is ours to pass on
                    handed = True
            if handed:
                self._release()
            raise

    async def __aexit__(self, *exc_info: object) -> None:
        self._release()

    def _release(self) -> None:
        with self._lock:
            while self._waiting:
                # The slot passes straight to the first waiter; it owns it from here on.
                if _wake(*self._waiting.popleft()):
                    return
            self._free += 1


class Turns:
    """One session's calls: shared turns for ordinary calls, an exclusive one for a
    ``sequential`` call. A waiting exclusive call holds back new shared ones (no starving).

    Any change wakes every waiter, which checks again under the lock: a session has few
    calls in flight, and a woken waiter that was cancelled meanwhile holds nothing."""

    __slots__ = ("_exclusive", "_lock", "_running", "_sleepers", "_users", "_wanting")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running = 0
        self._exclusive = False
        self._wanting = 0
        self._sleepers: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        self._users = 0
        """Calls holding or waiting for a turn; ``Gates`` drops the session at zero."""

    def _may_enter(self, exclusive: bool) -> bool:
        if exclusive:
            return not self._exclusive and not self._running
        return not self._exclusive and not self._wanting

    async def enter(self, exclusive: bool) -> None:
        with self._lock:
            if exclusive:
                self._wanting += 1
        try:
            while True:
                with self._lock:
                    if self._may_enter(exclusive):
                        self._running += 1
                        self._exclusive = exclusive
                        return
                    waiter = _new_waiter()
                    self._sleepers.append(waiter)
                await waiter[1]
        finally:
            if exclusive:
                with self._lock:
                    self._wanting -= 1
                    self._wake_all()

    def leave(self, exclusive: bool) -> None:
        with self._lock:
            self._running -= 1
            if exclusive:
                self._exclusive = False
            self._wake_all()

    def _wake_all(self) -> None:
        sleepers, self._sleepers = self._sleepers, []
        for waiter in sleepers:
            _wake(*waiter)


class _Turn:
    __slots__ = ("_exclusive", "_gates", "_session_id", "_turns")

    def __init__(self, gates: Gates, session_id: str, exclusive: bool) -> None:
        self._gates = gates
        self._session_id = session_id
        self._exclusive = exclusive
        self._turns: Turns | None = None

    async def __aenter__(self) -> None:
        self._turns = self._gates._hold_turns(self._session_id)
        try:
            await self._turns.enter(self._exclusive)
        except BaseException:
            self._gates._drop_turns(self._session_id, self._turns)
            raise

    async def __aexit__(self, *exc_info: object) -> None:
        assert self._turns is not None
        self._turns.leave(self._exclusive)
        self._gates._drop_turns(self._session_id, self._turns)


class Gates:
    """A service's waiting places: ``Slots`` per limited tool, ``Turns`` per session.

    A session's turns live while a call holds or waits for one, so a long-running service
    keeps no trace of its finished sessions."""

    __slots__ = ("_lock", "_slots", "_turns")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._slots: dict[tuple[str, int], Slots] = {}
        self._turns: dict[str, Turns] = {}

    def slots(self, name: str, most: int) -> Slots:
        """The slots of tool ``name`` limited to ``most`` calls at once."""
        key = (name, most)
        found = self._slots.get(key)
        if found is None:
            with self._lock:
                found = self._slots.setdefault(key, Slots(most))
        return found

    def turn(self, session_id: str, exclusive: bool) -> _Turn:
        """A turn of session ``session_id``: exclusive for a ``sequential`` call."""
        return _Turn(self, session_id, exclusive)

    def _hold_turns(self, session_id: str) -> Turns:
        with self._lock:
            found = self._turns.get(session_id)
            if found is None:
                found = self._turns[session_id] = Turns()
            found._users += 1
            return found

    def _drop_turns(self, session_id: str, turns: Turns) -> None:
        with self._lock:
            turns._users -= 1
            if not turns._users:
                del self._turns[session_id]
