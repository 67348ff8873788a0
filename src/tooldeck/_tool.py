"""The tool object and the values that flow in and out of an executor.

A ``Tool`` is one frozen object: name, description, schemas, options and the executor.
It never validates itself when constructed; ``ToolEditor.add``/``update`` do, so a pack
can build tools freely and the registry decides, with a diagnostic, what it accepts.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Generic, Literal, NamedTuple, TypeAlias

from typing_extensions import TypeVar

from tooldeck._peer import LOG_LEVELS, PYTHON_LEVELS, RESUMED_PEER, Elicited, LogLevel, Peer
from tooldeck._public import public

if TYPE_CHECKING:
    from pydantic import TypeAdapter

    from tooldeck.host.location.location import Location
    from tooldeck.host.location.questions import QuestionGate
    from tooldeck.host.permissions.permission import PermissionGate

# Defaults, so that a tool whose input or output says nothing about its type (a JSON
# Schema, no output) still gets a type: ``Any`` for that parameter.
InT = TypeVar("InT", default=Any)
OutT = TypeVar("OutT", default=Any)

JsonSchema: TypeAlias = Mapping[str, Any]
"""A JSON Schema document as a mapping."""

SchemaSource: TypeAlias = Any
"""What ``Tool.input``/``Tool.output`` accept: a pydantic model class, a JSON Schema
mapping, a ``pydantic.TypeAdapter`` (used by ``tool(fn)`` for plain return types), or
``None`` (no arguments / no declared output). ``Tool`` spells the same out with its
type parameters, so that they can be inferred."""

ProgressCallback: TypeAlias = Callable[[Mapping[str, Any]], None]

_EMPTY: Mapping[str, Any] = MappingProxyType({})


@public
class TextPart(NamedTuple):
    """Model-facing text. (Content parts are named tuples: one is built per call.)"""

    text: str
    type: Literal["text"] = "text"


@public
class ImagePart(NamedTuple):
    """A model-facing image: raw bytes plus their MIME type (checked by magic bytes)."""

    data: bytes
    mime_type: str
    type: Literal["image"] = "image"


@public
class FilePart(NamedTuple):
    """A model-facing file attachment (for example a PDF)."""

    data: bytes
    mime_type: str
    filename: str | None = None
    type: Literal["file"] = "file"


@public
class AudioPart(NamedTuple):
    """Model-facing audio: raw bytes plus their MIME type (``audio/wav``, ``audio/mpeg``)."""

    data: bytes
    mime_type: str
    type: Literal["audio"] = "audio"


ContentPart: TypeAlias = TextPart | ImagePart | FilePart | AudioPart
Content: TypeAlias = str | Sequence[ContentPart] | None


@public
class ToolResult(NamedTuple):
    """What an executor returns.

    ``content`` is what the model reads, ``metadata`` is free-form for UIs and logs, and
    ``output`` is the declared machine output: required when the tool declares an output
    schema, forbidden (``None``) when it does not. A named tuple because it is created on
    every call.
    """

    content: Content = None
    metadata: Mapping[str, Any] = _EMPTY
    output: Any = None


@public
class ToolFailure(Exception):
    """The only expected, model-visible failure of a tool call.

    Leaves translate their *expected* errors (file not found, invalid regex, a permission
    rejected with feedback) into ``ToolFailure`` and nothing else: defects, cancellation
    and decline signals must travel past them.
    """

    def __init__(
        self,
        message: str,
        cause: BaseException | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.cause = cause
        self.metadata: Mapping[str, Any] = metadata if metadata is not None else _EMPTY
        if cause is not None:
            self.__cause__ = cause


@public
class AwaitingInput(ToolFailure):
    """The call stopped at a question whose answer comes with its next run (a *round*).

    Raised by ``ctx.elicit``, ``ctx.elicit_url`` or ``ctx.sample`` where the peer answers
    by running the call again rather than by waiting: ``tooldeck mcp serve`` with an MCP
    2026-07-28 client (an ``input_required`` result), or a host's own ``Peer`` that works
    the same way. A mounted server's question during such a call stops the call too.

    It is a ``ToolFailure``, so a tool's or hook's ``except ToolFailure`` (or ``except
    Exception``) that swallows it still ends with the question asked: whoever drives the
    rounds reads the question it recorded, not the call's outcome. Tracing records the
    call as awaiting input, not as an error; a ``tool_call`` hook that counts failures
    can tell it apart with ``isinstance(exc, AwaitingInput)`` and let it through.
    """

    def __init__(self, message: str = "This call waits for an answer.") -> None:
        super().__init__(message)


@public
class ToolContext(NamedTuple):
    """Everything an executor may know about the call it is serving.

    Built once per call by the execution boundary (a named tuple because it is on the
    hot path). ``permission`` and ``question`` are bound to the canonical source of this
    call (``{"type": "tool", "message_id": ..., "id": call_id}``) when first used.
    """

    location: Location
    session_id: str = ""
    message_id: str = ""
    call_id: str = ""
    agent: str | None = None
    on_progress: ProgressCallback | None = None
    peer: Peer | None = None

    @property
    def source(self) -> dict[str, str]:
        """The canonical permission source of this call."""
        return {"type": "tool", "message_id": self.message_id, "id": self.call_id}

    def progress(self, metadata: Mapping[str, Any]) -> None:
        """Report progress to the host; the metadata reaches its callback unchanged.

        ``{"progress": n, "total": m, "message": ...}`` is progress an MCP client is shown
        (``notifications/progress``) when the call is served and its request asked for it.
        """
        if self.on_progress is not None:
            self.on_progress(metadata)

    def log(self, level: LogLevel, message: str) -> None:
        """Log ``message`` for whoever watches this call: its MCP client when served (as
        ``notifications/message``, at or above the level the client set), else the
        Python logger ``tooldeck.tool``."""
        if level not in LOG_LEVELS:
            raise ValueError(f"ctx.log level must be one of {', '.join(LOG_LEVELS)}, got {level!r}")
        if self.peer is not None:
            self.peer.log(level, str(message))
            return
        import logging  # on use only: most calls never log

        logging.getLogger("tooldeck.tool").log(PYTHON_LEVELS[level], "%s", message)

    def resource_updated(self, uri: str) -> None:
        """Say that the resource at ``uri`` changed (this call changed it, say): MCP
        clients subscribed to it get ``notifications/resources/updated``. The same as
        ``ctx.location.resource_updated(uri)``, which code outside a call uses."""
        self.location.resource_updated(uri)

    async def elicit(self, message: str, schema: Mapping[str, Any]) -> Elicited:
        """Ask the user for the fields of ``schema`` (a flat JSON Schema object: strings,
        numbers, booleans, enums, with defaults) and wait for the answer.

        Raises ``ToolFailure`` saying so where no one can be asked: a call that is not
        served to an MCP client, or a client that does not offer elicitation.
        """
        peer = self._talking_to()
        if peer is None:
            raise ToolFailure(_UNSERVED.format(what="ask the user (ctx.elicit)"))
        return await peer.elicit(message, schema)

    async def elicit_url(
        self, message: str, url: str, *, elicitation_id: str | None = None
    ) -> Elicited:
        """Ask the user to open ``url`` (MCP's URL mode: a sign-in, a payment, a secret
        that must not pass through the model or the client). ``"accept"``: the user
        agreed to go, not that they are done; ``content`` is None. ``elicitation_id``
        names the question for ``elicitation_complete``. Raises ``ToolFailure`` where
        no one can be asked (not served, or a client without URL elicitation)."""
        peer = self._talking_to()
        ask = getattr(peer, "elicit_url", None)
        if ask is None:
            raise ToolFailure(_UNSERVED.format(what="send the user to a URL (ctx.elicit_url)"))
        answer: Elicited = await ask(str(message), str(url), elicitation_id)
        return answer

    def elicitation_complete(self, elicitation_id: str) -> None:
        """Tell the client that what ``elicit_url`` sent the user for is done
        (``notifications/elicitation/complete``); nothing where it cannot be told (not
        served, an MCP 2026-07-28 client). As in MCP, delivery is not guaranteed."""
        peer = self._talking_to()
        complete = getattr(peer, "elicitation_complete", None)
        if complete is not None:
            complete(str(elicitation_id))

    async def sample(
        self, messages: Sequence[Mapping[str, Any]], *, max_tokens: int, **options: Any
    ) -> ContentPart:
        """Ask the client's model: ``messages`` are ``{"role": "user" | "assistant",
        "content": str | TextPart | ImagePart | AudioPart}``; the answer is the model's
        content. ``options`` are MCP's ``sampling/createMessage`` parameters
        (``system_prompt``, ``temperature``, ``stop_sequences``, ``model_preferences``).

        Raises ``ToolFailure`` saying so where no model can be asked: a call that is not
        served to an MCP client, or a client that does not offer sampling.
        """
        peer = self._talking_to()
        if peer is None:
            raise ToolFailure(_UNSERVED.format(what="ask the client's model (ctx.sample)"))
        return await peer.sample(messages, max_tokens, options)

    @property
    def permission(self) -> PermissionGate:
        """The Location's permission service, bound to this call's source and session."""
        return self.location.permission.gate(self.source, session_id=self.session_id)

    def _talking_to(self) -> Peer | None:
        """The call's own peer, else the one a resumed call keeps (``peer_of_resumed_calls``)."""
        return self.peer if self.peer is not None else RESUMED_PEER.get()

    @property
    def question(self) -> QuestionGate:
        """The Location's question service, bound to this call's source and session."""
        return self.location.question.gate(self.source, session_id=self.session_id)


