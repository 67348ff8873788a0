"""Bearer-token checks for ``tooldeck mcp serve --http``: every request, loopback included.

A plain ASGI wrapper in front of the SDK's app (no SDK import here). Tokens map to a
principal name: today only ``TOOLDECK_MCP_TOKEN``, the principal ``default``; named
principals with their own tokens fit the same table. The scheme is matched
case-insensitively (RFC 9110: ``bearer`` and ``Bearer`` are the same), the token
exactly, and every configured token is compared in constant time, so neither a wrong
scheme nor the position of a match shows in the timing. The matched principal is put
in the ASGI scope under ``PRINCIPAL_KEY`` for the layers behind it.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from typing import Any

from tooldeck.mcp.serve.refusals import UNAUTHORIZED, refusal_body

TOKEN_ENV = "TOOLDECK_MCP_TOKEN"
DEFAULT_PRINCIPAL = "default"
PRINCIPAL_KEY = "tooldeck.principal"

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


def principal_for(header: bytes, tokens: Mapping[str, str]) -> str | None:
    """The principal whose token ``header`` (an ``Authorization`` value) carries, or None."""
    scheme, _, credentials = header.strip().partition(b" ")
    given = credentials.strip()
    found: str | None = None
    for token, principal in tokens.items():
        # compare every token, even after a match, so timing does not say which matched
        if hmac.compare_digest(given, token.encode()) and found is None:
            found = principal
    return found if scheme.lower() == b"bearer" and given else None


class BearerCheck:
    """ASGI wrapper: HTTP requests without a known ``Authorization: Bearer <token>`` get 401."""

    def __init__(
        self,
        app: Any,
        tokens: Mapping[str, str],
        admitted: Callable[[str], bool] = lambda _principal: True,
    ) -> None:
        """``admitted(principal)``: whether the config serving now still names it (a
        project principal stops counting when its folder stops being trusted)."""
        if not tokens:
            raise ValueError("BearerCheck needs at least one token")
        self.app = app
        self._tokens = dict(tokens)
        self._admitted = admitted

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        header = dict(scope.get("headers") or ()).get(b"authorization", b"")
        principal = principal_for(header, self._tokens)
        if principal is None or not self._admitted(principal):
            await _unauthorized(send)
            return
        scope[PRINCIPAL_KEY] = principal
        await self.app(scope, receive, send)


async def _unauthorized(send: Send) -> None:
    """401 with a JSON-RPC error body, so an MCP client shows why (as for every refusal)."""
    body = refusal_body(f"missing or wrong bearer token ({TOKEN_ENV})", UNAUTHORIZED)
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [
                (b"content-type", b"application/json"),
                (b"www-authenticate", b"Bearer"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
