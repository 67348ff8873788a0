"""The browser step of the authorization code flow: a person signs in, the browser comes back.

tooldeck always registers a loopback redirect URI (``http://127.0.0.1:PORT/callback``,
RFC 8252 §7.3) and listens there only while a sign-in is under way. The host's
``Authorizer`` is asked to get a person to open the authorization URL: the CLI prints
it and starts ``$BROWSER`` (``tooldeck mcp login``), an IDE shows it, a test fetches
it. The authorizer may also return the URL the browser was sent back to (a user
pasted it), which then takes the place of the listener's.

A host without an authorizer cannot sign anyone in: the step fails at once with
``SignInNeeded``, whose message says what to run, and the scope the server asked for is
kept so that ``tooldeck mcp login`` asks for it.
"""

from __future__ import annotations

import inspect
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol
from urllib.parse import parse_qs, urlsplit

import anyio
from anyio.abc import SocketListener

from tooldeck._public import public

if TYPE_CHECKING:
    from anyio.abc import SocketStream

    from tooldeck.mcp.client.oauth.tokens import TokenFile
    from tooldeck.mcp.sdk import AuthorizationCodeResult

SIGN_IN_TIMEOUT_S = 300.0
"""How long a person has to finish signing in before the flow gives up."""
CALLBACK_PATH = "/callback"


@public
@dataclass(frozen=True, slots=True)
class AuthorizationRequest:
    """A mounted MCP server needs a person to sign in (OAuth authorization code flow).

    ``url`` is the authorization server's page to open in a browser; after signing in the
    browser is sent to ``redirect_uri``, where tooldeck listens (on 127.0.0.1).
    """

    server: str
    """The server's name (``[mcp.servers.NAME]``)."""
    url: str
    redirect_uri: str


@public
class Authorizer(Protocol):
    """The host's way to get a person through a sign-in; sync or async.

    Return ``None`` once the URL is on its way to a browser (tooldeck waits for the
    browser at ``redirect_uri``), or the full URL the browser was sent back to, when the
    host obtained it some other way. Raising ends the sign-in with that error.
    """

    def __call__(self, request: AuthorizationRequest) -> str | Awaitable[str | None] | None: ...


class SignInNeeded(Exception):
    """A server needs a sign-in and this host has no authorizer (or it was refused)."""


