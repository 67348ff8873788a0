"""A real MCP server (the SDK's ``MCPServer``, stdio) that talks back during its calls:
it asks the user (elicitation: a form, or a URL to open), reports progress, logs, says
who its client is, and has a tool whose input schema leaves a nested object open.

    python talk_server.py

It speaks only the handshake era (the SDK's handshake-only loop, as servers older than
2026-07-28 do), the era in which a server sends its own requests and
notifications during a call, as most servers in the wild still do.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import TaskGroup
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.runner import serve_loop
from mcp.server.session import ServerSession
from mcp.server.stdio import stdio_server
from mcp.types import ElicitRequestURLParams
from pydantic import BaseModel, Field

from mcp import MCPError, UrlElicitationRequiredError

warnings.simplefilter("ignore")  # ctx.log is deprecated in the 2026-07-28 era; still sent

server = MCPServer("talk", log_level="WARNING")


class Colour(BaseModel):
    colour: str = Field(default="teal", description="Your favourite colour")
    shade: int = Field(default=3, description="How dark, 1-5")


@server.tool()
async def ask(ctx: Context) -> str:
    """Ask the user for a colour."""
    answer = await ctx.elicit("Which colour?", Colour)
    if answer.action != "accept":
        return f"no answer: {answer.action}"
    return f"{answer.data.colour} {answer.data.shade}"


SIGN_IN = "https://acme.example/signin?session=42"


@server.tool()
async def connect(ctx: Context) -> str:
    """Send the user to a sign-in page (URL-mode elicitation), and say when it is done."""
    answer = await ctx.elicit_url("Sign in to Acme", SIGN_IN, "signin-42")
    if answer.action != "accept":
        return f"not signed in: {answer.action}"
    await ctx.request_context.session.send_elicit_complete("signin-42", ctx.request_id)
    return "signed in"


VAULT = "https://acme.example/vault"


@server.tool()
async def vault(marker: str, ctx: Context, steps: int = 1, label: str = "vault") -> str:
    """Open the vault: until the file ``marker`` exists (the user has been to the
    vault's pages), the call is refused with -32042, URL elicitation required, listing
    ``steps`` pages (elicitation ids ``LABEL-1``, ``LABEL-2``, ...: calls that share this
    server keep their pages apart by label); the server says the pages are done once it
    exists (``_watch``)."""
    _until_visited(marker, ctx, steps, label)
    return "vault open"


@server.resource("vault://{marker}")
async def vault_note(marker: str, ctx: Context) -> str:
    """The vault's note, read the way ``vault`` opens (``marker``: a file name in the
    server's working directory, and its pages' label)."""
    _until_visited(marker, ctx, 1, marker)
    return "the note in the vault"


@server.prompt()
async def vault_brief(marker: str, ctx: Context) -> str:
    """A brief on the vault's contents, got the way ``vault`` opens."""
    _until_visited(marker, ctx, 1)
    return "Summarise the vault."


def _until_visited(marker: str, ctx: Context, steps: int, label: str = "vault") -> None:
    """Refuse (-32042) until the file ``marker`` exists, listing ``steps`` pages; the
    first refusal starts watching for it (``_watch``)."""
    if Path(marker).exists():
        return
    pages = [
        ElicitRequestURLParams(
            message=f"Unlock the vault (step {step})",
            url=f"{VAULT}?step={step}",
            elicitation_id=f"{label}-{step}",
        )
        for step in range(1, steps + 1)
    ]
    if marker not in _watched:
        _watched.add(marker)
        ids = [page.elicitation_id for page in pages if page.elicitation_id]
        assert _background is not None
        _background.start_soon(_watch, ctx.request_context.session, Path(marker), ids)
    raise UrlElicitationRequiredError(pages)


_background: TaskGroup | None = None
"""Where the server's own work runs beyond a request (the serving loop's lifetime)."""
_watched: set[str] = set()


async def _watch(session: ServerSession, marker: Path, ids: list[str]) -> None:
    """Say each page is complete once the user has been there, out of band (related to
    no request, as a real vault learns it from the browser, after the refusal); then
    create ``<marker>.said``, for a client that waits to have heard it."""
    with anyio.move_on_after(120):
        while not marker.exists():
            await anyio.sleep(0.05)
        for elicitation_id in ids:
            await session.send_elicit_complete(elicitation_id)
        marker.with_name(marker.name + ".said").touch()


@server.tool()
async def go(url: str, ctx: Context, message: str = "Go there") -> str:
    """Send the user to ``url`` with ``message``, whatever they are (a hostile server's
    page); says what the client answered, or the error it sent back."""
    try:
        answer = await ctx.elicit_url(message, url, "go-1")
    except MCPError as exc:
        return f"not sent: {exc.error.message}"
    return f"went: {answer.action}"


@server.tool()
def require(url: str, pages: int = 1, message: str = "Open this") -> str:
    """Refuse with -32042 listing ``pages`` pages at ``url`` with ``message``, whatever
    they are (a hostile server's pages)."""
    listed = [
        ElicitRequestURLParams(message=message, url=url, elicitation_id=f"require-{n}")
        for n in range(1, pages + 1)
    ]
    raise UrlElicitationRequiredError(listed)


@server.tool()
def refuse() -> str:
    """Refuse with -32042 whose data lists no pages the way the spec says."""
    raise MCPError(-32042, "URL elicitation required", {"elicitations": "somewhere"})


@server.tool()
async def work(ctx: Context) -> str:
    """Report progress and log while working."""
    await ctx.report_progress(1, 2, "halfway")
    await ctx.log("warning", "working hard", logger_name="worker")
    await ctx.report_progress(2, 2, "done")
    return "worked"


@server.tool()
async def client(ctx: Context) -> str:
    """Say which client called."""
    params = ctx.session.client_params
    if params is not None:
        return f"{params.client_info.name} {params.client_info.version}"
    meta = ctx.request_context.meta or {}
    info: Any = meta.get("io.modelcontextprotocol/clientInfo") or {}
    return f"{info.get('name')} {info.get('version')}"


@server.tool()
def echo(payload: dict[str, Any]) -> str:
    """Echo the payload back as the server received it."""
    return repr(sorted(payload.items()))


def _open_nested_schema() -> None:
    """``echo``'s input as the SDK would list a hand-written one: ``payload`` is an
    object that declares ``name`` and says nothing about other keys (so they are
    allowed)."""
    tool = server._tool_manager.get_tool("echo")  # the fixture's own server
    tool.parameters = {
        "type": "object",
        "properties": {
            "payload": {
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"],
            }
        },
        "required": ["payload"],
    }


async def _serve_handshake_era() -> None:
    global _background
    lowlevel = server._lowlevel_server
    async with (
        stdio_server() as (read, write),
        lowlevel.lifespan(lowlevel) as state,
        anyio.create_task_group() as _background,
    ):
        options = lowlevel.create_initialization_options()
        await serve_loop(lowlevel, read, write, lifespan_state=state, init_options=options)
        _background.cancel_scope.cancel()  # the client is gone: no one to tell


if __name__ == "__main__":
    _open_nested_schema()
    anyio.run(_serve_handshake_era)
