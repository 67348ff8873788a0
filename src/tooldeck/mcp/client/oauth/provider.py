"""The SDK's OAuth provider for one mounted server, with what the SDK leaves to hosts.

The SDK runs the protocol: discovery (RFC 9728, RFC 8414, the 2025-03-26 fallbacks),
registration (a client ID metadata document when the authorization server supports one
and ``client_metadata_url`` is set, else dynamic registration), PKCE, the token
exchange, refresh, scope step-up (SEP-2350) and re-registration when the authorization
server changes (SEP-2352). tooldeck adds, here and nowhere else:

* **Root issuers with or without their trailing slash.** Real servers list
  ``https://accounts.google.com/`` in their resource metadata while the authorization
  server's own metadata says ``https://accounts.google.com``; the SDK compares the two
  as strings and stops. When the selected authorization server is a root URL, its
  metadata is read first and, if its issuer differs only by that slash, the resource
  metadata is read as naming the issuer the way the issuer names itself. Issuers with a
  path stay strict, and so does the RFC 9207 ``iss`` check.
* **The 2025-03-26 fallback's issuer.** A server without resource metadata serves its
  authorization server's metadata at its own origin, and such servers write an issuer
  with a path (``https://host/oauth``) there. The SDK expects the bare origin and stops;
  tooldeck reads that document first and, when its issuer is on the server's own
  origin (so it asserts nothing the server's origin does not already control), expects
  that issuer. The RFC 9207 ``iss`` check then holds it to it.
* **A configured client's token endpoint authentication** follows the authorization
  server's ``token_endpoint_auth_methods_supported`` (Basic, else POST).
* **A clear error** when the authorization server offers no registration and no client
  is configured, instead of a 404 from a guessed ``/register``.
* **A step-up that cannot help is not repeated**: a 403 ``insufficient_scope`` for scopes
  the token already has ends the request instead of signing in again (and again).
* **Scopes** from the config and those a server asked for while no one could sign in
  are requested on top of what the server asks for.
* **State across restarts**: the token's expiry and the authorization server's metadata
  come back from the token file, so an expired token is refreshed (at the right token
  endpoint) rather than sent, refused, and replaced by a new sign-in.

What this relies on beyond the SDK's public names: the providers' ``_auth_flow``
generator, ``_perform_authorization``, ``_select_authorization_server`` and
``_expected_issuer``, and the fields of ``provider.context``. ``tests/mcp/client/oauth``
exercises each against a real authorization server, so an SDK change that moves them
fails there.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import anyio
import httpx2

from tooldeck.mcp.client.oauth.signin import SignIn, free_loopback_port, loopback_redirect
from tooldeck.mcp.client.oauth.tokens import TokenFile, token_path
from tooldeck.mcp.sdk import (
    ClientCredentialsOAuthProvider,
    MCPDeprecationWarning,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthClientProvider,
    OAuthMetadata,
    OAuthRegistrationError,
    OAuthToken,
    PrivateKeyJWTOAuthProvider,
    SignedJWTParameters,
    extract_field_from_www_auth,
    issuers_match,
    union_scopes,
)

if TYPE_CHECKING:
    from tooldeck.host.config.config import McpServerConfig
    from tooldeck.mcp.client.specs import ServerSpec

CLIENT_NAME = "tooldeck"


class _Storage:
    """The SDK's ``TokenStorage`` over a ``TokenFile`` (file I/O in a worker thread).

    A configured client (``client_id``) is never written: its secret stays in the
    environment. Storing tokens also stores the metadata they were obtained with.
    """

    def __init__(self, file: TokenFile, configured: OAuthClientInformationFull | None) -> None:
        self.file = file
        self.configured = configured
        self.provider: OAuthClientProvider | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return await anyio.to_thread.run_sync(self.file.tokens)

    async def set_tokens(self, tokens: OAuthToken) -> None:
        await anyio.to_thread.run_sync(self._store_tokens, tokens)

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        if self.configured is not None:
            return self.configured
        return await anyio.to_thread.run_sync(self.file.client)

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        if self.configured is None:
            await anyio.to_thread.run_sync(self.file.set_client, client_info)

    def _store_tokens(self, tokens: OAuthToken) -> None:
        self.file.set_tokens(tokens)
        context = self.provider.context if self.provider is not None else None
        if context is None:
            return
        server, resource = context.oauth_metadata, context.protected_resource_metadata
        self.file.update(
            authorization_server=server.model_dump(mode="json", exclude_none=True)
            if server is not None
            else None,
            resource=resource.model_dump(mode="json", exclude_none=True)
            if resource is not None
            else None,
        )


class HostSideProvider(OAuthClientProvider):
    """What tooldeck adds to each of the SDK's providers (see the module docstring)."""

    _scopes: str | None = None
    _tokens: TokenFile
    _configured_secret = False
    """The client is configured with a secret: its token endpoint method is chosen here."""
    _storage: _Storage | None = None
    """The registered client comes from here (``None``: the provider fixes its own)."""
    _stamp: tuple[int, int] | None = None
    _requested: frozenset[str] = frozenset()
    """The scopes this provider last asked the authorization server for."""
    refused_scope: str | None = None
    """Scopes a server still demands after they were asked for (a futile step-up)."""
    _sign_in: SignIn | None = None
    _legacy_issuer: str | None = None
    """The issuer of the metadata at the server's own origin (no resource metadata)."""

    async def _auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        await self._reload_if_replaced()
        flow = super()._auth_flow(request)
        try:
            outgoing = await flow.__anext__()
            while True:
                response = yield outgoing
                if outgoing is request:
                    if self._step_up_is_futile(response):
                        return
                    if self._sign_in is not None:
                        self._sign_in.step_up = response.status_code == 403
                else:
                    document = await _json_object(response)
                    if "authorization_servers" in document:
                        issuer = await self._root_issuer(document)
                        if issuer is not None:
                            metadata: dict[str, Any] = {}
                            for probe in _metadata_requests(issuer):
                                metadata = await _json_object((yield probe))
                                if metadata:
                                    break
                            response = _resource_naming(response, document, metadata)
                    elif "token_endpoint" in document and "issuer" in document:
                        self._read_server(document)
                    elif self._resource_metadata_ends(outgoing):
                        legacy = _legacy_metadata_request(self.context.server_url)
                        self._legacy_issuer = _same_origin_issuer(
                            await _json_object((yield legacy)), self.context.server_url
                        )
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        finally:
            await flow.aclose()

    async def _perform_authorization(self) -> httpx2.Request:
        wanted = await anyio.to_thread.run_sync(self._tokens.wanted_scope)
        scope = union_scopes(self.context.client_metadata.scope, self._scopes)
        scope = union_scopes(scope, wanted)
        self.context.client_metadata.scope = scope
        self._requested = frozenset((scope or "").split())
        return await super()._perform_authorization()

    async def _reload_if_replaced(self) -> None:
        """Take the token file's state when another process (``tooldeck mcp login``)
        replaced it since this provider last looked."""
        stamp = self._tokens.stamp()
        if stamp == self._stamp:
            return
        self._stamp = stamp
        if stamp is None:
            return
        context = self.context
        context.current_tokens = await anyio.to_thread.run_sync(self._tokens.tokens)
        context.token_expiry_time = self._tokens.expires_at()
        if self._storage is not None:
            context.client_info = await self._storage.get_client_info()

    def _expected_issuer(self) -> str:
        if self.context.auth_server_url is None and self._legacy_issuer is not None:
            return self._legacy_issuer
        return super()._expected_issuer()

    def _resource_metadata_ends(self, outgoing: httpx2.Request) -> bool:
        """``outgoing`` was the last place resource metadata is looked for (the origin's
        root well-known URL) and found none: the 2025-03-26 fallback comes next."""
        server = urlsplit(self.context.server_url)
        return (
            outgoing.url.path == "/.well-known/oauth-protected-resource"
            and (outgoing.url.scheme, outgoing.url.netloc.decode())
            == (server.scheme, server.netloc)
            and self.context.auth_server_url is None
        )

    # -- root issuers ----------------------------------------------------------------------
    async def _root_issuer(self, document: dict[str, Any]) -> str | None:
        """The authorization server the SDK will select from ``document``, when it is a
        root URL (``https://host`` or ``https://host/``): its metadata is probed."""
        servers = document.get("authorization_servers")
        if (
            not isinstance(servers, list)
            or not servers
            or not all(isinstance(s, str) for s in servers)
        ):
            return None
        selected = self._select_authorization_server(servers)
        return selected if urlsplit(selected).path in ("", "/") else None

    # -- the authorization server's metadata -------------------------------------------------
    def _read_server(self, document: dict[str, Any]) -> None:
        try:
            metadata = OAuthMetadata.model_validate(document)
        except ValueError:
            return  # the SDK reports it
        client = self.context.client_info
        if client is not None and self._configured_secret:
            client.token_endpoint_auth_method = _secret_method(metadata)
        if (
            client is None
            and metadata.registration_endpoint is None
            and self.context.auth_server_url is not None
            and not (
                self.context.client_metadata_url and metadata.client_id_metadata_document_supported
            )
        ):
            raise OAuthRegistrationError(
                f"the authorization server {metadata.issuer} offers no client registration"
                + (
                    " and does not accept client ID metadata documents"
                    if self.context.client_metadata_url
                    else ""
                )
                + "; set client_id (a client registered with it) or client_metadata_url "
                "in the server's [mcp.servers] table"
            )

    # -- step-up ---------------------------------------------------------------------------
    def _step_up_is_futile(self, response: httpx2.Response) -> bool:
        """A 403 ``insufficient_scope`` for scopes the token was granted, or that were
        asked for already: signing in again would not change the answer."""
        if response.status_code != 403:
            return False
        if extract_field_from_www_auth(response, "error") != "insufficient_scope":
            return False
        challenged = set((extract_field_from_www_auth(response, "scope") or "").split())
        tokens = self.context.current_tokens
        granted = set((tokens.scope or "").split()) if tokens is not None else set()
        futile = bool(challenged) and (challenged <= granted or challenged <= self._requested)
        self.refused_scope = " ".join(sorted(challenged)) if futile else None
        return futile


