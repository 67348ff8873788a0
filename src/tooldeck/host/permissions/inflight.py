"""One permission ask in flight: the asker's task, and a way for a sibling ask to settle
it (an "always" that now covers it, a "reject" of the same session), whichever comes first.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect

from tooldeck.host.permissions.request import Asker, PermissionRequest, Reply


class Pending:
    """One ask in flight: the asker's task, and a way for a sibling ask to settle it."""

    __slots__ = ("loop", "override", "request")

    def __init__(self, request: PermissionRequest) -> None:
        self.request = request
        self.loop = asyncio.get_running_loop()
        self.override: asyncio.Future[Reply] = self.loop.create_future()

    def settle(self, reply: Reply) -> None:
        """Answer this ask for the user; callable from any thread, the first answer wins."""
        with contextlib.suppress(RuntimeError):  # a closed loop: that ask is over anyway
            self.loop.call_soon_threadsafe(self._set, reply)

    def _set(self, reply: Reply) -> None:
        if not self.override.done():
            self.override.set_result(reply)

    async def run(self, asker: Asker) -> tuple[object, bool]:
        """The reply, and whether it came from a sibling (True) rather than the asker."""
        task = asyncio.ensure_future(_call(asker, self.request))
        try:
            await asyncio.wait((task, self.override), return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not task.done():
                task.cancel()
                task.add_done_callback(_retrieve)
        if task.done():
            return task.result(), False
        return self.override.result(), True


async def _call(asker: Asker, request: PermissionRequest) -> object:
    reply = asker(request)
    return await reply if inspect.isawaitable(reply) else reply


def _retrieve(task: asyncio.Future[object]) -> None:
    """Mark a cancelled asker's outcome as seen, so asyncio does not log it."""
    if not task.cancelled():
        task.exception()
