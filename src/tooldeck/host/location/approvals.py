"""The "always" replies of one Location, kept in its store (the layer ``permission.py``
puts above the policy).

The rules are read once, when the permission service is created, and kept in memory
as a ``Ruleset``; saving adds to the store in one transaction and takes back every
approval the store holds, so approvals other processes saved meanwhile are seen too.
Two processes approving at once both land: the store, not a read-merge-write of a
file, orders them. A served principal's approvals are the same kind of object keyed by
its name in the store (``principal``), so they outlive a restart and stay its own.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable

from tooldeck.host.location.config import PermissionRule
from tooldeck.host.location.store.base import Store
from tooldeck.host.location.wildcard import Ruleset

_log = logging.getLogger(__name__)


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
        self._principal = principal
        self._lock = threading.Lock()
        self.rules = Ruleset(self._load(saved))

    def _load(self, saved: Callable[[], Store | None]) -> tuple[PermissionRule, ...]:
        try:
            store = saved()
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
                merged = tuple(dict.fromkeys((*stored, *self.rules.rules)))
            except Exception as exc:  # keep the approval for this process, say why
                _log.warning("could not save permission approvals: %s", exc)
                merged = tuple(dict.fromkeys((*self.rules.rules, *new)))
            self.rules = Ruleset(merged)
