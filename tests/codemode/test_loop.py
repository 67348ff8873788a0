"""Programs never hold the event loop: they run off it, are cancelled at once, wait for a
worker within their limit, and every bad result or argument is a clear failure."""

from __future__ import annotations

import asyncio

from tooldeck import Tool, ToolCall, ToolResult, tool
from tooldeck.errors import PermissionDeclined

from .test_runner import until


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


async def test_a_busy_program_leaves_the_loop_free(deck):
    snap = deck.snapshot(tool(add), timeout_s=1)
    ticks = 0

    async def tick():
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    ticker = asyncio.create_task(tick())
    try:
        outcome = await deck.run(snap, "while True:\n    pass")
    finally:
        ticker.cancel()
    assert outcome.status == "failed" and "stopped after 1 seconds" in outcome.error.message
    assert ticks > 10  # the loop ran all along


async def test_cancelling_execute_stops_the_program_and_frees_its_worker(deck):
    snap = deck.snapshot(tool(add), timeout_s=60)
    pool = deck.provider._sandbox(snap.location)
    running = asyncio.ensure_future(deck.run(snap, "while True:\n    pass"))
    await until(lambda: pool.slots.in_use == 1)
    await asyncio.sleep(0.2)  # the program is inside its loop now
    running.cancel()
    await asyncio.gather(running, return_exceptions=True)
    assert running.cancelled()
    await until(lambda: pool.slots.in_use == 0, seconds=20)  # not after the 60 s limit
    assert (await deck.run(snap, "await tools.add(a=1, b=2)")).output["result"] == 3


async def test_waiting_for_a_worker_counts_against_the_limit(deck):
    gate = asyncio.Event()

    async def hold(input, ctx):
        await gate.wait()
        return ToolResult("held")

    holding = deck.snapshot(Tool(name="hold", description="Hold.", execute=hold), timeout_s=60)
    pool = deck.provider._sandbox(holding.location)
    holders = [
        asyncio.ensure_future(deck.run(holding, "await tools.hold()", call_id=f"h{n}"))
        for n in range(pool.slots.size)
    ]
    try:
        await until(lambda: pool.busy)
        waiting = [
            asyncio.ensure_future(deck.run(holding, "await tools.hold()", call_id=f"w{n}"))
            for n in range(8)
        ]
        await asyncio.sleep(0.2)
        # Waiting programs hold no thread of the loop's default executor: it still serves.
        assert await asyncio.wait_for(asyncio.to_thread(lambda: "free"), 10) == "free"
        late = deck.snapshot(tool(add), timeout_s=0.5)
        outcome = await deck.run(late, "await tools.add(a=1, b=2)", call_id="late")
    finally:
        gate.set()
    assert [(await w).output["result"] for w in waiting] == ["held"] * len(waiting)
    assert outcome.status == "failed"
    assert "did not start: every sandbox worker stayed busy" in outcome.error.message
    assert "[codemode] timeout_s = 0.5" in outcome.error.message
    assert [(await h).output["result"] for h in holders] == ["held"] * len(holders)


async def test_nested_execute_beyond_the_pool_is_refused(deck):
    holder = {}

    async def nest(input, ctx):
        depth = input["depth"]
        code = f"await tools.nest(depth={depth + 1})"
        done = await holder["snap"].execute(ToolCall(f"n{depth}", "execute", {"code": code}))
        return ToolResult(done.content)

    schema = {"type": "object", "properties": {"depth": {"type": "integer"}}}
    snap = deck.snapshot(
        Tool(name="nest", description="Nest.", input=schema, execute=nest), timeout_s=30
    )
    holder["snap"] = snap
    outcome = await deck.run(snap, "await tools.nest(depth=1)")
    assert outcome.status == "failed"
    assert "Nested execute is refused beyond the pool" in outcome.error.message
    assert "stopped after" not in outcome.error.message
    pool = deck.provider._sandbox(snap.location)
    await until(lambda: pool.slots.in_use == 0)


async def test_search_is_limited_apart_from_tool_calls(deck):
    snap = deck.snapshot(tool(add), max_tool_calls=5)
    outcome = await deck.run(snap, "for i in range(150):\n    await search('add')\n1")
    assert outcome.status == "failed"
    assert "called search() more than 100 times" in outcome.error.message
    assert "tool calls" not in outcome.error.message.split("\n")[0].replace("a tool call", "")
    ok = await deck.run(snap, "for i in range(50):\n    await search('add')\n1")
    assert ok.status == "completed"


async def test_a_declined_call_in_gather_cancels_its_siblings_and_names_what_completed(deck):
    cancelled = asyncio.Event()

    async def slow(input, ctx):
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return ToolResult("slow")

    def deny(input, ctx):
        raise PermissionDeclined("edit", ["x"])

    snap = deck.snapshot(
        tool(add),
        Tool(name="slow", description="Slow.", execute=slow),
        Tool(name="deny", description="Deny.", execute=deny),
    )
    code = "import asyncio\nawait asyncio.gather(tools.add(a=1, b=2), tools.slow(), tools.deny())"
    outcome = await asyncio.wait_for(deck.run(snap, code), 30)
    assert outcome.status == "declined"
    text = outcome.content[0].text
    assert "completed before it was declined" in text and "- add" in text
    assert "- slow" not in text
    assert cancelled.is_set()


async def test_results_json_cannot_hold_are_clear_failures(deck):
    snap = deck.snapshot(tool(add))
    raw = await deck.run(snap, "b'\\x00\\xff'")
    assert raw.status == "failed" and raw.error.type == "tool.execution"
    assert "bytes" in raw.error.message
    deep = await deck.run(snap, "x = []\nfor i in range(100000):\n    x = [x]\nx")
    assert deep.status == "failed" and deep.error.type == "tool.execution", deep.content
    assert "nests too deeply" in deep.error.message


async def test_a_deeply_nested_argument_is_that_calls_failure(deck):
    snap = deck.snapshot(tool(add), type_check=False)
    code = (
        "x = 1\nfor i in range(10000):\n    x = [x]\n"
        "try:\n    await tools.add(a=x, b=1)\nexcept RuntimeError as e:\n    r = str(e)\nr"
    )
    outcome = await deck.run(snap, code)
    assert outcome.status == "completed", outcome.content
    assert "too deeply" in outcome.output["result"]


async def test_returning_tools_shows_no_host_address(deck):
    snap = deck.snapshot(tool(add))
    outcome = await deck.run(snap, "tools")
    assert outcome.status == "completed", outcome.content
    assert "0x" not in outcome.content[0].text
    assert "tools namespace" in outcome.content[0].text
