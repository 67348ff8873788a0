"""Resource contents and prompt messages as MCP content (the SDK's types).

A tool result's parts travel through ``results_for("mcp", ...)`` (``providers``); what
is read from a resource or rendered by a prompt is laid out here, the same way: text,
images and audio as their blocks, files and embedded resources as embedded resources.
"""

from __future__ import annotations

import base64
from urllib.parse import quote

from tooldeck._tool import AudioPart, ContentPart, FilePart, ImagePart, TextPart
from tooldeck.host.features.prompts import PromptMessage
from tooldeck.host.features.reading import ResourceContents
from tooldeck.mcp.sdk import types

Contents = types.TextResourceContents | types.BlobResourceContents


def resource_contents(contents: ResourceContents) -> Contents:
    """One read's contents: text as ``text``, bytes as a base64 ``blob``."""
    if contents.text is not None:
        return types.TextResourceContents(
            uri=contents.uri, mime_type=contents.mime_type, text=contents.text
        )
    return types.BlobResourceContents(
        uri=contents.uri, mime_type=contents.mime_type, blob=_b64(contents.blob or b"")
    )


def file_contents(uri: str, part: FilePart) -> Contents:
    """A served call's file, read back: its text when it is UTF-8 text, else a blob."""
    kind = part.mime_type.split(";")[0].strip()
    if kind.startswith("text/") or kind in ("application/json", "application/xml"):
        try:
            text = bytes(part.data).decode("utf-8")
        except UnicodeDecodeError:
            pass
        else:
            return resource_contents(ResourceContents(uri, part.mime_type, text=text))
    return resource_contents(ResourceContents(uri, part.mime_type, blob=bytes(part.data)))


def prompt_message(prompt: str, message: PromptMessage) -> types.PromptMessage:
    """A rendered message of prompt ``prompt`` as an MCP prompt message."""
    return types.PromptMessage(role=message.role, content=_block(prompt, message.content))


def media_block(
    content: object,
) -> types.TextContent | types.ImageContent | types.AudioContent | None:
    """A text, image or audio part as its MCP block (``None`` for anything else): what a
    prompt's message and a sampling request's message both carry."""
    if isinstance(content, TextPart):
        return types.TextContent(type="text", text=content.text)
    if isinstance(content, ImagePart):
        return types.ImageContent(
            type="image", data=_b64(content.data), mime_type=content.mime_type
        )
    if isinstance(content, AudioPart):
        return types.AudioContent(
            type="audio", data=_b64(content.data), mime_type=content.mime_type
        )
    return None


def _block(prompt: str, content: ContentPart | ResourceContents) -> types.ContentBlock:
    if isinstance(content, ResourceContents):
        return types.EmbeddedResource(type="resource", resource=resource_contents(content))
    if isinstance(content, FilePart):
        name = quote(content.filename or "attachment", safe="")
        uri = f"tooldeck://prompts/{quote(prompt, safe='')}/{name}"
        return types.EmbeddedResource(type="resource", resource=file_contents(uri, content))
    media = media_block(content)
    if media is None:
        raise TypeError(f"a prompt message holds a content part, got {type(content).__name__}")
    return media


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")
