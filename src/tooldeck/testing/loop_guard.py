"""``LoopGuard``: notice when a test's event loop stops answering for too long.

A watchdog thread posts a no-op to the loop every ``interval_s`` and times how long the
loop takes to run it. A loop that is running but does not get to the no-op for
``threshold_s`` was held by something on its thread: a CPU-bound program, a blocking
call, a backtracking regex. Samples taken while the loop was not running at all (between
fixtures, after the test) are discarded, so only real stalls count, and the threshold is
far above scheduling noise: the guard reports stalls, never slowness.

Only the standard library is imported here: the pytest plugin loads it in every run.
"""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Final

DEFAULT_THRESHOLD_S: Final = 2.0
"""A stall this long fails the test: far above any scheduling noise on a loaded machine."""


class LoopGuard:
    """Watches one event loop from a thread; ``worst_s`` is the longest stall seen."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        *,
        threshold_s: float = DEFAULT_THRESHOLD_S,
        interval_s: float = 0.05,
    ) -> None:
        self.loop = loop
        self.threshold_s = threshold_s
        self.interval_s = interval_s
        self.worst_s = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="tooldeck-loop-guard")
        self._thread.daemon = True

    def start(self) -> LoopGuard:
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop watching (idempotent); ``worst_s`` keeps the longest stall."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    @property
    def stalled(self) -> bool:
        return self.worst_s > self.threshold_s

    def report(self) -> str:
        return (
            f"the event loop stalled for {self.worst_s:.2f} s (the guard allows "
            f"{self.threshold_s:g} s): something ran on the loop's thread without yielding"
        )

    def _watch(self) -> None:
        while not self._stop.wait(self.interval_s):
            lag = self._sample()
            if lag is not None and lag > self.worst_s:
                self.worst_s = lag

    def _sample(self) -> float | None:
        """How long the loop took to run a posted no-op; ``None`` when it was not running
        the whole time (then the delay says nothing about a stall)."""
        loop = self.loop
        if loop.is_closed() or not loop.is_running():
            return None
        ran = threading.Event()
        sent = time.monotonic()
        try:
            loop.call_soon_threadsafe(ran.set)
        except RuntimeError:  # closed meanwhile
            return None
        while not ran.wait(0.01):
            if self._stop.is_set() or loop.is_closed() or not loop.is_running():
                return None
        return time.monotonic() - sent
