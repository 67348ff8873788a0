"""A call's conversation beyond its result: the client that sent it (``Peer``), the
answer to a question (``Elicited``), the levels of ``ctx.log``, and the peer a resumed
call keeps talking to. ``ToolContext`` (``_tool.py``) reaches the peer through these.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, Protocol, TypeAlias

from tooldeck._public import public

if TYPE_CHECKING:
    from tooldeck._tool import ContentPart

LogLevel: TypeAlias = Literal[
    "debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"
]
"""The levels of ``ctx.log`` (syslog's, as MCP names them), least severe first."""

LOG_LEVELS: tuple[LogLevel, ...] = (
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
)


@public
class Elicited(NamedTuple):
    """The user's answer to ``ctx.elicit``: ``action`` is ``"accept"`` (``content`` holds
    the fields of the requested schema), ``"decline"`` or ``"cancel"`` (``content`` None)."""

    action: Literal["accept", "decline", "cancel"]
    content: Mapping[str, Any] | None = None


@public
class Peer(Protocol):
    """Who a call's conversation reaches beyond its result: the client that sent it.

    ``tooldeck mcp serve`` gives each served call one (``mcp/serve/peer.py``): logs become
    ``notifications/message``, questions ``elicitation/create``, and samples
    ``sampling/createMessage`` to that call's client. A call without one (a host's own
    loop) logs through Python ``logging`` and cannot ask or sample.

    Optional, for URL-mode questions: ``async elicit_url(message, url, elicitation_id |
    None) -> Elicited`` and ``elicitation_complete(elicitation_id)``; without them
    ``ctx.elicit_url`` raises ``ToolFailure`` and ``ctx.elicitation_complete`` does nothing.
    """

    def log(self, level: LogLevel, message: str) -> None: ...

    async def elicit(self, message: str, schema: Mapping[str, Any]) -> Elicited: ...

    async def sample(
        self, messages: Sequence[Mapping[str, Any]], max_tokens: int, options: Mapping[str, Any]
    ) -> ContentPart: ...


def _taken_as_is(cls: type, source: Any, handler: Any) -> Any:
    from pydantic_core import core_schema

    return core_schema.any_schema()


RESUMED_PEER: contextvars.ContextVar[Peer | None] = contextvars.ContextVar(
    "tooldeck_resumed_peer", default=None
)


@contextlib.contextmanager
def peer_of_resumed_calls(peer: Peer | None) -> Iterator[None]:
    """Within the block, a call without a peer of its own asks and samples through
    ``peer``: a served call that resumes its pending call (``host.resume`` runs it in
    this task, under a scope of its own) keeps talking to the client that resumed it."""
    token = RESUMED_PEER.set(peer)
    try:
        yield
    finally:
        RESUMED_PEER.reset(token)


# Pydantic (validating a ``CallScope``, say) takes a peer as it is. Set outside the class
# body, so that it is no member a ``Peer`` implementation must have.
setattr(Peer, "__get_pydantic_core_schema__", classmethod(_taken_as_is))  # noqa: B010


PYTHON_LEVELS: Mapping[str, int] = MappingProxyType(
    {"debug": 10, "info": 20, "notice": 25, "warning": 30, "error": 40}
    | {"critical": 50, "alert": 50, "emergency": 50}
)
"""``ctx.log`` levels as Python ``logging`` levels (notice between info and warning)."""
