"""Deferred asks: a call stopped at its ask becomes a ``PendingCall`` in the store, and
``resume`` answers it exactly once, from any process that opens the same Location.

The resume protocol moves the store's entry through ``open → claimed → running →
done``, each step one compare-and-set (``Store.transition``), so of two resumes only
one ever holds the call:

* ``claimed``: the answer is recorded and the resume holds a lease; the tool has not
  started. A resume that finds the holder gone (its process is dead, or its lease ran
  out) takes the claim over and runs the call: nothing had happened yet.
* ``running``: written just before the tool is called. If the holder disappears now
  nobody can know whether the tool acted, so the call ends ``failed``/``unknown`` and is
  never run again, unless its tool declared itself idempotent (``Tool.idempotent``).
* ``done``: the outcome is recorded; every later resume returns it.

A live holder renews its lease while the tool runs; a resume finding a live holder waits
for the outcome. "Gone" means: a process on this host whose pid no longer exists, a
resume of this very process that ended without finishing (the store failed under it),
or a lease older than ``LEASE_S`` (any host). A holder whose tool ran keeps trying to
record the outcome while the store is away, for as long as its lease would hold.

The call runs again from the start, with the reply in place of the question
(``answers_in_place``) and further asks deferred: a second question ends the resumed
call ``pending`` again, under a new id, recorded as this id's outcome.

**Whose call it is.** A call a served principal asked resumes under that principal's
rules and approvals (an ``always`` is saved for it alone), whoever resumes it: its MCP
client's retry, which carries the same principal, or an operator's ``tooldeck resume``,
which carries none. A request of *another* principal is refused (``PendingCallError``,
reason ``principal``): an id is no licence to answer someone else's question.

Every store operation runs off the event loop and is waited for at most the Location's
``store_wait_s``: a store that does not answer ends the resume with
``StoreUnavailable``, the entry where it was. Each step is a compare-and-set, so
resuming again later carries on from there and never runs the call twice.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from tooldeck._tool import TextPart
from tooldeck.errors import PendingCallError, StoreUnavailable
from tooldeck.host.boundary.boundary import run_tool_call
from tooldeck.host.boundary.outcome import (
    CORRECTED_TEXT,
    DECLINED_TEXT,
    ToolCallOutcome,
    ToolError,
)
from tooldeck.host.boundary.pending import (
    PendingCall,
    describe,
    outcome_from_json,
    outcome_to_json,
    reply_from_json,
    reply_to_json,
)
from tooldeck.host.permissions import call_rules
from tooldeck.host.permissions.asks import answers_in_place, asks_deferred
from tooldeck.host.permissions.call_rules import CallRules, applying
from tooldeck.host.permissions.permission import principal_rules
from tooldeck.host.permissions.request import Reject, Reply
from tooldeck.host.store.base import PendingChange, PendingEntry, PendingState, Store
from tooldeck.host.store.calls import off_loop

if TYPE_CHECKING:
    from tooldeck.host.execution.snapshot import Snapshot
    from tooldeck.host.location.location import Location

log = logging.getLogger("tooldeck")

_T = TypeVar("_T")

LEASE_S = 30.0
"""How long a claim holds without renewal; the holder renews it every third of that."""

UNKNOWN_TEXT = (
    "The tool call was approved and started, but the process running it stopped before "
    "its outcome was recorded: it may or may not have taken effect. It was not run again."
)

# -- resuming ---------------------------------------------------------------------------


class Resume:
    """One ``resume(pending_id, reply)``: a loop over the entry's state until it holds an
    outcome. ``snapshot_for(session_id)`` gives the snapshot to run the call against."""

    def __init__(
        self, location: Location, snapshot_for: Callable[[str], Snapshot], pending_id: str
    ) -> None:
        self.location = location
        self.snapshot_for = snapshot_for
        self.id = pending_id
        self.me = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:12]}"
        self.store: Store | None = None
        self.answered_here = False
        """True once this resume answered the call (False: another answered it first)."""

    async def __call__(self, reply: Reply) -> ToolCallOutcome:
        _check_reply(reply)
        _HELD.add(self.me)
        try:
            return await self._resume(reply)
        finally:
            _HELD.discard(self.me)

    async def _resume(self, reply: Reply) -> ToolCallOutcome:
        self.store = await self._off_loop(lambda: self.location.store, "opening the store")
        delay = 0.01
        while True:
            entry = await self._get()
            self._check_principal(entry)
            if entry.state == "done":
                assert entry.outcome is not None
                return outcome_from_json(entry.outcome)
            if entry.state == "open":
                outcome = await self._answer(entry, reply)
            elif _gone(entry):
                outcome = await self._take_over(entry)
            else:  # a live resume holds it: wait for its outcome
                await asyncio.sleep(delay)
                delay = min(delay * 2, 0.5)
                continue
            if outcome is not None:
                return outcome

    async def _get(self) -> PendingEntry:
        entry = await self._off_loop(lambda: self._db().get_pending(self.id), "reading it")
        if entry is None:
            raise PendingCallError(self.id, "unknown", "there is no such pending call in the store")
        return entry

    async def _answer(self, entry: PendingEntry, reply: Reply) -> ToolCallOutcome | None:
        """Answer an open call: record a decline, or claim it and run it."""
        if time.time() > entry.expires_at:
            when = time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(entry.expires_at))
            raise PendingCallError(
                self.id,
                "expired",
                f"it expired at {when} ([permissions] pending_ttl_s); ask the model to make "
                "the call again",
            )
        pending = PendingCall.from_json(entry.data)
        snapshot = self._checked_snapshot(pending)
        if reply == "reject" or isinstance(reply, Reject):
            outcome = _declined(reply)
            change = PendingChange(
                "done", reply=reply_to_json(reply), outcome=outcome_to_json(outcome)
            )
            if not await self._move("open", "", change):
                return None
            self.answered_here = True
            return outcome
        claim = PendingChange("claimed", self.me, _lease(), reply=reply_to_json(reply))
        if not await self._move("open", "", claim):
            return None
        self.answered_here = True
        return await self._run(snapshot, pending, reply)

    async def _take_over(self, entry: PendingEntry) -> ToolCallOutcome | None:
        """The holder is gone: run a call it never started; an unclear one ends unknown."""
        pending = PendingCall.from_json(entry.data)
        assert entry.reply is not None
        reply = reply_from_json(entry.reply)  # the answer first recorded stands
        if entry.state == "claimed" or pending.idempotent:
            snapshot = self._checked_snapshot(pending)
            claim = PendingChange("claimed", self.me, _lease())
            if not await self._move(entry.state, entry.owner, claim):
                return None
            return await self._run(snapshot, pending, reply)
        outcome = ToolCallOutcome(
            "failed", (TextPart(UNKNOWN_TEXT),), error=ToolError("unknown", UNKNOWN_TEXT)
        )
        done = PendingChange("done", self.me, outcome=outcome_to_json(outcome))
        return outcome if await self._move("running", entry.owner, done) else None

    async def _run(
        self, snapshot: Snapshot, pending: PendingCall, reply: Reply
    ) -> ToolCallOutcome | None:
        """Run the call under its principal's rules (``_asking_principal``)."""
        with applying(self._asking_principal(pending)):
            return await self._run_held(snapshot, pending, reply)

    async def _run_held(
        self, snapshot: Snapshot, pending: PendingCall, reply: Reply
    ) -> ToolCallOutcome | None:
        """Hold the claim (renewing it) while the call runs; record its outcome."""
        request = pending.request
        state: list[PendingState] = ["claimed"]
        renewing = asyncio.ensure_future(self._renew(state))
        try:
            if reply == "always":
                permission = self.location.permission
                await self._off_loop(
                    lambda: permission.save(request.action, request.save),
                    "saving the 'always' answer",
                )
            if not await self._move(
                "claimed", self.me, PendingChange("running", self.me, _lease())
            ):
                return None
            state[0] = "running"
            answer: Reply = "once" if reply == "always" else reply
            answers = (*pending.answered, (request.action, request.resources, answer))
            with answers_in_place(answers), asks_deferred("defer"):
                outcome = await run_tool_call(
                    snapshot,
                    pending.call,
                    session_id=pending.session_id,
                    message_id=pending.message_id,
                    agent=pending.agent,
                )
            done = PendingChange("done", self.me, outcome=outcome_to_json(outcome))
            return outcome if await self._record(done) else None
        finally:
            renewing.cancel()

    async def _record(self, done: PendingChange) -> bool:
        """Record the outcome of a call that ran. A store that does not answer is tried
        again for as long as the claim would hold (``LEASE_S``): the tool acted, and
        an outcome lost here would leave the call ``unknown``."""
        deadline = time.monotonic() + LEASE_S
        delay = 0.1
        while True:
            try:
                return await self._move("running", self.me, done)
            except StoreUnavailable:
                if time.monotonic() + delay > deadline:
                    raise
                log.warning("recording the outcome of pending call %r: retrying", self.id)
                await asyncio.sleep(delay)
                delay = min(delay * 2, 2.0)

    async def _renew(self, state: list[PendingState]) -> None:
        while True:
            await asyncio.sleep(LEASE_S / 3)
            try:
                await self._move(state[0], self.me, PendingChange(state[0], self.me, _lease()))
            except Exception:  # retried next time; a lease that lapses meanwhile only
                # lets a later resume report the call unknown
                log.exception("could not renew the claim on pending call %r", self.id)

    def _checked_snapshot(self, pending: PendingCall) -> Snapshot:
        snapshot = self.snapshot_for(pending.session_id)
        described = describe(snapshot, pending.call.name)
        if described is None or described[1] != pending.fingerprint:
            raise PendingCallError(
                self.id,
                "changed",
                f"tool {pending.call.name!r} (from {pending.source or 'an unknown source'}) "
                "changed or was removed since the user was asked; the answer was given for "
                "the old definition, so the call is not run. Ask the model to make it again",
            )
        return snapshot

    def _check_principal(self, entry: PendingEntry) -> None:
        """Refuse a request of another principal than the one that asked (module doc)."""
        current = call_rules.current()
        if current is None:
            return  # the host's own caller, an operator: resumes as the asker
        asker = PendingCall.from_json(entry.data).principal
        if asker != current.name:
            raise PendingCallError(
                self.id,
                "principal",
                f"it was asked by {_named(asker)}, not by {_named(current.name)}; only the "
                "principal that asked, or an operator (tooldeck resume), can answer it",
            )

    def _asking_principal(self, pending: PendingCall) -> CallRules | None:
        """The rules the call resumes under: those in force (a served retry carries its
        principal's), else the rules of the principal that asked, else the Location's."""
        current = call_rules.current()
        if current is not None or pending.principal is None:
            return current
        location = self.location
        name = pending.principal
        return principal_rules(location.permission, name, location.principal_policy(name))

    async def _move(self, expect: PendingState, owner: str, change: PendingChange) -> bool:
        return await self._off_loop(
            lambda: self._db().transition(self.id, expect, owner, change),
            f"moving it to {change.state}",
        )

    async def _off_loop(self, work: Callable[[], _T], what: str) -> _T:
        return await off_loop(
            work, wait_s=self.location.store_wait_s, what=f"{what} (pending call {self.id!r})"
        )

    def _db(self) -> Store:
        assert self.store is not None
        return self.store


