"""Helpers every command shares: opening the host, errors, tables and JSON output."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tooldeck.cli._errors import CommandError

if TYPE_CHECKING:
    import argparse

    from tooldeck.host.plugins.host import Host


def location_dir(args: argparse.Namespace) -> Path:
    """``--location`` as a directory, or a usage error."""
    path = Path(args.location)
    if not path.is_dir():
        raise CommandError(f"--location {args.location}: not a directory")
    return path


def open_host(args: argparse.Namespace, *, calls: bool = False, **options: Any) -> Host:
    """``Host.open`` on ``--location`` (config errors reach ``main`` as exit code 2).

    MCP servers are mounted from their kept listings (``mcp_listings="cached"``): a
    command starts a server only when it calls one of its tools. A command that
    ``calls`` tools keeps approvals and pending calls in the store ``TOOLDECK_STORE_URL``
    names (``_store.py``, closed with the host), or the Location's SQLite database; one
    that only lists never connects to it, so a database that is down costs it nothing.

    When the folder brings code that was skipped because it is not trusted, ``Host.open``
    logs one warning naming the trust command, which ``main`` prints on stderr (never a
    prompt: stdin may be a pipe). An MCP server start that takes more than a second says
    so on stderr (``_progress``). A mounted server that needs an OAuth sign-in gets one
    in the browser when a person is at the terminal; otherwise it says to run ``tooldeck
    mcp login``.
    """
    import os
    import sys

    from tooldeck.cli._progress import slow_start_line
    from tooldeck.cli._store import store_from_env, store_settings
    from tooldeck.host.plugins.host import Host

    options.setdefault("mcp_listings", "cached")  # a command answers from kept listings
    options.setdefault("on_mcp_start", slow_start_line)
    if "authorizer" not in options:  # a person at the terminal can sign in mid-command
        from tooldeck.cli._browser import terminal_authorizer

        options["authorizer"] = terminal_authorizer()
    root = location_dir(args)
    store = store_from_env(os.environ, store_settings(root)) if calls else None
    try:
        host = Host.open(root, store=store, **options)
    except BaseException:
        if store is not None:
            store.close()
        raise
    if store is not None:
        host.location.on_close(store.close)
    if host.trust.problem:
        print(f"tooldeck: warning: {host.trust.problem}", file=sys.stderr)
    return host


def warn_failures(host: Host) -> None:
    """One stderr line naming the plugins that failed to load, and each MCP server that
    failed with its reason: their tools are missing from what the command shows or
    calls, and ``tooldeck plugins`` says more."""
    import sys

    failed = host.plugin_failures
    if failed:
        plural = "plugin" if len(failed) == 1 else "plugins"
        named = ", ".join(f"{name} ({first_line(reason, 100)})" for name, reason in failed.items())
        print(
            f"tooldeck: {len(failed)} {plural} failed to load: {named} — tooldeck plugins",
            file=sys.stderr,
        )
    for name, reason in host.mcp_failures.items():
        print(f"tooldeck: MCP server {name} failed: {reason}", file=sys.stderr)


def print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False))


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Left-aligned columns, two spaces apart; the last column is not padded."""
    widths = [max(len(str(r[i])) for r in [headers, *rows]) for i in range(len(headers))]
    lines = []
    for row in [headers, *rows]:
        cells = [str(cell).ljust(width) for cell, width in zip(row, widths, strict=True)]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def first_line(text: str, limit: int = 60) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"
