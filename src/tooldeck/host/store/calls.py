"""Store work from async code: in a thread of its own, waited for at most a bound.

Stores are synchronous (``sqlite3``, ``psycopg``), and a store operation can hang where
its own bounds cannot reach: a network mount that stopped answering, a database server
stopped mid-query. So async code never calls a store on the event loop, and never waits
for it unboundedly: ``off_loop`` runs the work in a daemon thread (one that never
answers must not keep the process from exiting, as a pooled executor's thread would)
and raises ``StoreUnavailable`` once ``wait_s`` has passed. The thread is left to end
on its own; its result, if it ever comes, is dropped. The work runs in a copy of the
caller's context, as ``asyncio.to_thread`` runs it (a served principal's rules decide
whose approvals a save lands in).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
from collections.abc import Callable
from typing import TypeVar

from tooldeck.errors import StoreUnavailable

_T = TypeVar("_T")

GRACE_S = 2.0
"""Waited beyond the store's own ``timeout_s``, so a store that bounds itself (the
PostgreSQL pool) reports its own, more precise error first."""


async def off_loop(work: Callable[[], _T], *, wait_s: float, what: str) -> _T:
    """``work()`` in a thread, its result or its exception; ``StoreUnavailable`` naming
    ``what`` when it takes longer than ``wait_s``."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[_T] = loop.create_future()
    context = contextvars.copy_context()

    def run() -> None:
        try:
            result = context.run(work)
        except BaseException as exc:  # handed to the awaiting task, whatever it is
            _hand_over(loop, done, exc)
        else:
            _hand_over(loop, done, result)

    threading.Thread(target=run, name="tooldeck-store", daemon=True).start()
    try:
        return await asyncio.wait_for(asyncio.shield(done), wait_s)
    except TimeoutError:
        done.cancel()  # a late result is dropped, not reported as never retrieved
        raise StoreUnavailable(
            f"the store did not answer within {wait_s:g} s while {what}; try again once it is back"
        ) from None


def _hand_over(loop: asyncio.AbstractEventLoop, done: asyncio.Future[_T], value: object) -> None:
    def settle() -> None:
        if done.done():  # the caller stopped waiting
            return
        if isinstance(value, BaseException):
            done.set_exception(value)
        else:
            done.set_result(value)  # type: ignore[arg-type]  # value is work()'s _T

    with contextlib.suppress(RuntimeError):  # the loop closed: nobody waits any more
        loop.call_soon_threadsafe(settle)
