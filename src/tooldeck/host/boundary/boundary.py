"""``run_tool_call``: the one boundary every tool call crosses, and its layers.

A native call from a host's loop (directly or through ``run_tool_calls``), a call nested
in a code-mode program, a call to a mounted MCP tool (a native or nested call of a tool
whose executor is remote), a call served through ``tooldeck mcp serve`` and the
integrations' calls all run through ``run_tool_call``; ``Snapshot.execute`` and
``execute_sync`` cross the same layers without the classification. It owns:

* **the layers**, listed once in ``LAYERS`` (``active.py``), outermost first: per-tool limits
  (``limits.py``), then the plugins' ``tool_call`` hooks (``hooks.py``; tracing is the
  outermost hook, a built-in plugin), then the tool. Each is one function
  ``layer(call, scope, call_next)`` (``host/call/layers.py``); a snapshot holds only the
  ones active for its catalog, so a call pays for a layer only when it has work;

* **who the call runs for**: one ``CallScope`` (session, message, agent, how it
  arrived), resolved once by ``Snapshot.scope`` and passed down unchanged;
* **how the call ended**, classified in ``_ended`` (DESIGN §6);
* **the signals**: ``PermissionCorrected`` becomes a failure carrying the user's
  feedback whether or not the executor caught it; a deferred ask ends ``pending``
  (``deferred.py`` saves the call).

``Snapshot.run`` lets every exception through unchanged, on purpose:

=====================================  ============  ================================
raised by the call                     ending        outcome
=====================================  ============  ================================
nothing                                completed     ``completed`` (text bounded)
``ToolFailure``                        failed        ``failed`` / ``tool.execution``
``PermissionCorrected`` (a "no" with   failed        ``failed`` / ``permission.rejected``,
feedback the executor let through)                   the feedback as its text
``PermissionBlocked`` (a deny rule)    failed        ``failed`` / ``permission.rejected``
``StoreUnavailable`` (the store did    failed        ``failed`` / ``unavailable``: retryable
not answer a permission check in time)
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

Every layer runs inside the classification: a hook's refusal, rewrite or replacement
and a limit's timeout end like the tool's own failure (a hook's defect is a
``PluginError`` naming its plugin).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tooldeck._public import public
from tooldeck._tool import ContentPart, ProgressCallback, TextPart, ToolFailure, tuple_new
from tooldeck.errors import (
    PermissionBlocked,
    PermissionCorrected,
    PermissionDeclined,
    PermissionDeferred,
    QuestionDismissed,
    StoreUnavailable,
)
from tooldeck.host.boundary.outcome import (
    CORRECTED_TEXT,
    DECLINED_TEXT,
    DISMISSED_TEXT,
    EMPTY,
    INTERRUPTED_TEXT,
    UNAVAILABLE_TEXT,
    ErrorType,
    ToolCallOutcome,
    ToolError,
)
from tooldeck.host.call.values import CallScope, Done, ExecutedTool
from tooldeck.host.execution.snapshot import common_call

if TYPE_CHECKING:
    from collections.abc import Callable

    from tooldeck.host.call.bounding import Bounded
    from tooldeck.host.call.values import ToolCall
    from tooldeck.host.execution.snapshot import Snapshot
    from tooldeck.host.permissions.asks import OnAsk


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
    if scope is None:
        scope = snapshot.default_scope
        if session_id or message_id or agent is not None:
            scope = snapshot.scope(session_id, message_id, agent)
    elif session_id or message_id or agent is not None:
        raise ValueError("run_tool_call takes a scope or session_id/message_id/agent, not both")
    restore = None if on_ask is None else _ask_mode(on_ask)
    try:
        done: Done
        if scope is snapshot.default_scope and progress is None and not snapshot.layers:
            done = common_call(snapshot, call.name)(call)  # as the snapshot's doors take it
        else:
            done = snapshot.run(call, scope, progress)
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
        from tooldeck.host.boundary.deferred import deferred_outcome

        return await deferred_outcome(snapshot, call, exc, scope.message_id, scope.agent)
    except BaseException as exc:  # every other ending but ``completed``: classified in one place
        outcome = _ended(snapshot, call, scope, exc, propagate_cancel)
        if outcome is None:
            raise
        return outcome
    finally:
        if restore is not None:
            restore()
    return tuple_new(ToolCallOutcome, ("completed", content, metadata, output, None))


def _ask_mode(on_ask: OnAsk) -> Callable[[], None]:
    """Set this task's ask mode to ``on_ask`` (read by the permission service); what
    restores the mode it had."""
    from tooldeck.host.permissions.asks import restore_on_ask, set_on_ask

    token = set_on_ask(on_ask)
    return lambda: restore_on_ask(token)


def _ended(
    snapshot: Snapshot, call: ToolCall, scope: CallScope, exc: BaseException, propagate: bool
) -> ToolCallOutcome | None:
    """The outcome of a call that raised ``exc``; ``None`` where ``exc`` must travel on."""
    import asyncio  # loaded already: run_tool_call runs in an event loop

    nested = scope.via == "nested"
    if isinstance(exc, ToolFailure):
        return _failed(snapshot, call, scope, "tool.execution", exc.message, exc.metadata)
    if isinstance(exc, PermissionCorrected):
        text = CORRECTED_TEXT.format(feedback=exc.feedback)
        return _failed(snapshot, call, scope, "permission.rejected", text, EMPTY)
    if isinstance(exc, PermissionBlocked):
        return _failed(snapshot, call, scope, "permission.rejected", str(exc), EMPTY)
    if isinstance(exc, StoreUnavailable) and not nested:
        text = UNAVAILABLE_TEXT.format(reason=exc)
        return _failed(snapshot, call, scope, "unavailable", text, EMPTY)
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
    import logging

    log = logging.getLogger("tooldeck")
    log.error("tool call %r (id %r) failed with a defect", call.name, call.id, exc_info=exc)
    return _failed(snapshot, call, scope, "unknown", _defect_message(call, exc), EMPTY)


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
    from tooldeck.host.call.bounding import bound_output  # not loaded until text is long

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
    import asyncio

    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0
