"""``tooldeck_loop_guard``: a test fails when its event loop stalls, never for slowness."""

from __future__ import annotations

import asyncio
import time

from tooldeck.testing.loop_guard import LoopGuard

GUARDED = """
import asyncio, time

async def test_blocks_the_loop(tooldeck_loop_guard):
    tooldeck_loop_guard.threshold_s = 0.3
    await asyncio.sleep(0.2)
    time.sleep(1.0)  # a blocking call on the loop's thread
    await asyncio.sleep(0.2)

async def test_awaits_a_thread(tooldeck_loop_guard):
    tooldeck_loop_guard.threshold_s = 0.3
    await asyncio.to_thread(time.sleep, 1.0)  # slow, but the loop keeps answering
"""


def test_the_fixture_fails_a_stalling_test_and_passes_a_slow_one(pack_tests):
    result = pack_tests(GUARDED)
    result.assert_outcomes(passed=2, errors=1)
    result.stdout.fnmatch_lines(["*the event loop stalled for *s (the guard allows 0.3 s)*"])
    assert "test_awaits_a_thread" not in result.stdout.str().split("short test summary")[-1]


def test_time_the_loop_is_not_running_is_not_a_stall():
    loop = asyncio.new_event_loop()
    try:
        guard = LoopGuard(loop, threshold_s=0.3, interval_s=0.01).start()
        loop.run_until_complete(asyncio.sleep(0.1))
        time.sleep(0.8)  # between two runs of the loop, as between fixtures
        loop.run_until_complete(asyncio.sleep(0.1))
        guard.stop()
    finally:
        loop.close()
    assert not guard.stalled, guard.report()
