"""``run_tool_calls``: one model turn's calls, run concurrently, outcomes in call order."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from tooldeck.host.execution.call import ToolCall
from tooldeck.host.execution.outcome import ToolCallOutcome, run_tool_call
from tooldeck.host.execution.snapshot import Snapshot
from tooldeck.host.schema.strict import drop_null_optionals

CallProgress = Callable[[ToolCall, Mapping[str, Any]], None]
"""``progress(call, metadata)``: a tool of this turn reported progress."""


class TurnResult(NamedTuple):
    """The outcomes of one turn's calls, in call order, and whether to stop the turn.

    ``end_turn`` is true when any call was ``declined``: the user said no, so the host
    hands control back to the user after sending the results.
    """

    outcomes: tuple[ToolCallOutcome, ...]
    end_turn: bool


async def run_tool_calls(
    snapshot: Snapshot,
    calls: Sequence[ToolCall],
    *,
    session_id: str = "",
    message_id: str = "",
    agent: str | None = None,
    progress: CallProgress | None = None,
) -> TurnResult:
    """Run ``calls`` concurrently through ``run_tool_call`` against ``snapshot``.

    Each call's arguments first lose the ``null`` s that stand for optional arguments
    left out (OpenAI strict mode sends ``null`` for every optional property; a ``null``
    for a property whose schema takes ``null`` is kept). Cancelling the awaiting task
    cancels every call and propagates, as ``run_tool_call`` does.
    """
    schemas = {d.name: d.input_schema for d in snapshot.definitions}
    runs = [
        run_tool_call(
            snapshot,
            _without_null_optionals(call, schemas.get(call.name)),
            session_id=session_id,
            message_id=message_id,
            agent=agent,
            progress=_bound(progress, call),
        )
        for call in calls
    ]
    outcomes = tuple(await asyncio.gather(*runs))
    return TurnResult(outcomes, any(o.status == "declined" for o in outcomes))


def _without_null_optionals(call: ToolCall, schema: Mapping[str, Any] | None) -> ToolCall:
    """``call`` without the ``null`` optionals; as it came when its arguments nest too
    deeply to walk (the boundary then fails that call alone, saying so)."""
    try:
        return _cleaned(call, schema)
    except RecursionError:
        return call


def _cleaned(call: ToolCall, schema: Mapping[str, Any] | None) -> ToolCall:
    raw = call.input
    if schema is None:
        return call
    if isinstance(raw, str):
        if "null" not in raw:
            return call
        try:
            value = json.loads(raw)
        except ValueError:
            return call  # the boundary reports invalid JSON with the usual message
    else:
        value = raw
    cleaned = drop_null_optionals(schema, value)
    return call if cleaned is value else call._replace(input=cleaned)


def _bound(
    progress: CallProgress | None, call: ToolCall
) -> Callable[[Mapping[str, Any]], None] | None:
    if progress is None:
        return None
    return lambda metadata: progress(call, metadata)
