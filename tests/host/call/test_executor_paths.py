"""The sync executor path validates in place; the async one through ``_executor_arguments``.

``_executor_path`` (a plain ``def`` executor) writes ``_executor_arguments`` out without
its frame (``bench/DECISIONS.md``). Pinned here to the plain form over generated inputs:
the same executor, once sync and once ``async def``, gets the same value and the same
``ToolContext``, and refuses the same input with the same text.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from tooldeck import Location, Tool, ToolCall, ToolContext, ToolFailure, ToolResult, ToolService

from ...examples import examples

SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "string", "maxLength": 2}},
    "required": ["a"],
    "additionalProperties": False,
}


class Pair(BaseModel):
    a: int
    b: str = ""


VALUES = st.none() | st.booleans() | st.integers(-3, 3) | st.text("ab1", max_size=3)
INPUTS = st.dictionaries(st.sampled_from(["a", "b", "c"]), VALUES, max_size=3)
RAW = (
    INPUTS.map(json.dumps)
    | INPUTS
    | st.sampled_from(['{"a": 1', "[1]", "", '{"a": 1, "a": 2}', "null"])
)


def seen(received: list[tuple[Any, ToolContext]], value: Any, ctx: ToolContext) -> ToolResult:
    received.append((value.model_dump() if isinstance(value, BaseModel) else value, ctx))
    return ToolResult("ok")


def run_both(source: Any, raw: Any) -> list[tuple[Any, ...]]:
    """What a sync and an async executor of ``source`` get and return for ``raw``."""
    received: list[tuple[Any, ToolContext]] = []

    def sync(value: Any, ctx: ToolContext) -> ToolResult:
        return seen(received, value, ctx)

    async def asynchronous(value: Any, ctx: ToolContext) -> ToolResult:
        return seen(received, value, ctx)

    service = ToolService(Location(".", data_dir="/nonexistent/tooldeck-test"))
    tools = [
        Tool(name=n, description="d", input=source, execute=e)
        for n, e in (("sync", sync), ("async", asynchronous))
    ]
    service.transform(lambda editor: [editor.add(t) for t in tools], source="test")
    snapshot = service.snapshot()
    results = []
    for name in ("sync", "async"):
        call = ToolCall("c1", name, raw)
        try:
            executed = asyncio.run(snapshot.execute(call, message_id="m1", agent="a"))
            value, ctx = received.pop()
            results.append(("done", executed, value, ctx._replace(location=None)))
        except ToolFailure as exc:
            results.append(("refused", exc.message.replace(f"'{name}'", "'tool'")))
    return results


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(source=st.sampled_from([SCHEMA, Pair]), raw=RAW)
def test_the_sync_executor_path_validates_as_executor_arguments_does(source, raw):
    sync, asynchronous = run_both(source, raw)
    assert sync == asynchronous


def test_both_paths_hand_the_executor_its_context():
    (kind, _, value, ctx), _ = run_both(Pair, '{"a": 1}')
    assert (kind, value) == ("done", {"a": 1, "b": ""})
    assert (ctx.call_id, ctx.message_id, ctx.agent) == ("c1", "m1", "a")
