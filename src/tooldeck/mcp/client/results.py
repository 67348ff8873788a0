"""A mounted server's MCP ``CallToolResult`` as the tooldeck ``ToolResult`` its tool returns.

Text blocks become ``TextPart``, images ``ImagePart``, audio ``AudioPart``, embedded
resources ``FilePart`` (the model reads files), resource links a line of text;
``structured_content`` becomes the declared output when the tool declares one;
``is_error`` becomes ``ToolFailure`` with the server's text. A block whose base64 does
not decode is left out with a note, like an image the boundary cannot use. (The way
back, an outcome as an MCP result, is the served side's: ``results_for("mcp", ...)``.)
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tooldeck._tool import (
    AudioPart,
    ContentPart,
    FilePart,
    ImagePart,
    TextPart,
    ToolFailure,
    ToolResult,
)

if TYPE_CHECKING:
    from tooldeck.mcp.sdk import types

_FAILURE_TEXT_LIMIT = 20_000


def tool_result(
    result: types.CallToolResult, *, server: str, tool: str, declares_output: bool
) -> ToolResult:
    """What a mounted tool's executor returns for the server's ``result``."""
    parts, notes = _parts(result.content)
    if result.is_error:
        text = "\n".join(p.text for p in parts if isinstance(p, TextPart)) or "no details given"
        raise ToolFailure(
            f"MCP server {server!r} reported an error from tool {tool!r}: {_clip(text)}"
        )
    parts += [TextPart(note) for note in notes]
    output = result.structured_content if declares_output else None
    return ToolResult(content=parts, output=output)


def _parts(blocks: Sequence[Any]) -> tuple[list[ContentPart], list[str]]:
    parts: list[ContentPart] = []
    notes: list[str] = []
    for block in blocks:
        try:
            part = content_part(block)
        except (binascii.Error, ValueError) as exc:
            notes.append(
                f"[a {block.type} block was left out: its data is not valid base64 ({exc})]"
            )
            continue
        parts.append(part)
    return parts, notes


def content_part(block: Any) -> ContentPart:
    """One MCP content block as a tooldeck part (``ValueError``: its base64 is bad)."""
    kind = block.type
    if kind == "text":
        return TextPart(block.text)
    if kind == "image":
        return ImagePart(_decode(block.data), block.mime_type)
    if kind == "audio":
        return AudioPart(_decode(block.data), block.mime_type)
    if kind == "resource":
        return _resource(block.resource)
    if kind == "resource_link":
        title = f" ({block.description})" if block.description else ""
        return TextPart(f"[resource {block.name}: {block.uri}{title}]")
    return TextPart(f"[unsupported MCP content block of type {kind!r}]")


def _resource(resource: Any) -> FilePart:
    name = str(resource.uri).rstrip("/").rpartition("/")[2] or None
    text = getattr(resource, "text", None)
    if text is not None:
        return FilePart(text.encode("utf-8"), resource.mime_type or "text/plain", name)
    return FilePart(_decode(resource.blob), resource.mime_type or "application/octet-stream", name)


def _decode(data: str) -> bytes:
    return base64.b64decode(data, validate=True)


def _clip(text: str) -> str:
    if len(text) <= _FAILURE_TEXT_LIMIT:
        return text
    return text[:_FAILURE_TEXT_LIMIT] + f"\n[... {len(text) - _FAILURE_TEXT_LIMIT} more characters]"
