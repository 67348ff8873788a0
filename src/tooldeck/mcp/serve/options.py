"""The options of ``tooldeck mcp serve``, checked before anything heavy loads.

Importing the MCP SDK costs about a second of CPU, so a start that will be refused (a
malformed ``--http``, a non-loopback address without ``--allow-remote``, ``--allow-remote``
with no token to require) is refused from here, without the SDK: this module imports
neither the SDK nor anyio. ``command.serve`` applies the same rules again, so a caller
that skips these checks is refused all the same, only later.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

from tooldeck.errors import UsageError
from tooldeck.host.config.mcp_keys import LOOPBACK_HOSTS
from tooldeck.mcp.serve.auth import TOKEN_ENV

NO_TOKEN = (
    f"--allow-remote needs a bearer token in {TOKEN_ENV} or [mcp.serve.principals.NAME] token_env"
)


STATE_SECRET_ENV = "TOOLDECK_MCP_STATE_SECRET"
"""The secret replicas share to seal a call's answers between its rounds (``rounds``)."""
MIN_STATE_SECRET = 32
"""Characters that secret must have at least. Every client holds sealed rounds it can
test guesses against, offline: a guessed secret seals any answer, a permission too."""


def check_state_secret(environ: Mapping[str, str] = os.environ) -> None:
    """Refuse a ``STATE_SECRET_ENV`` too short to resist guessing (unset is fine: the
    process then keys its rounds with a random key of its own)."""
    secret = environ.get(STATE_SECRET_ENV)
    if secret is None or len(secret) >= MIN_STATE_SECRET:
        return
    raise UsageError(
        f"{STATE_SECRET_ENV} is {len(secret)} characters long; it needs at least "
        f"{MIN_STATE_SECRET} random ones, since a client that guesses it can seal answers "
        "(a permission too) the server never gave. Make one with: python -c "
        '"import secrets; print(secrets.token_urlsafe(32))"'
    )


class HttpAddress(NamedTuple):
    host: str
    port: int

    @classmethod
    def parse(cls, text: str) -> HttpAddress:
        """``PORT`` or ``HOST:PORT`` (``[::1]:PORT`` for IPv6)."""
        host, sep, port = text.rpartition(":")
        host = host.strip("[]") if sep else "127.0.0.1"
        if not port.isdigit() or not 0 < int(port) < 65536:
            raise UsageError(f"--http {text}: expected [HOST:]PORT with a port 1-65535")
        return cls(host or "127.0.0.1", int(port))

    @property
    def url(self) -> str:
        """``http://HOST:PORT/mcp`` (IPv6 hosts in brackets)."""
        shown = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{shown}:{self.port}/mcp"


def checked_address(http: str | None, allow_remote: bool) -> HttpAddress | None:
    """The address ``--http`` names (``None``: stdio); a non-loopback one needs
    ``--allow-remote``."""
    address = HttpAddress.parse(http) if http is not None else None
    if address is not None and address.host not in LOOPBACK_HOSTS and not allow_remote:
        raise UsageError(
            f"--http {address.host}:{address.port}: refusing to listen on a "
            "non-loopback address without --allow-remote"
        )
    return address


def check_token_possible(
    root: Path, http: str | None, allow_remote: bool, environ: Mapping[str, str] = os.environ
) -> None:
    """Refuse ``--allow-remote`` over HTTP when no bearer token can exist: neither
    ``TOOLDECK_MCP_TOKEN`` nor any principal in the config files.

    The files are read as written, trusted or not: trust only removes a project's
    principals, so "none here" is "none served". Whether the tokens that may exist are
    set, and survive trust, is decided once the Location is open (``principals.tokens``).
    """
    if http is None or not allow_remote or environ.get(TOKEN_ENV):
        return
    from tooldeck.host.config.config_files import load_config

    if not load_config(root).mcp.serve.principals:
        raise UsageError(NO_TOKEN)
