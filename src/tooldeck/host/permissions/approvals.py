"""The "always" replies of one Location, kept in its store (the layer ``permission.py``
puts above the policy).

The rules are read once, on first use, and kept in memory as a ``Ruleset``. Reading
opens the store (a SQLite file that another process may hold locked for seconds, a slow
disk, a database server), so async code reads them with ``load``, which runs in a
thread of its own and waits at most ``LOAD_WAIT_S``: the event loop never waits on the
store. Saving adds to the store in one transaction and takes back every
approval the store holds, so approvals other processes saved meanwhile are seen too, and
so does ``refresh``, which the permission service awaits before it asks anyone: an
``always`` saved by another process sharing the store (a replica of ``tooldeck mcp
serve``) is honoured instead of asked again. Reading only when about to ask keeps the
store off the path of every call the rules already settle.
Two processes approving at once both land: the store, not a read-merge-write of a
file, orders them. A served principal's approvals are the same kind of object keyed by
its name in the store (``principal``), so they outlive a restart and stay its own.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from typing import Final

from tooldeck.host.config.config import PermissionRule
from tooldeck.host.permissions.wildcard import Ruleset
from tooldeck.host.store.base import Store

_log = logging.getLogger(__name__)

LOAD_WAIT_S: Final = 15.0
"""How long a permission check waits for the saved approvals to be read (beyond SQLite's
10 s busy timeout, so a locked database reports itself); past it the check goes on
without them (extra asks) and they apply once the read ends."""


class Approvals:
    """The saved approvals of one Location, over its store.

    A store that cannot be opened, read or written costs extra asks, never a failed
    call: the user said yes, so an approval that could not be saved is kept for this
    process and a warning says where saving failed.
    """

    def __init__(
        self,
        open_store: Callable[[], Store],
        saved: Callable[[], Store | None],
        principal: str | None = None,
    ) -> None:
        self._open_store = open_store
        self._saved = saved
        self._principal = principal
        self._lock = threading.Lock()
        self._rules: Ruleset | None = None
        self._reading: Future[Ruleset] | None = None

    @property
    def rules(self) -> Ruleset:
        """The approvals. While ``load`` reads them, none (the policy alone decides);
        when it never ran, they are read here, blocking (sync callers)."""
        rules = self._rules
        if rules is None and self._reading is not None:
            return _NONE
        return rules if rules is not None else self._read_once()

    def _read_once(self) -> Ruleset:
        with self._lock:
            if self._rules is None:
                self._rules = Ruleset(self._read())
            return self._rules

    async def load(self) -> None:
        """Read the approvals off the event loop, once; wait at most ``LOAD_WAIT_S``."""
        if self._rules is not None:
            return
        if self._reading is None:  # no await since the check: one loop starts one read
            self._reading = Future()
            threading.Thread(
                target=self._read_in_thread,
                args=(self._reading,),
                name="tooldeck-approvals",
                daemon=True,  # a store that never answers must not keep the process up
            ).start()
        reading = asyncio.shield(asyncio.wrap_future(self._reading))
        try:
            await asyncio.wait_for(reading, LOAD_WAIT_S)
        except TimeoutError:
            _log.warning(
                "could not read permission approvals within %g s; asking instead until "
                "the store answers",
                LOAD_WAIT_S,
            )

    async def refresh(self) -> bool:
        """Read the store again, off the event loop (waiting at most ``LOAD_WAIT_S``),
        and keep what it holds beside what this process knows. True if it added rules."""
        try:
            stored = await asyncio.wait_for(asyncio.to_thread(self._read), LOAD_WAIT_S)
        except TimeoutError:
            return False
        with self._lock:
            known = self._known()
            merged = tuple(dict.fromkeys((*known, *stored)))
            if len(merged) == len(known):
                return False
            self._rules = Ruleset(merged)
            return True

    def _read_in_thread(self, done: Future[Ruleset]) -> None:
        done.set_result(self._read_once())

    def _read(self) -> tuple[PermissionRule, ...]:
        try:
            store = self._saved()
            if store is None:
                return ()
            # the Location's read names no principal, so a store written before
            # principals existed still serves it
            if self._principal is None:
                return store.approvals()
            return store.approvals(self._principal)
        except Exception as exc:  # any store's failure: the configured rules still apply
            _log.warning("could not read permission approvals: %s", exc)
            return ()

    def add(self, new: Iterable[PermissionRule]) -> None:
        """Save ``new``; runs blocking I/O, so async code calls it in a thread."""
        new = tuple(new)
        with self._lock:
            try:
                store = self._open_store()
                if self._principal is None:
                    stored = store.add_approvals(new)
                else:
                    stored = store.add_approvals(new, self._principal)
                merged = tuple(dict.fromkeys((*stored, *self._known())))
            except Exception as exc:  # keep the approval for this process, say why
                _log.warning("could not save permission approvals: %s", exc)
                merged = tuple(dict.fromkeys((*self._known(), *new)))
            self._rules = Ruleset(merged)

    def _known(self) -> tuple[PermissionRule, ...]:
        return self._rules.rules if self._rules is not None else ()


_NONE: Final = Ruleset(())
