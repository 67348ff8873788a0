"""One model turn: its calls read (``calls_from``), run concurrently through the call
boundary (``run_tool_calls``), and their results written back (``results_for``)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypeAlias, overload

from tooldeck.host.boundary.boundary import run_tool_call
from tooldeck.host.boundary.outcome import ToolCallOutcome
from tooldeck.host.call.values import ToolCall
from tooldeck.host.schema.strict import drop_null_optionals
from tooldeck.providers._wire import READERS, WRITERS
from tooldeck.providers.formats import FORMATS, Format

if TYPE_CHECKING:
    from tooldeck.host.boundary.pending import PendingCall
    from tooldeck.host.execution.snapshot import Snapshot
    from tooldeck.host.permissions.asks import OnAsk
    from tooldeck.providers.wire_types import (
        AnthropicMessage,
        GeminiContent,
        MCPCallToolResult,
        OpenAIMessage,
        OpenAIResponsesItem,
    )

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

    The ids are resolved once, into one ``CallScope`` for the turn. A call whose
    arguments are JSON text, as the OpenAI formats send them, first loses the ``null`` s
    that stand for optional arguments left out (OpenAI strict mode sends ``null`` for
    every optional property; a ``null`` for a property whose schema takes ``null`` is
    kept). Arguments that came as an object (Anthropic, Gemini, MCP: formats without
    strict mode) are run as sent. Cancelling the awaiting task cancels every call and
    propagates, as ``run_tool_call`` does. ``on_ask`` is ``run_tool_call``'s, for every
    call.
    """
    schemas = {d.name: d.input_schema for d in snapshot.definitions}
    scope = snapshot.scope(session_id, message_id, agent)
    runs = [
        run_tool_call(
            snapshot,
            _without_null_optionals(call, schemas.get(call.name)),
            scope=scope,
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
    """``call`` without OpenAI strict mode's ``null`` optionals.

    Only JSON text can hold them: ``calls_from`` keeps the OpenAI formats' arguments as
    the text the model wrote, and every other format's as the object it sent, so an
    Anthropic, Gemini or MCP call never reaches the strict-mode walk. Text that does not
    parse, or nests too deeply to walk, is left as it came (the boundary then fails that
    call alone, saying so).
    """
    raw = call.input
    if schema is None or not isinstance(raw, str) or "null" not in raw:
        return call
    try:
        value = json.loads(raw)
        cleaned = drop_null_optionals(schema, value)
    except (ValueError, RecursionError):
        return call
    return call if cleaned is value else call._replace(input=cleaned)


def _bound(
    progress: CallProgress | None, call: ToolCall
) -> Callable[[Mapping[str, Any]], None] | None:
    if progress is None:
        return None
    return lambda metadata: progress(call, metadata)


def calls_from(fmt: Format, reply: Any) -> list[ToolCall]:
    """The tool calls in ``reply``, in order, as ``ToolCall`` values.

    ``reply`` is what the provider returned, an SDK object or its JSON as a dict:

    * ``openai``: the assistant message, the ``ChatCompletion`` or the ``tool_calls``;
    * ``openai-responses``: the ``Response`` or its ``output`` items;
    * ``anthropic``: the ``Message`` or its content blocks;
    * ``gemini``: the ``GenerateContentResponse``, a ``Content`` or its parts;
    * ``mcp``: the ``tools/call`` params (or request).

    Arguments stay as the model sent them (JSON text or a mapping), except that empty
    text and ``null`` mean ``{}``; invalid JSON fails at execution with the usual
    message. Calls without an id (MCP; Gemini, sometimes) get a unique one.
    """
    return READERS[_checked(fmt)](reply)


Pairs: TypeAlias = Iterable[tuple[ToolCall, ToolCallOutcome]]
"""``(call, outcome)`` pairs in call order: ``zip(calls, turn.outcomes)``."""


@overload
def results_for(fmt: Literal["openai"], pairs: Pairs) -> list[OpenAIMessage]: ...
@overload
def results_for(fmt: Literal["openai-responses"], pairs: Pairs) -> list[OpenAIResponsesItem]: ...
@overload
def results_for(fmt: Literal["anthropic"], pairs: Pairs) -> list[AnthropicMessage]: ...
@overload
def results_for(fmt: Literal["gemini"], pairs: Pairs) -> list[GeminiContent]: ...
@overload
def results_for(fmt: Literal["mcp"], pairs: Pairs) -> list[MCPCallToolResult]: ...
@overload
def results_for(fmt: Format, pairs: Pairs) -> list[Any]: ...
def results_for(fmt: str, pairs: Pairs) -> list[Any]:
    """What to append to the next request for ``pairs`` (``(call, outcome)``, in order).

    * ``openai``: a ``role: "tool"`` message per call, then one ``role: "user"``
      message with the calls' images and files (that API's tool messages take text
      only; each tool message says an attachment follows);
    * ``openai-responses``: a ``function_call_output`` item per call;
    * ``anthropic``: one ``role: "user"`` message of ``tool_result`` blocks;
    * ``gemini``: one ``role: "user"`` content of ``functionResponse`` parts;
    * ``mcp``: a ``CallToolResult`` per call.

    Every outcome but ``completed`` (``failed``, ``declined``, ``interrupted``) sets the
    provider's error flag (``is_error``, ``isError``, ``{"error": ...}``), or starts the
    text with ``Error:`` where there is none (the OpenAI APIs). A ``pending`` call gets
    nothing until it is resumed: pass the outcome ``host.resume`` returns in its place.
    """
    return WRITERS[_checked(fmt)]([pair for pair in pairs if pair[1].status != "pending"])


def _checked(fmt: str) -> str:
    if fmt not in READERS:
        raise ValueError(f"unknown provider format {fmt!r}; expected one of {', '.join(FORMATS)}")
    return fmt
