"""Images and files in a tool result, as each provider takes them (or the note it gets).

A tool result's text travels the same way in every format (``_wire``); its images and
files do not: each API takes its own subset of kinds, in its own shape, base64 inside
JSON. One function per format here turns one such part into that format's block, and a
kind a provider cannot take in a tool result becomes a text note naming it, so nothing
is dropped silently. A turn whose results are text alone never calls in here.
"""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import quote

from tooldeck._tool import AudioPart, ContentPart, FilePart, ImagePart
from tooldeck.host.call.sizes import format_size

Attachment = ImagePart | FilePart | AudioPart

_ANTHROPIC_IMAGES = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})
_OPENAI_AUDIO = {"audio/wav": "wav", "audio/x-wav": "wav", "audio/mpeg": "mp3", "audio/mp3": "mp3"}
"""The audio Chat Completions takes as ``input_audio`` (other audio goes as a file)."""


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def data_url(part: Attachment) -> str:
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


def _left_out(part: Attachment, where: str) -> str:
    return f"[{attachment_name(part)} left out: {where} does not accept this kind of file]"


def openai_chat_part(part: Attachment) -> dict[str, Any]:
    """A user-message content part (Chat Completions tool messages take text only)."""
    if isinstance(part, ImagePart):
        return {"type": "image_url", "image_url": {"url": data_url(part)}}
    audio_format = _OPENAI_AUDIO.get(part.mime_type) if isinstance(part, AudioPart) else None
    if audio_format is not None:
        return {
            "type": "input_audio",
            "input_audio": {"data": b64(part.data), "format": audio_format},
        }
    file: dict[str, Any] = {"file_data": data_url(part)}
    if isinstance(part, FilePart) and part.filename:
        file["filename"] = part.filename
    return {"type": "file", "file": file}


def openai_responses_part(part: Attachment) -> dict[str, Any]:
    """An item of a ``function_call_output``'s output list."""
    if isinstance(part, ImagePart):
        return {"type": "input_image", "image_url": data_url(part)}
    file: dict[str, Any] = {"type": "input_file", "file_data": data_url(part)}
    if isinstance(part, FilePart) and part.filename:
        file["filename"] = part.filename
    return file


def anthropic_block(part: Attachment) -> dict[str, Any]:
    """A ``tool_result`` content block: an image, a PDF or text document, or the note."""
    if isinstance(part, ImagePart) and part.mime_type in _ANTHROPIC_IMAGES:
        source = {"type": "base64", "media_type": part.mime_type, "data": b64(part.data)}
        return {"type": "image", "source": source}
    if isinstance(part, FilePart) and part.mime_type == "application/pdf":
        source = {"type": "base64", "media_type": "application/pdf", "data": b64(part.data)}
        return _document(part, source)
    if isinstance(part, FilePart) and part.mime_type.startswith("text/"):
        text = part.data.decode("utf-8", errors="replace")
        return _document(part, {"type": "text", "media_type": "text/plain", "data": text})
    return {"type": "text", "text": _left_out(part, "Anthropic")}


def _document(part: FilePart, source: dict[str, Any]) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "document", "source": source}
    if part.filename:
        block["title"] = part.filename
    return block


def gemini_inline(part: Attachment) -> dict[str, Any]:
    """The ``inlineData`` blob of a ``functionResponse`` part."""
    blob = {"mimeType": part.mime_type, "data": b64(part.data)}
    if isinstance(part, FilePart) and part.filename:
        blob["displayName"] = part.filename
    return blob


def mcp_block(call_id: str, part: Attachment) -> dict[str, Any]:
    """An image or audio block, or a file as an embedded resource named under the call
    (``file_uri``; text files as text, others as a base64 blob)."""
    if isinstance(part, ImagePart | AudioPart):
        return {"type": part.type, "data": b64(part.data), "mimeType": part.mime_type}
    resource: dict[str, Any] = {"uri": file_uri(call_id, part), "mimeType": part.mime_type}
    text = _as_text(part)
    if text is not None:
        resource["text"] = text
    else:
        resource["blob"] = b64(part.data)
    return {"type": "resource", "resource": resource}


def file_uri(call_id: str, part: FilePart) -> str:
    """Where a served call's file can be read back (``resources/read``)."""
    name = quote(part.filename or "attachment", safe="")
    return f"tooldeck://calls/{quote(call_id, safe='')}/{name}"


def _as_text(part: FilePart) -> str | None:
    """The file's text when it is a text file in UTF-8, else ``None``."""
    kind = part.mime_type.split(";")[0].strip()
    if not (kind.startswith("text/") or kind in ("application/json", "application/xml")):
        return None
    try:
        return bytes(part.data).decode("utf-8")
    except UnicodeDecodeError:
        return None
