"""``calls_from``: the tool calls in what a provider returned, as ``ToolCall`` values."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Mapping
from typing import Any

from tooldeck.host.execution.call import ToolCall
from tooldeck.providers._access import field, items

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


def openai_chat(reply: Any) -> list[ToolCall]:
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


def openai_responses(reply: Any) -> list[ToolCall]:
    """A ``Response`` (its ``output``) or a list of output items; ``function_call`` ones."""
    return _typed_calls(reply, "output", "function_call", id_key="call_id", input_key="arguments")


def anthropic(reply: Any) -> list[ToolCall]:
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


def gemini(reply: Any) -> list[ToolCall]:
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


def mcp(reply: Any) -> list[ToolCall]:
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
    "openai": openai_chat,
    "openai-responses": openai_responses,
    "anthropic": anthropic,
    "gemini": gemini,
    "mcp": mcp,
}
