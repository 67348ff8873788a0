"""``tooldeck mcp serve``: serve the Location's catalog to MCP clients (``login`` and
``logout``, OAuth for mounted servers, are in ``mcp_login``).

Needs the ``mcp`` extra. stdio by default (a client starts the command); ``--http
[HOST:]PORT`` serves streamable HTTP at ``/mcp``. Runs until stdin closes (stdio) or the
process is interrupted (HTTP). ``TOOLDECK_STORE_URL`` shares approvals and pending calls
between replicas through PostgreSQL (``_store.py``).
"""

from __future__ import annotations

import argparse
from typing import Any

from tooldeck.cli._common import location_dir
from tooldeck.cli._errors import CommandError
from tooldeck.cli._help import accept_location


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "mcp",
        help="serve the catalog over MCP; log in to mounted servers",
        description="MCP commands (needs: pip install 'tooldeck[mcp]').",
    )
    actions = parser.add_subparsers(dest="mcp_command", metavar="ACTION", required=True)
    serve = actions.add_parser(
        "serve",
        help="serve the Location's catalog over stdio or streamable HTTP",
        description="Serve the Location's effective catalog: tools/list is the catalog's "
        "MCP definitions, tools/call runs through tooldeck's session boundary; "
        "clients hear about catalog changes.",
    )
    accept_location(serve)
    serve.add_argument(
        "--http",
        metavar="[HOST:]PORT",
        help="serve streamable HTTP at /mcp (default host 127.0.0.1)",
    )
    serve.add_argument(
        "--no-codemode",
        action="store_true",
        help="serve every tool natively instead of through code mode",
    )
    serve.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow a non-loopback address; every request then needs "
        "TOOLDECK_MCP_TOKEN as a bearer token",
    )
    serve.add_argument(
        "--allowed-host",
        metavar="HOST",
        action="append",
        default=[],
        help="also accept this Host header (HOST[:PORT], or HOST:* for any port): the "
        "name a load balancer in front passes on; repeatable, added to [mcp.serve] "
        "allowed_hosts",
    )
    serve.epilog = (
        "environment: TOOLDECK_STORE_URL (a postgresql:// URL or libpq conninfo) keeps "
        "approvals and pending calls in PostgreSQL, shared by replicas; unset, the "
        "Location's SQLite database"
    )
    serve.set_defaults(handler=run)
    from tooldeck.cli.mcp_login import add_parsers

    add_parsers(actions)


def run(args: argparse.Namespace) -> int:
    import os

    from tooldeck.mcp.serve.options import (
        check_state_secret,
        check_token_possible,
        checked_address,
    )

    # Every option that can refuse the start is checked before the SDK (a second of CPU)
    # loads, and before anything opens.
    checked_address(args.http, args.allow_remote)
    check_state_secret()
    allowed_hosts = [_checked_host(name) for name in args.allowed_host]
    root = location_dir(args).resolve()
    check_token_possible(root, args.http, args.allow_remote)
    from tooldeck.cli._store import store_from_env, store_settings

    # One store for the process, sized by the config at start: every reopened host uses
    # it. Opened before the SDK loads too, so a wrong TOOLDECK_STORE_URL is refused at once.
    store = store_from_env(os.environ, store_settings(root))
    try:
        try:
            from tooldeck.mcp import sdk  # noqa: F401  (without the SDK, say what to install)
            from tooldeck.mcp.serve.command import serve
        except ImportError as exc:
            raise CommandError(
                f"tooldeck mcp serve needs the MCP extra: pip install 'tooldeck[mcp]' ({exc})"
            ) from None
        serve(
            root,
            http=args.http,
            allow_remote=args.allow_remote,
            codemode=not args.no_codemode,
            store=store,
            allowed_hosts=allowed_hosts,
        )
    finally:
        if store is not None:
            store.close()
    return 0


def _checked_host(name: str) -> str:
    from tooldeck.host.config.config import check_allowed_host

    try:
        return check_allowed_host(name)
    except ValueError as exc:
        raise CommandError(f"--allowed-host: {exc}") from None
