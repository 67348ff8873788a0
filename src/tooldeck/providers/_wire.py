"""The providers' wire formats for a turn: tool calls read from a reply.

Replies may be the SDKs' objects or plain dicts (their JSON); no SDK is imported. Every
SDK response type exposes the wire fields as attributes (the Gemini SDK in snake_case),
and a dict holds them as keys (Gemini's REST JSON in camelCase): ``field`` reads either,
trying each spelling given. The helpers that encode attachments are shared with
``_results.py``, which writes the results back in the same formats.

How tools are *advertised* in the same formats is ``formats.py`` (the snapshot renders
definitions through it).
"""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from tooldeck._tool import ContentPart, FilePart, ImagePart
from tooldeck.host.execution.call import ToolCall
from tooldeck.host.execution.deferral import SEARCH_TOOLS
from tooldeck.host.execution.sizes import format_size


# -- reading replies, naming attachments ----------------------------------------------------
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


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def data_url(part: ImagePart | FilePart) -> str:
    """The part as a ``data:`` URL: OpenAI's ``file_data`` takes this form (not bare base64,
    which its API reference suggests and its own Playground does not send)."""
    return f"data:{part.mime_type};base64,{b64(part.data)}"


def attachment_name(part: ContentPart) -> str:
    """How a model is told about an attachment: ``report.pdf (application/pdf, 12 KiB)``,
    sized as every other message sizes things."""
    if part.type == "text":
        return "text"
    size = format_size(len(part.data))
    if part.type == "file" and part.filename:
        return f"{part.filename} ({part.mime_type}, {size})"
    return f"{part.type} ({part.mime_type}, {size})"


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
