"""Prompts: message templates a pack offers its users, registered beside its tools.

A ``Prompt`` names its arguments and renders messages from them: ``render(args, ctx)``
returns a string (one user message) or a list of messages ``{"role": "user" |
"assistant", "content": ...}`` whose content is a string, a ``TextPart``, ``ImagePart``,
``AudioPart`` or ``FilePart``, or a ``Resource`` (embedded: its contents travel in the
message). Frozen, and validated by ``editor.add_prompt`` like tools are by ``add``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from tooldeck._public import public

if TYPE_CHECKING:
    from tooldeck._tool import ToolContext


@public
class PromptArgument(NamedTuple):
    """One argument of a prompt. ``complete`` offers values while a user types it: the
    values themselves, or ``fn(typed)`` returning them."""

    name: str
    description: str | None = None
    required: bool = False
    complete: Callable[[str], Iterable[str]] | Iterable[str] | None = None


@public
@dataclass(frozen=True, slots=True, eq=False)
class Prompt:
    """A named message template: ``render(args, ctx)`` gets the arguments as strings
    (missing optional ones absent) and returns the messages.

    The name follows the rules of tool names (``namespace`` too): its effective name is
    what clients list and get. Frozen: ``replace`` returns a modified copy.
    """

    name: str
    description: str
    arguments: Sequence[PromptArgument] = ()
    render: Callable[
        [Mapping[str, str], ToolContext],
        str | Sequence[Mapping[str, Any]] | Awaitable[str | Sequence[Mapping[str, Any]]],
    ] = field(kw_only=True)
    namespace: str | None = field(default=None, kw_only=True)

    def replace(self, **changes: Any) -> Prompt:
        """Return a copy with ``changes`` applied."""
        return dataclasses.replace(self, **changes)
