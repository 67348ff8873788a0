"""tooldeck-safe-read: a stricter ``read`` that wraps the one already in the catalog.

How it overrides: ``editor.update("read", harden)``. ``update`` hands us the current
definition (normally ``builtin:read``); we return a copy with a stricter input schema, a
description that says what is refused, and an executor that checks the path and then
calls the previous executor. The effective name stays ``read``, so the model sees one
``read`` tool, and ``tooldeck plugins`` reports "overrides read (builtin:read)".

Why ``update`` and not a fresh ``add``: reading (text, images, directories, paging,
permission asks) stays the built-in's job; this pack only adds refusals and caps. And
because every plugin is one registration replayed in order, uninstalling or disabling
this pack drops the update and the built-in ``read`` is back as it was. If no ``read``
exists when we run (``builtin:read`` disabled), ``update`` does nothing: a safety pack
should never be the thing that brings reading back.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field, TypeAdapter
from tooldeck import Tool, ToolContext, ToolEditor, ToolResult, hookimpl

from tooldeck_safe_read._policy import MAX_FILE_BYTES, refuse_large, refuse_secrets

MAX_LINES = 500

DESCRIPTION = f"""\
Read a file or list a directory in the project.

A text file comes back as numbered lines, `N: text`; the `N: ` prefix is not part of \
the file. A page holds at most {MAX_LINES} lines; when the file goes on, the result ends \
with the `offset` to continue from. A directory lists its entries. Images (PNG, JPEG, \
GIF, WEBP) are returned as images.

Refused, with the reason: secrets and dotfiles (`.env`, `*.pem`, `*.key`, SSH keys \
`id_*`, anything hidden such as `.ssh/` or `.npmrc`), anything under `.git/` (use the git \
tools), symlinks leading to any of those, and files over \
{MAX_FILE_BYTES // 1024 // 1024} MB (search them instead). Do not try to read refused \
files another way.

`path` is relative to the project root, or absolute; paths outside the project need \
the user's approval."""


class SafeReadInput(BaseModel):
    path: str = Field(
        min_length=1,
        description="The file or directory to read, relative to the project root or absolute.",
    )
    offset: int = Field(
        default=1, ge=1, description="The 1-based line (or entry) to start at, to page on."
    )
    limit: int = Field(
        default=MAX_LINES,
        ge=1,
        description=f"The most lines (or entries) to return: at most {MAX_LINES}; a larger "
        "value is lowered.",
    )


@hookimpl
def tool_transform(editor: ToolEditor) -> None:
    """Harden whatever ``read`` the plugins before this one left (a no-op if none)."""
    editor.update("read", harden)


def harden(current: Tool[Any, Any]) -> Tool[Any, Any]:
    """``current`` with safe-read's schema, description and guarded executor."""
    return current.replace(
        description=DESCRIPTION,
        input=SafeReadInput,
        execute=_guarded(current),
        codemode=False,  # models are trained to call `read` directly
    )


def _guarded(current: Tool[Any, Any]) -> Callable[[SafeReadInput, ToolContext], Any]:
    execute = current.execute
    to_input = _converter(current.input)

    async def read(data: SafeReadInput, ctx: ToolContext) -> ToolResult:
        refuse_secrets(ctx.location, data.path)
        refuse_large(ctx.location, data.path)
        arguments = data.model_dump() | {"limit": min(data.limit, MAX_LINES)}
        result = execute(to_input(arguments), ctx)
        if inspect.isawaitable(result):
            result = await result
        return result

    return read


def _converter(source: Any) -> Callable[[dict[str, Any]], Any]:
    """Build the previous tool's input from ours, in whatever kind it declared.

    An executor receives a model instance for a pydantic input and a plain dict for a
    JSON Schema input (DESIGN §2); the previous ``read`` may be either.
    """
    if isinstance(source, type) and issubclass(source, BaseModel):
        return source.model_validate
    if isinstance(source, TypeAdapter):
        return source.validate_python
    return dict
