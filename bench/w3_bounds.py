"""How fast the W3 rows could be at best, under tooldeck's contract.

    /tmp/peers/bin/python bench/w3_bounds.py [ROUNDS]

Prints JSON, nanoseconds per call (CPU time, best of ROUNDS rounds of 20,000 calls, the
same timers as ``w3_inprocess.py``), for pydantic-ai's toolset call, tooldeck's
``tool(fn)`` (``execute``, ``run_tool_call``), pydantic-model and JSON Schema rows, and a
*bound* for each: the whole call written out in
one function, with no frame the contract does not force. A bound still builds what the
contract hands around per call (the caller's ``ToolCall``; for an executor tool the
``ToolContext`` it takes and the ``ToolResult`` it returns; the ``ExecutedTool``; for
``run_tool_call`` the ``ToolCallOutcome``), runs the tool's own validators and output
check, and renders the content; it skips what a failing call would need (the error
texts), so it is a floor, not an alternative implementation. The JSON Schema bound is
given twice: parsing then the compiled check (as tooldeck does), and pydantic-core's
``typed_dict`` parsing and checking in one call (faster, but it reorders keys and agrees
with JSON Schema only for simple schemas). See ``PROFILE-W3.md``.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from pydantic_core import SchemaValidator, core_schema, from_json
from w3_inprocess import (
    ARGS,
    SCHEMA,
    AddInput,
    add,
    best_of,
    pydantic_ai_toolset,
    snapshot,
    timed_async,
    timed_sync,
)

from tooldeck import Tool, ToolCall, ToolContext, ToolResult, run_tool_call, tool
from tooldeck._tool import TextPart, tuple_new
from tooldeck.host.boundary.outcome import ToolCallOutcome
from tooldeck.host.call.arguments import arguments_of
from tooldeck.host.call.values import ExecutedTool
from tooldeck.host.registry.record import record_of
from tooldeck.host.schema.jsonschema_fast import SchemaValidator as CompiledSchema


def warmed(add_tool: Tool) -> tuple[Any, Any]:
    """A snapshot of ``add_tool`` after one call (its validators built), and its record."""
    snap = snapshot(add_tool)
    assert snap.execute_sync(ToolCall("c1", "add", ARGS)).output == 3
    return snap, record_of(add_tool)


def schema_rows() -> dict[str, Any]:
    schema_tool = Tool(
        name="add",
        description="Add two integers.",
        input=SCHEMA,
        output={"type": "integer"},
        execute=lambda args, ctx: ToolResult(output=args["a"] + args["b"]),
    )
    snap, record = warmed(schema_tool)
    check = CompiledSchema(record.input_schema)._check
    assert check is not None
    typed = SchemaValidator(
        core_schema.typed_dict_schema(
            {
                key: core_schema.typed_dict_field(core_schema.int_schema(strict=True))
                for key in "ab"
            },
            extra_behavior="forbid",
        )
    ).validate_json
    execute, output_check, location = schema_tool.execute, record.output_validator, snap.location

    def finish(value: Any, call: ToolCall) -> ExecutedTool:
        context = tuple_new(ToolContext, (location, "", "", call.id, None, None, None))
        result = execute(value, context)
        assert result.__class__ is ToolResult
        _, metadata, output = result  # the content is None: rendered from the output
        output = output_check(output)
        parts = (tuple_new(TextPart, (repr(output), "text")),)
        return tuple_new(ExecutedTool, (parts, metadata, output))

    async def bound(s: str) -> ExecutedTool:
        call = ToolCall("c1", "add", s)
        value = from_json(call.input)
        assert check(value)
        return finish(value, call)

    async def bound_typed(s: str) -> ExecutedTool:
        call = ToolCall("c1", "add", s)
        return finish(typed(call.input), call)

    return {
        "tooldeck JSON-Schema input": timed_async(lambda s: snap.execute(ToolCall("c1", "add", s))),
        "bound: JSON-Schema input": timed_async(bound),
        "bound: JSON-Schema input, one-call typed_dict": timed_async(bound_typed),
    }


def model_rows() -> dict[str, Any]:
    """A ``Tool`` whose input is a pydantic model and whose executor returns a ``ToolResult``."""
    model_tool = Tool(
        name="add",
        description="Add two integers.",
        input=AddInput,
        output={"type": "integer"},
        execute=lambda args, ctx: ToolResult(output=args.a + args.b),
    )
    snap, record = warmed(model_tool)
    validate, execute, location = record.input_json, model_tool.execute, snap.location
    output_check = record.output_validator

    def bound(s: str) -> ExecutedTool:
        call = ToolCall("c1", "add", s)
        context = tuple_new(ToolContext, (location, "", "", call.id, None, None, None))
        result = execute(validate(call.input), context)
        assert result.__class__ is ToolResult
        _, metadata, output = result  # the content is None: rendered from the output
        output = output_check(output)
        parts = (tuple_new(TextPart, (repr(output), "text")),)
        return tuple_new(ExecutedTool, (parts, metadata, output))

    async def bound_async(s: str) -> ExecutedTool:
        return bound(s)

    return {
        "tooldeck pydantic-model tool, execute": timed_async(
            lambda s: snap.execute(ToolCall("c1", "add", s))
        ),
        "bound: pydantic-model tool, execute": timed_async(bound_async),
        "tooldeck pydantic-model tool, execute_sync": timed_sync(
            lambda s: snap.execute_sync(ToolCall("c1", "add", s))
        ),
        "bound: pydantic-model tool, execute_sync": timed_sync(bound),
    }


def function_rows() -> dict[str, Any]:
    """``tool(add)`` through ``execute`` and through ``run_tool_call``."""
    add_tool = tool(add)
    snap, record = warmed(add_tool)
    arguments, function = arguments_of(add_tool.execute), add_tool.execute.function
    output_check, budget = record.output_validator, snap.text_budget

    def executed(call: ToolCall) -> ExecutedTool:
        output = output_check(function(**arguments(call.input)))
        parts = (tuple_new(TextPart, (repr(output), "text")),)
        return tuple_new(ExecutedTool, (parts, {}, output))

    async def bound_execute(s: str) -> ExecutedTool:
        return executed(ToolCall("c1", "add", s))

    # The same signature as run_tool_call: keyword-only options with defaults cost a
    # coroutine more to start than positional parameters.
    async def bound(
        snapshot: Any,
        call: ToolCall,
        *,
        session_id: str = "",
        message_id: str = "",
        agent: str | None = None,
        progress: Any = None,
        propagate_cancel: bool = False,
        scope: Any = None,
        on_ask: Any = None,
    ) -> ToolCallOutcome:
        content, metadata, output = executed(call)
        assert len(content) == 1 and len(content[0].text) <= budget
        return tuple_new(ToolCallOutcome, ("completed", content, metadata, output, None))

    return {
        "tooldeck tool(fn), execute": timed_async(lambda s: snap.execute(ToolCall("c1", "add", s))),
        "bound: tool(fn), execute": timed_async(bound_execute),
        "tooldeck run_tool_call": timed_async(
            lambda s: run_tool_call(snap, ToolCall("c1", "add", s))
        ),
        "bound: run_tool_call": timed_async(lambda s: bound(snap, ToolCall("c1", "add", s))),
    }


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    loads = json.loads
    timers = {"floor": timed_sync(lambda s: add(**loads(s)))}
    timers.update(schema_rows())
    timers.update(function_rows())
    timers.update(model_rows())
    peer = pydantic_ai_toolset()
    if peer is None:
        sys.exit("pydantic-ai is not installed here: run with the peers' venv")
    timers["pydantic-ai toolset call (async add)"] = peer
    print(json.dumps(best_of(timers, rounds), indent=1))


if __name__ == "__main__":
    main()
