"""Where a mounted server's OAuth state lives: one file per server in the user's data dir.

``$XDG_DATA_HOME/tooldeck/oauth/<host>-<digest>.json`` (``~/.local/share/...`` when
unset), never inside a project: tokens are the user's, and a project folder is shared,
committed and synced. The digest covers what the state belongs to — the server's URL,
the grant and the configured client — so two projects mounting the same server share
one sign-in, and a changed client starts afresh. The file is written atomically (a
temporary file renamed over it) with mode 0600 in a 0700 directory, each read-change-write
under an exclusive lock on ``<file>.lock`` so concurrent writers lose nothing.

It holds the tokens with the time they expire (the SDK keeps only ``expires_in``, which
means nothing after a restart), the registered client (bound to the issuer that
registered it, so a server that moves to another authorization server registers again),
the authorization server's and the resource's metadata (so a refresh after a restart
goes to the right token endpoint, and ``logout`` knows where to revoke), and the scope a
server asked for while no one could sign in (``login`` asks for it).
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from tooldeck.errors import ConfigError
from tooldeck.host.config.files import locked, unwritten, write_atomically

if TYPE_CHECKING:
    from tooldeck.host.config.config import McpServerConfig
    from tooldeck.mcp.sdk import (
        OAuthClientInformationFull,
        OAuthMetadata,
        OAuthToken,
        ProtectedResourceMetadata,
    )

FORMAT_VERSION = 1


def oauth_dir() -> Path:
    """``$XDG_DATA_HOME/tooldeck/oauth`` (``~/.local/share/tooldeck/oauth`` when unset)."""
    from tooldeck.host.config.config_files import user_data_dir

    return user_data_dir() / "oauth"


def token_path(config: McpServerConfig) -> Path:
    """The state file of the server ``config`` mounts (its url, grant and client)."""
    owner = [config.url or "", config.grant, config.client_id or "", config.client_metadata_url]
    if config.issuer is not None:  # another authorization server: other tokens
        owner.append(config.issuer)
    digest = hashlib.sha256(json.dumps(owner).encode()).hexdigest()[:16]
    host = urlsplit(config.url or "").hostname or "server"
    safe = "".join(c if c.isalnum() or c in ".-" else "_" for c in host)
    return oauth_dir() / f"{safe}-{digest}.json"


class TokenFile:
    """One server's OAuth state on disk; every read goes to the file (another process,
    ``tooldeck mcp login`` say, may have replaced it)."""

    def __init__(self, path: Path, server_url: str) -> None:
        self.path = path
        self.server_url = server_url

    # -- reading ---------------------------------------------------------------------------
    def stamp(self) -> tuple[int, int] | None:
        """What changes when the file is replaced (``None``: there is no file)."""
        try:
            info = self.path.stat()
        except OSError:
            return None
        return (info.st_mtime_ns, info.st_ino)

    def read(self) -> dict[str, Any]:
        """The stored state (``{}`` when there is none). Raises ``ConfigError`` naming the
        file when it cannot be read as one."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(str(self.path), "OAuth tokens", f"cannot be read: {exc}") from exc
        try:
            data = json.loads(text)
            if not isinstance(data, dict) or data.get("version") != FORMAT_VERSION:
                raise ValueError(f"expected a JSON object with version {FORMAT_VERSION}")
        except ValueError as exc:
            raise ConfigError(
                str(self.path), "OAuth tokens", f"not a token file ({exc}); remove it"
            ) from exc
        return data

    def tokens(self) -> OAuthToken | None:
        from tooldeck.mcp.sdk import OAuthToken

        raw = self.read().get("tokens")
        return OAuthToken.model_validate(raw) if isinstance(raw, dict) else None

    def expires_at(self) -> float | None:
        """When the stored access token expires (seconds since the epoch), if it says."""
        value = self.read().get("expires_at")
        return float(value) if isinstance(value, int | float) else None

    def client(self) -> OAuthClientInformationFull | None:
        from tooldeck.mcp.sdk import OAuthClientInformationFull

        raw = self.read().get("client")
        return OAuthClientInformationFull.model_validate(raw) if isinstance(raw, dict) else None

    def authorization_server(self) -> OAuthMetadata | None:
        from tooldeck.mcp.sdk import OAuthMetadata

        raw = self.read().get("authorization_server")
        return OAuthMetadata.model_validate(raw) if isinstance(raw, dict) else None

    def resource(self) -> ProtectedResourceMetadata | None:
        from tooldeck.mcp.sdk import ProtectedResourceMetadata

        raw = self.read().get("resource")
        return ProtectedResourceMetadata.model_validate(raw) if isinstance(raw, dict) else None

    def wanted_scope(self) -> str | None:
        """A scope the server asked for while no one could sign in (``login`` adds it)."""
        value = self.read().get("wanted_scope")
        return value if isinstance(value, str) and value else None

    # -- writing ---------------------------------------------------------------------------
    def update(self, **changes: Any) -> None:
        """Set (or, with ``None``, remove) entries and write the file atomically.

        The read and the write hold an exclusive lock on ``<file>.lock``, so two processes
        changing one server's state at once (``tooldeck mcp login`` beside a host
        refreshing its token) both land. A disk that refuses the write (full, a size
        limit, a file where a folder should be) leaves the old file whole and raises
        ``ConfigError`` naming it.
        """
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            with locked(self.path.with_name(self.path.name + ".lock")):
                data = self.read()
                for key, value in changes.items():
                    if value is None:
                        data.pop(key, None)
                    else:
                        data[key] = value
                data["version"] = FORMAT_VERSION
                data["server"] = self.server_url
                # mkstemp makes the file 0600: only its owner reads the tokens, from the
                # first byte.
                write_atomically(self.path, json.dumps(data, indent=2, sort_keys=True))
        except OSError as exc:
            raise unwritten(self.path, "OAuth tokens", exc) from exc

    def set_tokens(self, tokens: OAuthToken) -> None:
        expires_at = time.time() + tokens.expires_in if tokens.expires_in is not None else None
        self.update(
            tokens=tokens.model_dump(mode="json", exclude_none=True),
            expires_at=expires_at,
            wanted_scope=None,
        )

    def set_client(self, client: OAuthClientInformationFull) -> None:
        self.update(client=client.model_dump(mode="json", exclude_none=True))

    def remove(self) -> bool:
        """Forget everything about this server; True when there was something."""
        try:
            self.path.unlink()
        except FileNotFoundError:
            return False
        return True