def _named(principal: str | None) -> str:
    return f"principal {principal!r}" if principal is not None else "the Location's own caller"


def _check_reply(reply: object) -> None:
    if reply not in ("once", "always", "reject") and not isinstance(reply, Reject):
        raise ValueError(
            f"resume reply {reply!r}: expected 'once', 'always', 'reject' or Reject(feedback)"
        )


def _declined(reply: Reply) -> ToolCallOutcome:
    """What a rejection ends as, worded as ``run_tool_call`` words the same signals."""
    if isinstance(reply, Reject):
        text = CORRECTED_TEXT.format(feedback=reply.feedback)
        return ToolCallOutcome(
            "failed", (TextPart(text),), error=ToolError("permission.rejected", text)
        )
    return ToolCallOutcome("declined", (TextPart(DECLINED_TEXT),))


def _lease() -> float:
    return time.time() + LEASE_S


_HELD: set[str] = set()
"""The owners (``Resume.me``) of the resumes running in this process: a claim of this
process whose owner is not among them was left by a resume that ended without
finishing (the store failed under it), and is gone at once, not when its lease ends."""


def _gone(entry: PendingEntry) -> bool:
    """Whether the resume holding ``entry`` is gone (see the module docstring)."""
    if entry.lease_until < time.time():
        return True
    host, _, rest = entry.owner.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    if int(pid) == os.getpid():
        return entry.owner not in _HELD
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # alive, another user's
    return False
