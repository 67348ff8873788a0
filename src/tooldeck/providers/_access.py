"""Reading provider replies that are SDK objects or plain dicts, without the SDKs.

Every SDK response type exposes the wire fields as attributes (the Gemini SDK in
snake_case), and a dict holds them as keys (Gemini's REST JSON in camelCase): ``field``
reads either, trying each spelling given.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping
from typing import Any

from tooldeck._tool import ContentPart, FilePart, ImagePart
from tooldeck.host.execution.sizes import format_size


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
