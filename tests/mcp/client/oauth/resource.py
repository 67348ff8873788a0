"""A real MCP server (the SDK's ``MCPServer`` over streamable HTTP) behind OAuth.

The resource server publishes its protected resource metadata (RFC 9728) at
``/.well-known/oauth-protected-resource/mcp``, answers requests without a valid token
with 401 and a ``WWW-Authenticate`` naming that metadata, and a call of ``admin`` with a
token lacking the ``admin`` scope with 403 ``insufficient_scope`` (step-up). Which
authorization server it trusts, and how its metadata writes that server's URL, are
attributes a test may change while it runs.

``Served`` runs any ASGI app with uvicorn on 127.0.0.1 in a thread of the test process.
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from mcp.server.mcpserver import MCPServer

from .authserver import AuthorizationServer

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


def mcp_app() -> Any:
    server = MCPServer("protected", version="1.0")

    @server.tool()
    def whoami() -> str:
        """Say hello to whoever holds a valid token."""
        return "hello, authorized caller"

    @server.tool()
    def admin() -> str:
        """An operation that needs the admin scope."""
        return "admin done"

    @server.tool(name="test-tool")
    def test_tool() -> str:
        """What the conformance suite's servers offer (its client program calls it)."""
        return "test"

    return server.streamable_http_app(streamable_http_path="/mcp", host="127.0.0.1")


@dataclass
class ProtectedResource:
    """The resource server; ``authority`` is the authorization server it trusts now."""

    authority: AuthorizationServer
    listed_as: str | None = None
    """How the metadata writes the authorization server's URL (default: its issuer)."""
    scopes: tuple[str, ...] | None = ("read",)
    url: str = ""
    requests: list[tuple[str, str]] = field(default_factory=list)
    """(JSON-RPC method or path, Authorization header) of every request, in order."""
    published: bool = True
    """Whether resource metadata is served (False: 404, and a challenge naming none)."""
    legacy: bool = False
    """A 2025-03-26 server: no resource metadata; the authorization server's metadata at
    this origin's root and its endpoints under ``/oauth`` (its issuer has that path)."""

    def __post_init__(self) -> None:
        self._mcp = mcp_app()
        self._authority_app = self.authority.app()

    @property
    def resource(self) -> str:
        return f"{self.url}/mcp"

    @property
    def metadata_url(self) -> str:
        return f"{self.url}/.well-known/oauth-protected-resource/mcp"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._mcp(scope, receive, send)
            return
        path = scope["path"]
        if self.legacy and path == "/.well-known/oauth-authorization-server":
            await self._authority_app(scope, receive, send)
            return
        if self.legacy and path.startswith("/oauth/"):
            inner = {**scope, "path": path.removeprefix("/oauth"), "raw_path": None}
            await self._authority_app(inner, receive, send)
            return
        if path.startswith("/.well-known/oauth-protected-resource"):
            if self.legacy or not self.published:
                await _json(send, 404, {"error": "not found"})
            else:
                await _json(send, 200, self._metadata())
            return
        if path.startswith("/.well-known/") and not self.published:
            await _json(send, 404, {"error": "not found"})
            return
        body, replay = await _buffered(receive)
        header = _header(scope, b"authorization")
        method = _method(body)
        self.requests.append((method or path, header))
        token = header[7:] if header.lower().startswith("bearer ") else ""
        grant = self.authority.verify(token, self.resource) if token else None
        if grant is None:
            named = not self.legacy and self.published
            challenge = f'Bearer resource_metadata="{self.metadata_url}"' if named else "Bearer"
            if self.scopes and not self.legacy:
                challenge += f', scope="{" ".join(self.scopes)}"'
            await _json(send, 401, {"error": "invalid_token"}, challenge)
            return
        if method == "tools/call" and _tool(body) == "admin" and "admin" not in grant.scope.split():
            challenge = (
                f'Bearer error="insufficient_scope", scope="read admin", '
                f'resource_metadata="{self.metadata_url}"'
            )
            await _json(send, 403, {"error": "insufficient_scope"}, challenge)
            return
        await self._mcp(scope, replay, send)

    def _metadata(self) -> dict[str, Any]:
        document: dict[str, Any] = {
            "resource": self.resource,
            "authorization_servers": [self.listed_as or self.authority.issuer],
        }
        if self.scopes is not None:
            document["scopes_supported"] = list(self.scopes)
        return document


class Served:
    """An ASGI app served by uvicorn on 127.0.0.1 in a daemon thread."""

    def __init__(self, app: Any) -> None:
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self.port = self._socket.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(app, log_level="warning", lifespan="auto")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> Served:
        self._thread.start()
        for _ in range(500):
            if self._server.started:
                return self
            self._thread.join(0.02)
        raise RuntimeError("the test server did not start")

    def _run(self) -> None:
        asyncio.run(self._server.serve(sockets=[self._socket]))

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(10)


async def _buffered(receive: Receive) -> tuple[bytes, Receive]:
    """The request body, and a ``receive`` that hands it on unchanged."""
    messages = []
    body = b""
    while True:
        message = await receive()
        messages.append(message)
        body += message.get("body", b"")
        if message["type"] != "http.request" or not message.get("more_body"):
            break

    async def replay() -> dict[str, Any]:
        return messages.pop(0) if messages else await receive()

    return body, replay


def _method(body: bytes) -> str:
    try:
        data = json.loads(body or b"null")
    except ValueError:
        return ""
    return data.get("method", "") if isinstance(data, dict) else ""


def _tool(body: bytes) -> str:
    params = json.loads(body).get("params") or {}
    return str(params.get("name", ""))


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope["headers"]:
        if key.lower() == name:
            return str(value.decode("latin-1"))
    return ""


async def _json(send: Send, status: int, data: Any, challenge: str | None = None) -> None:
    body = json.dumps(data).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if challenge:
        headers.append((b"www-authenticate", challenge.encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
