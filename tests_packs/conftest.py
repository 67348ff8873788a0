"""Cross-pack checks: every example pack installed together in one environment.

These tests run inside ``tox -e packs``, whose ``commands_pre`` installed tooldeck's
wheel and every pack of ``example_plugins/`` (``install_packs.py``). They look at the
environment the way a user does: the ``tooldeck`` CLI in subprocesses, ``pip`` to
remove a pack, and an in-process ``Host`` that refreshes its plugins.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "example_plugins"
PACKS = tuple(sorted(p.name for p in EXAMPLES.iterdir() if (p / "pyproject.toml").is_file()))
"""Distribution names of the example packs (each folder is named after its distribution)."""


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto`` (pyproject.toml's addopts) means one worker here: every test looks at the
    packs installed in this environment, and one uninstalls a pack for a moment, so none
    may run beside another."""
    return 1


def pytest_configure(config: pytest.Config) -> None:
    missing = [name for name in PACKS if not _installed(name)]
    if missing:
        raise pytest.UsageError(
            f"tests_packs needs every example pack installed; missing: {', '.join(missing)}. "
            "Run them with `tox -e packs`."
        )


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test taking ``pack`` runs once per example pack, by distribution name."""
    if "pack" in metafunc.fixturenames:
        metafunc.parametrize("pack", PACKS)


@pytest.fixture
def pack_dir(pack: str) -> Path:
    return EXAMPLES / pack


def _installed(name: str) -> bool:
    try:
        distribution(name)
    except PackageNotFoundError:
        return False
    return True


class Project:
    """An empty project directory and a clean environment for subprocesses run in it.

    ``mode``: ``"code"`` (code mode on, the default) or ``"native"`` (turned off in the
    project's ``tooldeck.toml``).
    """

    def __init__(self, root: Path, home: Path, mode: str) -> None:
        self.root = root
        self.home = home
        self.mode = mode

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLDECK_")}
        env.update(
            XDG_CONFIG_HOME=str(self.home / "config"),
            XDG_DATA_HOME=str(self.home / "data"),
            PYTHONDONTWRITEBYTECODE="1",
        )
        env.update(extra)
        return env

    def tooldeck(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        """``tooldeck ARGS`` in this project, as a user would run it."""
        return subprocess.run(
            [sys.executable, "-m", "tooldeck", *args],
            cwd=self.root,
            env=self.env(**env),
            capture_output=True,
            text=True,
            timeout=120,
        )

    def json(self, *args: str, **env: str) -> Any:
        done = self.tooldeck(*args, "--json", **env)
        assert done.returncode == 0, done.stdout + done.stderr
        return json.loads(done.stdout)


@pytest.fixture(params=["code", "native"])
def project(tmp_path: Path, request: pytest.FixtureRequest) -> Project:
    """An empty project, once with code mode on and once with it off. Tools are called
    by their own names in both; code mode changes only what a model is offered."""
    root = tmp_path / "project"
    root.mkdir()
    if request.param == "native":
        (root / "tooldeck.toml").write_text("[codemode]\nenabled = false\n", encoding="utf-8")
    (tmp_path / "home").mkdir()
    return Project(root, tmp_path / "home", request.param)


def run_pip(*args: str) -> subprocess.CompletedProcess[str]:
    """This environment's pip (the tox env's, when run by tox)."""
    return subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def pip() -> Callable[..., subprocess.CompletedProcess[str]]:
    """``pip(*args)``: run this environment's pip; returns the completed process."""
    return run_pip


@pytest.fixture(scope="session")
def packs() -> tuple[str, ...]:
    """The example packs' distribution names, sorted."""
    return PACKS


@pytest.fixture
def wheelhouse() -> Iterator[Path]:
    """The wheels ``install_packs.py`` built (``PACKS_WHEELHOUSE``, set by tox)."""
    where = os.environ.get("PACKS_WHEELHOUSE")
    if not where or not any(Path(where).glob("*.whl")):
        pytest.fail(
            "PACKS_WHEELHOUSE does not name the wheels of install_packs.py; "
            "run these tests with `tox -e packs`"
        )
    yield Path(where)
