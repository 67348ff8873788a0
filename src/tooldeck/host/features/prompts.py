"""Getting a prompt: check its arguments, run its ``render``, lay out the messages.

A message's content may be text, an image, audio, a file or a ``Resource``: an
embedded resource, read (the prompt's own, so no permission is asked) and carried in
the message. Missing required arguments and unknown ones are refused before ``render``
runs, naming them, so a client's typo never reaches the prompt.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

from tooldeck._prompt import Prompt
from tooldeck._resource import Resource
from tooldeck._tool import AudioPart, ContentPart, FilePart, ImagePart, TextPart, ToolContext
from tooldeck.errors import ToolDefectError
from tooldeck.host.features.reading import ResourceContents, run_read
from tooldeck.host.registry.features import PromptEntry

if TYPE_CHECKING:
    from tooldeck.host.call.values import CallScope
    from tooldeck.host.execution.snapshot import Snapshot

Role = Literal["user", "assistant"]


class PromptMessage(NamedTuple):
    """One rendered message: a content part, or the contents of an embedded resource."""

    role: Role
    content: ContentPart | ResourceContents


class RenderedPrompt(NamedTuple):
    """What getting a prompt returns: its description and its messages."""

    description: str
    messages: tuple[PromptMessage, ...]


class PromptNotFound(LookupError):
    """No prompt of that name is registered."""

    def __init__(self, name: str) -> None:
        super().__init__(f"no prompt {name!r} here")
        self.name = name


class PromptArgumentsError(ValueError):
    """The arguments given do not fit the prompt: what is missing or unknown, named."""


def find(snapshot: Snapshot, name: str) -> PromptEntry:
    entry = snapshot.catalog.prompts.get(name)
    if entry is None:
        raise PromptNotFound(name)
    return entry


def checked_arguments(prompt: Prompt, given: Mapping[str, Any] | None) -> dict[str, str]:
    """``given`` as the prompt's arguments (strings), or ``PromptArgumentsError``."""
    given = dict(given or {})
    declared = {argument.name for argument in prompt.arguments}
    unknown = sorted(set(given) - declared)
    missing = [a.name for a in prompt.arguments if a.required and given.get(a.name) is None]
    problems = []
    if missing:
        problems.append(f"missing required argument(s) {', '.join(map(repr, missing))}")
    if unknown:
        problems.append(f"unknown argument(s) {', '.join(map(repr, unknown))}")
    if problems:
        expected = ", ".join(f"{a.name}{'' if a.required else '?'}" for a in prompt.arguments)
        raise PromptArgumentsError(
            f"prompt {prompt.name!r}: {'; '.join(problems)} (it takes: {expected or 'none'})"
        )
    return {key: str(value) for key, value in given.items() if value is not None}


async def render(
    snapshot: Snapshot,
    name: str,
    arguments: Mapping[str, Any] | None,
    scope: CallScope,
    render_id: str,
) -> RenderedPrompt:
    """Get prompt ``name`` with ``arguments`` in ``scope``'s session."""
    entry = find(snapshot, name)
    prompt = entry.prompt
    args = checked_arguments(prompt, arguments)
    ctx = ToolContext(
        snapshot.location,
        scope.session_id,
        scope.message_id,
        render_id,
        scope.agent,
        None,
        scope.peer,
    )
    value: Any = prompt.render(args, ctx)
    if inspect.isawaitable(value):
        value = await value
    messages = [await _message(name, item, ctx) for item in _items(name, value)]
    return RenderedPrompt(prompt.description, tuple(messages))


def _items(name: str, value: object) -> Sequence[object]:
    if isinstance(value, str):
        return [{"role": "user", "content": value}]
    if isinstance(value, Sequence) and not isinstance(value, bytes | bytearray):
        return value
    raise ToolDefectError(
        name, f"prompt render must return a str or a list of messages, got {type(value).__name__}"
    )


async def _message(name: str, item: object, ctx: ToolContext) -> PromptMessage:
    if not isinstance(item, Mapping) or item.get("role") not in ("user", "assistant"):
        raise ToolDefectError(
            name,
            'a prompt message must be {"role": "user" | "assistant", "content": ...}, '
            f"got {item!r:.200}",
        )
    role: Role = item["role"]
    content = item.get("content")
    if isinstance(content, str):
        return PromptMessage(role, TextPart(content))
    if isinstance(content, TextPart | ImagePart | AudioPart | FilePart):
        return PromptMessage(role, content)
    if isinstance(content, Resource):
        return PromptMessage(role, await run_read(content, content.uri, None, ctx))
    raise ToolDefectError(
        name,
        "a prompt message's content must be a str, TextPart, ImagePart, AudioPart, FilePart "
        f"or Resource, got {type(content).__name__}",
    )
