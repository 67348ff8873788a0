"""Where a W3 call's time goes: each step of ``snapshot.execute`` timed on its own.

    .venv/bin/python bench/profile_w3.py          # Markdown tables: steps, then cProfile

The steps are the pieces the execution boundary runs for ``tool(add)`` called with
``'{"a": 1, "b": 2}'``, each timed in isolation (CPU time, best of 9 rounds of 50,000
calls, the cost of an empty lambda subtracted), next to the whole call and the W3 floor.
A step's number is what it costs on its own; the pieces of one call overlap a little
(frames, attribute loads), so they need not add up to the whole call exactly. The
cProfile table shows the same call by function (cProfile's own overhead inflates it).
"""

from __future__ import annotations

import asyncio
import cProfile
import gc
import json
import pstats
import time
from collections.abc import Callable
from typing import Any

from w3_inprocess import ARGS, SCHEMA, add, snapshot  # the same fixture as the A/B timings

from tooldeck import Tool, ToolCall, ToolResult, run_tool_call, tool
from tooldeck.host.call.arguments import arguments_of
from tooldeck.host.registry.record import record_of

CALLS = 50_000


def per_call(fn: Callable[[], Any], *, awaited: bool = False) -> float:
    """Best CPU seconds per call of ``fn`` (``await fn()`` inside one coroutine if asked)."""

    async def rounds_awaited() -> float:
        start = time.thread_time()
        for _ in range(CALLS):
            await fn()
        return time.thread_time() - start

    def rounds() -> float:
        start = time.thread_time()
        for _ in range(CALLS):
            fn()
        return time.thread_time() - start

    loop = asyncio.new_event_loop()
    best = min(loop.run_until_complete(rounds_awaited()) if awaited else rounds() for _ in range(9))
    loop.close()
    return best / CALLS


async def _nothing() -> None:
    return None


def schema_tool() -> Any:
    def execute(args: Any, ctx: Any) -> ToolResult:
        return ToolResult(output=args["a"] + args["b"])

    return Tool(
        name="add_schema",
        description="Add two integers.",
        input=SCHEMA,
        output={"type": "integer"},
        execute=execute,
    )


def steps() -> list[tuple[str, Callable[[], Any]]]:
    from tooldeck._tool import ToolContext, tuple_new
    from tooldeck.host.call import path
    from tooldeck.host.call.content import render_output

    fn_tool, by_schema = tool(add), schema_tool()
    snap = snapshot(fn_tool, by_schema)
    call, schema_call = ToolCall("c1", "add", ARGS), ToolCall("c1", "add_schema", ARGS)
    record, schema_record = record_of(fn_tool), record_of(by_schema)
    snap.execute_sync(call), snap.execute_sync(schema_call)
    model = record.input_json(ARGS)
    arguments = arguments_of(fn_tool.execute)  # type: ignore[arg-type]
    fields = (snap.location, "", "", "c1", None, None, None)
    ctx = tuple_new(ToolContext, fields)
    images = snap.location.config.images
    loads = json.loads
    return [
        ("floor: `add(**json.loads(s))`", lambda: add(**loads(ARGS))),
        ("`ToolCall('c1', 'add', s)` (the caller builds it)", lambda: ToolCall("c1", "add", ARGS)),
        ("`json.loads(s)`", lambda: loads(ARGS)),
        ("input: model `validate_json(s)`", lambda: record.input_json(ARGS)),
        ("input: `tool(fn)` arguments (fast path)", lambda: arguments(ARGS)),
        ("input: JSON Schema validator", lambda: schema_record.input_json(ARGS)),
        ("`ToolContext(...)` (constructor)", lambda: ToolContext(*fields)),
        ("`ToolContext` by `tuple_new`", lambda: tuple_new(ToolContext, fields)),
        (
            "`tool.execute(model, ctx)`: `add(**fields)` + `ToolResult`",
            lambda: fn_tool.execute(model, ctx),
        ),
        ("output check of `3`", lambda: record.output_validator(3)),
        ("`render_output(3)`", lambda: render_output(3)),
        (
            "`_finished`: output contract, content, `ExecutedTool`",
            lambda: path._finished(record, None, {}, 3, images),
        ),
        ("whole: `snap.execute_sync(call)`", lambda: snap.execute_sync(call)),
    ]


def awaited_steps() -> list[tuple[str, Callable[[], Any]]]:
    snap = snapshot(tool(add), schema_tool())
    call, schema_call = ToolCall("c1", "add", ARGS), ToolCall("c1", "add_schema", ARGS)
    return [
        ("whole: `await snap.execute(call)`", lambda: snap.execute(call)),
        ("whole: JSON Schema, `await snap.execute(call)`", lambda: snap.execute(schema_call)),
        ("whole: `await run_tool_call(snap, call)`", lambda: run_tool_call(snap, call)),
        ("(reference) `await` of a coroutine that returns at once", _nothing),
    ]


def main() -> None:
    timed, timed_awaited = steps(), awaited_steps()
    gc.disable()
    empty = per_call(lambda: None)
    print("| step | ns per call |\n|---|---|")
    for name, fn in timed:
        print(f"| {name} | {max(per_call(fn) - empty, 0) * 1e9:.0f} |")
    for name, fn in timed_awaited:
        print(f"| {name} | {max(per_call(fn, awaited=True) - empty, 0) * 1e9:.0f} |")
    snap = snapshot(tool(add))
    call = ToolCall("c1", "add", ARGS)
    profiler = cProfile.Profile()
    profiler.runcall(lambda: [snap.execute_sync(call) for _ in range(CALLS)])
    stats = pstats.Stats(profiler).sort_stats("tottime")
    print(f"\ncProfile, {CALLS:,} x `snap.execute_sync(call)` (top functions by own time):\n")
    print("| function | calls | own s |\n|---|---|---|")
    for (file, line, name), (_, calls, own, _, _) in sorted(
        stats.stats.items(),
        key=lambda item: -item[1][2],  # type: ignore[attr-defined]
    )[:10]:
        where = file.rsplit("/src/", 1)[-1] if "/src/" in file else file.rsplit("/", 1)[-1]
        print(f"| `{name}` ({where}:{line}) | {calls:,} | {own:.3f} |")


if __name__ == "__main__":
    main()
