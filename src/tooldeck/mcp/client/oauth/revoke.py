"""Signing out of a server: revoke its tokens where they were issued, then forget them.

Revocation (RFC 7009) is best effort: the refresh token first (revoking it ends the
grant on most servers), then the access token, each at the ``revocation_endpoint`` the
authorization server's metadata named when the tokens were issued, authenticated as the
client that holds them. Whatever the server answers, the token file is removed, so
tooldeck holds nothing of the server afterwards.
"""

from __future__ import annotations

import base64
import os
from typing import TYPE_CHECKING, NamedTuple
from urllib.parse import quote

if TYPE_CHECKING:
    from tooldeck.mcp.client.oauth.tokens import TokenFile
    from tooldeck.mcp.client.specs import ServerSpec
    from tooldeck.mcp.sdk import OAuthClientInformationFull, OAuthMetadata


class SignedOut(NamedTuple):
    """What ``sign_out`` did: whether anything was stored, and how revocation went."""

    had_tokens: bool
    revoked: tuple[str, ...]
    """The kinds of token the server confirmed revoked (``refresh_token``, ``access_token``)."""
    problems: tuple[str, ...]
    endpoint: str | None


def sign_out(spec: ServerSpec, tokens: TokenFile) -> SignedOut:
    """Revoke ``spec``'s stored tokens where possible and remove its token file."""
    stored = tokens.tokens()
    server = tokens.authorization_server()
    endpoint = str(server.revocation_endpoint) if server and server.revocation_endpoint else None
    revoked: list[str] = []
    problems: list[str] = []
    if stored is not None and endpoint is not None and server is not None:
        client = _client(spec, tokens)
        pairs = [("refresh_token", stored.refresh_token), ("access_token", stored.access_token)]
        for hint, value in pairs:
            if not value:
                continue
            problem = _revoke(endpoint, value, hint, client, server)
            if problem is None:
                revoked.append(hint)
            else:
                problems.append(f"{hint}: {problem}")
    removed = tokens.remove()
    return SignedOut(removed and stored is not None, tuple(revoked), tuple(problems), endpoint)


class _Client(NamedTuple):
    client_id: str
    secret: str | None


def _client(spec: ServerSpec, tokens: TokenFile) -> _Client | None:
    config = spec.config
    if config.client_id is not None:
        env = config.client_secret_env
        return _Client(config.client_id, os.environ.get(env) if env else None)
    stored: OAuthClientInformationFull | None = tokens.client()
    return _Client(stored.client_id, stored.client_secret) if stored is not None else None


def _revoke(
    endpoint: str, token: str, hint: str, client: _Client | None, server: OAuthMetadata
) -> str | None:
    """Revoke one token; None when the server accepted it, else what went wrong."""
    import httpx2

    data = {"token": token, "token_type_hint": hint}
    headers = {}
    if client is not None:
        methods = server.revocation_endpoint_auth_methods_supported or ["client_secret_basic"]
        if client.secret and "client_secret_basic" in methods:
            pair = f"{quote(client.client_id, safe='')}:{quote(client.secret, safe='')}"
            headers["Authorization"] = "Basic " + base64.b64encode(pair.encode()).decode()
        else:
            data["client_id"] = client.client_id
            if client.secret:
                data["client_secret"] = client.secret
    try:
        response = httpx2.post(endpoint, data=data, headers=headers, timeout=30.0)
    except httpx2.HTTPError as exc:
        return f"cannot reach {endpoint}: {exc}"
    if response.status_code == 200:
        return None
    return f"{endpoint} answered HTTP {response.status_code}: {response.text[:200]}"
