"""Content normalization: the last step of the execution boundary, run after every call.

What a model reads must be a tuple of parts it can take: text, files, and images whose
MIME type is true and whose size a provider accepts. ``normalize_content`` turns what an
executor returned into exactly that:

* a non-empty ``str`` becomes one ``TextPart`` (the common case);
* missing content (``None``, ``""``, an empty sequence) becomes the declared output
  rendered as JSON text: an empty text says nothing, the output does, so the output
  wins. With no output either it becomes one empty text part, because every call must
  answer the model with a tool result;
* a sequence keeps its text and file parts, passes every image through
  ``images.normalize_image`` (kept, reduced or dropped) and replaces the images it
  cannot use with one note, so the model knows something was left out.

Anything else in the content is the tool author's bug: ``ToolDefectError``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from pydantic_core import to_jsonable_python

from tooldeck._tool import (
    AudioPart,
    Content,
    ContentPart,
    FilePart,
    ImagePart,
    TextPart,
    tuple_new,
)
from tooldeck.errors import ToolDefectError
from tooldeck.host.call.images import (
    DEFAULT_IMAGE_LIMITS,
    ImageBounds,
    normalize_image,
    omitted_note,
)

_EMPTY_TEXT: tuple[ContentPart, ...] = (TextPart(""),)


def normalize_content(
    tool: str, content: Content, output: Any, *, limits: ImageBounds = DEFAULT_IMAGE_LIMITS
) -> tuple[ContentPart, ...]:
    """The model-facing parts for what ``tool``'s executor returned (see the module docstring).

    Never mutates ``content``. Raises ``ToolDefectError`` for content that is not a
    ``str``, ``None`` or a sequence of parts, and for items that are not well-formed parts.
    """
    if type(content) is str:
        return (tuple_new(TextPart, (content, "text")),) if content else render_output(output)
    if content is None:
        return render_output(output)
    if type(content) is tuple or type(content) is list:
        return _normalize_parts(tool, content, output, limits)
    return _normalize_unusual(tool, content, output, limits)


def _normalize_unusual(
    tool: str, content: object, output: Any, limits: ImageBounds
) -> tuple[ContentPart, ...]:
    """The rare shapes: ``str`` subclasses, other sequences, and defects."""
    if isinstance(content, str):
        return (TextPart(str(content)),) if content else render_output(output)
    if isinstance(content, TextPart | ImagePart | FilePart | AudioPart):
        return _normalize_parts(tool, (content,), output, limits)
    if isinstance(content, Sequence) and not isinstance(content, bytes | bytearray | memoryview):
        return _normalize_parts(tool, content, output, limits)
    raise ToolDefectError(
        tool,
        f"content must be a str, a sequence of content parts or None, got {type(content).__name__}",
    )


def _normalize_parts(
    tool: str, content: Sequence[object], output: Any, limits: ImageBounds
) -> tuple[ContentPart, ...]:
    """Kept parts in order, then one note for the dropped images; a new tuple always."""
    if not content:
        return render_output(output)
    parts: list[ContentPart] = []
    dropped: list[str] = []
    for item in content:
        if isinstance(item, ImagePart):
            kept, reason = normalize_image(_checked_image(tool, item), limits)
            if kept is None:
                dropped.append(reason)
            else:
                parts.append(kept)
        else:
            parts.append(_checked_part(tool, item))
    if dropped:
        parts.append(TextPart(omitted_note(dropped)))
    return tuple(parts)


def _checked_part(tool: str, item: object) -> ContentPart:
    """A text, file or audio part, or a bare string as a text part; anything else is a
    defect."""
    if isinstance(item, TextPart):
        if not isinstance(item.text, str):
            raise ToolDefectError(tool, f"TextPart.text must be a str, got {_kind(item.text)}")
        return item
    if isinstance(item, FilePart | AudioPart):
        if not isinstance(item.data, bytes | bytearray | memoryview):
            raise ToolDefectError(
                tool, f"{type(item).__name__}.data must be bytes, got {_kind(item.data)}"
            )
        return item
    if isinstance(item, str):
        return TextPart(str(item))
    raise ToolDefectError(
        tool,
        f"content items must be TextPart, ImagePart, FilePart, AudioPart or str, got {_kind(item)}",
    )


def _checked_image(tool: str, part: ImagePart) -> ImagePart:
    if not isinstance(part.data, bytes | bytearray | memoryview):
        raise ToolDefectError(tool, f"ImagePart.data must be bytes, got {_kind(part.data)}")
    return part


def _kind(value: object) -> str:
    return type(value).__name__


# --- output as JSON text --------------------------------------------------------------


_NON_FINITE = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}


def _float_json(value: float) -> str:
    """``json.dumps`` of a float: ``repr`` with JSON's non-standard NaN/Infinity spellings."""
    text = repr(value)
    return _NON_FINITE.get(text, text)


# Scalars skip the (pure-Python, because of indent) encoder; each result equals
# json.dumps(value, ensure_ascii=False, indent=2) for exactly that type, not subclasses.
_SCALAR_JSON: dict[type, Callable[[Any], str]] = {
    int: repr,  # int.__repr__, which json uses; the builtin is the faster call
    str: json.encoder.encode_basestring,
    bool: lambda value: "true" if value else "false",
    float: _float_json,
}
_ENCODER = json.JSONEncoder(ensure_ascii=False, indent=2, default=to_jsonable_python)


def render_output(output: Any) -> tuple[ContentPart, ...]:
    """What the model reads when a tool returned no content: its output as JSON, or one
    empty text part when there is no output either.

    Pydantic models, dataclasses, dates and the like go through pydantic-core; a value it
    cannot serialize either raises ``PydanticSerializationError`` (a ``ValueError``).
    """
    if output is None:
        return _EMPTY_TEXT
    scalar = _SCALAR_JSON.get(output.__class__)
    text = scalar(output) if scalar is not None else _ENCODER.encode(output)
    return (tuple_new(TextPart, (text, "text")),)