def free_loopback_port() -> int:
    """A port on 127.0.0.1 that is free now (the listener binds it when a sign-in starts)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def loopback_redirect(port: int) -> str:
    return f"http://127.0.0.1:{port}{CALLBACK_PATH}"


class SignIn:
    """One server's browser step, handed to the SDK as its redirect and callback handlers.

    The whole round trip happens in ``redirect``: listen, ask the authorizer, wait for
    the browser (the authorizer may still be running when it arrives: a test that
    fetches the URL follows the redirect to the listener). ``callback`` hands over what
    came back. ``on_person(True/False)``: a person is (no longer) being waited for, so
    the connection's own deadlines stop counting meanwhile.
    """

    def __init__(
        self,
        server: str,
        authorizer: Authorizer | None,
        redirect_uri: str,
        tokens: TokenFile,
        on_person: Callable[[bool], None] = lambda waiting: None,
    ) -> None:
        self.server = server
        self.authorizer = authorizer
        self.redirect_uri = redirect_uri
        self.tokens = tokens
        self.on_person = on_person
        self.needed: SignInNeeded | None = None
        """Set when a sign-in was needed and could not happen: what the row reports."""
        self.step_up = False
        """The sign-in under way asks for more scope than the current token has (the
        provider says so when a server answers 403 ``insufficient_scope``)."""
        self._returned: str | None = None

    async def redirect(self, url: str) -> None:
        """The SDK's ``redirect_handler``: get a person to open ``url`` and wait for the
        browser to come back."""
        from tooldeck.mcp.sdk import OAuthFlowError

        if self.authorizer is None:
            scope = _query(url).get("scope") if self.step_up else None
            if scope:
                await anyio.to_thread.run_sync(lambda: self.tokens.update(wanted_scope=scope))
            self.needed = SignInNeeded(self._login_hint(scope))
            raise self.needed
        self.needed = None
        self.on_person(True)
        try:
            with anyio.fail_after(SIGN_IN_TIMEOUT_S):
                self._returned = await self._round_trip(self.authorizer, url)
        except TimeoutError:
            raise OAuthFlowError(
                f"no one finished signing in to MCP server {self.server!r} within "
                f"{SIGN_IN_TIMEOUT_S:g}s"
            ) from None
        finally:
            self.on_person(False)

    async def callback(self) -> AuthorizationCodeResult:
        """The SDK's ``callback_handler``: the code the browser came back with."""
        from tooldeck.mcp.sdk import AuthorizationCodeResult, OAuthFlowError

        returned, self._returned = self._returned, None
        params = _query(returned or "")
        if "error" in params:
            detail = params.get("error_description", "")
            raise OAuthFlowError(
                f"the authorization server refused the sign-in to {self.server!r}: "
                f"{params['error']}" + (f" ({detail})" if detail else "")
            )
        return AuthorizationCodeResult(
            code=params.get("code", ""), state=params.get("state"), iss=params.get("iss")
        )

    async def _round_trip(self, authorizer: Authorizer, url: str) -> str:
        port = urlsplit(self.redirect_uri).port or 80
        request = AuthorizationRequest(self.server, url, self.redirect_uri)
        came_back: list[str] = []
        listener = await anyio.create_tcp_listener(local_host="127.0.0.1", local_port=port)
        async with listener, anyio.create_task_group() as group:

            async def wait_for_browser() -> None:
                socket_listener = listener.listeners[0]
                assert isinstance(socket_listener, SocketListener)
                came_back.append(await _callback(socket_listener, port))
                group.cancel_scope.cancel()

            group.start_soon(wait_for_browser)
            reply = await _ask(authorizer, request)
            if reply is not None:
                came_back.append(reply)
                group.cancel_scope.cancel()
        return came_back[0]

    def _login_hint(self, scope: str | None) -> str:
        what = f"more access (scope {scope!r})" if scope else "a sign-in"
        return (
            f"MCP server {self.server!r} needs {what} (OAuth); run "
            f"`tooldeck mcp login {self.server}`"
        )


async def _ask(authorizer: Authorizer, request: AuthorizationRequest) -> str | None:
    """Call the host's authorizer; a sync one runs in a worker thread (it may block on a
    UI), which is abandoned if the browser comes back first."""
    call = getattr(authorizer, "__call__", authorizer)  # noqa: B004 (async __call__ too)
    if inspect.iscoroutinefunction(authorizer) or inspect.iscoroutinefunction(call):
        reply = authorizer(request)
    else:
        reply = await anyio.to_thread.run_sync(authorizer, request, abandon_on_cancel=True)
    if inspect.isawaitable(reply):
        reply = await reply
    if reply is not None and not isinstance(reply, str):
        raise TypeError(f"the authorizer returned {reply!r}; expected None or the redirect URL")
    return reply


def _query(url: str) -> dict[str, str]:
    return {key: values[0] for key, values in parse_qs(urlsplit(url).query).items() if values}


_PAGE = (
    b"<!doctype html><meta charset=utf-8><title>tooldeck</title>"
    b"<p>Signed in. You can close this window and return to tooldeck."
)


async def _callback(listener: SocketListener, port: int) -> str:
    """Serve the listener until a browser arrives at ``/callback``; its full URL."""
    while True:
        stream = await listener.accept()
        async with stream:
            with anyio.move_on_after(10):  # a stray connection cannot hold the listener
                target = await _request_target(stream)
                if urlsplit(target).path == CALLBACK_PATH:
                    await stream.send(_response(b"200 OK", _PAGE))
                    return f"http://127.0.0.1:{port}{target}"
                await stream.send(_response(b"404 Not Found", b"not found"))


async def _request_target(stream: SocketStream) -> str:
    """The target of an HTTP request line (``GET /callback?code=... HTTP/1.1``)."""
    data = b""
    while b"\r\n" not in data and len(data) < 16384:
        data += await stream.receive()
    parts = data.split(b"\r\n", 1)[0].split(b" ")
    return parts[1].decode("latin-1") if len(parts) >= 3 else ""


def _response(status: bytes, body: bytes) -> bytes:
    return (
        b"HTTP/1.1 " + status + b"\r\nContent-Type: text/html; charset=utf-8\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body
    )
