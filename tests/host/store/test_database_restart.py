"""A store that survives its database: the real PostgreSQL server is stopped and started
again while a host defers, resumes and approves calls.

The host keeps going without a restart of its own. While the database is away each call
that needs it either waits for it (within ``[store] timeout_s``) or ends with a clear,
retryable error; afterwards the store holds every pending call and approval that was
reported saved, and no payment was made twice.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter

import pytest

from tooldeck import Host, PostgresStore, StoreUnavailable, ToolCall, run_tool_call
from tooldeck.host.config.config import StoreConfig

from ...postgres import PostgresServer
from ..boundary.payments import Payments, effects

WORKERS = 4
MAX_ROUNDS = 200
AFTER = 3
"""Rounds each worker makes once the database is back (and at most ``MAX_ROUNDS``)."""
TIMEOUT_S = 1.5


@pytest.fixture
def server():
    own = PostgresServer()
    own.start()
    yield own
    own.close()


def open_host(tmp_path, store):
    root = tmp_path / "root"
    root.mkdir(exist_ok=True)
    host = Host.open(
        root,
        plugins=[Payments(tmp_path / "effects")],
        data_dir=tmp_path / "data",
        store=store,
        on_ask="defer",
    )
    host.location.config = host.location.config.model_copy(
        update={"store": StoreConfig(timeout_s=TIMEOUT_S)}
    )
    return host


class Ledger:
    """What the workers were told: pending calls reported saved, approvals given,
    resumes reported done, and every failure (each must be a retryable
    ``unavailable``)."""

    def __init__(self) -> None:
        self.deferred: list[str] = []
        self.paid: dict[str, str] = {}  # pending id -> the payee the call pays
        self.resumed: list[str] = []
        self.approved: list[str] = []
        self.failures: list[str] = []
        self.during_outage = 0  # rounds in flight at some time while the database was down


async def worker(
    host: Host, index: int, ledger: Ledger, down: threading.Event, back: threading.Event
) -> None:
    """Rounds of defer, resume and approve, through the outage and ``AFTER`` past it."""
    after = 0
    for round_ in range(MAX_ROUNDS):
        if back.is_set():
            after += 1
            if after > AFTER:
                return
        began = (down.is_set(), back.is_set())
        try:
            await one_round(host, f"w{index}-r{round_}", ledger)
        finally:  # a round that began before the outage may end after it, never seeing it
            ledger.during_outage += began[0] or down.is_set() or (not began[1] and back.is_set())
        await asyncio.sleep(0.05)


async def one_round(host: Host, payee: str, ledger: Ledger) -> None:
    """Defer a payment, resume it, approve its payee."""
    outcome = await run_tool_call(host.snapshot(), ToolCall(f"c-{payee}", "pay", {"to": payee}))
    if outcome.status != "pending":
        assert (outcome.status, outcome.error.type) == ("failed", "unavailable"), outcome
        ledger.failures.append(outcome.content[0].text)
        return
    pending = outcome.pending.id
    ledger.deferred.append(pending)
    ledger.paid[pending] = payee
    try:
        done = await host.resume(pending, "once")
    except StoreUnavailable as exc:
        ledger.failures.append(str(exc))
    else:
        assert done.content[0].text == f"paid {payee}", done
        ledger.resumed.append(pending)
    # an "always": applies at once; a store that is away takes it on a later save
    await asyncio.to_thread(host.location.permission.save, "approve", [payee])
    ledger.approved.append(payee)


def test_stopping_and_starting_the_database_under_load_loses_nothing_and_runs_nothing_twice(
    server, tmp_path, caplog
):
    store = PostgresStore(server.dsn, schema="restart", timeout_s=TIMEOUT_S)
    host = open_host(tmp_path, store)
    ledger = Ledger()
    down, back = threading.Event(), threading.Event()

    def restart() -> None:
        time.sleep(1.0)  # the workers are under way
        down.set()
        server.stop()
        time.sleep(2.0)  # longer than one operation's bound
        server.start()
        down.clear()
        back.set()

    async def load():
        mover = threading.Thread(target=restart)
        mover.start()
        workers = (worker(host, index, ledger, down, back) for index in range(WORKERS))
        await asyncio.gather(*workers)
        await asyncio.to_thread(mover.join, 60)
        return back.is_set()

    try:
        assert asyncio.run(load())
        # recovered without a restart of the host: a call that needs the store is served
        after = asyncio.run(run_tool_call(host.snapshot(), ToolCall("c-after", "pay", {"to": "x"})))
        assert after.status == "pending"
        host.location.permission.save("approve", ["after"])  # saves what the outage held
        # calls whose resume met the outage are answered now, each exactly once
        unfinished = [p for p in ledger.deferred if p not in ledger.resumed]
        for pending in unfinished:
            outcome = asyncio.run(host.resume(pending, "once"))
            assert outcome.status in ("completed", "failed"), outcome
            if outcome.status == "failed":  # the tool may have acted: never run again
                assert outcome.error.type == "unknown"
        check = PostgresStore(server.dsn, schema="restart")
        try:
            missing = [p for p in ledger.deferred if check.get_pending(p) is None]
            states = Counter(check.get_pending(p).state for p in ledger.deferred)
            saved = {rule.resource for rule in check.approvals()}
        finally:
            check.close()
    finally:
        host.close()
        store.close()
    made = Counter(effects(tmp_path / "effects"))
    assert missing == []  # every call reported pending is in the store
    assert states == {"done": len(ledger.deferred)}
    assert {*ledger.approved, "after"} <= saved  # every approval given is saved
    assert max(made.values()) == 1  # nothing paid twice...
    assert {ledger.paid[p] for p in ledger.resumed} <= set(made)  # ...and every resume paid
    assert ledger.during_outage > 0  # the load did meet the outage
    assert all("did not answer within" in failure for failure in ledger.failures), ledger.failures
