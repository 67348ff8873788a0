"""``tooldeck mcp login NAME`` and ``tooldeck mcp logout NAME``: OAuth for mounted servers.

``login`` signs in afresh (the stored tokens are dropped, the client registration is
kept): it connects to the server as a host would, and when the authorization server
needs a person, prints the URL on stderr and opens it with ``$BROWSER`` (or the
desktop's browser when there is a display); a loopback listener on 127.0.0.1 catches
the browser's return. The tokens go to the user's data dir. ``logout`` revokes them at
the authorization server where it can, then forgets everything held for the server.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from tooldeck.cli._browser import open_in_browser
from tooldeck.cli._common import location_dir
from tooldeck.cli._errors import CommandError
from tooldeck.cli._help import accept_location

if TYPE_CHECKING:
    from tooldeck.host.location.location import Location
    from tooldeck.mcp.client.specs import ServerSpec


def add_parsers(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    login = actions.add_parser(
        "login",
        help="sign in to a mounted MCP server that uses OAuth",
        description='Sign in to [mcp.servers.NAME] (auth = "oauth"): the URL to open is '
        "printed and handed to $BROWSER; the tokens are kept in the user's data dir.",
    )
    logout = actions.add_parser(
        "logout",
        help="revoke and forget a mounted MCP server's OAuth tokens",
        description="Revoke the server's tokens at its authorization server (where it "
        "offers revocation) and delete everything tooldeck keeps for it.",
    )
    for parser, handler in ((login, run_login), (logout, run_logout)):
        parser.add_argument("name", metavar="NAME", help="the server's name in [mcp.servers]")
        accept_location(parser)
        parser.set_defaults(handler=handler)


def run_login(args: argparse.Namespace) -> int:
    # The server is looked up before the SDK loads (about a second): a name it refuses
    # costs no more than reading the config.
    spec, location = _server(args, signing_in=True)
    try:
        _need_sdk("login")
        from tooldeck.mcp.client.connection import Connection
        from tooldeck.mcp.client.loop import location_loop
        from tooldeck.mcp.client.oauth.build import token_file

        tokens = token_file(spec)
        tokens.update(tokens=None, expires_at=None)  # a fresh sign-in; the client stays
        loop = location_loop(location)
        connection = Connection(spec, lambda changed: None, loop.spawn, authorizer=open_in_browser)
        loop.call(connection.start)
        failure = connection.failure
        tools = len(connection.tools)
        loop.call(connection.close)
    finally:
        location.close()
    if failure is not None:
        print(f"tooldeck: error: signing in to {spec.name!r} failed: {failure}", file=sys.stderr)
        return 1
    print(f"signed in to MCP server {spec.name!r} ({tools} tools); tokens kept in {tokens.path}")
    return 0


def run_logout(args: argparse.Namespace) -> int:
    spec, location = _server(args, signing_in=False)  # before the SDK, as for login
    location.close()
    _need_sdk("logout")
    from tooldeck.mcp.client.oauth.build import token_file
    from tooldeck.mcp.client.oauth.revoke import sign_out

    done = sign_out(spec, token_file(spec))
    for problem in done.problems:
        print(f"tooldeck: warning: revoking {problem}", file=sys.stderr)
    if not done.had_tokens:
        print(f"no tokens were kept for MCP server {spec.name!r}; nothing to revoke")
    elif done.revoked:
        print(
            f"signed out of MCP server {spec.name!r}: revoked {', '.join(done.revoked)} "
            f"at {done.endpoint}; its tokens are deleted"
        )
    else:
        where = "could not revoke them" if done.endpoint else "offers no revocation"
        print(
            f"signed out of MCP server {spec.name!r}: its tokens are deleted (the "
            f"authorization server {where})"
        )
    return 0


def _need_sdk(command: str) -> None:
    try:
        from tooldeck.mcp import sdk  # noqa: F401  (without the SDK, say what to install)
    except ImportError as exc:
        raise CommandError(
            f"tooldeck mcp {command} needs the MCP extra: pip install 'tooldeck[mcp]' ({exc})"
        ) from None


def _server(args: argparse.Namespace, *, signing_in: bool) -> tuple[ServerSpec, Location]:
    """The named server's spec, from the config this folder's trust allows."""
    from tooldeck.host.plugins.trust_gate import open_location, status_of
    from tooldeck.mcp.client.specs import server_specs

    root = location_dir(args).resolve()
    location, decision = open_location(root, None, None, None, None)
    status = status_of(decision)
    servers = location.config.mcp.servers
    config = servers.get(args.name)
    problem = None
    if config is None:
        if any(item.name == args.name for item in status.skipped("server")):
            problem = (
                f"MCP server {args.name!r} comes from this folder's config, which is not "
                f"trusted; review and trust it with: {status.command}"
            )
        else:
            known = ", ".join(sorted(servers)) or "none"
            problem = f"no MCP server {args.name!r} is configured (configured: {known})"
    elif signing_in and config.auth != "oauth":
        problem = (
            f'[mcp.servers.{args.name}] does not say auth = "oauth": there is nothing to sign in to'
        )
    if problem is not None:
        location.close()
        raise CommandError(problem)
    assert config is not None
    return server_specs({args.name: config}, root, location.project.user_servers)[0], location
