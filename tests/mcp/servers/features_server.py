"""A real MCP server (the SDK's ``MCPServer``, stdio) with resources, a resource
template, prompts and a tool that asks its user, to be mounted by tooldeck.

    python features_server.py [--modern]

``counter://value`` is subscribable: ``bump`` changes it and tells its subscribers
(``subscribed`` lists the subscribe requests, in the handshake era). ``add_note(name,
text)`` adds a resource ``note://<name>`` and a prompt ``note_<name>`` and tells the
client both lists changed; ``ask`` elicits a form during its call (handshake era),
``pick`` the same form through the SDK's resolver (in either era). Without
``--modern`` it speaks only the handshake era (list changes as notifications,
questions as requests mid-call); with it, every era the SDK offers.
"""

from __future__ import annotations

import base64
import sys
import warnings
from typing import Annotated

import anyio
from mcp.server.elicitation import ElicitationResult
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve
from mcp.server.mcpserver.prompts.base import Prompt, UserMessage
from mcp.server.mcpserver.resources import TextResource
from mcp.server.runner import serve_loop
from mcp.server.stdio import stdio_server
from mcp.types import (
    EmbeddedResource,
    ImageContent,
    SubscribeRequestParams,
    TextResourceContents,
    UnsubscribeRequestParams,
)
from pydantic import BaseModel, Field

warnings.simplefilter("ignore")


class FeaturesServer(MCPServer):
    """Reads ``info://pair`` as two contents (as a folder's read may), the rest as usual."""

    async def read_resource(self, uri, context=None):  # type: ignore[no-untyped-def]
        if str(uri) == "info://pair":
            return [
                ReadResourceContents(content="one", mime_type="text/plain"),
                ReadResourceContents(content=b"two", mime_type="application/octet-stream"),
            ]
        return await super().read_resource(uri, context)


SUBSCRIBED: set[str] = set()
"""The URIs the client subscribed to (handshake era: ``resources/subscribe``)."""
REQUESTS: list[str] = []
"""Every ``resources/subscribe`` (``+URI``) and ``resources/unsubscribe`` (``-URI``)."""
COUNTER = [0]


async def _subscribe(ctx, params):  # type: ignore[no-untyped-def]
    from mcp.types import EmptyResult

    SUBSCRIBED.add(str(params.uri))
    REQUESTS.append(f"+{params.uri}")
    return EmptyResult()


async def _unsubscribe(ctx, params):  # type: ignore[no-untyped-def]
    from mcp.types import EmptyResult

    SUBSCRIBED.discard(str(params.uri))
    REQUESTS.append(f"-{params.uri}")
    return EmptyResult()


server = FeaturesServer("features", log_level="WARNING")
server._lowlevel_server.add_request_handler(
    "resources/subscribe", SubscribeRequestParams, _subscribe
)
server._lowlevel_server.add_request_handler(
    "resources/unsubscribe", UnsubscribeRequestParams, _unsubscribe
)
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


@server.resource("info://readme", name="readme", description="What this server is.")
def readme() -> str:
    return "a server with resources and prompts"


@server.resource("info://logo", name="logo", mime_type="image/png")
def logo() -> bytes:
    return PIXEL


@server.resource("info://pair", name="pair")
def pair() -> str:
    return "read as two contents"


@server.resource("greeting://{who}", name="greeting", mime_type="text/plain")
def greeting(who: str) -> str:
    return f"hello {who}"


@server.resource("counter://value", name="counter", mime_type="text/plain")
def counter() -> str:
    return str(COUNTER[0])


@server.tool()
async def bump(ctx: Context) -> str:
    """Count one up: the resource counter://value changed (its subscribers are told)."""
    COUNTER[0] += 1
    if "counter://value" in SUBSCRIBED:
        await ctx.request_context.session.send_resource_updated("counter://value")
    await ctx.notify_resource_updated("counter://value")  # 2026-07-28 listeners
    return str(COUNTER[0])


@server.tool()
def subscribed() -> str:
    """The subscribe (``+URI``) and unsubscribe (``-URI``) requests so far, in order."""
    return " ".join(REQUESTS) or "none"


@server.prompt(description="Review a file.")
def review(path: str, focus: str = "bugs") -> str:
    return f"Review {path} for {focus}."


@server.prompt(description="A prompt with an embedded resource and an image.")
def show() -> list[UserMessage]:
    embedded = EmbeddedResource(
        type="resource",
        resource=TextResourceContents(uri="info://readme", mime_type="text/plain", text="inline"),
    )
    image = ImageContent(type="image", data=base64.b64encode(PIXEL).decode(), mime_type="image/png")
    return [UserMessage(content=embedded), UserMessage(content=image)]


@server.tool()
async def add_note(name: str, text: str, ctx: Context) -> str:
    """Add a resource note://NAME and a prompt note_NAME."""
    server.add_resource(TextResource(uri=f"note://{name}", name=f"note {name}", text=text))

    def render() -> str:
        return f"Remember: {text}"

    server.add_prompt(Prompt.from_function(render, name=f"note_{name}", description="A note."))
    session = ctx.request_context.session
    await session.send_resource_list_changed()
    await session.send_prompt_list_changed()
    await ctx.notify_resources_changed()
    await ctx.notify_prompts_changed()
    return "added"


class Colour(BaseModel):
    colour: str = Field(default="teal", description="Your favourite colour")


@server.tool()
async def ask(ctx: Context) -> str:
    """Ask the user for a colour."""
    answer = await ctx.elicit("Which colour?", Colour)
    if answer.action != "accept":
        return f"no answer: {answer.action}"
    return f"colour {answer.data.colour}"


def _colour() -> Elicit[Colour]:
    return Elicit("Which colour?", Colour)


@server.tool()
async def pick(answer: Annotated[ElicitationResult[Colour], Resolve(_colour)]) -> str:
    """Ask the user for a colour, in whichever era the client speaks (mid-call in the
    handshake era, an ``input_required`` round in 2026-07-28)."""
    if answer.action != "accept":
        return f"no answer: {answer.action}"
    return f"colour {answer.data.colour}"


async def _serve_handshake_era() -> None:
    lowlevel = server._lowlevel_server
    async with stdio_server() as (read, write), lowlevel.lifespan(lowlevel) as state:
        options = lowlevel.create_initialization_options()
        await serve_loop(lowlevel, read, write, lifespan_state=state, init_options=options)


if __name__ == "__main__":
    if "--modern" in sys.argv:
        server.run("stdio")
    else:
        anyio.run(_serve_handshake_era)
