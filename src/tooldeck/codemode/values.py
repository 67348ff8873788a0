"""A program's result as JSON for the model, or a clear failure when JSON cannot hold it.

Whatever the program's last expression is crosses back from the sandbox as a Python
value; most are JSON already. The rest are refused with a message the model can act on
(bytes that are not text, nesting deeper than the serializer goes), and host objects
that leaked in (``tools`` itself) are shown by their kind, never by their address.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic_core import to_jsonable_python

from tooldeck._tool import ToolFailure

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


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
