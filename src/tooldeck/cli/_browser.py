"""The CLI's way to sign in to an MCP server: the authorization URL printed on stderr
and opened in the user's browser. Its own module so that every command that opens a
host (``_common.open_host``) and ``mcp login`` share it without importing each other.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tooldeck.mcp.client.oauth.signin import AuthorizationRequest, Authorizer


def open_in_browser(request: AuthorizationRequest) -> None:
    """The CLI's authorizer: print the URL, then open it with ``$BROWSER``, or the
    desktop's browser when there is a display (never a text browser in this terminal).
    The browser comes back to tooldeck's listener, which does not wait for this."""
    print(
        f"tooldeck: to sign in to MCP server {request.server!r}, open this URL:\n"
        f"  {request.url}\n"
        f"(tooldeck waits for the browser at {request.redirect_uri})",
        file=sys.stderr,
        flush=True,
    )
    command = os.environ.get("BROWSER")
    if command:
        _run_browser(command, request.url)
    elif _has_display():
        import webbrowser

        webbrowser.open(request.url)


def _run_browser(command: str, url: str) -> bool:
    """Open ``url`` with ``$BROWSER``: commands separated by ``os.pathsep``, the first
    that exists wins; ``%s`` stands for the URL, else it is the last argument. (Python's
    ``webbrowser`` takes a command with arguments for a program name, then falls back to
    whatever browser it finds, a text browser in this terminal included.)"""
    import shlex
    import shutil
    import subprocess

    for entry in command.split(os.pathsep):
        if not entry.strip():
            continue
        argv = (
            shlex.split(entry.replace("%s", url)) if "%s" in entry else [*shlex.split(entry), url]
        )
        if shutil.which(argv[0]) is None:
            continue
        subprocess.run(argv, stdin=subprocess.DEVNULL, check=False)
        return True
    print(f"tooldeck: $BROWSER ({command}) names no program that exists", file=sys.stderr)
    return False


def terminal_authorizer() -> Authorizer | None:
    """``open_in_browser`` when a person is at this terminal, else None (a server that
    needs a sign-in then says to run ``tooldeck mcp login``)."""
    return open_in_browser if sys.stdin.isatty() and sys.stderr.isatty() else None


def _has_display() -> bool:
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
