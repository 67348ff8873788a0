"""The service's waiting places hold across threads and event loops, and a call waiting
at one never stalls its own loop."""

from __future__ import annotations

import asyncio
import threading

from tooldeck.host.boundary.gates import Gates

PATIENCE = 30  # seconds a thread is given to reach a point it must reach


class Holder(threading.Thread):
    """A thread whose own event loop enters ``place`` and stays until ``release`` is set."""

    def __init__(self, place) -> None:
        super().__init__()
        self.place = place
        self.inside = threading.Event()
        self.release = threading.Event()

    def run(self) -> None:
        async def hold():
            async with self.place:
                self.inside.set()
                while not self.release.is_set():
                    await asyncio.sleep(0.005)

        asyncio.run(hold())


def test_a_call_waiting_for_a_slot_held_in_another_loop_leaves_its_loop_running():
    slots = Gates().slots("tool", 1)
    holder = Holder(slots)
    holder.start()
    assert holder.inside.wait(PATIENCE)
    ticked, entered = threading.Event(), threading.Event()

    async def wait_and_tick():
        async def enter():
            async with slots:
                entered.set()

        async def tick():
            for _ in range(5):
                await asyncio.sleep(0)
            ticked.set()

        await asyncio.gather(enter(), tick())

    waiter = threading.Thread(target=asyncio.run, args=(wait_and_tick(),))
    waiter.start()
    assert ticked.wait(PATIENCE)  # its loop ran on while the call waited
    assert not entered.is_set()
    holder.release.set()
    waiter.join(PATIENCE)
    holder.join(PATIENCE)
    assert entered.is_set()


def test_a_cancelled_wait_gives_back_nothing_and_takes_nothing():
    slots = Gates().slots("tool", 1)
    holder = Holder(slots)
    holder.start()
    assert holder.inside.wait(PATIENCE)

    async def give_up():
        async def enter():
            async with slots:
                raise AssertionError("entered a held slot")

        try:
            async with asyncio.timeout(0.05):
                await enter()
        except TimeoutError:
            return "gave up"

    assert asyncio.run(give_up()) == "gave up"
    holder.release.set()
    holder.join(PATIENCE)

    async def enter_twice():
        async with slots:
            pass
        async with slots:
            return "entered"

    assert asyncio.run(enter_twice()) == "entered"


def test_a_slot_freed_to_a_call_cancelled_meanwhile_passes_on():
    """Cancelled after the slot was handed to it, a waiter passes the slot to the next."""
    slots = Gates().slots("tool", 1)

    async def scenario():
        await slots.__aenter__()
        first = asyncio.create_task(slots.__aenter__())
        second = asyncio.create_task(slots.__aenter__())
        await asyncio.sleep(0)  # both wait in line
        await slots.__aexit__(None, None, None)  # the slot goes to ``first`` ...
        first.cancel()  # ... which is cancelled before it runs again
        await asyncio.wait_for(second, PATIENCE)
        return first.cancelled()

    assert asyncio.run(scenario()) is True


def test_a_sequential_turn_excludes_the_sessions_calls_in_other_loops():
    gates = Gates()
    holder = Holder(gates.turn("s", exclusive=True))
    holder.start()
    assert holder.inside.wait(PATIENCE)
    entered = threading.Event()

    async def ordinary():
        async with gates.turn("s", exclusive=False):
            entered.set()

    other_session = asyncio.run(asyncio.wait_for(gates.turn("t", exclusive=False).__aenter__(), 5))
    assert other_session is None  # another session is not held back
    waiter = threading.Thread(target=asyncio.run, args=(ordinary(),))
    waiter.start()
    assert not entered.wait(0.1)
    holder.release.set()
    waiter.join(PATIENCE)
    holder.join(PATIENCE)
    assert entered.is_set()


def test_a_finished_session_leaves_no_turns_behind():
    gates = Gates()

    async def calls():
        async with gates.turn("s", exclusive=True):
            pass
        await asyncio.gather(*(turn_of("s") for _ in range(3)))

    async def turn_of(session):
        async with gates.turn(session, exclusive=False):
            await asyncio.sleep(0)

    asyncio.run(calls())
    assert gates._turns == {}  # what a long-running service keeps
