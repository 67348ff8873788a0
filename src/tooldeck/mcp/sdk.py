"""The MCP SDK as tooldeck uses it: the only module that imports ``mcp`` and ``mcp_types``.

Every other module of ``tooldeck.mcp`` takes the SDK's names from here, so an SDK
upgrade that moves or renames them touches this file alone (``tests/mcp/test_sdk.py``
keeps it so). ``codemode/sandbox.py`` does the same for pydantic-monty.

Importing this module imports the SDK: ``import mcp`` alone already loads its client
and server sides, so naming them all here costs nothing more. Modules that need the SDK
only on a cold path (connecting, serving) import this module there, which keeps
``Host.open`` without MCP servers free of it. The transport stream type stays out of
the import (a private SDK module, for type checkers). The OAuth client (``client/oauth/``)
subclasses the SDK's providers: what it relies on beyond their public names is listed
in ``client/oauth/provider.py`` and pinned by its tests.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import mcp.types as types
from mcp.client.auth import (
    OAuthClientProvider,
    OAuthFlowError,
    OAuthRegistrationError,
    OAuthTokenError,
)
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider,
    PrivateKeyJWTOAuthProvider,
    SignedJWTParameters,
)
from mcp.client.auth.utils import extract_field_from_www_auth, issuers_match, union_scopes
from mcp.client.stdio import get_default_environment
from mcp.client.streamable_http import streamable_http_client
from mcp.server import Server
from mcp.server.caching import CacheHint
from mcp.server.connection import allowed_log_levels
from mcp.server.lowlevel import NotificationOptions
from mcp.server.stdio import stdio_server
from mcp.server.streamable_http import EventMessage, EventStore
from mcp.server.subscriptions import (
    InMemorySubscriptionBus,
    ListenHandler,
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated,
    ToolsListChanged,
)
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthMetadata,
    OAuthToken,
    ProtectedResourceMetadata,
)
from mcp.shared.exceptions import MCPDeprecationWarning
from mcp.shared.message import ServerMessageMetadata, SessionMessage
from mcp_types.jsonrpc import (
    CONNECTION_CLOSED,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    URL_ELICITATION_REQUIRED,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from mcp import Client, MCPError, UrlElicitationRequiredError

if TYPE_CHECKING:
    from mcp.client._transport import TransportStreams as TransportStreams
    from mcp.client.session import ClientRequestContext as ClientRequestContext


__all__ = [
    "CONNECTION_CLOSED",
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "MODERN_PROTOCOL_VERSIONS",
    "RESOURCE_NOT_FOUND",
    "URL_ELICITATION_REQUIRED",
    "AuthorizationCodeResult",
    "CacheHint",
    "Client",
    "ClientCredentialsOAuthProvider",
    "EventMessage",
    "EventStore",
    "InMemorySubscriptionBus",
    "ListenHandler",
    "MCPDeprecationWarning",
    "MCPError",
    "NotificationOptions",
    "OAuthClientInformationFull",
    "OAuthClientMetadata",
    "OAuthClientProvider",
    "OAuthFlowError",
    "OAuthMetadata",
    "OAuthRegistrationError",
    "OAuthToken",
    "OAuthTokenError",
    "PrivateKeyJWTOAuthProvider",
    "PromptsListChanged",
    "ProtectedResourceMetadata",
    "ResourceUpdated",
    "ResourcesListChanged",
    "Server",
    "ServerMessageMetadata",
    "SessionMessage",
    "SignedJWTParameters",
    "ToolsListChanged",
    "TransportSecuritySettings",
    "UrlElicitationRequiredError",
    "allowed_log_levels",
    "extract_field_from_www_auth",
    "get_default_environment",
    "issuers_match",
    "stdio_server",
    "streamable_http_client",
    "types",
    "union_scopes",
]

RESOURCE_NOT_FOUND = -32002
"""The JSON-RPC error code of ``resources/read`` for an unknown URI (the MCP spec's; the
SDK names none)."""
