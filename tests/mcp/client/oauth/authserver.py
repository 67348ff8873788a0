"""A small, real OAuth 2.1 authorization server for the mount's tests (not a mock).

Authorization code with PKCE (S256 only; the authorize step approves at once and
redirects, as a signed-in user who consents would), refresh tokens (rotated), client
credentials (a client secret by Basic or POST, or a ``private_key_jwt`` assertion),
dynamic registration (optional), client ID metadata documents (optional), RFC 9207
``iss`` on the redirect, RFC 7009 revocation. Each behaviour a test varies is a
constructor argument; ``events`` records every request in order for assertions.

Runs on 127.0.0.1 in a thread (``Served``), so the tests share its state: the protected
resource (``resource.py``) verifies tokens by asking ``verify``.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urlsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route


@dataclass
class Grant:
    """One access token (and the refresh token that renews it)."""

    client_id: str
    scope: str
    resource: str | None
    expires_at: float
    refresh: str | None = None
    revoked: bool = False


@dataclass
class Client:
    client_id: str
    secret: str | None = None
    redirect_uris: tuple[str, ...] = ()
    public_key: str | None = None
    """PEM of the key whose ``private_key_jwt`` assertions authenticate it."""
    grant_types: tuple[str, ...] = ("authorization_code", "refresh_token")


@dataclass
class AuthorizationServer:
    """The server's behaviour; ``url``/``issuer`` are known once it is served."""

    issuer_slash: bool = False
    """The metadata's ``issuer`` ends with ``/`` (a root issuer written with its slash)."""
    registration: bool = True
    cimd: bool = False
    auth_methods: tuple[str, ...] = ("client_secret_basic", "client_secret_post", "none")
    scopes: tuple[str, ...] | None = ("read", "admin")
    expires_in: int = 3600
    grant_everything: bool = True
    """Grant every requested scope (else only ``read``)."""
    deny: bool = False
    """The person refuses consent: the authorize step redirects with ``access_denied``."""
    clients: dict[str, Client] = field(default_factory=dict)
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    grants: dict[str, Grant] = field(default_factory=dict)
    codes: dict[str, dict[str, Any]] = field(default_factory=dict)
    url: str = ""

    @property
    def issuer(self) -> str:
        return self.url + ("/" if self.issuer_slash else "")

    def events_of(self, kind: str) -> list[dict[str, Any]]:
        return [data for name, data in self.events if name == kind]

    # -- what the resource server asks -------------------------------------------------------
    def verify(self, token: str, resource: str) -> Grant | None:
        grant = self.grants.get(token)
        if grant is None or grant.revoked or grant.expires_at < time.time():
            return None
        if grant.resource is not None and grant.resource != resource:
            return None
        return grant

    def expire_all(self) -> None:
        for grant in self.grants.values():
            grant.expires_at = 0

    # -- the app -----------------------------------------------------------------------------
    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/.well-known/oauth-authorization-server", self.metadata),
                Route("/authorize", self.authorize),
                Route("/token", self.token, methods=["POST"]),
                Route("/register", self.register, methods=["POST"]),
                Route("/revoke", self.revoke, methods=["POST"]),
            ]
        )

    async def metadata(self, request: Request) -> Response:
        self.events.append(("metadata", {}))
        document: dict[str, Any] = {
            "issuer": self.issuer,
            "authorization_endpoint": f"{self.url}/authorize",
            "token_endpoint": f"{self.url}/token",
            "revocation_endpoint": f"{self.url}/revoke",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": list(self.auth_methods),
            "authorization_response_iss_parameter_supported": True,
        }
        if self.scopes is not None:
            document["scopes_supported"] = list(self.scopes)
        if self.registration:
            document["registration_endpoint"] = f"{self.url}/register"
        if self.cimd:
            document["client_id_metadata_document_supported"] = True
        return JSONResponse(document)

    async def register(self, request: Request) -> Response:
        body = await request.json()
        self.events.append(("register", body))
        if not self.registration:
            return JSONResponse({"error": "invalid_request"}, status_code=404)
        method = body.get("token_endpoint_auth_method", "client_secret_basic")
        client = Client(
            client_id=f"dyn-{secrets.token_hex(4)}",
            secret=None if method == "none" else secrets.token_hex(8),
            redirect_uris=tuple(body.get("redirect_uris") or ()),
        )
        self.clients[client.client_id] = client
        answer = {**body, "client_id": client.client_id, "token_endpoint_auth_method": method}
        if client.secret:
            answer["client_secret"] = client.secret
        return JSONResponse(answer, status_code=201)

    async def authorize(self, request: Request) -> Response:
        query = dict(request.query_params)
        self.events.append(("authorize", query))
        client_id = query.get("client_id", "")
        redirect = query.get("redirect_uri", "")
        known = self.clients.get(client_id)
        is_cimd = self.cimd and client_id.startswith("https://")
        if known is None and not is_cimd:
            return JSONResponse({"error": "unauthorized_client"}, status_code=400)
        if known is not None and not _registered(redirect, known.redirect_uris):
            return JSONResponse({"error": "invalid_request", "why": "redirect_uri"}, 400)
        if query.get("code_challenge_method") != "S256" or not query.get("code_challenge"):
            return JSONResponse({"error": "invalid_request", "why": "PKCE S256"}, 400)
        if self.deny:
            refused = {"error": "access_denied", "error_description": "the user said no"}
            refused["state"] = query.get("state", "")
            return RedirectResponse(f"{redirect}?{urlencode(refused)}", status_code=302)
        code = secrets.token_urlsafe(16)
        self.codes[code] = query
        back = {"code": code, "state": query.get("state", ""), "iss": self.issuer}
        return RedirectResponse(f"{redirect}?{urlencode(back)}", status_code=302)

    async def token(self, request: Request) -> Response:
        form = dict(await request.form())
        client, problem = self._client(request, form)
        self.events.append(("token", {**form, "authenticated": client is not None}))
        if problem is not None:
            return JSONResponse({"error": "invalid_client", "error_description": problem}, 401)
        grant_type = form.get("grant_type")
        if grant_type == "authorization_code":
            return self._exchange_code(form, client)
        if grant_type == "refresh_token":
            return self._refresh(form)
        if grant_type == "client_credentials" and client is not None:
            return self._issue(client.client_id, form.get("scope", ""), form.get("resource"))
        return JSONResponse({"error": "unsupported_grant_type"}, status_code=400)

    async def revoke(self, request: Request) -> Response:
        form = dict(await request.form())
        self.events.append(("revoke", form))
        token = form.get("token", "")
        for access, grant in self.grants.items():
            if token in (access, grant.refresh):
                grant.revoked = True
        return Response(status_code=200)

    # -- helpers ----------------------------------------------------------------------------
    def _client(self, request: Request, form: dict[str, Any]) -> tuple[Client | None, str | None]:
        """The authenticated client, or why authentication failed (public clients and
        CIMD documents authenticate by ``client_id`` alone)."""
        basic = request.headers.get("authorization", "")
        if basic.startswith("Basic "):
            client_id, _, secret = base64.b64decode(basic[6:]).decode().partition(":")
            known = self.clients.get(_unquote(client_id))
            if known is None or known.secret != _unquote(secret):
                return None, "bad Basic credentials"
            return known, None
        assertion = form.get("client_assertion")
        if assertion:
            return self._jwt_client(assertion)
        client_id = form.get("client_id", "")
        known = self.clients.get(client_id)
        if known is None:
            if self.cimd and client_id.startswith("https://"):
                return Client(client_id), None
            return None, f"unknown client {client_id!r}"
        if known.secret is not None and form.get("client_secret") != known.secret:
            return None, "client secret missing or wrong"
        return known, None

    def _jwt_client(self, assertion: str) -> tuple[Client | None, str | None]:
        import jwt

        unverified = jwt.decode(assertion, options={"verify_signature": False})
        known = self.clients.get(unverified.get("iss", ""))
        if known is None or known.public_key is None:
            return None, "unknown assertion issuer"
        try:
            jwt.decode(
                assertion,
                known.public_key,
                algorithms=["RS256", "ES256"],
                audience=[self.issuer, self.url],
            )
        except jwt.PyJWTError as exc:
            return None, f"bad assertion: {exc}"
        return known, None

    def _exchange_code(self, form: dict[str, Any], client: Client | None) -> Response:
        asked = self.codes.pop(form.get("code", ""), None)
        if asked is None:
            return JSONResponse({"error": "invalid_grant"}, status_code=400)
        verifier = form.get("code_verifier", "")
        digest = hashlib.sha256(verifier.encode()).digest()
        challenge = base64.urlsafe_b64encode(digest).decode().rstrip("=")
        if challenge != asked.get("code_challenge") or form.get("redirect_uri") != asked.get(
            "redirect_uri"
        ):
            return JSONResponse({"error": "invalid_grant", "why": "PKCE"}, status_code=400)
        return self._issue(asked["client_id"], asked.get("scope", ""), form.get("resource"))

    def _refresh(self, form: dict[str, Any]) -> Response:
        refresh = form.get("refresh_token")
        for access, grant in list(self.grants.items()):
            if grant.refresh == refresh and not grant.revoked:
                grant.revoked = True  # rotated: the old pair ends
                del self.grants[access]
                return self._issue(grant.client_id, grant.scope, form.get("resource"))
        return JSONResponse({"error": "invalid_grant"}, status_code=400)

    def _issue(self, client_id: str, scope: str, resource: str | None) -> Response:
        wanted = scope.split()
        granted = wanted if self.grant_everything else [s for s in wanted if s == "read"]
        access = "at-" + secrets.token_hex(12)
        refresh = "rt-" + secrets.token_hex(12)
        self.grants[access] = Grant(
            client_id, " ".join(granted), resource, time.time() + self.expires_in, refresh
        )
        body: dict[str, Any] = {
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": self.expires_in,
            "refresh_token": refresh,
        }
        if granted:
            body["scope"] = " ".join(granted)
        return JSONResponse(body)


def _registered(redirect: str, registered: tuple[str, ...]) -> bool:
    """RFC 8252 §7.3: a loopback redirect matches whatever its port."""
    parts = urlsplit(redirect)
    for uri in registered:
        known = urlsplit(uri)
        if parts.hostname == "127.0.0.1" and known.hostname == "127.0.0.1":
            if (parts.scheme, parts.path) == (known.scheme, known.path):
                return True
        elif redirect == uri:
            return True
    return False


def _unquote(text: str) -> str:
    from urllib.parse import unquote

    return unquote(text)
