"""The configuration model (DESIGN §11), validated with pydantic at the file edge.

Loading files and turning validation errors into ``ConfigError`` messages that name
the file and the key lives in ``config_files``; this module is only the shape, and
``NOT_YET_AVAILABLE``: the keys whose feature this version does not have.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field


class _Section(BaseModel):
    # defer_build: the validators are built on first use, not when tooldeck is imported.
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class PluginsConfig(_Section):
    """``[plugins]``: which plugins load and in what order."""

    disable: tuple[str, ...] = ()
    only: tuple[str, ...] | None = None
    order: tuple[str, ...] = ()


class PermissionRule(_Section):
    """One ``[[permission]]`` rule; the last matching rule wins."""

    action: str
    resource: str = "*"
    effect: Literal["allow", "ask", "deny"]


class McpServerConfig(_Section):
    """``[mcp.servers.NAME]``: a stdio ``command`` or a streamable-HTTP ``url``."""

    command: tuple[str, ...] | None = None
    url: str | None = None
    env: dict[str, str] = Field(default_factory=dict)


class McpConfig(_Section):
    """``[mcp]``."""

    servers: dict[str, McpServerConfig] = Field(default_factory=dict)


class OutputConfig(_Section):
    """``[output]``: generic bounding of tool output returned to the model."""

    max_lines: int = Field(default=2000, gt=0)
    max_bytes: int = Field(default=50 * 1024, gt=0)


class CodemodeConfig(_Section):
    """``[codemode]``: the ``execute`` tool, its catalog budget and a program's limits."""

    enabled: bool = True
    budget_tokens: int = Field(default=2000, ge=0)
    type_check: bool = True
    timeout_s: float = Field(default=30.0, gt=0.0)
    memory_mb: int = Field(default=256, gt=0)
    max_tool_calls: int = Field(default=100, ge=0)


class Config(_Section):
    """The whole configuration of one Location (user file merged under project file)."""

    plugins: PluginsConfig = Field(default_factory=PluginsConfig.model_construct)
    permission: tuple[PermissionRule, ...] = ()
    mcp: McpConfig = Field(default_factory=McpConfig.model_construct)
    output: OutputConfig = Field(default_factory=OutputConfig.model_construct)
    codemode: CodemodeConfig = Field(default_factory=CodemodeConfig.model_construct)


class Unavailable(NamedTuple):
    """A config key whose feature is not in this version: setting it is an error."""

    feature: str
    accepted: tuple[bool, ...] = ()
    """Values that already describe what this version does, so they stay valid."""


NOT_YET_AVAILABLE: dict[str, Unavailable] = {
    # dotted key: the feature it configures. A feature that lands deletes its rows here.
    "mcp.servers": Unavailable("MCP servers"),
}
"""Keys that validate but would do nothing yet; ``config_files`` rejects them by name."""


def default_config() -> Config:
    """The configuration of a Location without config files (no validation needed)."""
    return Config.model_construct()
