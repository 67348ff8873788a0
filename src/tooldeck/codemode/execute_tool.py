"""The ``execute`` tool: the one native tool through which code-mode tools are reached.

Built per snapshot by the provider. Its description is the plan's (guide + stubs); its
executor is the runner's ``ProgramRunner``.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import ConfigDict, Strict, TypeAdapter, WithJsonSchema, with_config
from typing_extensions import TypedDict

from tooldeck._tool import AnyTool, Tool
from tooldeck.host.registry.names import RESERVED_CODEMODE_NAME

if TYPE_CHECKING:
    from tooldeck.codemode.plan import ProgramPlan
    from tooldeck.codemode.runner import PoolFor
    from tooldeck.host.execution.snapshot import Snapshot

INPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "code": {
            "type": "string",
            "description": "The Python program. Its last expression is the result.",
        }
    },
    "required": ["code"],
    "additionalProperties": False,
}

OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "result": {"description": "The value of the program's last expression, as JSON."},
        "printed": {"type": "string", "description": "What the program printed."},
        "tool_calls": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "status": {"enum": ["completed", "failed"]},
                    "ms": {"type": "number"},
                },
                "required": ["name", "status", "ms"],
            },
        },
    },
    "required": ["result", "printed", "tool_calls"],
}


@with_config(ConfigDict(extra="forbid"))
class _ProgramInput(TypedDict):
    code: Annotated[str, Strict()]


class _ToolCallRecord(TypedDict):
    name: Annotated[str, Strict()]
    status: Literal["completed", "failed"]
    ms: Annotated[float, Strict()]


class _ProgramOutput(TypedDict):
    result: Any
    printed: Annotated[str, Strict()]
    tool_calls: list[_ToolCallRecord]


@cache
def contracts() -> tuple[TypeAdapter[Any], TypeAdapter[Any]]:
    """``execute``'s input and output as pydantic adapters advertising exactly
    ``INPUT_SCHEMA`` and ``OUTPUT_SCHEMA``: pydantic-core checks the one-string input and
    the runner's own output, where a JSON Schema validator would compile and walk the
    schema (five ``host.schema`` modules) for every program.
    ``tests/codemode/test_execute_tool.py`` holds each to its schema."""
    return (
        TypeAdapter(Annotated[_ProgramInput, WithJsonSchema(INPUT_SCHEMA)]),
        TypeAdapter(Annotated[_ProgramOutput, WithJsonSchema(OUTPUT_SCHEMA)]),
    )


def execute_tool(plan: ProgramPlan, snapshot: Snapshot, pool_for: PoolFor) -> AnyTool:
    """The ``execute`` tool running programs against ``snapshot``'s code-mode tools."""
    from tooldeck.codemode.runner import ProgramRunner

    program_input, program_output = contracts()
    return Tool(
        name=RESERVED_CODEMODE_NAME,
        description=plan.description,
        input=program_input,
        output=program_output,
        execute=ProgramRunner(plan, snapshot, pool_for).run,
        codemode=False,
    )


def limits_text(timeout_s: float, memory_mb: int, max_tool_calls: int) -> str:
    """The limits line of the guide."""
    return f"{timeout_s:g} s, {memory_mb} MB of memory, {max_tool_calls} tool calls"
