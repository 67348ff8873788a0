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
