"""The SDK's ``TokenStorage`` over a server's token file (``tokens.py``).

The SDK keeps tokens and the registered client through four async methods; this gives
them the token file, doing its I/O in a worker thread. A configured client
(``client_id``) is never written: its secret stays in the environment. Storing tokens
also stores the metadata they were obtained with, read from the provider's context
(the restart state ``provider.py`` restores).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio

if TYPE_CHECKING:
    from tooldeck.mcp.client.oauth.tokens import TokenFile
    from tooldeck.mcp.sdk import OAuthClientInformationFull, OAuthClientProvider, OAuthToken


class TokenStorage:
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