_UNSERVED = (
    "this tool needed to {what}, and its call has no client that can answer: that works "
    "only when it is served over MCP to a client offering it"
)

tuple_new = tuple.__new__
"""Builds the named tuples of every tool call without their generated ``__new__``.

Each call builds a few named tuples: its ``ToolContext``, the ``ToolResult`` of a
``tool(fn)`` executor, the ``TextPart`` the model reads, ``ExecutedTool`` and
``ToolCallOutcome``. A named tuple's constructor is a Python function (it binds keywords
and fills defaults) around ``tuple.__new__``; on the execution hot path that wrapper is
a measurable share of a call (``bench/DECISIONS.md``), so those few places call
``tuple_new(ToolContext, (location, "", "", call_id, None, None, None))`` with *every* field in
order. That skips defaults, so ``tests/test_tuples.py`` finds each class built this way
and pins it to its field list and its constructor: a new field fails there, not at read
time.
"""


Executor: TypeAlias = Callable[[InT, ToolContext], "ToolResult | Awaitable[ToolResult]"]


@public
class FrozenToolError(AttributeError):
    """Raised on an attempt to change a ``Tool``: use ``tool.replace(...)``."""


@public
@dataclass(frozen=True, slots=True, eq=False, kw_only=True)
class Tool(Generic[InT, OutT]):
    """One tool: name, description, schemas, options and its executor.

    Generic for authors: ``Tool(input=ReadInput, output=ReadOutput, execute=read)`` is a
    ``Tool[ReadInput, ReadOutput]`` without an annotation, and mypy checks ``read``'s
    first parameter against ``ReadInput``. The registry erases the parameters
    (``AnyTool``). Frozen: ``replace`` returns a modified copy. Equality is identity:
    two tools are the same tool only if they are the same object.
    """

    name: str
    description: str
    execute: Callable[[InT, ToolContext], ToolResult | Awaitable[ToolResult]]
    input: type[InT] | TypeAdapter[InT] | Mapping[str, Any] | None = None
    output: type[OutT] | TypeAdapter[OutT] | Mapping[str, Any] | None = None
    namespace: str | None = None
    codemode: bool = True
    permission: str | None = None
    pinned: bool = False
    # Advertised behind a tool search instead of in full (never for pinned tools and
    # code-mode tools, which ``execute`` and its budget already cover).
    defer_loading: bool = False
    # Safe to run twice: a durable approval whose run was cut off may run it again
    # (``host.resume``) instead of ending ``unknown``.
    idempotent: bool = False
    # Per-tool limits, enforced at the call boundary (``[tools."NAME"]`` overrides them):
    # a call longer than ``timeout_s`` fails naming the limit; at most ``max_concurrency``
    # calls of the tool run at once (the rest wait in order, within their timeout); a
    # ``sequential`` call never runs concurrently with another call of its session.
    timeout_s: float | None = None
    max_concurrency: int | None = None
    sequential: bool = False
    # The registry's per-object cache (``tooldeck.host.registry.record``): not a field a
    # caller sets, shows or compares, and a copy made by ``replace`` starts without it.
    _record: Any = field(default=None, init=False, repr=False, compare=False)

    def replace(self, **changes: Any) -> Tool[Any, Any]:
        """Return a copy with ``changes`` applied (the original stays untouched)."""
        return dataclasses.replace(self, **changes)


def _refuse_set(tool: object, name: str, value: object) -> None:
    raise FrozenToolError(f"Tool is frozen: use tool.replace({name}=...)")


def _refuse_delete(tool: object, name: str) -> None:
    raise FrozenToolError("Tool is frozen")


# A frozen dataclass refuses changes with the generic dataclasses.FrozenInstanceError;
# Tool's refusal names its own error and the fix. (The generated __init__ and replace()
# set fields through object.__setattr__, which this leaves alone.)
setattr(Tool, "__setattr__", _refuse_set)  # noqa: B010  (mypy: no assignment to methods)
setattr(Tool, "__delattr__", _refuse_delete)  # noqa: B010


AnyTool: TypeAlias = Tool[Any, Any]
"""A registered tool: the registry erases author generics at this boundary."""
