"""The providers' wire formats for a turn: tool calls read from a reply, results written back.

Replies may be the SDKs' objects or plain dicts (their JSON); no SDK is imported. Every
SDK response type exposes the wire fields as attributes (the Gemini SDK in snake_case),
and a dict holds them as keys (Gemini's REST JSON in camelCase): ``field`` reads either,
trying each spelling given.

Results: every call gets a result and no content is dropped silently: a part a provider
cannot take in a tool result travels where it can (Chat Completions: a following user
message) or is replaced by a text note naming it. Text is written here; each image or
file is handed to ``_attachments``, which knows what each API takes. Every outcome but
``completed`` sets the provider's error flag where it has one (Anthropic ``is_error``,
MCP ``isError``, Gemini's ``{"error": ...}`` response); the OpenAI APIs have none, so
the text starts with ``Error:`` there.

How tools are *advertised* in the same formats is ``formats.py`` (the snapshot renders
definitions through it).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from tooldeck.host.boundary.outcome import ToolCallOutcome
from tooldeck.host.call.values import ToolCall
from tooldeck.host.search.deferral import SEARCH_TOOLS
from tooldeck.providers._attachments import (
    Attachment,
    anthropic_block,
    attachment_name,
    gemini_inline,
    mcp_block,
    openai_chat_part,
    openai_responses_part,
)


# -- reading replies -------------------------------------------------------------------------
def field(obj: Any, *names: str) -> Any:
    """The first of ``names`` that ``obj`` has (as a key or an attribute), or ``None``."""
    for name in names:
        value = obj.get(name) if isinstance(obj, Mapping) else getattr(obj, name, None)
        if value is not None:
            return value
    return None


def items(value: Any) -> list[Any]:
    """``value`` as a list: ``None`` is empty, a mapping or object is one item."""
    if value is None:
        return []
    if isinstance(value, Mapping) or not isinstance(value, Iterable) or isinstance(value, str):
        return [value]
    return list(value)


# -- calls in ------------------------------------------------------------------------------
GENERATED_ID_PREFIX = "tooldeck_"
"""Ids tooldeck makes for calls that carry none (MCP, Gemini without ids) start with it."""


def new_call_id() -> str:
    """A unique call id, for providers whose calls carry none."""
    return f"{GENERATED_ID_PREFIX}{uuid.uuid4().hex}"


def arguments(value: Any) -> str | Mapping[str, Any]:
    """The call's input: JSON text or a mapping; empty text and ``null`` mean ``{}``.

    Text stays text, so invalid JSON reaches the execution boundary and fails there with
    the usual message (the arguments echoed back to the model).
    """
    if value is None:
        return {}
    if isinstance(value, str):
        stripped = value.strip()
        return "{}" if stripped in ("", "null") else value
    if isinstance(value, Mapping):
        return dict(value)
    return json.dumps(value, default=repr)  # not an object: validation says so


def openai_chat_calls(reply: Any) -> list[ToolCall]:
    """An assistant message, a ``ChatCompletion`` (its first choice), or the tool calls."""
    choices = field(reply, "choices")
    if choices is not None:  # a completion: its first choice's message, if it has one
        first = items(choices)[:1]
        if not first:
            return []
        reply = field(first[0], "message")
    tool_calls = field(reply, "tool_calls") if _is_message(reply) else reply
    calls = []
    for tool_call in items(tool_calls):
        function = field(tool_call, "function")
        if function is not None:
            name, raw = field(function, "name"), field(function, "arguments")
        else:  # a custom (free-text) tool call: tooldeck advertises none, so it fails
            custom = field(tool_call, "custom")
            name, raw = field(custom, "name"), json.dumps(field(custom, "input"))
        calls.append(ToolCall(str(field(tool_call, "id") or ""), str(name or ""), arguments(raw)))
    return calls


def _is_message(reply: Any) -> bool:
    return (
        field(reply, "role") is not None
        or field(reply, "tool_calls") is not None
        or (isinstance(reply, Mapping) and "content" in reply)
    )


def openai_responses_calls(reply: Any) -> list[ToolCall]:
    """A ``Response`` (its ``output``) or a list of output items: ``function_call`` ones,
    and client-executed ``tool_search_call`` ones as calls of ``search_tools`` (answered
    with tooldeck's ranking; ``results_for`` turns them into ``tool_search_output``).
    Server-executed searches are the provider's own business and are skipped."""
    inner = field(reply, "output")
    listed = items(inner if inner is not None and not isinstance(inner, str) else reply)
    calls = []
    for item in listed:
        kind = field(item, "type")
        if kind == "function_call":
            call_id, name = field(item, "call_id"), field(item, "name")
            calls.append(
                ToolCall(str(call_id or ""), str(name or ""), arguments(field(item, "arguments")))
            )
        elif kind == "tool_search_call" and field(item, "execution") == "client":
            call_id = field(item, "call_id") or field(item, "id")
            calls.append(
                ToolCall(str(call_id or ""), SEARCH_TOOLS, arguments(field(item, "arguments")))
            )
    return calls


def anthropic_calls(reply: Any) -> list[ToolCall]:
    """A ``Message`` (its ``content``) or its content blocks; ``tool_use`` ones."""
    return _typed_calls(reply, "content", "tool_use", id_key="id", input_key="input")


def _typed_calls(
    reply: Any, container: str, kind: str, *, id_key: str, input_key: str
) -> list[ToolCall]:
    """The ``kind`` items of ``reply``'s ``container`` list (or of ``reply`` itself)."""
    inner = field(reply, container)
    if inner is not None and not isinstance(inner, str):
        reply = inner
    return [
        ToolCall(
            str(field(item, id_key) or ""),
            str(field(item, "name") or ""),
            arguments(field(item, input_key)),
        )
        for item in items(reply)
        if field(item, "type") == kind
    ]


def gemini_calls(reply: Any) -> list[ToolCall]:
    """A ``GenerateContentResponse`` (first candidate), a ``Content``, or its parts."""
    candidates = field(reply, "candidates")
    if candidates:
        reply = field(items(candidates)[0], "content")
    parts = field(reply, "parts")
    calls = []
    for part in items(parts if parts is not None else reply):
        call = field(part, "function_call", "functionCall")
        if call is not None:
            call_id = field(call, "id") or new_call_id()
            calls.append(
                ToolCall(
                    str(call_id), str(field(call, "name") or ""), arguments(field(call, "args"))
                )
            )
    return calls


def mcp_calls(reply: Any) -> list[ToolCall]:
    """``tools/call`` params (``{"name", "arguments"}``), or the whole request."""
    params = field(reply, "params")
    if params is not None and field(reply, "method") is not None:
        reply = params
    return [
        ToolCall(
            new_call_id(), str(field(reply, "name") or ""), arguments(field(reply, "arguments"))
        )
    ]


READERS: dict[str, Callable[[Any], list[ToolCall]]] = {
    "openai": openai_chat_calls,
    "openai-responses": openai_responses_calls,
    "anthropic": anthropic_calls,
    "gemini": gemini_calls,
    "mcp": mcp_calls,
}


# -- results out ---------------------------------------------------------------------------
Pair = tuple[ToolCall, ToolCallOutcome]
Message = dict[str, Any]


def is_error(outcome: ToolCallOutcome) -> bool:
    """``failed`` and ``declined``, and ``interrupted`` too: only ``completed`` succeeded."""
    return outcome.status != "completed"


def _texts(outcome: ToolCallOutcome) -> str:
    return "\n".join(part.text for part in outcome.content if part.type == "text")


def _attachments(outcome: ToolCallOutcome) -> list[Attachment]:
    return [part for part in outcome.content if part.type != "text"]


def _error_prefixed(outcome: ToolCallOutcome, text: str) -> str:
    return f"Error: {text}" if is_error(outcome) else text


# -- OpenAI Chat Completions -----------------------------------------------------------
def openai_chat_results(pairs: Sequence[Pair]) -> list[Message]:
    """One ``role: "tool"`` message per call (text only in that API), then one
    ``role: "user"`` message carrying every image and file, labelled by call."""
    messages: list[Message] = []
    attached: list[dict[str, Any]] = []
    for call, outcome in pairs:
        parts = _attachments(outcome)
        text = _error_prefixed(outcome, _texts(outcome))
        if parts:
            names = ", ".join(attachment_name(p) for p in parts)
            text = f"{text}\n\n" if text else ""
            text += f"[attached in the next user message: {names}]"
            attached.append({"type": "text", "text": f"Attachments of tool call {call.id}:"})
            attached += [openai_chat_part(p) for p in parts]
        messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
    if attached:
        messages.append({"role": "user", "content": attached})
    return messages


# -- OpenAI Responses ------------------------------------------------------------------
def openai_responses_results(pairs: Sequence[Pair]) -> list[Message]:
    """One ``function_call_output`` item per call: text, or a list when it has images
    or files (the Responses API takes them in the output)."""
    return [_responses_item(call, outcome) for call, outcome in pairs]


def _responses_item(call: ToolCall, outcome: ToolCallOutcome) -> Message:
    if call.name == SEARCH_TOOLS and _found_tools(outcome) is not None:
        return _tool_search_output(call, outcome)
    item: Message = {"type": "function_call_output", "call_id": call.id}
    if all(part.type == "text" for part in outcome.content):
        item["output"] = _error_prefixed(outcome, _texts(outcome))
        return item
    output = [
        {"type": "input_text", "text": part.text}
        if part.type == "text"
        else openai_responses_part(part)
        for part in outcome.content
    ]
    if is_error(outcome):
        output.insert(0, {"type": "input_text", "text": "Error:"})
    item["output"] = output
    return item


def _found_tools(outcome: ToolCallOutcome) -> list[Any] | None:
    """The tools a ``search_tools`` outcome found (``None``: not such an outcome)."""
    output = outcome.output
    if isinstance(output, Mapping) and isinstance(output.get("tools"), list):
        return list(output["tools"])
    return None


def _tool_search_output(call: ToolCall, outcome: ToolCallOutcome) -> Message:
    """A client-executed ``tool_search_call`` answered: the found tools as deferred
    functions the model may call from now on."""
    tools = [
        {
            "type": "function",
            "name": found["name"],
            "description": found["description"],
            "parameters": found["input_schema"],
            "strict": False,
            "defer_loading": True,
        }
        for found in _found_tools(outcome) or ()
    ]
    return {
        "type": "tool_search_output",
        "call_id": call.id,
        "execution": "client",
        "status": "completed",
        "tools": tools,
    }


# -- Anthropic -------------------------------------------------------------------------
def anthropic_results(pairs: Sequence[Pair]) -> list[Message]:
    """One ``role: "user"`` message holding a ``tool_result`` block per call."""
    blocks = [_tool_result(call, outcome) for call, outcome in pairs]
    return [{"role": "user", "content": blocks}] if blocks else []


def _tool_result(call: ToolCall, outcome: ToolCallOutcome) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call.id}
    content = [
        {"type": "text", "text": part.text} if part.type == "text" else anthropic_block(part)
        for part in outcome.content
    ]
    content = [c for c in content if c.get("text", True)]  # empty text blocks are refused
    if content:
        block["content"] = content
    if is_error(outcome):
        block["is_error"] = True
    return block


