"""The configuration model of a Location, for hosts and packs that read or build one.

``location.config`` is a ``Config``: frozen pydantic models, one per section of
``tooldeck.toml`` (DESIGN §11). ``load_config(root)`` reads and validates the files of a
Location the way ``Host.open`` does (the user file under the project file) and raises
``ConfigError`` naming the file, the key and what was expected; a host that builds its
own ``Location`` passes the result as ``Location(root, config=...)``.
"""

from __future__ import annotations

from tooldeck.host.location.config import (
    CodemodeConfig,
    Config,
    McpConfig,
    McpServerConfig,
    OutputConfig,
    PermissionRule,
    PluginsConfig,
)
from tooldeck.host.location.config_files import load_config

__all__ = [
    "CodemodeConfig",
    "Config",
    "McpConfig",
    "McpServerConfig",
    "OutputConfig",
    "PermissionRule",
    "PluginsConfig",
    "load_config",
]
