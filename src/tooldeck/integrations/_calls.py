"""One tool call made by a framework: run it, or stop it at a permission ask.

Frameworks approve a call *before* it runs, or end the run with the call deferred;
tooldeck asks *while* a tool runs (``ctx.permission.assert_``). The bridge is tooldeck's
durable approvals (``docs/approvals.md``): a call runs with ``on_ask="defer"``, so an
ask no rule answers ends it ``pending`` with a ``PendingCall`` in the Location's store;
``run_call`` reports that as ``Asked`` and the framework pauses the run, keeping the
pending id in its own (serializable) run state. When the user answers, ``resume_call``
answers that id through ``host.resume``: the call runs exactly once however often the
answer is delivered, and its pending record is resolved. A further ask of the resumed
call is ``Asked`` again, under a new id.

``run_call`` and ``resume_call`` are the only places that know this.
"""

from __future__ import annotations

import asyncio
from typing import Any, NamedTuple

from tooldeck import (
    Host,
    PendingCall,
    PendingCallError,
    Reject,
    Reply,
    Snapshot,
    TextPart,
    ToolCall,
    ToolCallOutcome,
    ToolError,
    run_tool_call,
)


def encode(reply: Reply) -> str | dict[str, str]:
    """A reply as JSON (a framework keeps it in its serialized run state)."""
    return {"reject": reply.feedback} if isinstance(reply, Reject) else reply


def decode(value: object, where: str) -> Reply:
    """The reply ``encode`` wrote; anything else is a clear error naming ``where``."""
    if value == "once" or value == "always" or value == "reject":
        return value
    if isinstance(value, dict) and isinstance(value.get("reject"), str):
        return Reject(value["reject"])
    raise ValueError(
        f"{where}: {value!r} is not a tooldeck permission reply; expected 'once', "
        "'always', 'reject' or {'reject': feedback}"
    )


class Asked(NamedTuple):
    """A call stopped at an ask no one has answered yet (the framework pauses the run)."""

    pending: PendingCall
    outcome: ToolCallOutcome  # the ``pending`` outcome

    def metadata(self) -> dict[str, Any]:
        """JSON the framework keeps with the paused call: the ask, what the tool attached
        for the user to see before answering (an edit's diff, a note), its pending id."""
        request = self.pending.to_dict()["request"]  # its record: plain JSON already
        return {
            "pending_id": self.pending.id,
            "action": request["action"],
            "resources": request["resources"],
            "message": f"Allow {request['action']!r} on {', '.join(request['resources'])}?",
            "attached": request["metadata"],
        }


async def run_call(
    snapshot: Snapshot,
    call: ToolCall,
    *,
    session_id: str = "",
    message_id: str = "",
    agent: str | None = None,
) -> ToolCallOutcome | Asked:
    """Run ``call`` through ``run_tool_call``; ``Asked`` if it stopped at an open ask."""
    outcome = await run_tool_call(
        snapshot, call, session_id=session_id, message_id=message_id, agent=agent, on_ask="defer"
    )
    return _asked(outcome)


async def resume_call(host: Host, pending_id: str, reply: Reply) -> ToolCallOutcome | Asked:
    """Answer the pending call ``pending_id`` with ``reply`` (exactly once, see the module
    doc); a pending call that cannot be resumed (unknown, expired, its tool changed)
    ends ``failed`` with the reason, for the model to read."""
    try:
        outcome = await host.resume(pending_id, reply)
    except PendingCallError as exc:
        text = f"The approved tool call could not be resumed: {exc}"
        return ToolCallOutcome("failed", (TextPart(text),), error=ToolError("unknown", text))
    return _asked(outcome)


async def pending_of(host: Host, session_id: str, call: ToolCall) -> str | None:
    """The id of the newest pending call of ``call`` (same id and name) in ``session_id``,
    for an approval that arrives without tooldeck's metadata; ``None`` if there is none."""
    waiting = await asyncio.to_thread(host.pending, session_id)
    found = [p.id for p in waiting if p.call.id == call.id and p.call.name == call.name]
    return found[-1] if found else None


def _asked(outcome: ToolCallOutcome) -> ToolCallOutcome | Asked:
    pending = outcome.pending
    return Asked(pending, outcome) if pending is not None else outcome


def text_of(outcome: ToolCallOutcome) -> str:
    """The outcome's text parts, joined as tooldeck's provider adapters join them."""
    return "\n".join(part.text for part in outcome.content if part.type == "text")
