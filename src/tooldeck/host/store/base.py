"""The store interface: a few small, transactional operations any database can offer.

A store keeps two kinds of rows. **Approvals** are ``PermissionRule`` values, kept as a
set: adding one twice keeps one. They belong to the Location (``principal=None``: saved
from the CLI or an embedding host, they apply to every caller) or to one principal of
``tooldeck mcp serve`` (its ``always`` answers, which no other principal may see).
**Pending entries** carry a pending call as opaque JSON text plus the columns that make
"exactly once" checkable: ``state`` (``open`` → ``claimed`` → ``running`` → ``done``),
the ``owner`` holding a claim, the ``lease_until`` its claim is good for, the ``reply``
that answered it and the recorded ``outcome``.

Every change of a pending entry goes through ``transition``, a compare-and-set: it
changes the row only if it is still in the expected state with the expected owner, in
one transaction, and says whether it did. That single primitive is all the resume
protocol (``host/boundary/resume.py``) needs for two processes never to run one call
twice, so a store for another database implements six plain methods and nothing else.

Stores are synchronous (``sqlite3``, ``psycopg``): async code calls them through
``calls.off_loop``, in a thread and for at most the Location's ``store_wait_s``, so a
slow disk or network never stalls the event loop nor a call for longer than that. A
store that cannot answer raises ``StoreUnavailable`` (retryable); every method must be
safe to run again after it did.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, Protocol, TypeAlias

from tooldeck._public import public
from tooldeck.host.config.config import PermissionRule

PendingState: TypeAlias = Literal["open", "claimed", "running", "done"]
"""``open``: waiting for a reply; ``claimed``: a resume holds it and has not started the
tool; ``running``: the tool was started (it may have acted); ``done``: outcome recorded."""

STATES: tuple[PendingState, ...] = ("open", "claimed", "running", "done")


@public
@dataclass(frozen=True, slots=True)
class PendingEntry:
    """One row of pending calls, as the store holds it (``data`` is ``PendingCall`` JSON)."""

    id: str
    session_id: str
    created_at: float
    expires_at: float
    data: str
    state: PendingState = "open"
    owner: str = ""
    lease_until: float = 0.0
    reply: str | None = None
    outcome: str | None = None


@public
@dataclass(frozen=True, slots=True)
class PendingChange:
    """What ``transition`` writes; ``None`` for ``reply``/``outcome`` leaves them as they are."""

    state: PendingState
    owner: str = ""
    lease_until: float = 0.0
    reply: str | None = None
    outcome: str | None = None


@public
class Store(Protocol):
    """What a Location needs from a database. Every method is one transaction.

    Implementations: ``SqliteStore`` (the default, ``<data_dir>/tooldeck.sqlite3``) and
    ``PostgresStore`` (``tooldeck[postgres]``). A store is shared by every thread of a
    process and by every process that opens it; ``close`` releases its connections.
    """

    def approvals(self, principal: str | None = None) -> tuple[PermissionRule, ...]:
        """Every approval saved for the Location (``None``) or for ``principal`` alone,
        oldest first."""
        ...

    def add_approvals(
        self, rules: Iterable[PermissionRule], principal: str | None = None
    ) -> tuple[PermissionRule, ...]:
        """Save ``rules`` (each once) for the Location or ``principal`` and return every
        approval saved for it, oldest first."""
        ...

    def add_pending(self, entry: PendingEntry) -> None:
        """Insert a new ``open`` entry (its id is new: a uuid)."""
        ...

    def get_pending(self, pending_id: str) -> PendingEntry | None:
        """The entry with this id, in whatever state, or ``None``."""
        ...

    def list_pending(self, session_id: str | None = None) -> tuple[PendingEntry, ...]:
        """``open`` entries (of one session, or all), oldest first."""
        ...

    def transition(
        self, pending_id: str, expect: PendingState, owner: str, change: PendingChange
    ) -> bool:
        """Apply ``change`` if the entry is in state ``expect`` held by ``owner`` (``""``
        for an ``open`` entry); True if it did. Atomic against every other process."""
        ...

    def close(self) -> None:
        """Release connections; idempotent."""
        ...


PENDING_COLUMNS = (
    "id, session_id, created_at, expires_at, data, state, owner, lease_until, reply, outcome"
)
"""The pending table's columns, in ``PendingEntry``'s field order (``pending_row``)."""


def pending_row(entry: PendingEntry) -> tuple[object, ...]:
    """``entry``'s values in ``PENDING_COLUMNS`` order, for an ``INSERT``."""
    return (
        entry.id,
        entry.session_id,
        entry.created_at,
        entry.expires_at,
        entry.data,
        entry.state,
        entry.owner,
        entry.lease_until,
        entry.reply,
        entry.outcome,
    )


def transition_row(
    pending_id: str, expect: PendingState, owner: str, change: PendingChange
) -> tuple[object, ...]:
    """The values of a ``transition`` update, in the order both stores' ``UPDATE`` takes:
    the new state, owner, lease, reply and outcome, then the id, state and owner expected."""
    return (
        change.state,
        change.owner,
        change.lease_until,
        change.reply,
        change.outcome,
        pending_id,
        expect,
        owner,
    )


def rule_key(rule: PermissionRule) -> tuple[str, str, str]:
    """The identity of an approval row (a rule is its three fields)."""
    return (rule.action, rule.resource, rule.effect)
