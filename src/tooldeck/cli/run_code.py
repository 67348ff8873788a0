"""``tooldeck run-code [CODE | @file | -] [--yes]``: run one program in code mode.

The program runs through the session boundary as a call of the ``execute`` tool of the
Location's snapshot, exactly as a model's would: permission asks go to the terminal
(``--yes`` answers "once"; without a terminal they are declined). Prints what the
program printed and its result. Exit 0 when it completed, 1 when it failed or was
declined, 2 for usage errors (code mode off, no code-mode tools, unreadable file).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from tooldeck.cli._common import open_host, warn_failures
from tooldeck.cli._errors import CommandError
from tooldeck.cli.call import EXIT_HELP, add_json_option, choose_asker, report

CALL_ID = "cli-run-code"


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "run-code",
        help="run one code-mode program",
        description="Run a Python program against the code-mode tools, as the execute tool "
        "would for a model. CODE is the program, @FILE a file holding it, or - "
        "to read stdin.",
        epilog=EXIT_HELP,
    )
    parser.add_argument("code", metavar="CODE | @file | -")
    parser.add_argument("--yes", action="store_true", help='answer "once" to every permission ask')
    add_json_option(parser)
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    import asyncio

    code = read_code(args.code)
    interactive = args.code != "-" and sys.stdin.isatty()
    asker = choose_asker(args.yes, interactive=interactive)
    with open_host(args, calls=True, asker=asker) as host:
        warn_failures(host)
        snapshot = host.snapshot()
        if not snapshot.codemode_catalog:
            raise CommandError(_why_not(snapshot))
        from tooldeck.host.boundary.boundary import run_tool_call
        from tooldeck.host.call.values import ToolCall

        call = ToolCall(CALL_ID, "execute", {"code": code})
        outcome = asyncio.run(run_tool_call(snapshot, call, session_id="cli", message_id="cli"))
    return report("run-code", outcome, asker, as_json=args.json)


def read_code(argument: str) -> str:
    """The program text from the argument, ``@file`` or stdin."""
    if argument == "-":
        return sys.stdin.read()
    if argument.startswith("@"):
        try:
            return Path(argument[1:]).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"cannot read {argument[1:]}: {exc}") from None
    return argument


def _why_not(snapshot: Any) -> str:
    from tooldeck.cli.tools import codemode_note

    note = codemode_note(snapshot)
    if note is not None:
        return note.removeprefix("note: ").split(";")[0]
    return "no tool of this catalog is a code-mode tool (every tool is native)"
