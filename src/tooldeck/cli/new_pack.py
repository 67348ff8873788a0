"""``tooldeck new-pack NAME``: start a tool pack from the pack author guide's.

Writes ``tooldeck-NAME/`` (in the current directory, or ``--parent DIR``) with the
guide's ``tooldeck-notes`` pack renamed: ``pyproject.toml`` with the entry point,
``src/tooldeck_NAME/__init__.py`` with two tools in the namespace ``NAME``, their tests,
the compatibility page's ``tox.ini``, ``matrix.sh`` and neighbours test. The files are
the guide's (``_pack_files``), so the guide explains every line of what this writes.

NAME is the namespace (``memo``, ``weather_log``) or the distribution name every
example pack uses (``tooldeck-memo``, ``tooldeck-weather-log``): the same pack.

Until tooldeck is on an index, the next steps it prints install tooldeck the way the
running one was installed: from its checkout when it runs from one, or from the checkout
pip recorded installing it (``direct_url.json``), which it names.
"""

from __future__ import annotations

import argparse
import re
import secrets
import shutil
from pathlib import Path
from typing import Any

from tooldeck.cli._errors import CommandError

NAME = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")
PREFIX = re.compile(r"^tooldeck[-_]")
EXECUTABLE = 0o755
NEXT_STEPS = """\
Next, as the pack author guide goes on (docs/pack-author-guide.md):

    cd {folder}
    python3 -m venv .venv
    .venv/bin/pip install {install}
    .venv/bin/pip install -e '.[test]'
    .venv/bin/pytest
    .venv/bin/tooldeck check .

Then the compatibility matrix (docs/compat-matrix.md). matrix.sh
  - builds the wheels that are on no index yet (tooldeck's and the neighbour packs',
    from the checkout TOOLDECK_NEXT names) into ../wheels, which tox finds through
    PIP_FIND_LINKS;
  - finds pyenv's Pythons (their real executables, as `tox --discover` would be told);
  - runs `tox p`, environments made by tox-uv: one cell per Python and the neighbours,
    and with `-m full` every tooldeck version too.

    TOOLDECK_NEXT={checkout} bash matrix.sh
    TOOLDECK_NEXT={checkout} bash matrix.sh -m full
"""


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "new-pack",
        help="write a new tool pack to start from",
        description="Write tooldeck-NAME/: the pack author guide's pack (two tools in the "
        "namespace NAME, their tests, a tox.ini and matrix.sh for the compatibility "
        "matrix), renamed.",
    )
    parser.add_argument(
        "name",
        metavar="NAME",
        help="the namespace (lowercase letters, digits and _, e.g. weather) or the "
        "distribution name (tooldeck-weather)",
    )
    parser.add_argument(
        "--parent", metavar="DIR", default=".", help="where to create the folder (default: .)"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    folder = write_pack(args.name, Path(args.parent))
    here = running_tooldeck()
    checkout = checkout_of(here)
    print(f"created {folder}")
    origin = origin_checkout(direct_url(here)) if checkout is None else None
    if origin is not None:
        print(f"this tooldeck: {here} (installed from the checkout {origin})\n")
        install = f"{origin}   # tooldeck, from that checkout (on no index yet)"
        source = str(origin)
    elif checkout is None:
        print(f"this tooldeck: {here} (installed, not a checkout)\n")
        install = "tooldeck   # once released; until then the wheel this one came from"
        source = "/path/to/a/tooldeck/checkout"
    else:
        print(f"this tooldeck: {here} (the checkout {checkout})\n")
        install = f"{checkout}   # tooldeck, from this checkout (on no index yet)"
        source = str(checkout)
    print(NEXT_STEPS.format(folder=folder, install=install, checkout=source), end="")
    return 0


def running_tooldeck() -> Path:
    """The folder of the ``tooldeck`` package this command runs from."""
    import tooldeck

    return Path(tooldeck.__file__).resolve().parent


def checkout_of(package: Path) -> Path | None:
    """The checkout holding ``package`` (``<checkout>/src/tooldeck``), or ``None`` when
    it is an installed copy."""
    root = package.parent.parent
    pyproject = root / "pyproject.toml"
    if package.parent.name != "src" or not pyproject.is_file():
        return None
    text = pyproject.read_text(encoding="utf-8")
    return root if re.search(r'^name = "tooldeck"$', text, flags=re.M) else None


def direct_url(package: Path) -> str | None:
    """The ``direct_url.json`` pip wrote for the distribution that installed ``package``
    (PEP 610: where it was installed from), or ``None`` for another copy or none."""
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        found = distribution("tooldeck")
    except PackageNotFoundError:
        return None
    if Path(str(found.locate_file("tooldeck"))).resolve() != package:
        return None  # the metadata of another copy than the one running
    return found.read_text("direct_url.json")


def origin_checkout(recorded: str | None) -> Path | None:
    """The checkout a ``direct_url.json`` names (``pip install ../tooldeck``) while it is
    still there, else ``None`` (an index, a wheel, a URL, a folder that moved)."""
    import json
    from urllib.parse import unquote, urlparse

    try:
        url = json.loads(recorded or "")["url"]
    except (ValueError, KeyError, TypeError):
        return None
    parsed = urlparse(url) if isinstance(url, str) else None
    if parsed is None or parsed.scheme != "file":
        return None
    folder = Path(unquote(parsed.path))
    return folder if checkout_of(folder / "src" / "tooldeck") == folder else None


def write_pack(name: str, parent: Path) -> Path:
    """Write ``tooldeck-NAME`` under ``parent``; the folder must not exist yet."""
    files = render(name)
    if not parent.is_dir():
        raise CommandError(f"--parent {parent}: not a directory")
    folder = parent / f"tooldeck-{namespace(name).replace('_', '-')}"
    if folder.exists():
        raise CommandError(f"{folder} already exists; pick another NAME or --parent")
    # Written aside and renamed into place: a disk that fails part-way leaves no half
    # pack that a second try would refuse as already existing.
    aside = parent / f".{folder.name}.partial-{secrets.token_hex(4)}"
    path = ""
    try:
        aside.mkdir()
        for path, text in files.items():
            target = aside / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
            if target.suffix == ".sh":
                target.chmod(EXECUTABLE)
        path = ""
        aside.rename(folder)
    except OSError as exc:
        shutil.rmtree(aside, ignore_errors=True)
        raise CommandError(
            f"cannot write {folder / path}: {exc.strerror or exc}; nothing was created"
        ) from exc
    return folder


def namespace(name: str) -> str:
    """The tools' namespace of the pack ``name``: ``tooldeck-weather-log`` (the
    distribution name) and ``weather_log`` both give ``weather_log``."""
    ns = PREFIX.sub("", name).replace("-", "_")
    if not NAME.fullmatch(ns):
        raise CommandError(
            f"pack name {name!r}: use lowercase letters, digits and single underscores, "
            "starting with a letter (it becomes the tools' namespace: NAME_add, "
            "NAME_search), or the distribution name tooldeck-NAME (hyphens for underscores)"
        )
    return ns


def render(name: str) -> dict[str, str]:
    """The pack's files (relative path -> text) for the pack ``name`` (see ``namespace``)."""
    ns = namespace(name)
    from tooldeck.cli._pack_files import FILES

    names = {
        "{{dist}}": f"tooldeck-{ns.replace('_', '-')}",
        "{{module}}": f"tooldeck_{ns}",
        "{{ns}}": ns,
        "{{scheme}}": ns.replace("_", "-"),  # a URI scheme takes no "_"
    }
    return {_fill(path, names): _fill(text, names) for path, text in FILES.items()}


def _fill(text: str, names: dict[str, str]) -> str:
    for placeholder, value in names.items():
        text = text.replace(placeholder, value)
    return text