class _AuthorizationCode(HostSideProvider, OAuthClientProvider):
    pass


class _ClientSecret(HostSideProvider, ClientCredentialsOAuthProvider):
    pass


class _PrivateKey(HostSideProvider, PrivateKeyJWTOAuthProvider):
    pass


def oauth_provider(
    spec: ServerSpec, secret: str | None, sign_in: SignIn | None, tokens: TokenFile
) -> HostSideProvider:
    """The provider authorizing requests to ``spec``'s server.

    ``secret``: the client secret read from ``client_secret_env``; ``sign_in``: the
    browser step (authorization code grant only).
    """
    config = spec.config
    url = config.url or ""
    if config.grant == "client_credentials":
        provider = _client_credentials(config, spec.key_file, url, secret, tokens)
    else:
        assert sign_in is not None
        provider = _authorization_code(config, url, secret, sign_in, tokens)
    provider._scopes = " ".join(config.scopes) or None
    provider._tokens = tokens
    provider._configured_secret = bool(secret) and config.private_key_file is None
    provider._sign_in = sign_in
    _restore(provider, tokens)
    return provider


def redirect_uri_for(config: McpServerConfig, tokens: TokenFile) -> str:
    """The loopback redirect URI: the registered client's when it has one (its port
    must match the registration), else a free port's."""
    client = tokens.client()
    for uri in (client.redirect_uris or []) if client is not None else []:
        parts = urlsplit(str(uri))
        if parts.hostname == "127.0.0.1" and parts.port:
            return loopback_redirect(parts.port)
    return loopback_redirect(free_loopback_port())


