"""What tooldeck brings to a server's session besides the transport, and the account of
how connecting went when it went wrong.

Who tooldeck is (``clientInfo``: ``tooldeck`` and its version, not the SDK's default),
what it answers the server (elicitation, logs and progress, ``server_requests``), how
it authorizes (OAuth, ``oauth/server_auth``), and the deadlines that stop while a person
signs in (``deadlines``). When connecting or a call fails, the SDK often reports only
the symptom (a closed stream, a timeout); this keeps what really happened — a 401 from
a server with no ``auth`` configured, a sign-in no one could do, a handshake answered
with something that is not JSON-RPC — and says that instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tooldeck.mcp.client.deadlines import Deadlines
from tooldeck.mcp.client.failures import first_line, refusal
from tooldeck.mcp.client.server_requests import ServerRequests
from tooldeck.mcp.client.stdio import NotJsonRpc

if TYPE_CHECKING:
    import httpx2

    from tooldeck.host.permissions.request import Asker
    from tooldeck.mcp.client.oauth.server_auth import ServerAuth
    from tooldeck.mcp.client.oauth.signin import Authorizer
    from tooldeck.mcp.client.specs import ServerSpec


class ClientSide:
    """One configured server's client side (lives as long as its ``Connection``)."""

    def __init__(
        self, spec: ServerSpec, asker: Callable[[], Asker | None], authorizer: Authorizer | None
    ) -> None:
        self.spec = spec
        self.requests = ServerRequests(spec.name, asker)
        self.deadlines = Deadlines()
        self._authorizer = authorizer
        self._auth: ServerAuth | None = None
        self._refused: tuple[int, str] | None = None
        self._garbage: str | None = None
        """The first line the server sent that was not JSON-RPC, while connecting."""

    def attempt(self) -> None:
        """A new connection or call starts: forget what the last one ran into."""
        self._refused = None
        if self._auth is not None:
            self._auth.reset()

    def connecting(self) -> None:
        self.attempt()
        self._garbage = None

    # -- what the session is built with ------------------------------------------------------
    def http_auth(self) -> httpx2.Auth | None:
        """The OAuth provider of a server with ``auth = "oauth"`` (built once)."""
        if self.spec.config.auth is None:
            return None
        if self._auth is None:
            from tooldeck.mcp.client.oauth.server_auth import ServerAuth

            waiting = self.deadlines.waiting_on_person
            self._auth = ServerAuth(self.spec, self._authorizer, waiting)
        return self._auth.provider

    def client_options(self) -> dict[str, Any]:
        """The SDK ``Client``'s keyword arguments for who we are and what we answer."""
        return {
            "client_info": _client_info(),
            "elicitation_callback": self.requests.elicit,
            "logging_callback": self.requests.log,
            "log_level": "info",  # 2026-07-28 servers log only to requests that ask
        }

    # -- what happened ---------------------------------------------------------------------------
    def refused(self, status: int, challenge: str) -> None:
        """The HTTP server answered 401 or 403 (with this ``WWW-Authenticate``)."""
        self._refused = (status, challenge)

    def unreadable(self, message: Exception) -> None:
        """The server sent something that is not JSON-RPC while we were connecting."""
        if self._garbage is None:
            said = message.line if isinstance(message, NotJsonRpc) else str(message)
            self._garbage = repr(first_line(said))

    def refusal(self) -> str | None:
        """Why the server would not let us in, when that is what happened."""
        if self._auth is not None:
            return self._auth.failure()
        if self._refused is None:
            return None
        return refusal(self.spec, *self._refused)

    def timed_out(self, timeout: float) -> str:
        """Why connecting ran out of time."""
        if self._garbage is not None:
            return (
                "the server answered the handshake with something that is not JSON-RPC: "
                f"{self._garbage}"
            )
        return f"timed out after {timeout:g}s connecting and listing tools (timeout_s)"


def _client_info() -> Any:
    from tooldeck import __version__
    from tooldeck.mcp.sdk import types

    return types.Implementation(name="tooldeck", version=__version__)
