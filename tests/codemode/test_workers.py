"""A program's conversation is driven by one sandbox thread, off the loop, and its worker
and slot come back however the program ends."""

from __future__ import annotations

import threading

import pytest

from tooldeck._tool import ToolFailure
from tooldeck.codemode.conversation import Defer, Done, Settle, Settled, Wait
from tooldeck.codemode.sandbox import Limits, SandboxPool, SandboxSession
from tooldeck.codemode.workers import program_steps

LIMITS = Limits(timeout_s=10, memory_bytes=64 << 20, suspensions=1000)
THREE_CALLS = "t = 0\nfor i in range(3):\n    t = t + await f(i)\nt"


def steps_of(pool: SandboxPool, code, answer):
    """``program_steps`` of a fresh session running ``code``."""
    session = SandboxSession(pool, LIMITS, stubs=None, values={"f": print})
    return program_steps(pool.slots, session.conversation(code, answer), session.kill)


async def test_one_sandbox_thread_answers_every_call_of_a_program(pool):
    threads = set()

    def answer(call):
        threads.add(threading.get_ident())
        return Defer()

    steps = steps_of(pool, THREE_CALLS, answer)
    step = await anext(steps)
    while not isinstance(step, Done):
        assert type(step) is Wait
        step = await steps.asend(Settle({i: Settled(10) for i in step.call_ids}))
    await steps.aclose()
    assert step.output == 30
    assert len(threads) == 1 and threading.get_ident() not in threads
    assert pool.slots.in_use == 0


async def test_closing_mid_program_gives_the_worker_and_slot_back(pool):
    steps = steps_of(pool, THREE_CALLS, lambda call: Defer())
    assert type(await anext(steps)) is Wait
    assert pool.slots.in_use == 1
    await steps.aclose()
    assert pool.slots.in_use == 0
    again = steps_of(pool, "1 + 1", lambda call: Defer())
    assert (await anext(again)).output == 2  # the one worker is free again
    await again.aclose()


async def test_what_the_answer_raises_ends_the_program_there(pool):
    def refuse(call):
        raise ToolFailure("no more calls")

    steps = steps_of(pool, THREE_CALLS, refuse)
    with pytest.raises(ToolFailure, match="no more calls"):
        await anext(steps)
    await steps.aclose()
    assert pool.slots.in_use == 0
