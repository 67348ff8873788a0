"""The values a call ends as: ``ToolCallOutcome``, ``ToolError`` and the texts the model
reads for endings that have no content of their own (a decline, a dismissed question, an
interrupt, a correction, a call waiting for approval).

Plain data, imported by whoever records or replays an outcome (``pending.py`` keeps one
as JSON, ``resume.py`` returns one), so none of them needs the boundary itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypeAlias

from tooldeck._public import public
from tooldeck._tool import ContentPart

if TYPE_CHECKING:
    from tooldeck.host.boundary.pending import PendingCall

Status: TypeAlias = Literal["completed", "failed", "declined", "interrupted", "pending"]
ErrorType: TypeAlias = Literal["tool.execution", "permission.rejected", "unavailable", "unknown"]
"""``unavailable``: a service the call needed (the store) did not answer in time; the
call stopped before its tool acted past its permission check, and may be sent again."""

EMPTY: Mapping[str, Any] = MappingProxyType({})
DECLINED_TEXT = "The user declined this tool call. Do not retry it; ask the user how to proceed."
DISMISSED_TEXT = "The user dismissed the question. Do not ask it again; continue without an answer."
INTERRUPTED_TEXT = "The tool call was interrupted before it finished."
CORRECTED_TEXT = (
    "The user rejected this tool call and said: {feedback}\n"
    "Take this feedback into account before trying again."
)
PENDING_TEXT = "This tool call is waiting for the user's approval."
UNAVAILABLE_TEXT = (
    "The tool call could not go on: {reason} It did not act past its permission check; "
    "send the same call again in a moment."
)


@public
@dataclass(frozen=True, slots=True)
class ToolError:
    """Why a call ``failed``: ``type`` is the category a host branches on, ``message`` text."""

    type: ErrorType
    message: str


@public
class ToolCallOutcome(NamedTuple):
    """The terminal, recordable result of one tool call; ``error`` is set only if ``failed``.

    ``content`` is what the model reads (bounded; for failures, declines and interrupts a
    short text saying what happened, so every call gets a tool result). A named tuple:
    one is built per call, and building it must stay cheap.
    """

    status: Status
    content: tuple[ContentPart, ...] = ()
    metadata: Mapping[str, Any] = EMPTY
    output: Any = None
    error: ToolError | None = None

    @property
    def pending(self) -> PendingCall | None:
        """The ``PendingCall`` of a ``pending`` outcome (kept in ``output``), else ``None``."""
        return self.output if self.status == "pending" else None
