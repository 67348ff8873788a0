"""Build every example pack into WHEELHOUSE and install them all, with their test extras.

Run by ``tox -e packs`` (``commands_pre``) inside its environment, after tooldeck's own
wheel is installed there::

    python tests_packs/install_packs.py WHEELHOUSE

Wheels are built with ``tooldeck.testing.WheelCache`` (a copy of each source tree, the
pack's own build backend, no isolation), so nothing is written into
``example_plugins/``. The install is constrained to the tooldeck already in the
environment: a pack that asks for another tooldeck fails here instead of pulling one
from an index. The wheels stay in WHEELHOUSE for tests that reinstall a pack.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path

from tooldeck.testing import WheelCache

EXAMPLES = Path(__file__).resolve().parent.parent / "example_plugins"


def example_packs() -> list[Path]:
    """Every pack folder under ``example_plugins/``, sorted by name."""
    return sorted(p for p in EXAMPLES.iterdir() if (p / "pyproject.toml").is_file())


def build(wheelhouse: Path) -> list[Path]:
    """Wheels of every example pack, copied into ``wheelhouse`` (emptied first)."""
    shutil.rmtree(wheelhouse, ignore_errors=True)
    wheelhouse.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="pack-builds-") as builds:
        built = WheelCache(builds).wheels(*example_packs())
        return [Path(shutil.copy2(wheel, wheelhouse)) for wheel in built]


def install(wheels: list[Path], wheelhouse: Path) -> None:
    constraints = wheelhouse / "constraints.txt"
    constraints.write_text(f"tooldeck=={version('tooldeck')}\n", encoding="utf-8")
    command = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--disable-pip-version-check",
        "--constraint",
        str(constraints),
        *(f"{wheel}[test]" for wheel in wheels),
    ]
    subprocess.run(command, check=True, timeout=1800)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    wheelhouse = Path(argv[0])
    wheels = build(wheelhouse)
    install(wheels, wheelhouse)
    print(f"installed {len(wheels)} example packs: {', '.join(w.name for w in wheels)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
