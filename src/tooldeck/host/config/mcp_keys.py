"""Which keys of an ``[mcp.servers.NAME]`` section go together.

A server is reached one way, a stdio ``command`` or a streamable-HTTP ``url``, and each
key belongs to one of them; the OAuth keys apply only with ``auth = "oauth"`` on a url,
and each grant takes its own (a person signing in, or a machine's client credentials).
``McpServerConfig`` (``config``) checks a section against these rules after parsing it,
so a key that would be silently ignored is an error naming the key.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tooldeck.host.config.config import McpServerConfig

OAUTH_KEYS = (
    "grant",
    "client_id",
    "client_secret_env",
    "client_metadata_url",
    "private_key_file",
    "signing_algorithm",
    "scopes",
    "issuer",
)
"""The keys that apply only with ``auth = "oauth"``."""
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
"""The host names that reach only this machine: plain http is safe to them alone."""


def server_problem(server: McpServerConfig) -> str | None:
    """What is wrong with how ``server``'s keys combine, or None."""
    if (server.command is None) == (server.url is None):
        return "expected exactly one of command (stdio) or url (streamable HTTP)"
    if server.command is not None and not (server.command and server.command[0]):
        return "command must start with the program to run, got []"
    if server.url is not None:
        if not server.url.startswith(("http://", "https://")):
            return f"url must start with http:// or https://, got {server.url!r}"
        wrong = [key for key in ("env", "cwd") if key in server.model_fields_set]
        if wrong:
            return f"{wrong[0]} applies to a command, not to a url"
    elif "headers" in server.model_fields_set:
        return "headers apply to a url, not to a command"
    return _oauth_problem(server)


def _oauth_problem(server: McpServerConfig) -> str | None:
    """What is wrong with a server's OAuth keys, or None."""
    given = [key for key in OAUTH_KEYS if key in server.model_fields_set]
    if server.auth is None:
        return f'{given[0]} applies with auth = "oauth"' if given else None
    if server.url is None:
        return 'auth = "oauth" applies to a url (streamable HTTP), not to a command'
    if any(name.lower() == "authorization" for name in server.headers):
        return 'auth = "oauth" sets the Authorization header; remove it from headers'
    if server.client_metadata_url is not None:
        problem = _metadata_url_problem(server.client_metadata_url)
        if problem is not None:
            return problem
    for scope in server.scopes:
        if not scope or any(c.isspace() for c in scope):
            return f"scopes must be non-empty and without spaces, got {scope!r}"
    if server.grant == "client_credentials":
        return _client_credentials_problem(server)
    if server.issuer is not None:
        return 'issuer applies with grant = "client_credentials"'
    if server.private_key_file is not None:
        return 'private_key_file applies with grant = "client_credentials"'
    if server.client_secret_env is not None and server.client_id is None:
        return "client_secret_env needs the client_id it is the secret of"
    return None


def _client_credentials_problem(server: McpServerConfig) -> str | None:
    if server.client_id is None:
        return 'grant = "client_credentials" needs client_id (a pre-registered client)'
    if (server.client_secret_env is None) == (server.private_key_file is None):
        return (
            'grant = "client_credentials" needs exactly one of client_secret_env '
            "(a client secret) or private_key_file (a signed JWT)"
        )
    if server.client_metadata_url is not None:
        return 'client_metadata_url applies with grant = "authorization_code"'
    if "signing_algorithm" in server.model_fields_set and server.private_key_file is None:
        return "signing_algorithm applies with private_key_file"
    if server.issuer is not None:
        return _issuer_problem(server.issuer)
    return None


def _issuer_problem(issuer: str) -> str | None:
    """An issuer identifier (RFC 8414): https (http on loopback only), a host, no query
    or fragment."""
    from urllib.parse import urlsplit

    parts = urlsplit(issuer)
    secure = parts.scheme == "https" or (
        parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS
    )
    if not secure or not parts.netloc or parts.query or parts.fragment:
        return (
            "issuer must be the authorization server's issuer URL: https (http only on "
            f"127.0.0.1 or localhost), without query or fragment, got {issuer!r}"
        )
    return None


def _metadata_url_problem(url: str) -> str | None:
    """A client ID metadata document's URL is the client id: https, with a path."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme != "https" or not parts.netloc or parts.path in ("", "/"):
        return f"client_metadata_url must be an https URL with a path, got {url!r}"
    return None
