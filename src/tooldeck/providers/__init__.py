"""Provider adapters: a provider's tool calls in, tooldeck outcomes out, for a host loop.

One model turn, whatever the provider::

    calls = calls_from("anthropic", message)             # the reply's tool calls
    turn = await run_tool_calls(snapshot, calls, session_id="chat-1")
    messages += results_for("anthropic", zip(calls, turn.outcomes))
    if turn.end_turn: ...                                # a call was declined

Formats: ``"openai"`` (Chat Completions), ``"openai-responses"``, ``"anthropic"``,
``"gemini"`` and ``"mcp"``. Replies may be the SDKs' objects or plain dicts (their JSON);
no SDK is imported. ``snapshot.definitions_for(fmt)`` renders the tools to advertise
in the same formats.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal, TypeAlias, overload

from tooldeck.host.execution.call import ToolCall
from tooldeck.host.execution.outcome import ToolCallOutcome
from tooldeck.providers._calls import READERS
from tooldeck.providers._results import WRITERS
from tooldeck.providers._turn import CallProgress as CallProgress
from tooldeck.providers._turn import TurnResult as TurnResult
from tooldeck.providers._turn import run_tool_calls as run_tool_calls
from tooldeck.providers._types import (
    AnthropicMessage,
    GeminiContent,
    MCPCallToolResult,
    OpenAIMessage,
    OpenAIResponsesItem,
)

Format: TypeAlias = Literal["openai", "openai-responses", "anthropic", "gemini", "mcp"]
"""A provider wire format."""

FORMATS: tuple[Format, ...] = ("openai", "openai-responses", "anthropic", "gemini", "mcp")


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


__all__ = [
    "CallProgress",
    "Format",
    "Pairs",
    "TurnResult",
    "calls_from",
    "results_for",
    "run_tool_calls",
]
