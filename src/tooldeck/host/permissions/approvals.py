"""The "always" replies of one Location, kept in its store (the layer ``permission.py``
puts above the policy).

The rules are kept in memory as a ``Ruleset`` once read. Reading opens the store (a
SQLite file another process may hold locked for seconds, a slow disk, a database
server), so async code reads them with ``load`` and ``refresh``, in a thread of their
own, waiting at most the Location's ``store_wait_s``: the event loop never waits on the
store, and never for longer than that.

**When they are read.** ``load`` reads them on the first permission check (one read
shared by the checks that arrive meanwhile). ``refresh``, which the permission service
awaits before it asks anyone, reads them again: an ``always`` saved by another process
sharing the store (a replica of ``tooldeck mcp serve``) answers the ask instead. So an
approval saved anywhere applies everywhere at the next ask, without delay; a check the
rules settle reads nothing.

**When the store fails.** A read that fails or is late is never remembered as "no
approvals": ``load`` leaves them unread (the next check reads again) and ``refresh``
raises ``StoreUnavailable`` to the check that needed it, which decides (a live asker is
asked; a deferred ask, which needs the store to wait in, fails the call saying so).
Saving is different: the user said yes, so the approval applies in this process at
once, and a store that cannot take it is reported in a warning; the approval is saved
with the next save or read that reaches the store, so a database restart loses none.

Two processes approving at once both land: the store, not a read-merge-write of a file,
orders them. A served principal's approvals are the same kind of object keyed by its
name in the store (``principal``), so they outlive a restart and stay its own.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from typing import Any, Final

from tooldeck.errors import StoreUnavailable
from tooldeck.host.config.config import PermissionRule
from tooldeck.host.permissions.wildcard import Ruleset
from tooldeck.host.store.base import Store
from tooldeck.host.store.calls import off_loop

_log = logging.getLogger(__name__)

DEFAULT_WAIT_S: Final = 12.0
"""The wait when no Location says otherwise (``[store] timeout_s`` + the grace)."""


class Approvals:
    """The saved approvals of one Location (or of one served principal), over its store.

    ``open_store`` opens the store to save in; ``saved`` returns it only when it may
    hold something (reading must not create one); ``wait_s`` is how long async code
    waits for the store.
    """

    def __init__(
        self,
        open_store: Callable[[], Store],
        saved: Callable[[], Store | None],
        principal: str | None = None,
        wait_s: Callable[[], float] = lambda: DEFAULT_WAIT_S,
    ) -> None:
        self._open_store = open_store
        self._saved = saved
        self._principal = principal
        self._wait_s = wait_s
        self._lock = threading.Lock()
        self._rules: Ruleset | None = None
        self._reading: Future[tuple[PermissionRule, ...]] | None = None
        self._loading = False  # async code reads them: ``rules`` never reads on its own
        self._unsaved: tuple[PermissionRule, ...] = ()  # given here, not yet in the store

    @property
    def rules(self) -> Ruleset:
        """The approvals known here. Before a successful read: none once async code
        loads them (a read under way or failed: the loop must not read here), else
        (sync callers only) read now, blocking."""
        rules = self._rules
        if rules is not None:
            return rules
        if self._loading:
            return _NONE
        try:
            self._merge(self._read())
        except Exception as exc:  # the rules alone decide this sync check; not remembered
            _log.warning("could not read permission approvals: %s", exc)
            return _NONE
        return self._rules or _NONE

    async def load(self) -> None:
        """Read the approvals once, off the event loop, sharing one read among the checks
        that arrive meanwhile. A read that fails or is late is reported and forgotten:
        the check goes on with the rules alone (an ask still refreshes first), and the
        next check reads again."""
        if self._rules is not None:
            return
        self._loading = True
        with self._lock:
            reading = self._reading
            if reading is None:
                reading = self._reading = Future()
                threading.Thread(
                    target=self._read_in_thread,
                    args=(reading,),
                    name="tooldeck-approvals",
                    daemon=True,  # a store that never answers must not keep the process up
                ).start()
        wait_s = self._wait_s()
        waiting = asyncio.wrap_future(reading)
        try:
            stored = await asyncio.wait_for(asyncio.shield(waiting), wait_s)
        except TimeoutError:
            waiting.add_done_callback(_retrieved)  # a late failure is not "never retrieved"
            _log.warning(
                "could not read permission approvals within %g s; the rules alone decide "
                "until the store answers",
                wait_s,
            )
        except Exception as exc:
            _log.warning("could not read permission approvals: %s", exc)
        else:
            self._merge(stored)

    def _read_in_thread(self, done: Future[tuple[PermissionRule, ...]]) -> None:
        try:
            stored = self._read()
        except BaseException as exc:  # handed to every waiter
            done.set_exception(exc)
        else:
            self._merge(stored)
            done.set_result(stored)
        finally:
            with self._lock:
                if self._reading is done:
                    self._reading = None  # the next load reads again if this one failed

    async def refresh(self) -> bool:
        """Read the store again, off the event loop, and keep what it holds beside what
        this process knows; True if it added rules. Raises ``StoreUnavailable`` when the
        store fails or does not answer within the Location's wait."""
        try:
            stored = await off_loop(
                self._read, wait_s=self._wait_s(), what="reading the saved approvals"
            )
        except StoreUnavailable:
            raise
        except Exception as exc:  # any store's own failure, told the same way
            raise StoreUnavailable(f"could not read the saved approvals: {exc}") from exc
        return self._merge(stored)

    def _merge(self, stored: tuple[PermissionRule, ...]) -> bool:
        with self._lock:
            known = self._known()
            merged = tuple(dict.fromkeys((*known, *stored)))
            if self._rules is not None and len(merged) == len(known):
                return False
            self._rules = Ruleset(merged)
            return len(merged) > len(known)

    def _read(self) -> tuple[PermissionRule, ...]:
        store = self._saved()
        if store is None:
            return ()
        if self._unsaved:
            return self._save(store, ())
        # the Location's read names no principal, so a store written before principals
        # existed still serves it
        if self._principal is None:
            return store.approvals()
        return store.approvals(self._principal)

    def remember(self, new: Iterable[PermissionRule]) -> None:
        """Apply ``new`` in this process now, before (or without) saving them."""
        with self._lock:
            self._rules = Ruleset(tuple(dict.fromkeys((*self._known(), *new))))

    def add(self, new: Iterable[PermissionRule]) -> None:
        """Save ``new`` (and apply them here at once); blocking I/O, so async code calls
        it in a thread. A store that cannot take them is reported in a warning: they
        still apply in this process."""
        new = tuple(new)
        self.remember(new)
        try:
            stored = self._save(self._open_store(), new)
        except Exception as exc:  # keep the approval here, say why
            with self._lock:
                self._unsaved = tuple(dict.fromkeys((*self._unsaved, *new)))
            _log.warning(
                "could not save permission approvals (they apply in this process, and are "
                "saved once the store answers): %s",
                exc,
            )
            return
        self._merge(stored)

    def _save(self, store: Store, new: tuple[PermissionRule, ...]) -> tuple[PermissionRule, ...]:
        """Add ``new`` and whatever earlier saves left unsaved; every approval stored."""
        unsaved = self._unsaved
        rules = tuple(dict.fromkeys((*unsaved, *new)))
        if self._principal is None:
            stored = store.add_approvals(rules)
        else:
            stored = store.add_approvals(rules, self._principal)
        with self._lock:
            self._unsaved = tuple(r for r in self._unsaved if r not in unsaved)
        return stored

    def _known(self) -> tuple[PermissionRule, ...]:
        return self._rules.rules if self._rules is not None else ()


_NONE: Final = Ruleset(())


def _retrieved(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()
