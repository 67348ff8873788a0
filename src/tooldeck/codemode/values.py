"""A finished program's value as the ``execute`` call's result: as JSON for the model, or
a clear failure when JSON cannot hold it.

Whatever the program's last expression is crosses back from the sandbox as a Python
value; most are JSON already. The rest are refused with a message the model can act on
(bytes that are not text, nesting deeper than the serializer goes), and host objects
that leaked in (``tools`` itself) are shown by their kind, never by their address.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pydantic_core import to_jsonable_python

from tooldeck._tool import ContentPart, TextPart, ToolFailure, ToolResult

if TYPE_CHECKING:
    from tooldeck.codemode.conversation import Done

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def program_result(
    done: Done, calls: list[dict[str, Any]], attachments: Sequence[ContentPart]
) -> ToolResult:
    """The ``execute`` result of a finished program: the text the model reads (warnings,
    what it printed, its result), the nested calls' attachments, and the output."""
    result = jsonable_result(done.output)
    parts: list[ContentPart] = []
    if done.warnings:
        parts.append(TextPart(f"Type checker warnings (the program ran):\n{done.warnings}"))
    if done.printed:
        parts.append(TextPart(f"Printed output:\n{done.printed}"))
        parts.append(TextPart(f"Result:\n{rendered(result)}"))
    else:
        parts.append(TextPart(rendered(result)))
    parts += attachments
    output = {"result": result, "printed": done.printed, "tool_calls": calls}
    return ToolResult(parts, {"tool_calls": len(calls)}, output)


def jsonable_result(value: Any) -> Any:
    """``value`` as JSON data; ``ToolFailure`` when it cannot be."""
    try:
        return to_jsonable_python(value, fallback=shown)
    except UnicodeDecodeError:
        raise ToolFailure(
            "The program's result holds bytes that are not UTF-8 text, which cannot be sent "
            "back as JSON. Return text (decode the bytes) or a list of numbers instead."
        ) from None
    except (ValueError, RecursionError):
        raise ToolFailure(
            "The program's result nests too deeply to be sent back as JSON; return flatter "
            "data (fewer levels of lists and dicts)."
        ) from None


def shown(value: Any) -> str:
    """How a value JSON cannot hold reads: its ``repr``, without memory addresses."""
    return _ADDRESS.sub("", repr(value))


def rendered(result: Any) -> str:
    """A result as the model reads it: text as is, anything else as indented JSON."""
    if isinstance(result, str):
        return result
    return json.dumps(result, ensure_ascii=False, indent=2)
