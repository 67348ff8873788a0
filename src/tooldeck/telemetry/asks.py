"""Permission asks and their answers as events on the span of the call that asked.

``TracedAsks`` is the Location's ``PermissionService.observer`` while telemetry is on
(``NO_OBSERVER``, which hears nothing, otherwise).
The permission service calls it in the task of the call that asked, so the current span
is that call's ``execute_tool`` span, whichever layer settles the ask: the asker, a
sibling ask's answer, an answer given to a resumed call, an allow or deny rule, a saved
approval, or the host (a deferred ask, no asker).
"""

from __future__ import annotations

from collections.abc import Callable

from opentelemetry import trace

from tooldeck.telemetry import semconv


class TracedAsks:
    """An ``AskObserver`` recording each ask and its reply on the current span."""

    __slots__ = ()

    def asked(self, action: str, resources: tuple[str, ...]) -> None:
        trace.get_current_span().add_event(
            semconv.ASK_EVENT, {semconv.ASK_ACTION: action, semconv.ASK_RESOURCES: resources}
        )

    def answered(self, reply: str, by: str) -> None:
        trace.get_current_span().add_event(
            semconv.REPLY_EVENT, {semconv.REPLY: reply, semconv.REPLIED_BY: by}
        )

    def allowed(self, reply: Callable[[], str]) -> None:
        self.answered(reply(), "rules")
