"""``lazy.running_loop``: asyncio's answer to "which loop runs in this thread", by one
call once asyncio is loaded, and "none" before it is (``bench/DECISIONS.md``)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading

from tooldeck.host.execution import lazy


def test_running_loop_is_asyncios_answer_inside_and_outside_a_loop() -> None:
    assert lazy.running_loop() is None is asyncio.events._get_running_loop()
    assert not lazy.loop_running()

    async def inside() -> tuple[object, object, bool]:
        return lazy.running_loop(), asyncio.get_running_loop(), lazy.loop_running()

    seen, running, flagged = asyncio.run(inside())
    assert seen is running and flagged
    assert lazy.running_loop() is None


def test_running_loop_answers_per_thread() -> None:
    seen: list[object] = []

    async def in_this_thread() -> None:
        other = threading.Thread(target=lambda: seen.append(lazy.running_loop()))
        other.start()
        other.join()
        seen.append(lazy.running_loop())

    asyncio.run(in_this_thread())
    assert seen[0] is None and seen[1] is not None


def test_before_asyncio_is_loaded_no_loop_and_nothing_imported() -> None:
    """In a fresh process: no loop without asyncio, asyncio not imported to find out, and
    once a loop runs, the same answer as asyncio's."""
    program = """
import sys
from tooldeck.host.execution import lazy
assert lazy.running_loop() is None and not lazy.loop_running()
assert "asyncio" not in sys.modules
import asyncio
async def inside():
    return lazy.running_loop() is asyncio.get_running_loop() and lazy.loop_running()
assert asyncio.run(inside())
assert lazy.running_loop is asyncio.events._get_running_loop
assert lazy.running_loop() is None
"""
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
