"""W3's tooldeck calls timed in one process, by CPU time: an A/B tool for the hot path.

    .venv/bin/python bench/w3_inprocess.py [ROUNDS]            # this tree
    PYTHONPATH=/other/tree/src .venv/bin/python bench/w3_inprocess.py   # another tree

Prints JSON: nanoseconds per call, best of ROUNDS (default 7) rounds of 20,000 calls, for the
floor (``add(**json.loads(s))``, as in the shared W3), the tooldeck rows of W3 and a
``Tool`` whose input is a pydantic model and whose executor returns a ``ToolResult``.
CPU time (``time.thread_time``) rather than wall time: on the shared, loaded 2-core box
it is what stays comparable between two trees run one after the other. The shared W3
driver (``bash bench/run.sh``) stays the reference for the published ratios.
"""

from __future__ import annotations

import asyncio
import gc
import json
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel

from tooldeck import Location, Tool, ToolCall, ToolResult, ToolService, run_tool_call, tool

ARGS = '{"a": 1, "b": 2}'
SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    "required": ["a", "b"],
    "additionalProperties": False,
}
CALLS = 20_000
LOOP = asyncio.new_event_loop()


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


async def add_async(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


class AddInput(BaseModel):
    a: int
    b: int


def snapshot(*tools: Any) -> Any:
    location = Location(tempfile.gettempdir(), data_dir=tempfile.mkdtemp())
    service = ToolService(location)
    service.transform(lambda editor: [editor.add(t) for t in tools], source="bench")
    return service.snapshot()


def timed_sync(fn: Callable[[str], Any]) -> Callable[[], float]:
    def run() -> float:
        start = time.thread_time()
        for _ in range(CALLS):
            fn(ARGS)
        return (time.thread_time() - start) / CALLS

    return run


def timed_async(fn: Callable[[str], Awaitable[Any]]) -> Callable[[], float]:
    async def body() -> float:
        start = time.thread_time()
        for _ in range(CALLS):
            await fn(ARGS)
        return (time.thread_time() - start) / CALLS

    return lambda: LOOP.run_until_complete(body())


def cases() -> dict[str, Callable[[], float]]:
    loads, call = json.loads, ToolCall
    plain = snapshot(tool(add))
    awaited = snapshot(tool(add_async, name="add"))
    schema = snapshot(
        Tool(
            name="add",
            description="Add two integers.",
            input=SCHEMA,
            output={"type": "integer"},
            execute=lambda args, ctx: ToolResult(output=args["a"] + args["b"]),
        )
    )
    model = snapshot(
        Tool(
            name="add",
            description="Add two integers.",
            input=AddInput,
            output={"type": "integer"},
            execute=lambda args, ctx: ToolResult(output=args.a + args.b),
        )
    )
    assert plain.execute_sync(call("c1", "add", ARGS)).output == 3
    assert schema.execute_sync(call("c1", "add", ARGS)).output == 3
    assert model.execute_sync(call("c1", "add", ARGS)).output == 3
    return {
        "floor": timed_sync(lambda s: add(**loads(s))),
        "execute": timed_async(lambda s: plain.execute(call("c1", "add", s))),
        "execute, async def tool": timed_async(lambda s: awaited.execute(call("c1", "add", s))),
        "execute_sync": timed_sync(lambda s: plain.execute_sync(call("c1", "add", s))),
        "JSON-Schema input": timed_async(lambda s: schema.execute(call("c1", "add", s))),
        "pydantic-model tool, execute": timed_async(lambda s: model.execute(call("c1", "add", s))),
        "pydantic-model tool, execute_sync": timed_sync(
            lambda s: model.execute_sync(call("c1", "add", s))
        ),
        "run_tool_call": timed_async(lambda s: run_tool_call(plain, call("c1", "add", s))),
    }


def pydantic_ai_toolset() -> Callable[[], float] | None:
    """The shared W3's "pydantic-ai toolset call (async add)", when pydantic-ai is there."""
    try:
        from pydantic_ai.models.test import TestModel
        from pydantic_ai.tools import RunContext
        from pydantic_ai.toolsets import FunctionToolset
        from pydantic_ai.usage import RunUsage
    except ImportError:
        return None
    toolset: Any = FunctionToolset()
    toolset.add_function(add_async, name="add")
    ctx = RunContext(deps=None, model=TestModel(), usage=RunUsage())
    found = LOOP.run_until_complete(toolset.get_tools(ctx))["add"]
    validate = found.args_validator.validate_json
    return timed_async(lambda s: toolset.call_tool("add", validate(s), ctx, found))


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    timers = cases()
    peer = pydantic_ai_toolset()
    if peer is not None:
        timers["pydantic-ai toolset call (async add)"] = peer
    print(json.dumps(best_of(timers, rounds)))


def best_of(timers: dict[str, Callable[[], float]], rounds: int) -> dict[str, int]:
    """Nanoseconds per call, the best of ``rounds`` rounds, the timers run in turn, GC off."""
    gc.disable()
    best = dict.fromkeys(timers, float("inf"))
    for _ in range(rounds):
        for name, timer in timers.items():
            best[name] = min(best[name], timer())
    return {name: round(seconds * 1e9) for name, seconds in best.items()}


if __name__ == "__main__":
    main()
