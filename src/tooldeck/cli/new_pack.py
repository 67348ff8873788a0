"""``tooldeck new-pack NAME``: start a tool pack from the pack author guide's.

Writes ``tooldeck-NAME/`` (in the current directory, or ``--parent DIR``) with the
guide's ``tooldeck-notes`` pack renamed: ``pyproject.toml`` with the entry point,
``src/tooldeck_NAME/__init__.py`` with two tools in the namespace ``NAME``, their tests,
the compatibility page's ``tox.ini`` and neighbours test. The files are the guide's
(``_pack_files``), so the guide explains every line of what this writes.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any

from tooldeck.cli._errors import CommandError

NAME = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")
NEXT_STEPS = """\
Next, as the pack author guide goes on (docs/pack-author-guide.md):

    cd {folder}
    python3 -m venv .venv
    .venv/bin/pip install tooldeck          # or a tooldeck checkout or wheel
    .venv/bin/pip install -e '.[test]'
    .venv/bin/pytest
    .venv/bin/tooldeck check .
"""


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "new-pack",
        help="write a new tool pack to start from",
        description="Write tooldeck-NAME/: the pack author guide's pack (two tools in the "
        "namespace NAME, their tests, a tox.ini for the compatibility matrix), renamed.",
    )
    parser.add_argument(
        "name", metavar="NAME", help="lowercase letters, digits and _ (e.g. weather)"
    )
    parser.add_argument(
        "--parent", metavar="DIR", default=".", help="where to create the folder (default: .)"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    folder = write_pack(args.name, Path(args.parent))
    print(f"created {folder}")
    print(NEXT_STEPS.format(folder=folder), end="")
    return 0


def write_pack(name: str, parent: Path) -> Path:
    """Write ``tooldeck-NAME`` under ``parent``; the folder must not exist yet."""
    files = render(name)
    if not parent.is_dir():
        raise CommandError(f"--parent {parent}: not a directory")
    folder = parent / f"tooldeck-{name.replace('_', '-')}"
    if folder.exists():
        raise CommandError(f"{folder} already exists; pick another NAME or --parent")
    for path, text in files.items():
        target = folder / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return folder


def render(name: str) -> dict[str, str]:
    """The pack's files (relative path -> text) for the namespace ``name``."""
    if not NAME.fullmatch(name):
        raise CommandError(
            f"pack name {name!r}: use lowercase letters, digits and single underscores, "
            "starting with a letter (it becomes the tools' namespace: NAME_add, NAME_search)"
        )
    from tooldeck.cli._pack_files import FILES

    names = {
        "{{dist}}": f"tooldeck-{name.replace('_', '-')}",
        "{{module}}": f"tooldeck_{name}",
        "{{ns}}": name,
        "{{scheme}}": name.replace("_", "-"),  # a URI scheme takes no "_"
    }
    return {_fill(path, names): _fill(text, names) for path, text in FILES.items()}


def _fill(text: str, names: dict[str, str]) -> str:
    for placeholder, value in names.items():
        text = text.replace(placeholder, value)
    return text
