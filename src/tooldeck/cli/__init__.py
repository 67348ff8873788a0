"""The ``tooldeck`` command (DESIGN §12): ``tools``, ``plugins``, ``call``, ``run-code``,
``check``, ``mcp``, ``pending``, ``resume``, ``approvals``, ``trust``,
``new-pack``.

Exit codes: 0 ok; 1 the tool failed or was declined, or ``check`` found problems;
2 usage or config error. Importing this package, ``--help`` and ``--version`` load only
the standard library: each command imports the host (pydantic, pluggy, metadata) when
it runs.
"""

from __future__ import annotations

import sys

from tooldeck import __version__
from tooldeck.cli._errors import CommandError, error
from tooldeck.cli._help import DESCRIPTION, LOCATION_HELP, PROG, accept_location, print_top_help

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (mypy knows it)
if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence
    from typing import Any

COMMANDS = {
    "tools": "list the effective tool catalog",
    "plugins": "list plugins in load order",
    "call": "run one tool call",
    "run-code": "run one code-mode program",
    "check": "validate a tool pack",
    "mcp": "serve the catalog over MCP; log in to mounted servers",
    "pending": "list the calls waiting for approval",
    "resume": "answer a pending call",
    "approvals": "manage saved approvals",
    "trust": "review and trust a project folder's code",
    "new-pack": "write a new tool pack to start from",
}
"""Command names (each a module ``tooldeck.cli.<name>``, ``-`` read as ``_``, with
``add_parser``) and their one-line help, in ``--help`` order. Only the command being run
is imported, so ``--help`` and ``--version`` load nothing but the standard library."""


def build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The argument parser; the full subparser only for the command named in ``argv``."""
    import argparse  # here: ``--version`` and ``--help`` are answered without it
    import importlib

    parser = argparse.ArgumentParser(prog=PROG, description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=f"tooldeck {__version__}")
    parser.add_argument(
        "--location",
        metavar="DIR",
        default=".",
        help=LOCATION_HELP,
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    chosen = command_in(argv)
    for name, summary in COMMANDS.items():
        if name == chosen:
            importlib.import_module(f"tooldeck.cli.{name.replace('-', '_')}").add_parser(commands)
            if name != "mcp":  # only its actions take a Location (mcp serve --location)
                accept_location(commands.choices[name])
        else:
            commands.add_parser(name, help=summary)
    return parser


def command_in(argv: Sequence[str]) -> str | None:
    """The command word of ``argv`` (skipping ``--location DIR``), if any."""
    tokens = iter(argv)
    for token in tokens:
        if token == "--location":
            next(tokens, None)
        elif token in COMMANDS:
            return token
        elif not token.startswith("-"):
            return None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (the console script passes it to ``sys.exit``)."""
    argv = sys.argv[1:] if argv is None else argv
    if list(argv) == ["--version"]:  # answered without even building the parser
        print(f"tooldeck {__version__}")
        return 0
    if list(argv) in (["--help"], ["-h"]) and print_top_help(COMMANDS):
        return 0
    from tooldeck.errors import TooldeckError  # a command imports the host anyway

    parser = build_parser(argv)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version and usage errors
        return exc.code if isinstance(exc.code, int) else 2
    if args.command is None:
        parser.print_usage(sys.stderr)
        return error(f"a command is required: {', '.join(COMMANDS)}", 2)
    try:
        with _WarningsOnStderr():
            code: int = args.handler(args)
        sys.stdout.flush()  # inside the try: a reader that left is handled below
    except (CommandError, TooldeckError) as exc:
        return error(str(exc), getattr(exc, "code", 2))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # e.g. `tooldeck plugins | head -2`: the reader left
        _silence_stdout()
        return 1
    return code


class _WarningsOnStderr:
    """While a command runs, warnings logged by tooldeck (a folder that is not trusted,
    a broken trust store, a tool's defect) are plain lines on the current stderr.

    Only when ``logging`` is loaded already (a test runner, an embedding program): then
    something else may handle logging, and the line must still reach stderr. Otherwise
    nothing has a handler, and Python's last-resort handler prints a warning logged
    later on stderr the same way, so a command never loads ``logging`` for this. A
    class, not ``contextlib``: importing the CLI loads as little as it can."""

    def __enter__(self) -> None:
        self.handler: Any = None
        if "logging" not in sys.modules:
            return
        import logging  # loaded already: only a lookup

        class Stderr(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                print(self.format(record), file=sys.stderr, flush=True)

        self.handler = Stderr(logging.WARNING)
        logging.getLogger().addHandler(self.handler)

    def __exit__(self, *exc_info: object) -> None:
        if self.handler is not None:
            import logging  # loaded: it gave the handler

            logging.getLogger().removeHandler(self.handler)


def _silence_stdout() -> None:
    """Point stdout at devnull so the interpreter's final flush cannot fail again."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
