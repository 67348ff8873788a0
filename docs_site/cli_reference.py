"""mkdocs hook: the command-line reference (``docs/cli.md``) is each command's ``--help``.

The argument parsers are the one source of what a command takes and says
(``tooldeck.cli``); a page copying their help would go stale. So where ``cli.md`` holds
the marker line, this hook writes one section per command, and per subcommand of
``mcp``, holding exactly what ``tooldeck ... --help`` prints at ``COLUMNS`` columns.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
from collections.abc import Iterator, Sequence
from typing import Any

from mkdocs.exceptions import PluginError

MARKER = "<!-- the commands' help, written by docs_site/cli_reference.py -->"
COLUMNS = "88"
"""The width the help is wrapped to (argparse reads ``COLUMNS``)."""


def help_of(argv: Sequence[str]) -> str:
    """What ``tooldeck ARGV --help`` prints."""
    from tooldeck.cli import main

    out = io.StringIO()
    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = COLUMNS
    try:
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            main([*argv, "--help"])
    finally:
        if saved is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = saved
    return out.getvalue()


def command_lines() -> Iterator[list[str]]:
    """``[]`` (the command itself), then each command, each followed by its subcommands."""
    from tooldeck.cli import COMMANDS, build_parser

    yield []
    for name in COMMANDS:
        yield [name]
        parser = build_parser([name])
        for action in parser._actions:  # argparse keeps its subcommands only here
            if isinstance(action, argparse._SubParsersAction):
                command = action.choices[name]
                for sub in _subcommands(command):
                    yield [name, sub]


def _subcommands(parser: argparse.ArgumentParser) -> list[str]:
    return [
        choice
        for action in parser._actions
        if isinstance(action, argparse._SubParsersAction)
        for choice in action.choices
    ]


def sections() -> str:
    """The page's generated part: a heading and the help of each command line."""
    parts = []
    for argv in command_lines():
        title = " ".join(["tooldeck", *argv])
        parts.append(f"## `{title}`\n\n```text\n{help_of(argv).rstrip()}\n```\n")
    return "\n".join(parts)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    if page.file.src_uri != "cli.md":
        return markdown
    if MARKER not in markdown:
        raise PluginError(f"cli.md: the marker line is missing ({MARKER})")
    return markdown.replace(MARKER, sections())
