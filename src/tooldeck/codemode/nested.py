"""One call a program makes: from its keyword arguments, through the call boundary, to
the value or the error its future settles with.

Each call crosses ``run_tool_call`` in the program's nested scope (``via="nested"``),
gets an id below the ``execute`` call's (``c1.1``, ``c1.2``...), a record in the
program's ``tool_calls``, and ``tool_call`` / ``tool_progress`` events when the outer
call reports progress. Arguments larger than ``MAX_ARGUMENT_BYTES`` (as JSON) fail at the
call site before anything runs. A completed call settles with its declared output as
JSON, else its text; its images and files are attached to the ``execute`` result.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, NamedTuple

from pydantic_core import to_jsonable_python

from tooldeck._tool import ContentPart, TextPart, ToolContext
from tooldeck.codemode.conversation import Settled
from tooldeck.codemode.plan import Target
from tooldeck.host.boundary.boundary import run_tool_call
from tooldeck.host.call.values import CallScope, ToolCall
from tooldeck.host.execution.snapshot import Snapshot

MAX_ARGUMENT_BYTES = 512 * 1024
"""The JSON size of one nested call's arguments past which the call is refused."""


class ProgramCalls(NamedTuple):
    """What the calls of one program share: where they run, and what they leave behind
    (the records of its ``tool_calls``, the parts to attach to its result)."""

    snapshot: Snapshot
    ctx: ToolContext
    scope: CallScope
    calls: list[dict[str, Any]]
    attachments: list[ContentPart]


async def call_tool(program: ProgramCalls, target: Target, kwargs: dict[str, Any]) -> Settled:
    """Call ``target`` with the program's ``kwargs``; what the program's future settles
    with (a decline, an interrupt or a defect propagates: the program ends)."""
    entry, ctx = target.entry, program.ctx
    renames = target.params
    if renames:
        kwargs = {renames.get(k, k): v for k, v in kwargs.items()}
    too_big = argument_problem(kwargs)
    record = {"name": entry.name, "status": "running", "ms": 0.0}
    program.calls.append(record)
    call_id = f"{ctx.call_id}.{len(program.calls)}"
    progress = None
    if ctx.on_progress is not None:
        progress = _progress_for(ctx, call_id, entry.name)
        ctx.on_progress(
            {
                "type": "tool_call",
                "status": "running",
                "id": call_id,
                "name": entry.name,
                "input": kwargs,
            }
        )
    start = time.perf_counter()
    if too_big:
        return _failed(ctx, record, start, call_id, "RuntimeError", too_big)
    try:
        call = ToolCall(call_id, "tools." + entry.name, kwargs)
        status, content, _, output, error = await run_tool_call(
            program.snapshot, call, scope=program.scope, progress=progress
        )
    except BaseException:  # a decline, an interrupt or a defect: the program ends
        _finished(ctx, record, start, call_id, "failed")
        raise
    if error is not None:
        return _failed(ctx, record, start, call_id, "RuntimeError", error.message)
    _finished(ctx, record, start, call_id, status)
    texts: list[str] = []
    for part in content:
        if isinstance(part, TextPart):
            texts.append(part.text)
        else:
            program.attachments.append(part)
    if entry.tool.output is not None:
        return Settled(to_jsonable_python(output, fallback=str))
    return Settled("\n".join(texts))


def _failed(
    ctx: ToolContext,
    record: dict[str, Any],
    start: float,
    call_id: str,
    exc_type: str,
    message: str,
) -> Settled:
    _finished(ctx, record, start, call_id, "failed", message)
    return Settled(exc_type=exc_type, message=message)


def _finished(
    ctx: ToolContext,
    record: dict[str, Any],
    start: float,
    call_id: str,
    status: str,
    error: str = "",
) -> None:
    record["status"] = status
    record["ms"] = round((time.perf_counter() - start) * 1e3, 3)
    if ctx.on_progress is not None:
        entry = {
            "type": "tool_call",
            "status": status,
            "id": call_id,
            "name": record["name"],
            "ms": record["ms"],
        }
        if error:
            entry["error"] = error
        ctx.on_progress(entry)


def _progress_for(ctx: ToolContext, call_id: str, name: str) -> Any:
    report = ctx.progress

    def forward(metadata: Mapping[str, Any]) -> None:
        report({"type": "tool_progress", "id": call_id, "name": name, "metadata": metadata})

    return forward


def argument_problem(kwargs: Mapping[str, Any]) -> str:
    """Why these arguments are too large (or too deep) to pass on, or an empty string."""
    try:
        size = _total_size(kwargs)
    except RecursionError:
        return "The arguments nest too deeply; pass flatter values (fewer levels of lists)."
    if size <= MAX_ARGUMENT_BYTES:
        return ""
    return (
        f"The arguments are larger than {MAX_ARGUMENT_BYTES:,} bytes; "
        "pass smaller values (or let a tool produce the data instead)."
    )


def _total_size(kwargs: Mapping[str, Any]) -> int:
    size = 0
    for value in kwargs.values():  # scalars and strings without a call: most arguments
        cls = value.__class__
        if cls is str:
            size += len(value)
        elif cls is int or cls is float or cls is bool or value is None:
            size += 8
        else:
            size += _size(value, MAX_ARGUMENT_BYTES + 1)
    return size


def _size(value: Any, budget: int) -> int:
    """An estimate of ``value``'s JSON size that stops counting past ``budget``."""
    if isinstance(value, str | bytes):
        return len(value) + 2
    if isinstance(value, Mapping):
        total = 2
        for key, item in value.items():
            total += len(str(key)) + 4 + _size(item, budget - total)
            if total > budget:
                break
        return total
    if isinstance(value, list | tuple | set | frozenset):
        total = 2
        for item in value:
            total += 1 + _size(item, budget - total)
            if total > budget:
                break
        return total
    return 8
