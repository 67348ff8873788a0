"""``run_tool_call``: the one boundary every tool call crosses.

A native call from a host's loop (directly or through ``run_tool_calls``), a call nested
in a code-mode program, a call to a mounted MCP tool (a native or nested call of a tool
whose executor is remote) and a call served through ``tooldeck mcp serve`` all run
through ``run_tool_call``. It owns three things, so nothing else needs to:

* **who the call runs for**: one ``CallScope`` (session, message, agent, how it
  arrived), resolved once by ``Snapshot.scope`` and passed down unchanged;
* **how the call ended**, classified in ``_ended`` (DESIGN §6);
* **the signals**: ``PermissionCorrected`` becomes a failure carrying the user's
  feedback whether or not the executor caught it.

``Snapshot.start`` lets every exception through unchanged, on purpose:

=====================================  ============  ================================
raised by the call                     ending        outcome
=====================================  ============  ================================
nothing                                completed     ``completed`` (text bounded)
``ToolFailure``                        failed        ``failed`` / ``tool.execution``
``PermissionCorrected`` (a "no" with   failed        ``failed`` / ``permission.rejected``,
feedback the executor let through)                   the feedback as its text
``PermissionBlocked`` (a deny rule)    failed        ``failed`` / ``permission.rejected``
``PermissionDeclined``,                declined      ``declined`` (``BaseException``
``QuestionDismissed``                                signals: no ``except Exception``
                                                     of a leaf ate them)
``PermissionDeferred`` (an ask under   pending       ``pending``: the call and its question
``on_ask="defer"``)                                  saved as a ``PendingCall`` (``output``),
                                                     answered later by ``host.resume``
``asyncio.CancelledError``             interrupted   ``interrupted`` (or re-raised)
anything else, even a ``BaseException``  defect      ``failed`` / ``unknown``, traceback
(``GeneratorExit``, custom ones)                     logged
``KeyboardInterrupt``, ``SystemExit``  (none)        propagate
=====================================  ============  ================================

A nested call (``scope.via == "nested"``) ends its program rather than the model's
turn, so it differs in two ways: its text is not bounded (the program reads it whole;
the ``execute`` call's result is bounded), and a decline, an interrupt or a defect
propagates, so the program stops and the outer call classifies how it ended (a
deferred ask too: the whole program ends ``pending``).

Plugins' ``tool_call`` wrappers (``hooks.py``) wrap the ``start`` of a call here, inside
the classification: a hook's refusal, rewrite or replacement ends like the tool's own
(a hook's defect is a ``PluginError`` naming its plugin). With no such plugin the
snapshot's ``call_hooks`` is ``None`` and the call does no hook work.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypeAlias

from tooldeck._public import public
from tooldeck._tool import ContentPart, ProgressCallback, TextPart, ToolFailure, tuple_new
from tooldeck.errors import (
    PermissionBlocked,
    PermissionCorrected,
    PermissionDeclined,
    PermissionDeferred,
    QuestionDismissed,
)
from tooldeck.host.call.bounding import Bounded, bound_output
from tooldeck.host.call.path import CallScope, Done, ExecutedTool

if TYPE_CHECKING:
    from tooldeck.host.boundary.pending import PendingCall
    from tooldeck.host.call.path import ToolCall
    from tooldeck.host.execution.snapshot import Snapshot
    from tooldeck.host.location.location import OnAsk

log = logging.getLogger("tooldeck")

Status: TypeAlias = Literal["completed", "failed", "declined", "interrupted", "pending"]
ErrorType: TypeAlias = Literal["tool.execution", "permission.rejected", "unknown"]

_EMPTY: Mapping[str, Any] = MappingProxyType({})
DECLINED_TEXT = "The user declined this tool call. Do not retry it; ask the user how to proceed."
DISMISSED_TEXT = "The user dismissed the question. Do not ask it again; continue without an answer."
INTERRUPTED_TEXT = "The tool call was interrupted before it finished."
CORRECTED_TEXT = (
    "The user rejected this tool call and said: {feedback}\n"
    "Take this feedback into account before trying again."
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
    metadata: Mapping[str, Any] = _EMPTY
    output: Any = None
    error: ToolError | None = None

    @property
    def pending(self) -> PendingCall | None:
        """The ``PendingCall`` of a ``pending`` outcome (kept in ``output``), else ``None``."""
        return self.output if self.status == "pending" else None


@public
async def run_tool_call(
    snapshot: Snapshot,
    call: ToolCall,
    *,
    session_id: str = "",
    message_id: str = "",
    agent: str | None = None,
    progress: ProgressCallback | None = None,
    propagate_cancel: bool = False,
    scope: CallScope | None = None,
    on_ask: OnAsk | None = None,
) -> ToolCallOutcome:
    """Execute ``call`` against ``snapshot`` and classify how it ended.

    ``on_ask``: what a permission ask does in this call, ``"ask"`` (await the asker) or
    ``"defer"`` (end ``pending``, see ``docs/approvals.md``); ``None``: the Location's
    default (``Host.open(on_ask=...)``).

    Cancellation: by default an ``asyncio.CancelledError`` raised by the tool becomes an
    ``interrupted`` outcome, so the agent loop can record it and answer the model. With
    ``propagate_cancel=True`` it is re-raised instead, so structured concurrency (task
    groups, ``asyncio.timeout``) sees it. When the *current task* is being cancelled
    (``task.cancelling() > 0``) it is always re-raised: swallowing a real cancellation
    would make ``asyncio.timeout`` and ``TaskGroup`` hang or misreport.

    ``session_id`` defaults to the snapshot's session. A session's snapshot given
    another session's id raises ``SessionError`` before anything runs: that is the
    host's mistake, not an outcome of the call. ``scope`` (from ``snapshot.scope(...)``)
    gives the ids resolved once, for many calls; it replaces the three id arguments.
    """
    if on_ask is not None:  # set for this task only, around the ordinary call
        from tooldeck.host.permissions.asks import restore_on_ask, set_on_ask

        token = set_on_ask(on_ask)
        try:
            return await run_tool_call(
                snapshot,
                call,
                session_id=session_id,
                message_id=message_id,
                agent=agent,
                progress=progress,
                propagate_cancel=propagate_cancel,
                scope=scope,
            )
        finally:
            restore_on_ask(token)
    if scope is None:
        scope = snapshot.default_scope
        if session_id or message_id or agent is not None:
            scope = snapshot.scope(session_id, message_id, agent)
    elif session_id or message_id or agent is not None:
        raise ValueError("run_tool_call takes a scope or session_id/message_id/agent, not both")
    try:
        # What ``await snapshot.execute(call, ...)`` does, without a coroutine around it.
        limits = snapshot.call_limits
        done: Done
        if limits is not None:  # per-tool limits (``limits.py``): only when a tool has one
            from tooldeck.host.boundary.limits import run_limited

            done = await run_limited(limits, snapshot, call, scope, progress)
        elif snapshot.call_hooks is None:
            done = snapshot.start(call, scope, progress)
        else:  # plugins' ``tool_call`` wrappers (``hooks.py``): only when one exists
            from tooldeck.host.boundary.hooks import run_hooked

            done = await run_hooked(snapshot.call_hooks, snapshot, call, scope, progress)
        content, metadata, output = done if isinstance(done, ExecutedTool) else await done
        # Hot: the usual content is one short ``TextPart`` (what ``tool(fn)`` output renders
        # to); it is decided here by its length, against the snapshot's ``text_budget``,
        # rather than walked again. Pinned to ``within_limits`` by a hypothesis test in
        # ``tests/host/call/test_bounding.py``.
        if (
            content
            and scope.via != "nested"
            and not (
                len(content) == 1
                and isinstance(content[0], TextPart)
                and len(content[0].text) <= snapshot.text_budget
            )
        ):
            content, metadata = _bounded(snapshot, call, content, metadata)
    except PermissionDeferred as exc:
        if scope.via == "nested":
            raise  # the program that made the call ends pending as a whole
        from tooldeck.host.boundary.resume import deferred_outcome

        return await deferred_outcome(snapshot, call, exc, scope.message_id, scope.agent)
    except BaseException as exc:  # every other ending but ``completed``: classified in one place
        outcome = _ended(snapshot, call, scope, exc, propagate_cancel)
        if outcome is None:
            raise
        return outcome
    return tuple_new(ToolCallOutcome, ("completed", content, metadata, output, None))


def _ended(
    snapshot: Snapshot, call: ToolCall, scope: CallScope, exc: BaseException, propagate: bool
) -> ToolCallOutcome | None:
    """The outcome of a call that raised ``exc``; ``None`` where ``exc`` must travel on."""
    nested = scope.via == "nested"
    if isinstance(exc, ToolFailure):
        return _failed(snapshot, call, scope, "tool.execution", exc.message, exc.metadata)
    if isinstance(exc, PermissionCorrected):
        text = CORRECTED_TEXT.format(feedback=exc.feedback)
        return _failed(snapshot, call, scope, "permission.rejected", text, _EMPTY)
    if isinstance(exc, PermissionBlocked):
        return _failed(snapshot, call, scope, "permission.rejected", str(exc), _EMPTY)
    if isinstance(exc, PermissionDeclined | QuestionDismissed):
        if nested:
            return None
        text = DISMISSED_TEXT if isinstance(exc, QuestionDismissed) else DECLINED_TEXT
        notes = getattr(exc, "__notes__", None)  # e.g. the calls a declined program made
        if notes:
            text = "\n".join([text, *notes])
        return ToolCallOutcome("declined", (TextPart(text),))
    if isinstance(exc, asyncio.CancelledError):
        if propagate or nested or _cancelling():
            return None
        return ToolCallOutcome("interrupted", (TextPart(INTERRUPTED_TEXT),))
    if isinstance(exc, KeyboardInterrupt | SystemExit) or nested:
        return None
    # A defect, even a custom BaseException or GeneratorExit: logged with its traceback,
    # never crashes the host.
    log.error("tool call %r (id %r) failed with a defect", call.name, call.id, exc_info=exc)
    return _failed(snapshot, call, scope, "unknown", _defect_message(call, exc), _EMPTY)


def _failed(
    snapshot: Snapshot,
    call: ToolCall,
    scope: CallScope,
    kind: ErrorType,
    message: str,
    metadata: Mapping[str, Any],
) -> ToolCallOutcome:
    """A ``failed`` outcome; its text is bounded too (invalid input echoes the arguments)."""
    content: tuple[ContentPart, ...] = (TextPart(message),)
    if scope.via != "nested":
        content, metadata = _bounded(snapshot, call, content, metadata)
    return ToolCallOutcome("failed", content, metadata, None, ToolError(kind, message))


def _bounded(
    snapshot: Snapshot,
    call: ToolCall,
    content: tuple[ContentPart, ...],
    metadata: Mapping[str, Any],
) -> Bounded:
    """``content`` within the snapshot's output limits; the full text saved when cut."""
    return bound_output(
        content,
        metadata,
        limits=snapshot.output_limits,
        data_dir=snapshot.data_dir,
        call_id=call.id,
    )


def _defect_message(call: ToolCall, exc: BaseException) -> str:
    detail = str(exc)
    kind = type(exc).__name__
    return f"Tool '{call.name}' failed unexpectedly ({kind}{': ' + detail if detail else ''})."


def _cancelling() -> bool:
    """True when the running task itself is being cancelled (not just the tool's inner work)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0
