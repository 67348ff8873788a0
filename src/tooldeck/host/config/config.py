"""The configuration model (DESIGN §11), validated with pydantic at the file edge.

Loading files and turning validation errors into ``ConfigError`` messages that name
the file and the key lives in ``config_files``, which keys of a server section go
together in ``mcp_keys``; this module is only the shape, and ``NOT_YET_AVAILABLE``: the
keys whose feature this version does not have.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from tooldeck._public import public

MAX_SERVER_NAME = 48
"""Room for ``_<tool>`` in the 64-character effective name of a mounted tool."""


class _Section(BaseModel):
    # defer_build: the validators are built on first use, not when tooldeck is imported.
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


@public
class PluginsConfig(_Section):
    """``[plugins]``: which plugins load and in what order."""

    disable: tuple[str, ...] = ()
    only: tuple[str, ...] | None = None
    order: tuple[str, ...] = ()


@public
class PermissionRule(_Section):
    """One ``[[permission]]`` rule; inside one file the last matching rule wins (the
    user's and the project's files combine by strictest wins: ``permissions/layers.py``)."""

    action: str
    resource: str = "*"
    effect: Literal["allow", "ask", "deny"]


@public
class McpServerConfig(_Section):
    """``[mcp.servers.NAME]``: a stdio ``command`` or a streamable-HTTP ``url``.

    ``env`` and ``cwd`` belong to a command, ``headers`` to a url; ``timeout_s`` bounds
    connecting, listing and each tool call; ``codemode`` and ``defer_loading`` set
    ``Tool.codemode`` and ``Tool.defer_loading`` of every mounted tool (unset: the tools'
    defaults).

    ``auth = "oauth"`` (a url only) authorizes with OAuth 2.1: ``grant`` is the
    authorization code flow (a person signs in, ``tooldeck mcp login``) or client
    credentials (a machine identity: ``client_id`` with ``client_secret_env`` or
    ``private_key_file`` + ``signing_algorithm``). ``client_id`` names a pre-registered
    client, ``client_metadata_url`` a client ID metadata document; neither: the client
    registers itself. ``scopes`` are requested on top of what the server asks for.
    ``issuer`` (client credentials) names the authorization server the credentials
    belong to, for a server whose resource metadata is missing or names another one:
    the token endpoint is found from that issuer's metadata, and the credentials go
    nowhere else.
    Secrets are never in the file: ``client_secret_env`` names an environment variable.
    """

    command: tuple[str, ...] | None = None
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    enabled: bool = True
    timeout_s: float = Field(default=10.0, gt=0, le=86_400.0, allow_inf_nan=False)
    codemode: bool | None = None
    defer_loading: bool | None = None
    auth: Literal["oauth"] | None = None
    grant: Literal["authorization_code", "client_credentials"] = "authorization_code"
    client_id: str | None = Field(default=None, min_length=1)
    client_secret_env: str | None = Field(default=None, min_length=1)
    client_metadata_url: str | None = None
    private_key_file: str | None = Field(default=None, min_length=1)
    signing_algorithm: Literal[
        "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"
    ] = "RS256"
    scopes: tuple[str, ...] = ()
    issuer: str | None = None

    @model_validator(mode="after")
    def _keys_go_together(self) -> McpServerConfig:
        # Loaded with the first server section: a Location without one never needs it.
        from tooldeck.host.config.mcp_keys import server_problem

        problem = server_problem(self)
        if problem is not None:
            raise ValueError(problem)
        return self


@public
class PrincipalConfig(_Section):
    """``[mcp.serve.principals.NAME]``: a client identity of ``tooldeck mcp serve``.

    ``token_env`` names the environment variable holding its bearer token (never the
    token itself: the config file may be committed); ``permission`` rules apply after
    the Location's rules of the same file, for this principal only (last match wins).
    A principal in a project file counts only once the folder is trusted.
    """

    token_env: str = Field(min_length=1)
    permission: tuple[PermissionRule, ...] = ()


@public
class McpServeConfig(_Section):
    """``[mcp.serve]``: what ``tooldeck mcp serve`` grants each client, and its limits.

    Every limit has a default, so a server with no section is bounded too. The limits are
    read when the server starts; a client session's scope closes after
    ``idle_timeout_s`` without a request.

    ``max_connections`` is sized for ``max_sessions`` handshake-era clients: each holds
    two connections (its GET notification stream and its POST), and uvicorn counts the
    requests still finishing against the same bound, so up to three per client. A bound
    below that answers legitimate calls with 503 long before ``max_sessions`` is reached.
    """

    idle_timeout_s: float = Field(default=900.0, gt=0)
    max_connections: int = Field(default=4096, gt=0)
    header_timeout_s: float = Field(default=10.0, gt=0)
    body_timeout_s: float = Field(default=30.0, gt=0)
    max_body_bytes: int = Field(default=4 * 1024 * 1024, gt=0)
    max_calls_per_session: int = Field(default=16, gt=0)
    max_sessions: int = Field(default=1000, gt=0)
    allowed_hosts: tuple[str, ...] = ()
    """``Host`` header values accepted beside the bound address (DNS-rebinding
    protection): what a load balancer in front passes on, ``HOST[:PORT]`` or ``HOST:*``
    for any port."""
    principals: dict[str, PrincipalConfig] = Field(default_factory=dict)

    @field_validator("allowed_hosts")
    @classmethod
    def _hosts(cls, hosts: tuple[str, ...]) -> tuple[str, ...]:
        for host in hosts:
            check_allowed_host(host)
        return hosts


def check_allowed_host(host: str) -> str:
    """``host`` if it is a ``Host`` header value (``HOST[:PORT]``, ``HOST:*``), else a
    ``ValueError`` saying what was expected."""
    if not host or any(c.isspace() or c in "/@?#," for c in host) or "://" in host:
        raise ValueError(
            f"allowed host {host!r}: expected a Host header value such as "
            "'mcp.example.com', 'lb.internal:8080' or 'lb.internal:*' (any port)"
        )
    return host


@public
class McpConfig(_Section):
    """``[mcp]``: servers whose tools are mounted into the catalog, and how it is served."""

    servers: dict[str, McpServerConfig] = Field(default_factory=dict)
    serve: McpServeConfig = Field(default_factory=McpServeConfig.model_construct)

    @field_validator("servers")
    @classmethod
    def _names(cls, servers: dict[str, McpServerConfig]) -> dict[str, McpServerConfig]:
        for name in servers:
            if not 1 <= len(name) <= MAX_SERVER_NAME:
                raise ValueError(
                    f"server name {name!r} must be 1-{MAX_SERVER_NAME} characters "
                    "(it becomes the namespace of the server's tools)"
                )
        return servers


@public
class OutputConfig(_Section):
    """``[output]``: generic bounding of tool output returned to the model, and the cap
    on the saved full outputs (``max_saved_mb``; the oldest are removed first).

    Every numeric limit in the config is a finite number within a stated range, checked
    when the config is read, so a typo like ``inf`` or ``1e300`` is a config error that
    names the key, never a failure of every later call."""

    max_lines: int = Field(default=2000, gt=0, le=1_000_000)
    max_bytes: int = Field(default=50 * 1024, gt=0, le=64 << 20)
    max_saved_mb: int = Field(default=512, gt=0, le=1 << 20)


@public
class ImagesConfig(_Section):
    """``[images]``: what an image in a tool result may weigh and measure.

    A larger image is downscaled and re-encoded (with Pillow, the ``images`` extra), one
    that cannot be brought within both limits is dropped with a note; see
    ``host/call/images.py``. Defaults: what the major providers accept.
    """

    max_bytes: int = Field(default=5 * 1024 * 1024, gt=0)
    max_dimension: int = Field(default=2000, gt=0)


@public
class ToolConfig(_Section):
    """``[tools."PATTERN"]``: options for the tools whose effective name matches PATTERN
    (the permission rules' wildcards); they override what packs declare, and among
    matching entries the last one wins."""

    defer_loading: bool | None = None
    timeout_s: float | None = Field(default=None, gt=0.0, le=86_400.0, allow_inf_nan=False)
    max_concurrency: int | None = Field(default=None, ge=1, le=100_000)
    sequential: bool | None = None


@public
class CodemodeConfig(_Section):
    """``[codemode]``: the ``execute`` tool, its catalog budget and a program's limits."""

    enabled: bool = True
    budget_tokens: int = Field(default=2000, ge=0, le=1_000_000)
    type_check: bool = True
    timeout_s: float = Field(default=30.0, gt=0.0, le=86_400.0, allow_inf_nan=False)
    memory_mb: int = Field(default=256, gt=0, le=1 << 20)
    max_tool_calls: int = Field(default=100, ge=0, le=100_000)


@public
class PermissionsConfig(_Section):
    """``[permissions]``: how long a deferred call waits for its answer (``on_ask="defer"``)."""

    pending_ttl_s: float = Field(default=24 * 3600.0, gt=0)


@public
class StoreConfig(_Section):
    """``[store]``: how long the Location waits on its store, and the PostgreSQL pool.

    ``timeout_s`` bounds every store operation (reading approvals, saving a pending
    call, each step of a resume): past it the call that needed the store fails with
    ``StoreUnavailable``, and the next one tries again. ``pool_min_size`` and
    ``pool_max_size`` size the connection pool of a ``PostgresStore`` the ``tooldeck``
    commands open (``TOOLDECK_STORE_URL``); SQLite ignores them.
    """

    timeout_s: float = Field(default=10.0, gt=0.0, le=3600.0, allow_inf_nan=False)
    pool_min_size: int = Field(default=1, ge=0, le=1000)
    pool_max_size: int = Field(default=8, ge=1, le=1000)

    @model_validator(mode="after")
    def _sizes(self) -> StoreConfig:
        if self.pool_min_size > self.pool_max_size:
            raise ValueError(
                f"pool_min_size {self.pool_min_size} is above pool_max_size {self.pool_max_size}"
            )
        return self


@public
class TelemetryConfig(_Section):
    """``[telemetry]``: OpenTelemetry spans and metrics (``tooldeck[otel]``, docs/telemetry.md).

    ``enabled``: trace this Location's calls and startup through the global tracer and
    meter providers (``Host.open(telemetry=...)`` overrides it either way).
    ``capture_content``: record each call's arguments and result on its span (off by
    default: they may hold secrets or personal data).
    """

    enabled: bool = False
    capture_content: bool = False


@public
class Config(_Section):
    """The whole configuration of one Location (user file merged under project file)."""

    plugins: PluginsConfig = Field(default_factory=PluginsConfig.model_construct)
    permission: tuple[PermissionRule, ...] = ()
    mcp: McpConfig = Field(default_factory=McpConfig.model_construct)
    output: OutputConfig = Field(default_factory=OutputConfig.model_construct)
    images: ImagesConfig = Field(default_factory=ImagesConfig.model_construct)
    format: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    """``[format]``: glob pattern -> the formatter ``write``, ``edit`` and ``patch`` run on
    each file they change that matches it (``$FILE`` stands for the file's path)."""
    codemode: CodemodeConfig = Field(default_factory=CodemodeConfig.model_construct)
    tools: dict[str, ToolConfig] = Field(default_factory=dict)
    permissions: PermissionsConfig = Field(default_factory=PermissionsConfig.model_construct)
    store: StoreConfig = Field(default_factory=StoreConfig.model_construct)
    telemetry: TelemetryConfig = Field(default_factory=TelemetryConfig.model_construct)

    @field_validator("format")
    @classmethod
    def _formatters(cls, formatters: dict[str, tuple[str, ...]]) -> dict[str, tuple[str, ...]]:
        for pattern, command in formatters.items():
            if not pattern:
                raise ValueError("a formatter's glob pattern must not be empty")
            if not (command and command[0]):
                raise ValueError(
                    f"the formatter for {pattern!r} must start with the program to run, "
                    f'for example ["ruff", "format", "$FILE"]'
                )
        return formatters


class Unavailable(NamedTuple):
    """A config key whose feature is not in this version: setting it is an error."""

    feature: str
    accepted: tuple[bool, ...] = ()
    """Values that already describe what this version does, so they stay valid."""


NOT_YET_AVAILABLE: dict[str, Unavailable] = {
    # dotted key: the feature it configures. A feature that lands deletes its rows here.
}
"""Keys that validate but would do nothing yet; ``config_files`` rejects them by name."""


def default_config() -> Config:
    """The configuration of a Location without config files (no validation needed)."""
    return Config.model_construct()
