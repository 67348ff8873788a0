"""The ``tooldeck`` command (DESIGN §12): ``tools``, ``plugins``, ``call``, ``check``.

Exit codes: 0 ok; 1 the tool failed or was declined, or ``check`` found problems;
2 usage or config error. Importing this package, ``--help`` and ``--version`` load only
the standard library: each command imports the host (pydantic, pluggy, metadata) when
it runs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from tooldeck import __version__
from tooldeck.cli import call, check, plugins, tools
from tooldeck.cli._common import CommandError, error
from tooldeck.errors import TooldeckError

COMMANDS = (tools, plugins, call, check)
"""Command modules, in ``--help`` order; each has ``add_parser(subparsers)``."""


def build_parser() -> argparse.ArgumentParser:
    """The whole argument parser (commands register their own subparser)."""
    parser = argparse.ArgumentParser(
        prog="tooldeck", description="Host LLM tools as pip-installable plugins.")
    parser.add_argument("--version", action="version", version=f"tooldeck {__version__}")
    parser.add_argument("--location", metavar="DIR", default=".",
                        help="the project directory (default: the current directory)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (the console script passes it to ``sys.exit``)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version and usage errors
        return exc.code if isinstance(exc.code, int) else 2
    if args.command is None:
        parser.print_usage(sys.stderr)
        return error("a command is required (tools, plugins, call, check)", 2)
    try:
        code: int = args.handler(args)
    except (CommandError, TooldeckError) as exc:
        return error(str(exc), getattr(exc, "code", 2))
    except KeyboardInterrupt:
        return 130
    return code
