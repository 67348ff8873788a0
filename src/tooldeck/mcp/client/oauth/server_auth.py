"""One connection's authorization: the SDK provider, its browser step, and its story.

A connection to a server with ``auth = "oauth"`` sends every HTTP request through the
provider. When authorization fails, the SDK's transport may report it as anything from
a closed connection to a generic HTTP error; ``failure()`` says what really happened,
in words a user can act on (what to run, which variable is missing).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from tooldeck.mcp.client.oauth.signin import Authorizer, SignIn

if TYPE_CHECKING:
    from tooldeck.mcp.client.oauth.provider import HostSideProvider
    from tooldeck.mcp.client.specs import ServerSpec


class MissingSecret(Exception):
    """``client_secret_env`` names a variable that is not set."""


class ServerAuth:
    """How requests to one server are authorized (built on the loop, when connecting)."""

    def __init__(
        self,
        spec: ServerSpec,
        authorizer: Authorizer | None,
        on_person: Callable[[bool], None] = lambda waiting: None,
    ) -> None:
        from tooldeck.mcp.client.oauth.build import oauth_provider, redirect_uri_for, token_file

        config = spec.config
        self.tokens = token_file(spec)
        secret = None
        if config.client_secret_env is not None:
            secret = os.environ.get(config.client_secret_env)
            if not secret:
                raise MissingSecret(
                    f"client_secret_env names ${config.client_secret_env}, which is not set "
                    f"(the client secret of [mcp.servers.{spec.name}])"
                )
        self.sign_in: SignIn | None = None
        if config.grant == "authorization_code":
            redirect = redirect_uri_for(config, self.tokens)
            self.sign_in = SignIn(spec.name, authorizer, redirect, self.tokens, on_person)
        self.provider: HostSideProvider = oauth_provider(spec, secret, self.sign_in, self.tokens)

    def reset(self) -> None:
        """Forget an earlier sign-in that could not happen (a new attempt starts)."""
        if self.sign_in is not None:
            self.sign_in.needed = None
        self.provider.refused_scope = None

    def failure(self) -> str | None:
        """Why requests could not be authorized, when a sign-in was needed and impossible."""
        needed = self.sign_in.needed if self.sign_in is not None else None
        if needed is not None:
            return str(needed)
        refused = self.provider.refused_scope
        if refused is not None:
            return (
                f"the server requires scope {refused!r}, which was asked for and not "
                "granted; the authorization server's policy decides who may have it"
            )
        return None
