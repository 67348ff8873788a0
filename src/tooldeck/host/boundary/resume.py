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
for the outcome. "Gone" means: a process on this host whose pid no longer exists, or a
lease older than ``LEASE_S`` (any host).

The call runs again from the start, with the reply in place of the question
(``answers_in_place``) and further asks deferred: a second question ends the resumed
call ``pending`` again, under a new id, recorded as this id's outcome.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING

from tooldeck._tool import TextPart
from tooldeck.errors import PendingCallError
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
from tooldeck.host.permissions.asks import answers_in_place, asks_deferred
from tooldeck.host.permissions.request import Reject, Reply
from tooldeck.host.store.base import PendingChange, PendingEntry, PendingState, Store

if TYPE_CHECKING:
    from tooldeck.host.execution.snapshot import Snapshot
    from tooldeck.host.location.location import Location

log = logging.getLogger("tooldeck")

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

    async def __call__(self, reply: Reply) -> ToolCallOutcome:
        _check_reply(reply)
        self.store = await asyncio.to_thread(lambda: self.location.store)
        delay = 0.01
        while True:
            entry = await self._get()
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
        entry = await asyncio.to_thread(self._db().get_pending, self.id)
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
            return outcome if await self._move("open", "", change) else None
        claim = PendingChange("claimed", self.me, _lease(), reply=reply_to_json(reply))
        if not await self._move("open", "", claim):
            return None
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
        """Hold the claim (renewing it) while the call runs; record its outcome."""
        request = pending.request
        state: list[PendingState] = ["claimed"]
        renewing = asyncio.ensure_future(self._renew(state))
        try:
            if reply == "always":
                await asyncio.to_thread(self.location.permission.save, request.action, request.save)
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
            return outcome if await self._move("running", self.me, done) else None
        finally:
            renewing.cancel()

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

    async def _move(self, expect: PendingState, owner: str, change: PendingChange) -> bool:
        return await asyncio.to_thread(self._db().transition, self.id, expect, owner, change)

    def _db(self) -> Store:
        assert self.store is not None
        return self.store


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


def _gone(entry: PendingEntry) -> bool:
    """Whether the resume holding ``entry`` is gone (see the module docstring)."""
    if entry.lease_until < time.time():
        return True
    host, _, rest = entry.owner.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # alive, another user's
    return False
