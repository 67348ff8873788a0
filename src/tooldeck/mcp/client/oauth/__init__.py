"""OAuth 2.1 for mounted HTTP servers (``[mcp.servers.NAME] auth = "oauth"``).

``tokens``: where a server's tokens and client registration live (the user's data dir),
and ``storage`` the SDK's view of that file; ``signin``: the browser step and the
host's ``Authorizer``; ``provider``: the SDK's client auth with what hosts must add
(``documents``: the discovery documents it reads and rewrites); ``build``: the provider
for a server's config; ``server_auth``: one connection's authorization, as the transport
uses it; ``revoke``: ``tooldeck mcp logout``.
"""