# -- Gemini ----------------------------------------------------------------------------
def gemini_results(pairs: Sequence[Pair]) -> list[Message]:
    """One ``role: "user"`` content holding a ``functionResponse`` part per call."""
    parts = [{"functionResponse": _function_response(call, o)} for call, o in pairs]
    return [{"role": "user", "parts": parts}] if parts else []


def _function_response(call: ToolCall, outcome: ToolCallOutcome) -> dict[str, Any]:
    key = "error" if is_error(outcome) else "output"
    response: dict[str, Any] = {"name": call.name, "response": {key: _texts(outcome)}}
    if call.id and not call.id.startswith(GENERATED_ID_PREFIX):
        response["id"] = call.id  # a call that came without an id is answered by name
    media = _attachments(outcome)
    if media:
        response["parts"] = [{"inlineData": gemini_inline(p)} for p in media]
    return response


# -- MCP -------------------------------------------------------------------------------
def mcp_results(pairs: Sequence[Pair]) -> list[Message]:
    """One ``CallToolResult`` per call; an object output is its ``structuredContent``."""
    return [_call_tool_result(call, outcome) for call, outcome in pairs]


def _call_tool_result(call: ToolCall, outcome: ToolCallOutcome) -> Message:
    result: Message = {
        "content": [
            {"type": "text", "text": part.text} if part.type == "text" else mcp_block(call.id, part)
            for part in outcome.content
        ],
        "isError": is_error(outcome),
    }
    if outcome.status == "completed" and isinstance(outcome.output, dict):
        result["structuredContent"] = outcome.output
    return result


WRITERS: dict[str, Callable[[Sequence[Pair]], list[Message]]] = {
    "openai": openai_chat_results,
    "openai-responses": openai_responses_results,
    "anthropic": anthropic_results,
    "gemini": gemini_results,
    "mcp": mcp_results,
}
