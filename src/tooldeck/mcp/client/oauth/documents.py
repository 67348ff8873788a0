"""Reading and writing the discovery documents the provider sees pass (``provider.py``).

Resource metadata (RFC 9728), authorization server metadata (RFC 8414), and the
requests tooldeck adds to the SDK's discovery: a root issuer's own metadata, and the
2025-03-26 fallback's document at the server's origin.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

import httpx2

from tooldeck.mcp.sdk import OAuthMetadata, issuers_match


def secret_method(metadata: OAuthMetadata) -> str:
    """How a client with a secret authenticates at this token endpoint (RFC 8414: Basic
    when the server does not say)."""
    supported = metadata.token_endpoint_auth_methods_supported or ["client_secret_basic"]
    if "client_secret_basic" in supported:
        return "client_secret_basic"
    if "client_secret_post" in supported:
        return "client_secret_post"
    return "client_secret_basic"


async def json_object(response: httpx2.Response) -> dict[str, Any]:
    """A discovery response's JSON object, or ``{}``. Reads the body (the SDK reads the
    same response later and gets it from memory)."""
    if response.status_code != 200:
        return {}
    try:
        document = json.loads(await response.aread())
    except ValueError:
        return {}
    return document if isinstance(document, dict) else {}


def legacy_metadata_request(server_url: str) -> httpx2.Request:
    origin = urlsplit(server_url)
    return httpx2.Request(
        "GET", f"{origin.scheme}://{origin.netloc}/.well-known/oauth-authorization-server"
    )


def same_origin_issuer(metadata: dict[str, Any], server_url: str) -> str | None:
    """The document's issuer when it is on ``server_url``'s origin (else None: the
    SDK's own rule, the bare origin, applies)."""
    issuer = metadata.get("issuer")
    if not isinstance(issuer, str):
        return None
    mine, theirs = urlsplit(server_url), urlsplit(issuer)
    same = (mine.scheme, mine.netloc) == (theirs.scheme, theirs.netloc)
    return issuer if same else None


def metadata_requests(issuer: str) -> list[httpx2.Request]:
    """Where a root issuer's metadata is (RFC 8414, then OpenID Connect discovery)."""
    origin = issuer.rstrip("/")
    return [
        httpx2.Request("GET", f"{origin}/.well-known/{name}")
        for name in ("oauth-authorization-server", "openid-configuration")
    ]


def spelled(issuer: str, metadata: dict[str, Any]) -> str:
    """``issuer`` written the way its own ``metadata`` writes it, when the two differ only
    by a root URL's trailing slash; otherwise unchanged."""
    named = metadata.get("issuer")
    if isinstance(named, str) and named != issuer and issuers_match(named, issuer):
        return named
    return issuer


def resource_naming(
    response: httpx2.Response, document: dict[str, Any], metadata: dict[str, Any]
) -> httpx2.Response:
    """``response`` (resource metadata), with its root authorization server written the
    way that server's own metadata writes its issuer, when the two differ only by the
    trailing slash; otherwise unchanged."""
    issuer = metadata.get("issuer")
    if not isinstance(issuer, str):
        return response
    servers = [
        issuer if s != issuer and issuers_match(s, issuer) else s
        for s in document["authorization_servers"]
    ]
    if servers == document["authorization_servers"]:
        return response
    body = json.dumps({**document, "authorization_servers": servers}).encode()
    headers = {"content-type": "application/json"}
    return httpx2.Response(200, headers=headers, content=body, request=response.request)
