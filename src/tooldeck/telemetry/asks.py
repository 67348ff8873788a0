"""Permission asks and their answers as events on the span of the call that asked.

``TracedAsker`` wraps the Location's asker while telemetry is on. An ask runs in a task
copied from its call's, so the current span is that call's ``execute_tool`` span.
Asks answered without the asker (a saved approval, a deny rule, a deferred ask) show
in the span's outcome instead.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING

from opentelemetry import trace

from tooldeck.host.location.permission import Reject
from tooldeck.telemetry import semconv

if TYPE_CHECKING:
    from tooldeck.host.location.permission import Asker, PermissionRequest, Reply


class TracedAsker:
    """An asker that records each ask and its reply on the current span."""

    __slots__ = ("asker",)

    def __init__(self, asker: Asker) -> None:
        self.asker = asker

    async def __call__(self, request: PermissionRequest) -> Reply:
        span = trace.get_current_span()
        span.add_event(
            semconv.ASK_EVENT,
            {
                semconv.ASK_ACTION: request.action,
                semconv.ASK_RESOURCES: list(request.resources),
            },
        )
        try:
            reply = self.asker(request)
            if inspect.isawaitable(reply):
                reply = await reply
        except BaseException as exc:
            span.add_event(semconv.REPLY_EVENT, {semconv.REPLY: f"raised {type(exc).__name__}"})
            raise
        span.add_event(semconv.REPLY_EVENT, _reply_attributes(reply))
        return reply


def _reply_attributes(reply: object) -> dict[str, str]:
    if isinstance(reply, Reject):  # its feedback is the user's words: left out
        return {semconv.REPLY: "reject"}
    return {semconv.REPLY: str(reply)}
