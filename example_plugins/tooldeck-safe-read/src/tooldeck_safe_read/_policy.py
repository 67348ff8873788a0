"""What safe-read refuses, and why: secrets, dotfiles, repository internals, big files.

A path is judged twice, before anything is read or asked: as written (made absolute
against the project root, ``..`` collapsed) and as the file it really is after
following symlinks, so ``notes.txt -> .env`` is refused like ``.env`` itself. Inside
the project only the part below the root is judged (a project may live under a hidden
directory such as ``~/.local/src``); outside it, the whole path is.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from stat import S_ISREG

from tooldeck import Location, ToolFailure
from tooldeck.paths import lexical_path

MAX_FILE_BYTES = 1024 * 1024

_SSH_KEY = re.compile(r"id_[A-Za-z0-9]+(\.pub)?")
_KEY_SUFFIXES = (".pem", ".key", ".p12", ".pfx")

RULES: tuple[tuple[Callable[[str], bool], str], ...] = (
    (lambda name: name == ".git", "it is inside .git/ (repository internals; use git tools)"),
    (
        lambda name: name == ".env" or name.startswith(".env."),
        ".env files hold secrets such as API keys and passwords",
    ),
    (
        lambda name: name.lower().endswith(_KEY_SUFFIXES),
        "key and certificate files (*.pem, *.key, *.p12, *.pfx) hold private keys",
    ),
    (lambda name: _SSH_KEY.fullmatch(name) is not None, "id_* files are SSH keys"),
    (
        lambda name: name.startswith(".") and name not in (".", ".."),
        "hidden files and directories (.ssh, .aws, .netrc, ...) often hold credentials",
    ),
)
"""(test on one path component, reason). The first rule any component matches wins."""


def refuse_secrets(location: Location, raw: str) -> None:
    """Raise a ``ToolFailure`` naming the rule when ``raw`` is or leads to a secret."""
    lexical = lexical_path(location, raw)
    real = Path(os.path.realpath(lexical))
    root = location.root
    for path, base in ((lexical, root), (real, Path(os.path.realpath(root)))):
        reason = _reason(_judged(path, base))
        if reason is not None:
            link = f" (it leads to {real})" if path is real and real != lexical else ""
            raise ToolFailure(
                f"Refused to read {raw}{link}: {reason}. This project uses tooldeck-safe-read, "
                "which keeps such files away from tools. Do not try to read it another way; "
                "if the task really needs it, ask the user."
            )


def _judged(path: Path, base: Path) -> tuple[str, ...]:
    return path.relative_to(base).parts if path.is_relative_to(base) else path.parts


def _reason(parts: tuple[str, ...]) -> str | None:
    for test, reason in RULES:
        if any(test(part) for part in parts):
            return reason
    return None


def refuse_large(location: Location, raw: str) -> None:
    """Refuse regular files over ``MAX_FILE_BYTES``; anything else is the reader's business.

    One ``stat``, before any ask, like the built-in's own directory check.
    """
    try:
        stat = lexical_path(location, raw).stat()
    except OSError:
        return  # missing or unreadable: the built-in reports it in its own words
    size = stat.st_size if S_ISREG(stat.st_mode) else 0
    if size > MAX_FILE_BYTES:
        raise ToolFailure(
            f"Refused to read {raw}: it is {size / 1024 / 1024:.1f} MB and safe-read reads "
            f"files up to {MAX_FILE_BYTES // 1024 // 1024} MB. Search it with grep instead, "
            "or ask the user for the part you need."
        )
