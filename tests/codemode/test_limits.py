"""Bad input: each program ends as a clear failure within the limits, and the next one runs.

``[codemode]`` limits are set low here so the suite stays fast; each failure must name
the limit by its config key.
"""

from __future__ import annotations

import asyncio
import resource

from tooldeck import Tool, ToolResult, tool

from .conftest import text_tool


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


async def still_serving(deck, snap):
    """The next program runs on the same pool. After a timeout it is given a snapshot with
    the default limit: it may first wait for a new worker, which a loaded machine (or
    parallel test workers) can take longer than the failed program's tight limit to start."""
    outcome = await deck.run(snap, "await tools.add(a=20, b=22)", call_id="after")
    assert outcome.status == "completed" and outcome.output["result"] == 42


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def test_empty_code(deck):
    snap = deck.snapshot(tool(add))
    outcome = await deck.run(snap, "  \n")
    assert outcome.status == "failed" and "The program is empty" in outcome.error.message
    await still_serving(deck, snap)


async def test_a_megabyte_of_code(deck):
    snap = deck.snapshot(tool(add))
    outcome = await deck.run(snap, "x = 1\n" * 180_000)
    assert outcome.status == "failed"
    assert "programs are limited to 262,144 bytes" in outcome.error.message
    await still_serving(deck, snap)


async def test_code_that_never_ends(deck):
    snap = deck.snapshot(tool(add), timeout_s=0.5)
    outcome = await deck.run(
        snap, "try:\n    while True:\n        pass\nexcept BaseException:\n    pass"
    )
    assert outcome.status == "failed"
    assert "[codemode] timeout_s = 0.5" in outcome.error.message
    await still_serving(deck, deck.snapshot(tool(add)))  # room to replace the killed worker


async def test_slow_tools_hit_the_host_side_deadline(deck):
    async def slow(inp, ctx):
        await asyncio.sleep(30)
        return ToolResult("late")

    snap = deck.snapshot(
        tool(add), Tool(name="slow", description="Slow.", execute=slow), timeout_s=0.3
    )
    outcome = await deck.run(snap, "await tools.add(a=1, b=1)\nawait tools.slow()")
    assert outcome.status == "failed"
    message = outcome.error.message
    assert "[codemode] timeout_s = 0.3" in message and "- add: completed" in message
    await still_serving(deck, deck.snapshot(tool(add)))


async def test_allocation_without_bound(deck):
    before = rss_mb()
    snap = deck.snapshot(tool(add), memory_mb=32)
    outcome = await deck.run(snap, "a = []\nwhile True:\n    a.append('x' * 10000)")
    assert outcome.status == "failed"
    assert "[codemode] memory_mb = 32" in outcome.error.message
    assert rss_mb() - before < 50
    await still_serving(deck, snap)


async def test_printing_a_hundred_megabytes(deck):
    before = rss_mb()
    snap = deck.snapshot(tool(add))
    outcome = await deck.run(snap, "s = 'x' * 1_000_000\nfor i in range(100):\n    print(s)")
    assert outcome.status == "failed"
    assert "printed more than 1,048,576 bytes" in outcome.error.message
    assert rss_mb() - before < 50
    await still_serving(deck, snap)


async def test_ten_thousand_tool_calls(deck):
    snap = deck.snapshot(tool(add), max_tool_calls=50)
    outcome = await deck.run(snap, "for i in range(10000):\n    await tools.add(a=i, b=1)")
    assert outcome.status == "failed"
    assert "[codemode] max_tool_calls = 50" in outcome.error.message
    assert len(outcome.metadata["tool_calls"]) == 50
    await still_serving(deck, snap)


async def test_an_unknown_tool(deck):
    snap = deck.snapshot(tool(add))
    outcome = await deck.run(snap, "await tools.missing(a=1)")
    assert outcome.status == "failed"
    assert "Attribute `missing`" in outcome.error.message or "missing" in outcome.error.message
    unchecked = deck.snapshot(tool(add), type_check=False)
    outcome = await deck.run(unchecked, "await tools.missing(a=1)")
    assert outcome.status == "failed" and "AttributeError" in outcome.error.message
    await still_serving(deck, snap)


async def test_a_megabyte_of_arguments(deck):
    received = []
    snap = deck.snapshot(tool(add), text_tool("echo", lambda i: received.append(i) or "ok"))
    code = (
        "try:\n    await tools.echo(text='x' * 1_000_000)\nexcept RuntimeError as e:\n"
        "    r = str(e)\nr"
    )
    outcome = await deck.run(snap, code)
    assert outcome.status == "completed" and received == []
    assert outcome.output["result"].startswith("The arguments are larger than 524,288 bytes")
    await still_serving(deck, snap)


async def test_ten_programs_at_once(deck):
    snap = deck.snapshot(tool(add))
    programs = [
        f"total = 0\nfor i in range(20):\n    total += await tools.add(a=i, b={n})\ntotal"
        for n in range(10)
    ]
    outcomes = await asyncio.gather(
        *(deck.run(snap, p, call_id=f"p{n}") for n, p in enumerate(programs))
    )
    assert [o.output["result"] for o in outcomes] == [190 + 20 * n for n in range(10)]
