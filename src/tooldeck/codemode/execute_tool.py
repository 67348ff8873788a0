"""The ``execute`` tool: the one native tool through which code-mode tools are reached.

Built per snapshot by the provider. Its description is the plan's (guide + stubs);
its executor loads the runner on the first program, so listing a catalog never
imports the sandbox.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from tooldeck._tool import AnyTool, Tool, ToolContext, ToolFailure, ToolResult
from tooldeck.host.registry.names import RESERVED_CODEMODE_NAME

if TYPE_CHECKING:
    from tooldeck.codemode.plan import ProgramPlan
    from tooldeck.codemode.sandbox import SandboxPool
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

PoolFor = Callable[[], Awaitable["SandboxPool"]]
"""The started sandbox pool (started off the event loop on first use)."""


def execute_tool(plan: ProgramPlan, snapshot: Snapshot, pool_for: PoolFor) -> AnyTool:
    """The ``execute`` tool running programs against ``snapshot``'s code-mode tools."""

    async def execute(input: dict[str, Any], ctx: ToolContext) -> ToolResult:
        from tooldeck.codemode.runner import Settings, run_program
        from tooldeck.codemode.sandbox import SandboxUnavailable

        config = snapshot.location.config.codemode
        settings = Settings(
            config.type_check, config.timeout_s, config.memory_mb, config.max_tool_calls
        )
        try:
            pool = await pool_for()
            return await run_program(
                input["code"], plan=plan, snapshot=snapshot, ctx=ctx, settings=settings, pool=pool
            )
        except SandboxUnavailable as exc:
            raise ToolFailure(f"Code mode is unavailable here: {exc}.") from None

    return Tool(
        name=RESERVED_CODEMODE_NAME,
        description=plan.description,
        input=INPUT_SCHEMA,
        output=OUTPUT_SCHEMA,
        execute=execute,
        codemode=False,
    )


def limits_text(timeout_s: float, memory_mb: int, max_tool_calls: int) -> str:
    """The limits line of the guide."""
    return f"{timeout_s:g} s, {memory_mb} MB of memory, {max_tool_calls} tool calls"
