"""``tooldeck --help`` without argparse: the text argparse prints, from the same data.

Importing argparse (with re, enum and gettext) costs as much as starting Python. The
top-level help is the one command people run to see what tooldeck is, so ``main``
answers it from here when the text fits the terminal unwrapped, the only case where
argparse's output is this text exactly. A test renders both and requires them equal.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (mypy knows it)
if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping, Sequence

PROG = "tooldeck"
DESCRIPTION = "Host LLM tools as pip-installable plugins."
LOCATION_HELP = "the project directory (default: the current directory)"


def accept_location(parser: argparse.ArgumentParser) -> None:
    """``--location DIR`` after a command or its action as well as before it: given
    there it wins, otherwise the one before (or ".") stands (argparse's ``SUPPRESS``
    leaves the value of the top-level option alone)."""
    import argparse

    parser.add_argument("--location", metavar="DIR", default=argparse.SUPPRESS, help=LOCATION_HELP)


# argparse's own help strings for the two options it adds.
OPTIONS = (
    ("-h, --help", "show this help message and exit"),
    ("--version", "show program's version number and exit"),
    ("--location DIR", LOCATION_HELP),
)
_MAX_HELP_POSITION = 24  # argparse.HelpFormatter's default


def top_help(commands: Mapping[str, str]) -> str:
    """The ``--help`` text for ``commands`` (name -> one-line help), as argparse lays it out."""
    rows = [(f"    {name}", summary) for name, summary in commands.items()]
    options = [(f"  {invocation}", text) for invocation, text in OPTIONS]
    column = min(_MAX_HELP_POSITION, max(len(left) for left, _ in rows + options) + 2)
    return "\n".join(
        [
            f"usage: {PROG} [-h] [--version] [--location DIR] COMMAND ...",
            "",
            DESCRIPTION,
            "",
            "positional arguments:",
            "  COMMAND",
            *_table(rows, column),
            "",
            "options:",
            *_table(options, column),
            "",
        ]
    )


def print_top_help(commands: Mapping[str, str]) -> bool:
    """Print the help if it fits the terminal unwrapped; ``False`` means use argparse."""
    text = top_help(commands)
    if max(len(line) for line in text.splitlines()) > _terminal_columns() - 2:
        return False
    sys.stdout.write(text)
    return True


def _table(rows: Sequence[tuple[str, str]], column: int) -> list[str]:
    return [
        f"{left:<{column}}{text}" if len(left) + 2 <= column else f"{left}\n{' ' * column}{text}"
        for left, text in rows
    ]


def _terminal_columns() -> int:
    """``shutil.get_terminal_size().columns`` (argparse's width), without importing shutil."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80
