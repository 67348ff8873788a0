"""CLI errors, kept apart so ``--help`` and ``--version`` import only this."""

from __future__ import annotations

import sys


class CommandError(Exception):
    """A usage problem found by a command; ``main`` prints it and exits with ``code``.

    CLI-internal control flow: it never leaves ``tooldeck.cli.main``.
    """

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code


def error(message: str, code: int) -> int:
    """Print ``tooldeck: error: message`` to stderr and return ``code``."""
    print(f"tooldeck: error: {message}", file=sys.stderr)
    return code
