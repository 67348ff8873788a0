"""``run_tool_calls``: one model turn's calls, run concurrently, outcomes in call order."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from tooldeck.host.execution.call import ToolCall
from tooldeck.host.execution.outcome import ToolCallOutcome, run_tool_call
from tooldeck.host.execution.snapshot import Snapshot
from tooldeck.host.schema.strict import drop_null_optionals

if TYPE_CHECKING:
    from tooldeck.host.execution.pending import PendingCall
    from tooldeck.host.location.location import OnAsk

CallProgress = Callable[[ToolCall, Mapping[str, Any]], None]
"""``progress(call, metadata)``: a tool of this turn reported progress."""


class TurnResult(NamedTuple):
    """The outcomes of one turn's calls, in call order, and whether to stop the turn.

    ``end_turn`` is true when any call was ``declined`` or is ``pending``: the user said
    no, or must answer first, so the host hands control back to the user. ``pending``
    lists the calls waiting for an answer (``on_ask="defer"``), in call order: answer
    each with ``host.resume`` and send the turn's results once none is pending
    (``results_for`` leaves pending calls out).
    """

    outcomes: tuple[ToolCallOutcome, ...]
    end_turn: bool
    pending: tuple[PendingCall, ...] = ()


async def run_tool_calls(
    snapshot: Snapshot,
    calls: Sequence[ToolCall],
    *,
    session_id: str = "",
    message_id: str = "",
    agent: str | None = None,
    progress: CallProgress | None = None,
    on_ask: OnAsk | None = None,
) -> TurnResult:
    """Run ``calls`` concurrently through ``run_tool_call`` against ``snapshot``.

    Each call's arguments first lose the ``null`` s that stand for optional arguments
    left out (OpenAI strict mode sends ``null`` for every optional property; a ``null``
    for a property whose schema takes ``null`` is kept). Cancelling the awaiting task
    cancels every call and propagates, as ``run_tool_call`` does. ``on_ask`` is
    ``run_tool_call``'s, for every call.
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
            on_ask=on_ask,
        )
        for call in calls
    ]
    outcomes = tuple(await asyncio.gather(*runs))
    pending = tuple(o.output for o in outcomes if o.status == "pending")
    stop = bool(pending) or any(o.status == "declined" for o in outcomes)
    return TurnResult(outcomes, stop, pending)


def _without_null_optionals(call: ToolCall, schema: Mapping[str, Any] | None) -> ToolCall:
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
