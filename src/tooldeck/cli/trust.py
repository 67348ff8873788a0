"""``tooldeck trust [DIR] [--yes | --revoke | --list]``: review and trust a project folder.

Shows exactly what trusting the folder lets run or grant, one line per item (plugin
files with their digests, MCP server commands and URLs, served principals and each of
their allow rules, allow rules, formatters, other settings) and asks y/N on a terminal.
Without a terminal it never waits for an answer: ``--yes`` trusts, anything else leaves
the folder untrusted and exits 1. ``TOOLDECK_TRUST`` does not change what this command sees: it
reads and writes the user's trust store only.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from tooldeck.cli._errors import CommandError


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "trust",
        help="review and trust a project folder's code",
        description="Show what a project folder would run or grant (its .tooldeck/plugins "
        "files, its [mcp.servers], its served principals, its allow rules, its formatters) "
        "and trust it: tooldeck applies none of them until the folder is trusted, and "
        "trusts it again only for exactly what was shown.",
    )
    parser.add_argument(
        "dir", nargs="?", metavar="DIR", help="the project folder (default: --location)"
    )
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--yes", action="store_true", help="trust without asking (for scripts)")
    what.add_argument("--revoke", action="store_true", help="forget the folder's trust")
    what.add_argument("--list", action="store_true", help="list every trusted folder")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.list:
        return _list()
    folder = Path(args.dir if args.dir is not None else args.location)
    if not folder.is_dir():
        raise CommandError(f"{folder}: not a directory")
    if args.revoke:
        return _revoke(folder)
    return _trust(folder, yes=args.yes)


def _list() -> int:
    from tooldeck.host.trust.store import trusted_folders

    folders = trusted_folders()
    if not folders:
        print("no trusted folders")
    for path, when in folders.items():
        print(f"{path}  (trusted {when})")
    return 0


def _revoke(folder: Path) -> int:
    from tooldeck.host.trust.store import revoke_trust

    done = revoke_trust(folder)
    print(f"{'no longer trusted' if done else 'was not trusted'}: {folder.resolve()}")
    return 0


def _trust(folder: Path, *, yes: bool) -> int:
    from tooldeck.host.trust.store import grant_trust, inspect_folder

    status = inspect_folder(folder, None, environ={})[2]
    print(status.describe())
    if not status.items:
        return 0
    if status.trusted:
        print("already trusted")
        return 0
    if not yes and not _confirmed():
        print("not trusted", file=sys.stderr)
        return 1
    grant_trust(status)
    print(f"trusted (fingerprint {status.fingerprint[:12]})")
    return 0


def _confirmed() -> bool:
    """y/N on a terminal; without one, no (never wait on a pipe)."""
    if not sys.stdin.isatty():
        print("not a terminal: run with --yes to trust without asking", file=sys.stderr)
        return False
    try:
        answer = input("Trust this folder? [y/N] ")
    except EOFError:
        return False
    return answer.strip().lower() in ("y", "yes")
