"""A server's listed resources, templates and prompts → tooldeck registrations.

They join the catalog through the MCP layer's transform like the server's tools, so
overrides, reveal on dispose, session overlays, trust and permissions apply to them as
to a pack's.

Naming. A prompt is namespaced exactly like a tool: ``<server>_<prompt>`` (a name that
already starts with ``<server>_`` keeps it once), and the server is asked for it by its
own name. A resource or template keeps **the server's URI**: a URI is what the server's
tool results, prompts and links hand out, so a client reading one of those back through
tooldeck (``tooldeck mcp serve``) finds it, and a read reaches the server with the URI
it knows. The namespace goes on the resource's *name* (``<server>_<name>``), so a
listing says which server a resource comes from. Two servers listing the same URI
mount it from the first one configured; the other server's row says so (``layer``).

Reading asserts the ``resource`` action on the URI (the registry's reading path, as for
a pack's resource), then reads from the server; the server's MIME type of each read is
kept. A prompt's messages come back as tooldeck content: text, images and audio as
parts, an embedded resource as a ``Resource`` carried in the message (its URI kept),
a resource link as a line of text. A server that offers completions completes its
prompts' arguments and its templates' variables.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple
from urllib.parse import quote

from tooldeck._prompt import Prompt, PromptArgument
from tooldeck._resource import Resource, ResourceTemplate
from tooldeck._tool import TextPart, ToolContext
from tooldeck.host.features.reading import ResourceContents
from tooldeck.host.registry.feature_checks import resource_problem, template_variables
from tooldeck.host.registry.names import effective_name
from tooldeck.mcp.client.calls import request_past_pages
from tooldeck.mcp.client.mount import local_name
from tooldeck.mcp.client.results import content_part
from tooldeck.mcp.client.server_requests import Caller

if TYPE_CHECKING:
    from tooldeck.mcp.client.connection import Connection
    from tooldeck.mcp.client.features import Features
    from tooldeck.mcp.client.loop import LoopThread

AnyResource = Resource | ResourceTemplate


class MountedFeatures(NamedTuple):
    """What a server's lists mount: registrations by key (URI, template or effective
    prompt name), each with the listing it was built from (unchanged listings keep their
    registration, so nothing looks changed to subscribers), and notes for its row."""

    resources: dict[str, tuple[Any, AnyResource]]
    prompts: dict[str, tuple[Any, Prompt]]
    notes: tuple[str, ...]


NOTHING = MountedFeatures({}, {}, ())


def mounted_features(
    connection: Connection,
    loop: LoopThread,
    features: Features,
    previous: MountedFeatures,
) -> MountedFeatures:
    """The registrations for ``features`` (which server serves a URI that several list
    is the layer's to decide)."""
    namespace = connection.spec.namespace
    completes = features.completes
    notes: list[str] = list(features.note_texts())
    resources: dict[str, tuple[Any, AnyResource]] = {}
    for listed in (*features.resources, *features.templates):
        uri = str(getattr(listed, "uri", None) or getattr(listed, "uri_template", ""))
        if uri in resources:
            continue  # listed twice: the first one is mounted
        before = previous.resources.get(uri)
        if before is not None and before[0] == listed:
            resources[uri] = before
            continue
        built = _resource(connection, loop, listed, namespace, completes)
        problem = resource_problem(built)
        if problem is not None:
            notes.append(f"resource {uri!r} was skipped: {problem}")
            continue
        resources[uri] = (listed, built)
    prompts: dict[str, tuple[Any, Prompt]] = {}
    for listed in features.prompts:
        local = local_name(listed.name, namespace)
        name = effective_name(local, namespace)
        if name in prompts:
            notes.append(f"prompt {listed.name!r} is listed more than once (as {name!r})")
            continue
        before_prompt = previous.prompts.get(name)
        if before_prompt is not None and before_prompt[0] == listed:
            prompts[name] = before_prompt
            continue
        prompts[name] = (listed, _prompt(connection, loop, listed, local, completes))
    return MountedFeatures(resources, prompts, tuple(notes))


# -- resources ---------------------------------------------------------------------------
def _resource(
    connection: Connection, loop: LoopThread, listed: Any, namespace: str, completes: bool
) -> AnyResource:
    name = f"{namespace.replace('.', '_')}_{local_name(listed.name, namespace)}"
    description = listed.description or listed.title or None
    if hasattr(listed, "uri_template"):
        template = listed.uri_template
        complete = None
        if completes:
            ref = {"type": "ref/resource", "uri": template}
            complete = {
                variable: RemoteCompletion(connection, loop, ref, variable)
                for variable in _variables(template)
            }
        return ResourceTemplate(
            template,
            name,
            description,
            listed.mime_type,
            read=RemoteTemplateRead(connection, loop, template, listed.mime_type),
            complete=complete,
        )
    uri = str(listed.uri)
    return Resource(
        uri,
        name,
        description,
        listed.mime_type,
        read=RemoteRead(connection, loop, listed.mime_type, uri),
    )


class RemoteRead:
    """The ``read`` of a mounted resource: ``resources/read`` on its server."""

    __slots__ = ("connection", "loop", "mime_type", "uri")

    def __init__(
        self, connection: Connection, loop: LoopThread, mime_type: str | None, uri: str = ""
    ) -> None:
        self.connection = connection
        self.loop = loop
        self.mime_type = mime_type
        self.uri = uri

    async def __call__(self, ctx: ToolContext) -> Any:
        return await self.read(self.uri, ctx)

    async def read(self, uri: str, ctx: ToolContext) -> ResourceContents:
        connection = self.connection
        result = await self.loop.run(
            request_past_pages,
            connection,
            f"resource {uri!r}",
            f"reading {uri!r}",
            lambda client: client.read_resource(uri, cache_mode="bypass"),
            Caller(ctx),
        )
        return _contents(uri, result.contents, self.mime_type)


class RemoteTemplateRead(RemoteRead):
    """The ``read`` of a mounted template: the URI its values make, read on the server."""

    __slots__ = ("template",)

    def __init__(
        self, connection: Connection, loop: LoopThread, template: str, mime_type: str | None
    ) -> None:
        super().__init__(connection, loop, mime_type)
        self.template = template

    async def __call__(self, params: Mapping[str, str], ctx: ToolContext) -> Any:  # type: ignore[override]
        return await self.read(expand(self.template, params), ctx)


def _contents(uri: str, contents: list[Any], mime_type: str | None) -> ResourceContents:
    """A read's contents as the server sent them, each under its own URI (the read's
    when it gave none): the first, with the others in ``more``."""
    if not contents:
        return ResourceContents(uri, mime_type or "text/plain", text="")
    first, *rest = [_one(str(c.uri or uri), c, mime_type) for c in contents]
    return first._replace(more=tuple(rest)) if rest else first


def _one(uri: str, content: Any, mime_type: str | None) -> ResourceContents:
    mime = content.mime_type or mime_type
    text = getattr(content, "text", None)
    if text is not None:
        return ResourceContents(uri, mime or "text/plain", text=text)
    blob = base64.b64decode(content.blob)
    return ResourceContents(uri, mime or "application/octet-stream", blob=blob)


def expand(template: str, params: Mapping[str, str]) -> str:
    """``template`` with its ``{name}`` / ``{+name}`` filled in (RFC 6570: simple values
    percent-encoded, reserved ones keep URI characters), the URI the server expects."""
    import re

    def value(found: re.Match[str]) -> str:
        reserved, name = found.group(1), found.group(2)
        text = params.get(name, "")
        return quote(text, safe=_RESERVED if reserved else "")

    return re.sub(r"\{(\+?)([A-Za-z0-9_]+)\}", value, template)


_RESERVED = ":/?#[]@!$&'()*+,;=%"


def _variables(template: str) -> list[str]:
    return list(template_variables(template))


# -- prompts -----------------------------------------------------------------------------
def _prompt(
    connection: Connection, loop: LoopThread, listed: Any, local: str, completes: bool
) -> Prompt:
    description = (listed.description or "").strip() or (listed.title or "").strip()
    if not description:
        description = f"Prompt {listed.name} of MCP server {connection.name}."
    ref = {"type": "ref/prompt", "name": listed.name}
    arguments = [
        PromptArgument(
            argument.name,
            argument.description,
            bool(argument.required),
            RemoteCompletion(connection, loop, ref, argument.name) if completes else None,
        )
        for argument in listed.arguments or ()
    ]
    return Prompt(
        local,
        description,
        arguments,
        render=RemotePrompt(connection, loop, listed.name),
        namespace=connection.spec.namespace,
    )


class RemotePrompt:
    """The ``render`` of a mounted prompt: ``prompts/get`` on its server."""

    __slots__ = ("connection", "loop", "remote_name")

    def __init__(self, connection: Connection, loop: LoopThread, remote_name: str) -> None:
        self.connection = connection
        self.loop = loop
        self.remote_name = remote_name

    async def __call__(self, arguments: Mapping[str, str], ctx: ToolContext) -> Any:
        name = self.remote_name
        result = await self.loop.run(
            request_past_pages,
            self.connection,
            f"prompt {name!r}",
            f"getting prompt {name!r}",
            lambda client: client.get_prompt(name, dict(arguments)),
            Caller(ctx),
        )
        return [{"role": m.role, "content": _message_content(m.content)} for m in result.messages]


def _message_content(block: Any) -> Any:
    if getattr(block, "type", None) == "resource":
        embedded = block.resource
        contents = _contents(str(embedded.uri), [embedded], None)
        uri = contents.uri
        return Resource(
            uri,
            uri.rstrip("/").rpartition("/")[2] or uri,
            mime_type=contents.mime_type,
            read=_Embedded(contents),
        )
    try:
        return content_part(block)
    except ValueError as exc:  # undecodable base64: the message says so
        return TextPart(f"[a {block.type} block was left out: {exc}]")


class _Embedded:
    """The ``read`` of a resource a prompt's message embedded: its contents as sent."""

    __slots__ = ("contents",)

    def __init__(self, contents: ResourceContents) -> None:
        self.contents = contents

    def __call__(self, ctx: ToolContext) -> Any:
        return self.contents


class RemoteCompletion:
    """Completes one prompt argument or template variable through the server's
    ``completion/complete``; a server that fails to answer offers nothing."""

    __slots__ = ("argument", "connection", "loop", "ref")

    def __init__(
        self, connection: Connection, loop: LoopThread, ref: dict[str, str], argument: str
    ) -> None:
        self.connection = connection
        self.loop = loop
        self.ref = ref
        self.argument = argument

    def __call__(self, typed: str) -> Any:
        return self._complete(typed)

    async def _complete(self, typed: str) -> list[str]:
        from tooldeck._tool import ToolFailure
        from tooldeck.mcp.sdk import types

        ref: Any = (
            types.PromptReference.model_validate(self.ref)
            if self.ref["type"] == "ref/prompt"
            else types.ResourceTemplateReference.model_validate(self.ref)
        )
        argument = {"name": self.argument, "value": typed}
        try:
            result = await self.loop.run(
                request_past_pages,
                self.connection,
                f"completion of {self.argument!r}",
                f"completing {self.argument!r}",
                lambda client: client.complete(ref, argument),
            )
        except ToolFailure:
            return []
        return list(result.completion.values)
