"""``tooldeck mcp serve``: run the catalog server over stdio or streamable HTTP.

HTTP binds 127.0.0.1 unless told otherwise; any other address needs ``--allow-remote``
and a ``TOOLDECK_MCP_TOKEN``. Whenever ``TOOLDECK_MCP_TOKEN`` is set, every HTTP request
must carry it as a bearer token (401 otherwise), loopback included; loopback without a
token serves anyone on the machine and says so in one warning line. The served URL is
printed on stderr at start. DNS-rebinding protection is always on: the Host and Origin
headers must name the address the server is bound to, or one of the allowed hosts
(``[mcp.serve] allowed_hosts`` and ``--allowed-host``: the name a load balancer in front
passes on). The Location opens as ``Host.open`` opens it: an untrusted folder is served
in its untrusted view.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from tooldeck.errors import UsageError
from tooldeck.host.config.mcp_keys import LOOPBACK_HOSTS
from tooldeck.mcp.serve.auth import TOKEN_ENV, BearerCheck
from tooldeck.mcp.serve.options import (
    NO_TOKEN,
    STATE_SECRET_ENV,
    HttpAddress,
    check_state_secret,
    checked_address,
)

if TYPE_CHECKING:
    from tooldeck.host.store.base import Store


def serve(
    root: Path,
    *,
    http: str | None,
    allow_remote: bool,
    codemode: bool = True,
    store: Store | None = None,
    allowed_hosts: Sequence[str] = (),
) -> None:
    """Open the Location at ``root`` and serve it until stdin closes or the process ends.

    ``allowed_hosts``: ``Host`` header values accepted beside the bound address, added
    to ``[mcp.serve] allowed_hosts``.

    ``codemode=False`` serves every tool natively, whatever the config says. ``store``:
    where approvals and pending calls live (default: the Location's SQLite database); a
    ``PostgresStore`` shared by replicas lets any of them honour an ``always`` saved
    through another and resume a question another asked. Every host opened while
    serving uses it; the caller closes it.
    """
    address = checked_address(http, allow_remote)
    check_state_secret()
    if address is not None:
        print(f"tooldeck: serving MCP at {address.url}", file=sys.stderr, flush=True)
    anyio.run(_serve, root, address, allow_remote, codemode, store, tuple(allowed_hosts))


def _tokens(address: HttpAddress | None, allow_remote: bool, limits: Any) -> dict[str, str]:
    """The bearer tokens HTTP requests must carry and their principals (empty: loopback
    with none configured, which serves anyone on the machine and says so)."""
    if address is None:
        return {}
    from tooldeck.mcp.serve.principals import tokens

    found = tokens(limits, os.environ)
    if allow_remote and not found:
        raise UsageError(NO_TOKEN)
    if not found:
        print(
            f"tooldeck: warning: no {TOKEN_ENV} set: any process on this machine "
            "can list and call these tools",
            file=sys.stderr,
            flush=True,
        )
    return found


async def _serve(
    root: Path,
    address: HttpAddress | None,
    allow_remote: bool,
    codemode: bool,
    store: Store | None,
    allowed_hosts: tuple[str, ...],
) -> None:
    from tooldeck.mcp.serve.asking import ElicitingAsker
    from tooldeck.mcp.serve.logs import forwarding
    from tooldeck.mcp.serve.server import CatalogServer
    from tooldeck.mcp.serve.sessions import ClientSessions
    from tooldeck.mcp.serve.watch import Serving

    asker = ElicitingAsker()
    serving = await anyio.to_thread.run_sync(
        lambda: Serving(lambda: _open(root, asker, codemode, store))
    )
    limits = serving.host.location.config.mcp.serve  # read once, at start
    try:
        tokens = _tokens(address, allow_remote, limits)
    except UsageError:
        await anyio.to_thread.run_sync(serving.host.close)
        raise
    sessions = ClientSessions(
        serving,
        idle_timeout_s=limits.idle_timeout_s,
        max_calls=limits.max_calls_per_session,
    )
    server = CatalogServer(serving, asker, sessions)
    from tooldeck.mcp.serve.rounds import InputRounds

    if secret := os.environ.get(STATE_SECRET_ENV):  # replicas accept each other's rounds
        server.rounds = InputRounds.keyed_by(secret)
    try:
        with forwarding(server.levels):  # served calls' Python log records reach their clients
            await _run(server, serving, sessions, root, address, tokens, limits, allowed_hosts)
    finally:
        await anyio.to_thread.run_sync(serving.host.close)


async def _run(
    server: Any,
    serving: Any,
    sessions: Any,
    root: Path,
    address: HttpAddress | None,
    tokens: dict[str, str],
    limits: Any,
    allowed_hosts: tuple[str, ...],
) -> None:
    from tooldeck.mcp.serve.watch import watch

    async with anyio.create_task_group() as group:
        group.start_soon(watch, serving, server.catalog_changed, root)
        group.start_soon(_reap, sessions)
        if address is None:
            await _stdio(server)
        else:
            await _http(server, address, tokens, limits, allowed_hosts, lambda: serving.host)
        group.cancel_scope.cancel()


def _open(root: Path, asker: Any, codemode: bool, store: Store | None) -> Any:
    """The served host; without code mode, its Location's config says code mode is off
    (set before the first snapshot, which reads it)."""
    from tooldeck import Host
    from tooldeck.mcp.serve.principals import load_approvals, names

    host = Host.open(root, asker=asker, store=store)
    load_approvals(host, names(host.location.config.mcp.serve, os.environ))
    if not codemode:
        config = host.location.config
        host.location.config = config.model_copy(
            update={"codemode": config.codemode.model_copy(update={"enabled": False})}
        )
    return host


def _allowed(address: HttpAddress, extra: Sequence[str]) -> dict[str, list[str]]:
    """The ``Host`` and ``Origin`` values DNS-rebinding protection accepts: the bound
    address (and ``localhost`` on loopback), then each allowed host, over http and
    https (a balancer may end TLS)."""
    host, port = address
    shown = f"[{host}]" if ":" in host else host
    own = [f"{shown}:{port}"]
    if host in LOOPBACK_HOSTS:
        own.append(f"localhost:{port}")
    added = [name for name in dict.fromkeys(extra) if name not in own]
    origins = [f"http://{shown}:{port}", f"http://localhost:{port}"]
    origins += [f"{scheme}://{name}" for name in added for scheme in ("http", "https")]
    return {"allowed_hosts": own + added, "allowed_origins": origins}


async def _reap(sessions: Any) -> None:
    """Close idle client sessions, forever."""
    while True:
        await anyio.sleep(sessions.check_every_s())
        sessions.reap()


async def _stdio(server: Any) -> None:
    from tooldeck.mcp.sdk import stdio_server

    options = server.server.create_initialization_options()  # announcing every list change
    async with stdio_server() as (read, write):
        await server.server.run(read, write, options)


async def _http(
    server: Any,
    address: HttpAddress,
    tokens: dict[str, str],
    limits: Any,
    allowed_hosts: tuple[str, ...],
    current: Any,
) -> None:
    """Serve over streamable HTTP, every resource bounded by ``[mcp.serve]``: connections
    (503 past ``max_connections``), sessions (503), body size (413), slow headers
    (dropped) and slow bodies (dropped). A refusal's body is a JSON-RPC error naming its
    limit (``refusals.py``)."""
    import uvicorn

    from tooldeck.mcp.sdk import TransportSecuritySettings
    from tooldeck.mcp.serve.deadlines import read_deadlines
    from tooldeck.mcp.serve.refusals import Refusals
    from tooldeck.mcp.serve.replay import RETRY_MS, RecentEvents
    from tooldeck.mcp.serve.sessions import RequestScope

    host, port = address
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        **_allowed(address, (*limits.allowed_hosts, *allowed_hosts)),
    )
    app: Any = server.server.streamable_http_app(
        streamable_http_path="/mcp",
        event_store=RecentEvents(),  # resumable streams (``replay``)
        retry_interval=RETRY_MS,
        host=host,
        transport_security=security,
        max_request_body_size=limits.max_body_bytes,
        session_idle_timeout=limits.idle_timeout_s,
        max_sessions=limits.max_sessions,
    )
    app = RequestScope(app, server.sessions)
    if tokens:
        from tooldeck.mcp.serve.principals import admitted

        app = BearerCheck(app, tokens, lambda name: admitted(current(), name))
    refusals = Refusals(
        app,
        max_connections=limits.max_connections,
        max_body_bytes=limits.max_body_bytes,
        max_sessions=limits.max_sessions,
    )
    config = uvicorn.Config(
        refusals,
        host=host,
        port=port,
        log_level="warning",
        lifespan="on",
        http=read_deadlines(limits.header_timeout_s, limits.body_timeout_s),
        backlog=min(2048, limits.max_connections * 2),
    )
    served = uvicorn.Server(config)
    refusals.state = served.server_state  # the connections it counts
    await served.serve()
