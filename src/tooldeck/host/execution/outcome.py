"""``run_tool_call``: the session boundary a host's agent loop calls for every tool call.

``Snapshot.execute`` lets every non-``ToolFailure`` exception through unchanged, on
purpose. This is the one place that turns all of them into a typed, recordable
``ToolCallOutcome`` (DESIGN §6) and bounds the text the model will read:

=====================================  ==========================================
raised by the call                     outcome
=====================================  ==========================================
nothing                                ``completed`` (text bounded, see bounding)
``ToolFailure``                        ``failed`` / ``tool.execution``
``PermissionBlocked`` (a deny rule)    ``failed`` / ``permission.rejected``
``PermissionDeclined``,                ``declined`` (``BaseException`` signals, so
``QuestionDismissed``                  no leaf's ``except Exception`` ate them)
``asyncio.CancelledError``             ``interrupted`` (or re-raised, see below)
anything else (a defect, including     ``failed`` / ``unknown``, traceback logged
``GeneratorExit`` and other
``BaseException`` subclasses)
``KeyboardInterrupt``, ``SystemExit``  propagate
=====================================  ==========================================
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypeAlias

from tooldeck._tool import ContentPart, ProgressCallback, TextPart, ToolFailure, tuple_new
from tooldeck.errors import PermissionBlocked, PermissionDeclined, QuestionDismissed
from tooldeck.host.execution.bounding import bound_output
from tooldeck.host.execution.call import ExecutedTool

if TYPE_CHECKING:
    from tooldeck.host.execution.call import ToolCall
    from tooldeck.host.execution.snapshot import Snapshot

log = logging.getLogger("tooldeck")

Status: TypeAlias = Literal["completed", "failed", "declined", "interrupted"]
ErrorType: TypeAlias = Literal["tool.execution", "permission.rejected", "unknown"]

_EMPTY: Mapping[str, Any] = MappingProxyType({})
DECLINED_TEXT = "The user declined this tool call. Do not retry it; ask the user how to proceed."
DISMISSED_TEXT = "The user dismissed the question. Do not ask it again; continue without an answer."
INTERRUPTED_TEXT = "The tool call was interrupted before it finished."


@dataclass(frozen=True, slots=True)
class ToolError:
    """Why a call ``failed``: ``type`` is the category a host branches on, ``message`` text."""

    type: ErrorType
    message: str


class ToolCallOutcome(NamedTuple):
    """The terminal, recordable result of one tool call; ``error`` is set only if ``failed``.

    ``content`` is what the model reads (bounded; for failures, declines and interrupts a
    short text saying what happened, so every call gets a tool result). A named tuple:
    one is built per call, and building it must stay cheap.
    """

    status: Status
    content: tuple[ContentPart, ...] = ()
    metadata: Mapping[str, Any] = _EMPTY
    output: Any = None
    error: ToolError | None = None


async def run_tool_call(
    snapshot: Snapshot,
    call: ToolCall,
    *,
    session_id: str = "",
    message_id: str = "",
    agent: str | None = None,
    progress: ProgressCallback | None = None,
    propagate_cancel: bool = False,
) -> ToolCallOutcome:
    """Execute ``call`` against ``snapshot`` and classify how it ended.

    Cancellation: by default an ``asyncio.CancelledError`` raised by the tool becomes an
    ``interrupted`` outcome, so the agent loop can record it and answer the model. With
    ``propagate_cancel=True`` it is re-raised instead, so structured concurrency (task
    groups, ``asyncio.timeout``) sees it. When the *current task* is being cancelled
    (``task.cancelling() > 0``) it is always re-raised: swallowing a real cancellation
    would make ``asyncio.timeout`` and ``TaskGroup`` hang or misreport.

    ``session_id`` defaults to the snapshot's session. A session's snapshot given
    another session's id raises ``SessionError`` before anything runs: that is the
    host's mistake, not an outcome of the call.
    """
    if session_id != snapshot.session_id:
        session_id = snapshot._session_of(session_id)
    try:
        # What ``await snapshot.execute(call, ...)`` does, without a coroutine around it.
        done = snapshot._run(call, session_id, message_id, agent, progress)
        content, metadata, output = done if isinstance(done, ExecutedTool) else await done
        # Hot: the usual content is one short ``TextPart`` (what ``tool(fn)`` output renders
        # to); it is decided here by its length, against the snapshot's ``_text_budget``,
        # rather than walked again. Pinned to ``within_limits`` by a hypothesis test in
        # ``tests/host/execution/test_bounding.py``.
        if content and not (
            len(content) == 1
            and content[0].__class__ is TextPart
            and len(content[0].text) <= snapshot._text_budget
        ):
            limits = snapshot.output_limits
            content, metadata = bound_output(
                content, metadata, limits=limits, data_dir=snapshot.data_dir, call_id=call.id
            )
    except ToolFailure as exc:
        return _failed(snapshot, call, "tool.execution", exc.message, exc.metadata)
    except PermissionBlocked as exc:
        return _failed(snapshot, call, "permission.rejected", str(exc), _EMPTY)
    except (PermissionDeclined, QuestionDismissed) as exc:
        text = DISMISSED_TEXT if isinstance(exc, QuestionDismissed) else DECLINED_TEXT
        notes = getattr(exc, "__notes__", None)  # e.g. the calls a declined program made
        if notes:
            text = "\n".join([text, *notes])
        return ToolCallOutcome("declined", (TextPart(text),))
    except asyncio.CancelledError:
        if propagate_cancel or _cancelling():
            raise
        return ToolCallOutcome("interrupted", (TextPart(INTERRUPTED_TEXT),))
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # a defect, even a custom BaseException or GeneratorExit:
        # logged with its traceback, never crashes the host
        log.exception("tool call %r (id %r) failed with a defect", call.name, call.id)
        return _failed(snapshot, call, "unknown", _defect_message(call, exc), _EMPTY)
    return tuple_new(ToolCallOutcome, ("completed", content, metadata, output, None))


def _failed(
    snapshot: Snapshot,
    call: ToolCall,
    kind: ErrorType,
    message: str,
    metadata: Mapping[str, Any],
) -> ToolCallOutcome:
    """A ``failed`` outcome; its text is bounded too (invalid input echoes the arguments)."""
    content, metadata = bound_output(
        (TextPart(message),),
        metadata,
        limits=snapshot.output_limits,
        data_dir=snapshot.data_dir,
        call_id=call.id,
    )
    return ToolCallOutcome("failed", content, metadata, None, ToolError(kind, message))


def _defect_message(call: ToolCall, exc: BaseException) -> str:
    detail = str(exc)
    kind = type(exc).__name__
    return f"Tool '{call.name}' failed unexpectedly ({kind}{': ' + detail if detail else ''})."


def _cancelling() -> bool:
    """True when the running task itself is being cancelled (not just the tool's inner work)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0
