"""One request to a connected MCP server: a tool call, a resource read, a prompt.

Every request makes the same promises, whoever sends it (``mount`` for tools,
``mount_features`` for resources and prompts): a lost server is reconnected once, the
request is bounded by the server's ``timeout_s`` (past it the request is abandoned,
which sends ``notifications/cancelled``), the server's progress, logs and questions
reach the tooldeck call in flight (``server_requests``), and every failure is a
``ToolFailure`` naming the server. ``connection`` keeps the session these run against.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from tooldeck._tool import AwaitingInput, ToolFailure
from tooldeck.mcp.client.failures import closed_connection, describe
from tooldeck.mcp.client.url_required import (
    AGAIN,
    UrlsRequired,
    finished,
    required,
    shown,
    unvisited,
    visit,
)

if TYPE_CHECKING:
    from tooldeck.mcp.client.connection import Connection
    from tooldeck.mcp.client.server_requests import Caller
    from tooldeck.mcp.sdk import Client, types

T = TypeVar("T")


async def call_tool(
    connection: Connection,
    tool: str,
    arguments: dict[str, Any],
    meta: dict[str, Any] | None = None,
    caller: Caller | None = None,
) -> types.CallToolResult:
    """Call ``tool`` on ``connection``'s server, as ``request_past_pages`` promises.

    ``meta``: the request's ``params._meta`` (the caller's trace context); ``caller``:
    the tooldeck call, which the server's progress, logs and questions reach while this
    call is in flight; a question the call's client answers in its next round stops the
    call (``AwaitingInput``).
    """
    progress = caller.progress if caller is not None else None

    async def send(client: Client) -> types.CallToolResult:
        return await client.call_tool(
            tool,
            arguments,
            progress_callback=progress,
            meta=meta,  # type: ignore[arg-type]
        )

    return await request_past_pages(
        connection, f"tool {tool!r}", f"the call to {tool!r}", send, caller
    )


async def request_past_pages(
    connection: Connection,
    subject: str,
    during: str,
    send: Callable[[Client], Awaitable[T]],
    caller: Caller | None = None,
) -> T:
    """``request``, where a server that requires the user to open some pages first
    (``-32042``, on a call, a read or a prompt alike) has them shown through the
    call's ``ctx.elicit_url``; when all were accepted it is sent again, once, after the
    server has said they are complete or ``timeout_s`` has passed, whichever comes
    first (``url_required``)."""
    from tooldeck.mcp.sdk import MCPError

    async def sent(client: Client) -> T | UrlsRequired:
        try:
            return await send(client)
        except MCPError as exc:
            needed = required(exc)
            if needed is None:
                raise
            return needed

    result = await request(connection, subject, during, sent, caller)
    if not isinstance(result, UrlsRequired):
        return result
    needed = shown(connection.name, subject, result)
    urls = connection.side.requests.urls
    await visit(urls, needed, caller, subject)
    await finished(urls, needed, connection.deadlines, connection.spec.config.timeout_s)
    # Once: a server that still refuses lists its pages for the model rather than
    # having the user asked again and again.
    retried = await request(connection, subject, during, sent, caller)
    if isinstance(retried, UrlsRequired):
        again = shown(connection.name, subject, retried)
        raise ToolFailure(unvisited(connection.name, subject, again, AGAIN))
    return retried


async def request(
    connection: Connection,
    subject: str,
    during: str,
    send: Callable[[Client], Awaitable[T]],
    caller: Caller | None = None,
) -> T:
    """``send(client)``: one request of a call, a read or a prompt (``subject``:
    ``"tool 'x'"``; ``during``: ``"the call to 'x'"``, for failures), with one reconnect,
    ``timeout_s``, the server's messages meanwhile reaching ``caller``, and every failure
    a ``ToolFailure`` naming the server."""
    client = await connection.open_client()
    timeout = connection.spec.config.timeout_s
    side = connection.side
    side.attempt()
    try:
        with side.requests.in_flight(caller), connection.deadlines.fail_after(timeout):
            if caller is None:
                return await send(client)
            with caller.stoppable():
                return await send(client)
            assert caller.stopped is not None  # only ``stop`` cancels it
            raise caller.stopped
    except AwaitingInput:  # the call's question is answered in its next round
        raise
    except TimeoutError:
        name = connection.name
        raise ToolFailure(
            f"MCP server {name!r} did not answer {during} within {timeout:g}s "
            f"(timeout_s = {timeout:g} in [mcp.servers.{name}]); the request was "
            "cancelled on the server."
        ) from None
    except Exception as exc:
        if caller is not None and caller.stopped is not None:
            raise caller.stopped from None
        raise ToolFailure(_failure(connection, subject, during, exc)) from exc


def _failure(connection: Connection, subject: str, during: str, exc: Exception) -> str:
    """Why a request failed; a closed connection marks the server lost, so the next
    request reconnects."""
    name = connection.name
    closed = closed_connection(exc)
    if closed:
        connection.lost()
    refused = connection.side.refusal()  # a failed authorization looks like a closed stream
    if refused is not None:
        return f"MCP server {name!r}, {subject}: {refused}"
    if closed:
        return (
            f"MCP server {name!r} closed the connection during {during} "
            f"({connection.gone()}){connection.stderr_suffix()}. The next call "
            "reconnects once."
        )
    return f"MCP server {name!r}, {subject}: {describe(exc, connection.spec)}"
