"""``[mcp.servers.NAME]`` → ``ServerSpec``: what to connect to, named as the catalog needs.

Pure data, no SDK import: a host with servers configured but without the ``mcp`` extra
still gets one report row per server saying what to install.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path
from typing import NamedTuple

from tooldeck.host.config.config import McpServerConfig
from tooldeck.host.config.config_files import user_config_path
from tooldeck.host.registry.names import normalize


class ServerSpec(NamedTuple):
    """One configured server: its name, namespace and how to reach it."""

    name: str
    """The key of ``[mcp.servers.NAME]``; the plugin report calls the server ``mcp:NAME``."""
    namespace: str
    """The server name as a provider-safe identifier: tools become ``<namespace>_<tool>``."""
    config: McpServerConfig
    cwd: Path
    """The command's working directory: ``cwd`` resolved against the folder of the file
    that named the server, or that folder itself: the user config's for a server only
    the user config names (``from_user``), else the Location root. So no repository a
    folder opens on can put a ``calc_server.py`` or a ``.venv/bin/python`` where a
    user's server would start it. Never the host process's own directory, which says
    nothing about the project (a ``tooldeck --location`` run, a desktop client, one
    process serving several)."""
    key_file: Path | None = None
    """``private_key_file``, ``~`` expanded and resolved as ``cwd`` is."""
    from_user: bool = False
    """Named by the user config alone: the same server in every folder (its listing is
    kept once for all of them, ``cache.py``)."""

    @property
    def plugin_name(self) -> str:
        return f"mcp:{self.name}"

    @property
    def origin(self) -> str:
        """Where the server is, for reports: the command line or the URL."""
        if self.config.url is not None:
            return self.config.url
        return " ".join(self.config.command or ())


def server_specs(
    servers: Mapping[str, McpServerConfig],
    root: Path,
    user_servers: Collection[str] = (),
) -> list[ServerSpec]:
    """One spec per configured server, sorted by name (the order rows are reported in);
    ``user_servers``: the names only the user config gives (``ProjectLayer``)."""
    return [_spec(name, servers[name], root, name in user_servers) for name in sorted(servers)]


def _spec(name: str, config: McpServerConfig, root: Path, from_user: bool) -> ServerSpec:
    home = user_config_path().parent if from_user else root  # where the server is named
    cwd = (home / Path(config.cwd).expanduser()) if config.cwd is not None else home
    key = config.private_key_file
    key_file = (home / Path(key).expanduser()) if key is not None else None
    return ServerSpec(name, normalize(name), config, cwd, key_file, from_user)
