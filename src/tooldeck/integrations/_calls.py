"""One tool call made by a framework: run it, or stop it at a permission ask.

Frameworks approve a call *before* it runs, or end the run with the call deferred;
tooldeck asks *while* a tool runs (``ctx.permission.assert_``). The bridge: the
Location's asker is wrapped once (``deferring``) so that, during a call started here,
an ask that has no answer yet ends the call as declined and is recorded; ``run_call``
then reports it as ``Asked`` and the framework pauses the run. When the user answers,
the call runs again from the start and this time finds its answer (``Answers``), as a
2026-07-28 MCP client's call does (``tooldeck.mcp.asking``). Asks of calls not started
here still go to the host's own asker.

``run_call`` is the only place that knows this; once durable approvals exist
(``run_tool_call(..., on_ask="defer")``, ``host.resume``) it switches to them and the
call is resumed exactly once instead of run again.
"""

from __future__ import annotations

import contextvars
import inspect
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from tooldeck import (
    Host,
    PermissionDeclined,
    PermissionRequest,
    Reject,
    Reply,
    Snapshot,
    ToolCall,
    ToolCallOutcome,
    run_tool_call,
)


def ask_key(request: PermissionRequest) -> str:
    """The ask's key: the same ask in a rerun of the call finds its answer."""
    return json.dumps([request.action, list(request.resources)])


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


@dataclass(slots=True)
class Answers:
    """What a call's asks are answered with: by key, and ``first`` for the first ask
    whatever it is (a framework's plain "approved" answers the ask it showed)."""

    by_key: dict[str, Reply] = field(default_factory=dict)
    first: Reply | None = None
    waiting: PermissionRequest | None = None

    def answer(self, request: PermissionRequest) -> Reply | None:
        key = ask_key(request)
        reply = self.by_key.get(key)
        if reply is None and self.first is not None:
            reply, self.first = self.first, None
            self.by_key[key] = reply
        return reply

    def encoded(self) -> dict[str, str | dict[str, str]]:
        return {key: encode(reply) for key, reply in self.by_key.items()}


class Asked(NamedTuple):
    """A call stopped at an ask no one has answered yet (the framework pauses the run)."""

    request: PermissionRequest
    answers: Answers
    outcome: ToolCallOutcome  # the declined outcome, for a framework that cannot pause here

    def metadata(self) -> dict[str, Any]:
        """JSON the framework keeps with the paused call: the ask, and earlier answers."""
        request = self.request
        return {
            "action": request.action,
            "resources": list(request.resources),
            "message": f"Allow {request.action!r} on {', '.join(request.resources)}?",
            "key": ask_key(request),
            "answers": self.answers.encoded(),
        }


_CURRENT: contextvars.ContextVar[Answers | None] = contextvars.ContextVar(
    "tooldeck_integration_call", default=None
)


class DeferringAsker:
    """The Location's asker while integrations run calls on it (see the module doc)."""

    def __init__(self, fallback: Any) -> None:
        self.fallback = fallback

    async def __call__(self, request: PermissionRequest) -> Reply:
        answers = _CURRENT.get()
        if answers is None:  # not a call of ours: the host's own asker, if it has one
            if self.fallback is None:
                raise PermissionDeclined(request.action, request.resources)
            reply = self.fallback(request)
            return await reply if inspect.isawaitable(reply) else reply  # type: ignore[no-any-return]
        reply = answers.answer(request)
        if reply is not None:
            return reply
        if answers.waiting is None:
            answers.waiting = request
        # Raised, not returned as "reject": a rejection would settle the session's
        # sibling asks too, and they must wait for their own answers.
        raise PermissionDeclined(request.action, request.resources)


def deferring(host: Host) -> None:
    """Route ``host``'s asks through ``DeferringAsker`` (idempotent)."""
    location = host.location
    if not isinstance(location.asker, DeferringAsker):
        location.asker = DeferringAsker(location.asker)


async def run_call(
    snapshot: Snapshot,
    call: ToolCall,
    answers: Answers,
    *,
    session_id: str = "",
    message_id: str = "",
    agent: str | None = None,
) -> ToolCallOutcome | Asked:
    """Run ``call`` through ``run_tool_call``; ``Asked`` if it stopped at an open ask."""
    token = _CURRENT.set(answers)
    try:
        outcome = await run_tool_call(
            snapshot, call, session_id=session_id, message_id=message_id, agent=agent
        )
    finally:
        _CURRENT.reset(token)
    if answers.waiting is not None and outcome.status == "declined":
        return Asked(answers.waiting, answers, outcome)
    return outcome


def text_of(outcome: ToolCallOutcome) -> str:
    """The outcome's text parts, joined as tooldeck's provider adapters join them."""
    return "\n".join(part.text for part in outcome.content if part.type == "text")


def answers_from(metadata: object, where: str) -> Answers:
    """The answers a resumed call carries in its framework's metadata (``Asked.metadata``
    plus the user's reply), or none."""
    if not isinstance(metadata, Mapping):
        return Answers()
    raw = metadata.get("answers")
    if not isinstance(raw, Mapping):
        return Answers()
    return Answers({str(key): decode(value, f"{where}[{key!r}]") for key, value in raw.items()})