def token_file(spec: ServerSpec) -> TokenFile:
    return TokenFile(token_path(spec.config), spec.config.url or "")


def _authorization_code(
    config: McpServerConfig, url: str, secret: str | None, sign_in: SignIn, tokens: TokenFile
) -> HostSideProvider:
    from tooldeck import __version__

    redirect = [sign_in.redirect_uri]
    metadata = OAuthClientMetadata.model_validate(
        {
            "client_name": CLIENT_NAME,
            "software_version": __version__,
            "redirect_uris": redirect,
            "grant_types": ["authorization_code", "refresh_token"],
            "token_endpoint_auth_method": "none",
        }
    )
    configured = None
    if config.client_id is not None:
        configured = OAuthClientInformationFull.model_validate(
            {
                "client_id": config.client_id,
                "client_secret": secret,
                "redirect_uris": redirect,
                "token_endpoint_auth_method": "client_secret_basic" if secret else "none",
            }
        )
    storage = _Storage(tokens, configured)
    provider = _AuthorizationCode(
        url,
        metadata,
        storage,
        redirect_handler=sign_in.redirect,
        callback_handler=sign_in.callback,
        client_metadata_url=config.client_metadata_url,
    )
    storage.provider = provider
    provider._storage = storage
    return provider


def _client_credentials(
    config: McpServerConfig, key_file: Path | None, url: str, secret: str | None, tokens: TokenFile
) -> HostSideProvider:
    client_id = config.client_id or ""
    storage = _Storage(tokens, None)
    known = tokens.authorization_server()
    # The issuer credentials were last used with is pinned: a server that later names
    # another authorization server does not receive them. The first time, the server's
    # metadata names it (the SDK warns that omitting it is deprecated: no config key
    # names an issuer, so this is the documented behaviour, not an oversight).
    issuer = str(known.issuer) if known is not None else None
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
        provider: HostSideProvider
        if key_file is not None:
            key = _private_key(key_file)
            signer = SignedJWTParameters(
                issuer=client_id,
                subject=client_id,
                signing_key=key,
                signing_algorithm=config.signing_algorithm,
            )
            provider = _PrivateKey(
                url,
                storage,
                client_id,
                signer.create_assertion_provider(),
                issuer=issuer,
            )
        else:
            provider = _ClientSecret(url, storage, client_id, secret or "", issuer=issuer)
    storage.provider = provider
    return provider


