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
* **A configured issuer** (``issuer``, client credentials): for a server whose resource
  metadata is missing or names another authorization server, discovery starts from the
  configured issuer instead (its metadata gives the token endpoint), and the SDK's own
  issuer check holds the credentials to it. A root issuer may be written with or
  without its trailing slash: it is read the way its metadata writes it.
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

from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import anyio
import httpx2

from tooldeck.mcp.client.oauth import documents
from tooldeck.mcp.sdk import (
    ClientCredentialsOAuthProvider,
    OAuthClientProvider,
    OAuthMetadata,
    OAuthRegistrationError,
    PrivateKeyJWTOAuthProvider,
    extract_field_from_www_auth,
    union_scopes,
)

if TYPE_CHECKING:
    from tooldeck.mcp.client.oauth.signin import SignIn
    from tooldeck.mcp.client.oauth.storage import TokenStorage
    from tooldeck.mcp.client.oauth.tokens import TokenFile


class HostSideProvider(OAuthClientProvider):
    """What tooldeck adds to each of the SDK's providers (see the module docstring).

    The SDK's constructors differ per grant; ``host_side`` gives every one the same
    additions after it is built (``build.py``).
    """

    _tokens: TokenFile
    _scopes: str | None = None
    _configured_secret = False
    """The client is configured with a secret: its token endpoint method is chosen here."""
    _sign_in: SignIn | None = None
    storage: TokenStorage | None = None
    """The registered client comes from here (``None``: the provider fixes its own)."""
    refused_scope: str | None = None
    """Scopes a server still demands after they were asked for (a futile step-up)."""
    _stamp: tuple[int, int] | None = None
    _requested: frozenset[str] = frozenset()
    """The scopes this provider last asked the authorization server for."""
    _legacy_issuer: str | None = None
    """The issuer of the metadata at the server's own origin (no resource metadata)."""
    _configured_issuer: str | None = None
    """The configured issuer (client credentials): discovery starts from it."""
    _configured_read = False
    """The configured issuer's metadata was probed for how it writes its issuer."""

    def host_side(
        self,
        tokens: TokenFile,
        *,
        scopes: str | None,
        configured_secret: bool,
        sign_in: SignIn | None,
        issuer: str | None = None,
    ) -> None:
        """The server's token file, the configured ``scopes``, whether its client is
        configured with a secret, its browser step (authorization code only) and its
        configured ``issuer`` (client credentials only)."""
        self._tokens = tokens
        self._scopes = scopes
        self._configured_secret = configured_secret
        self._sign_in = sign_in
        self._configured_issuer = issuer

    async def _auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        await self._reload_if_replaced()
        # Every request the SDK's flow makes passes here, and every response it reads is
        # looked at first: the request being authorized (a futile step-up ends the flow),
        # resource metadata (a root issuer's metadata is probed, the document perhaps
        # rewritten), authorization server metadata (read), and the end of resource
        # metadata discovery (the 2025-03-26 fallback's document is probed).
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
                    document = await documents.json_object(response)
                    if self._discovery_decides(outgoing, document):
                        # the configured issuer, however the server's metadata reads
                        issuer = self._configured_issuer
                        if not self._configured_read and issuer and _is_root(issuer):
                            self._configured_read = True
                            for probe in documents.metadata_requests(issuer):
                                found = await documents.json_object((yield probe))
                                if found:
                                    self._configured_issuer = documents.spelled(issuer, found)
                                    break
                        if "authorization_servers" not in document:
                            self.context.auth_server_url = self._configured_issuer
                    elif "authorization_servers" in document:
                        issuer = self._root_issuer(document)
                        if issuer is not None:
                            metadata: dict[str, Any] = {}
                            for probe in documents.metadata_requests(issuer):
                                metadata = await documents.json_object((yield probe))
                                if metadata:
                                    break
                            response = documents.resource_naming(response, document, metadata)
                    elif "token_endpoint" in document and "issuer" in document:
                        self._read_server(document)
                    elif self._resource_metadata_ends(outgoing):
                        legacy = documents.legacy_metadata_request(self.context.server_url)
                        self._legacy_issuer = documents.same_origin_issuer(
                            await documents.json_object((yield legacy)), self.context.server_url
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
        if self.storage is not None:
            context.client_info = await self.storage.get_client_info()

    def _expected_issuer(self) -> str:
        if self._configured_issuer is not None:
            return self._configured_issuer
        if self.context.auth_server_url is None and self._legacy_issuer is not None:
            return self._legacy_issuer
        return super()._expected_issuer()

    def _select_authorization_server(self, advertised: list[str]) -> str:
        if self._configured_issuer is not None:
            return self._configured_issuer
        return super()._select_authorization_server(advertised)

    def _discovery_decides(self, outgoing: httpx2.Request, document: dict[str, Any]) -> bool:
        """With an issuer configured: ``document`` is resource metadata (the issuer is
        chosen in its place), or the last place it is looked for found none (the issuer
        is where authorization server metadata is looked for next)."""
        if self._configured_issuer is None:
            return False
        return "authorization_servers" in document or self._resource_metadata_ends(outgoing)

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
    def _root_issuer(self, document: dict[str, Any]) -> str | None:
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
        return selected if _is_root(selected) else None

    # -- the authorization server's metadata -------------------------------------------------
    def _read_server(self, document: dict[str, Any]) -> None:
        try:
            metadata = OAuthMetadata.model_validate(document)
        except ValueError:
            return  # the SDK reports it
        client = self.context.client_info
        if client is not None and self._configured_secret:
            client.token_endpoint_auth_method = documents.secret_method(metadata)
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


def _is_root(issuer: str) -> bool:
    """``https://host`` or ``https://host/``: written with or without the slash."""
    return urlsplit(issuer).path in ("", "/")


class AuthorizationCode(HostSideProvider, OAuthClientProvider):
    pass


class ClientSecret(HostSideProvider, ClientCredentialsOAuthProvider):
    pass


class PrivateKey(HostSideProvider, PrivateKeyJWTOAuthProvider):
    pass
