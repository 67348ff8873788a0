"""A connection's deadlines, which stop counting while a person is being waited for.

``timeout_s`` bounds connecting, listing and each call: it is how long a *server* may
take. While the user signs in (the OAuth browser step, which may come in the middle of
a call when a server asks for more scope), the server is not the one being slow, so
every deadline of the connection is pushed back by the time the person took.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager

import anyio


class Deadlines:
    """The open deadlines of one connection (on its loop; not thread-safe by design)."""

    def __init__(self) -> None:
        self._open: dict[anyio.CancelScope, float] = {}
        """Each open scope, and its time left while paused."""
        self._waiting = 0

    @contextmanager
    def move_on_after(self, seconds: float) -> Iterator[anyio.CancelScope]:
        """``anyio.move_on_after``, paused while a person is waited for."""
        scope = anyio.CancelScope(deadline=self._deadline(seconds))
        self._open[scope] = seconds
        try:
            with scope:
                yield scope
        finally:
            del self._open[scope]

    @contextmanager
    def fail_after(self, seconds: float) -> Iterator[anyio.CancelScope]:
        """``anyio.fail_after``: raises ``TimeoutError`` when the deadline passed."""
        with self.move_on_after(seconds) as scope:
            yield scope
        if scope.cancelled_caught:
            raise TimeoutError

    def waiting_on_person(self, waiting: bool) -> None:
        """Stop (``True``) or resume (``False``) every open deadline's clock."""
        now = anyio.current_time()
        if waiting:
            self._waiting += 1
            if self._waiting == 1:
                for scope in self._open:
                    self._open[scope] = max(0.0, scope.deadline - now)
                    scope.deadline = math.inf
        else:
            self._waiting = max(0, self._waiting - 1)
            if self._waiting == 0:
                for scope, left in self._open.items():
                    scope.deadline = now + left

    def _deadline(self, seconds: float) -> float:
        return math.inf if self._waiting else anyio.current_time() + seconds
