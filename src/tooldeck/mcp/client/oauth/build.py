"""The provider for one server's config: which grant, which client, which storage.

``oauth_provider`` picks the SDK's provider for the grant (authorization code, or client
credentials with a secret or a signed JWT), wrapped with tooldeck's additions
(``provider.py``), gives it the server's token file, and restores what the SDK keeps
only in memory (the token's expiry, the authorization server's metadata).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from tooldeck.mcp.client.oauth.provider import (
    AuthorizationCode,
    ClientSecret,
    HostSideProvider,
    PrivateKey,
)
from tooldeck.mcp.client.oauth.signin import SignIn, free_loopback_port, loopback_redirect
from tooldeck.mcp.client.oauth.storage import TokenStorage
from tooldeck.mcp.client.oauth.tokens import TokenFile, token_path
from tooldeck.mcp.sdk import (
    MCPDeprecationWarning,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthClientProvider,
    OAuthRegistrationError,
    SignedJWTParameters,
)

if TYPE_CHECKING:
    from tooldeck.host.config.config import McpServerConfig
    from tooldeck.mcp.client.specs import ServerSpec

CLIENT_NAME = "tooldeck"


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
    provider.host_side(
        tokens,
        scopes=" ".join(config.scopes) or None,
        configured_secret=bool(secret) and config.private_key_file is None,
        sign_in=sign_in,
        issuer=config.issuer,
    )
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
    storage = TokenStorage(tokens, configured)
    provider = AuthorizationCode(
        url,
        metadata,
        storage,
        redirect_handler=sign_in.redirect,
        callback_handler=sign_in.callback,
        client_metadata_url=config.client_metadata_url,
    )
    storage.provider = provider
    provider.storage = storage
    return provider


def _client_credentials(
    config: McpServerConfig, key_file: Path | None, url: str, secret: str | None, tokens: TokenFile
) -> HostSideProvider:
    client_id = config.client_id or ""
    storage = TokenStorage(tokens, None)
    known = tokens.authorization_server()
    # The configured ``issuer`` is where the credentials go, whatever the server's
    # metadata says (``provider.py`` makes discovery start from it). Without one, the
    # issuer they were last used with is pinned: a server that later names another
    # authorization server does not receive them; the first time, the server's metadata
    # names it (the SDK warns that omitting it is deprecated; ``issuer`` is the key that
    # names it).
    issuer = config.issuer or (str(known.issuer) if known is not None else None)
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
            provider = PrivateKey(
                url,
                storage,
                client_id,
                signer.create_assertion_provider(),
                issuer=issuer,
            )
        else:
            provider = ClientSecret(url, storage, client_id, secret or "", issuer=issuer)
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