def _restore(provider: OAuthClientProvider, tokens: TokenFile) -> None:
    """What the SDK keeps only in memory, back from the token file."""
    context = provider.context
    context.token_expiry_time = tokens.expires_at()
    context.oauth_metadata = tokens.authorization_server()
    context.protected_resource_metadata = tokens.resource()
    if context.oauth_metadata is not None:
        context.auth_server_url = str(context.oauth_metadata.issuer)


def _private_key(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise OAuthRegistrationError(
            f"cannot read private_key_file {str(path)!r}: {exc.strerror}"
        ) from exc


def _secret_method(metadata: OAuthMetadata) -> str:
    """How a client with a secret authenticates at this token endpoint (RFC 8414: Basic
    when the server does not say)."""
    supported = metadata.token_endpoint_auth_methods_supported or ["client_secret_basic"]
    if "client_secret_basic" in supported:
        return "client_secret_basic"
    if "client_secret_post" in supported:
        return "client_secret_post"
    return "client_secret_basic"


async def _json_object(response: httpx2.Response) -> dict[str, Any]:
    """A discovery response's JSON object, or ``{}``. Reads the body (the SDK reads the
    same response later and gets it from memory)."""
    if response.status_code != 200:
        return {}
    try:
        document = json.loads(await response.aread())
    except ValueError:
        return {}
    return document if isinstance(document, dict) else {}


def _legacy_metadata_request(server_url: str) -> httpx2.Request:
    origin = urlsplit(server_url)
    return httpx2.Request(
        "GET", f"{origin.scheme}://{origin.netloc}/.well-known/oauth-authorization-server"
    )


def _same_origin_issuer(metadata: dict[str, Any], server_url: str) -> str | None:
    """The document's issuer when it is on ``server_url``'s origin (else None: the
    SDK's own rule, the bare origin, applies)."""
    issuer = metadata.get("issuer")
    if not isinstance(issuer, str):
        return None
    mine, theirs = urlsplit(server_url), urlsplit(issuer)
    same = (mine.scheme, mine.netloc) == (theirs.scheme, theirs.netloc)
    return issuer if same else None


def _metadata_requests(issuer: str) -> list[httpx2.Request]:
    """Where a root issuer's metadata is (RFC 8414, then OpenID Connect discovery)."""
    origin = issuer.rstrip("/")
    return [
        httpx2.Request("GET", f"{origin}/.well-known/{name}")
        for name in ("oauth-authorization-server", "openid-configuration")
    ]


def _resource_naming(
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
