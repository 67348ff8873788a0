"""The providers' wire formats for a turn: results written back, one message per format.

Every call gets a result and no content is dropped silently: a part a provider cannot
take in a tool result travels where it can (Chat Completions: a following user message)
or is replaced by a text note naming it. Every outcome but ``completed`` sets the
provider's error flag where it has one (Anthropic ``is_error``, MCP ``isError``,
Gemini's ``{"error": ...}`` response); the OpenAI APIs have none, so the text starts
with ``Error:`` there.

Reading the calls out of a reply, and the attachment encoding both sides share, is
``_wire.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import quote

from tooldeck._tool import ContentPart, FilePart, ImagePart
from tooldeck.host.execution.call import ToolCall
from tooldeck.host.execution.deferral import SEARCH_TOOLS
from tooldeck.host.execution.outcome import ToolCallOutcome
from tooldeck.providers._wire import GENERATED_ID_PREFIX, attachment_name, b64, data_url

Pair = tuple[ToolCall, ToolCallOutcome]
Message = dict[str, Any]

_ANTHROPIC_IMAGES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})


def is_error(outcome: ToolCallOutcome) -> bool:
    """``failed`` and ``declined``, and ``interrupted`` too: only ``completed`` succeeded."""
    return outcome.status != "completed"


def _texts(outcome: ToolCallOutcome) -> str:
    return "\n".join(part.text for part in outcome.content if part.type == "text")


def _error_prefixed(outcome: ToolCallOutcome, text: str) -> str:
    return f"Error: {text}" if is_error(outcome) else text


def _unsupported(part: ContentPart, where: str) -> str:
    return f"[{attachment_name(part)} left out: {where} does not accept this kind of file]"


# -- OpenAI Chat Completions -----------------------------------------------------------
def openai_chat_results(pairs: Sequence[Pair]) -> list[Message]:
    """One ``role: "tool"`` message per call (text only in that API), then one
    ``role: "user"`` message carrying every image and file, labelled by call."""
    messages: list[Message] = []
    attached: list[dict[str, Any]] = []
    for call, outcome in pairs:
        parts = [p for p in outcome.content if p.type != "text"]
        text = _error_prefixed(outcome, _texts(outcome))
        if parts:
            names = ", ".join(attachment_name(p) for p in parts)
            text = f"{text}\n\n" if text else ""
            text += f"[attached in the next user message: {names}]"
            attached.append({"type": "text", "text": f"Attachments of tool call {call.id}:"})
            attached += [_chat_part(p) for p in parts]
        messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
    if attached:
        messages.append({"role": "user", "content": attached})
    return messages


def _chat_part(part: ContentPart) -> dict[str, Any]:
    if isinstance(part, ImagePart):
        return {"type": "image_url", "image_url": {"url": data_url(part)}}
    assert isinstance(part, FilePart)
    file: dict[str, Any] = {"file_data": data_url(part)}
    if part.filename:
        file["filename"] = part.filename
    return {"type": "file", "file": file}


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
    output = [_responses_part(part) for part in outcome.content]
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


def _responses_part(part: ContentPart) -> dict[str, Any]:
    if part.type == "text":
        return {"type": "input_text", "text": part.text}
    if isinstance(part, ImagePart):
        return {"type": "input_image", "image_url": data_url(part)}
    file: dict[str, Any] = {"type": "input_file", "file_data": data_url(part)}
    if part.filename:
        file["filename"] = part.filename
    return file


# -- Anthropic -------------------------------------------------------------------------
def anthropic_results(pairs: Sequence[Pair]) -> list[Message]:
    """One ``role: "user"`` message holding a ``tool_result`` block per call."""
    blocks = [_tool_result(call, outcome) for call, outcome in pairs]
    return [{"role": "user", "content": blocks}] if blocks else []


def _tool_result(call: ToolCall, outcome: ToolCallOutcome) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call.id}
    content = [_anthropic_block(part) for part in outcome.content]
    content = [c for c in content if c.get("text", True)]  # empty text blocks are refused
    if content:
        block["content"] = content
    if is_error(outcome):
        block["is_error"] = True
    return block


def _anthropic_block(part: ContentPart) -> dict[str, Any]:
    if part.type == "text":
        return {"type": "text", "text": part.text}
    if isinstance(part, ImagePart) and part.mime_type in _ANTHROPIC_IMAGES:
        source = {"type": "base64", "media_type": part.mime_type, "data": b64(part.data)}
        return {"type": "image", "source": source}
    if isinstance(part, FilePart) and part.mime_type == "application/pdf":
        source = {"type": "base64", "media_type": "application/pdf", "data": b64(part.data)}
        return _document(part, source)
    if isinstance(part, FilePart) and part.mime_type.startswith("text/"):
        text = part.data.decode("utf-8", errors="replace")
        return _document(part, {"type": "text", "media_type": "text/plain", "data": text})
    return {"type": "text", "text": _unsupported(part, "Anthropic")}


def _document(part: FilePart, source: dict[str, Any]) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "document", "source": source}
    if part.filename:
        block["title"] = part.filename
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
    media = [p for p in outcome.content if p.type != "text"]
    if media:
        response["parts"] = [{"inlineData": _inline(p)} for p in media]
    return response


def _inline(part: ImagePart | FilePart) -> dict[str, Any]:
    blob = {"mimeType": part.mime_type, "data": b64(part.data)}
    if isinstance(part, FilePart) and part.filename:
        blob["displayName"] = part.filename
    return blob


# -- MCP -------------------------------------------------------------------------------
def mcp_results(pairs: Sequence[Pair]) -> list[Message]:
    """One ``CallToolResult`` per call; an object output is its ``structuredContent``."""
    return [_call_tool_result(call, outcome) for call, outcome in pairs]


def _call_tool_result(call: ToolCall, outcome: ToolCallOutcome) -> Message:
    result: Message = {
        "content": [_mcp_block(call, part) for part in outcome.content],
        "isError": is_error(outcome),
    }
    if outcome.status == "completed" and isinstance(outcome.output, dict):
        result["structuredContent"] = outcome.output
    return result


def _mcp_block(call: ToolCall, part: ContentPart) -> dict[str, Any]:
    if part.type == "text":
        return {"type": "text", "text": part.text}
    if isinstance(part, ImagePart):
        return {"type": "image", "data": b64(part.data), "mimeType": part.mime_type}
    name = quote(part.filename or "attachment", safe="")
    resource = {
        "uri": f"tooldeck://calls/{call.id}/{name}",
        "mimeType": part.mime_type,
        "blob": b64(part.data),
    }
    return {"type": "resource", "resource": resource}


WRITERS: dict[str, Callable[[Sequence[Pair]], list[Message]]] = {
    "openai": openai_chat_results,
    "openai-responses": openai_responses_results,
    "anthropic": anthropic_results,
    "gemini": gemini_results,
    "mcp": mcp_results,
}
