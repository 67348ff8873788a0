"""Wheels of tool packs, built the way users get them, once per source state.

A pack under test is built into a wheel by its own build backend, as ``pip wheel
--no-deps --no-build-isolation`` would: without isolation and offline, so the backend
and its requirements come from the running environment (checked up front, with a
message that says what to install). A build is cached by the project's resolved path
and a digest of its sources, so a session builds each pack once per source state.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, TypeAlias

from tooldeck.errors import PackBuildError
from tooldeck.host.config.config_files import read_toml

__all__ = ["Pack", "WheelCache"]

Pack: TypeAlias = str | os.PathLike[str]
"""A project directory (with ``pyproject.toml`` or ``setup.py``) or a built ``.whl``."""

_SKIPPED = frozenset(
    {
        ".git",
        ".hg",
        ".tox",
        ".nox",
        ".venv",
        "venv",
        "build",
        "dist",
        "__pycache__",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
    }
)
"""Directories that are build output or tool state, never part of a pack's source."""

TIMEOUT = 300.0
"""Seconds a subprocess that builds a pack, or runs one, may take."""

# The PEP 517 ``build_wheel`` hook of the project's backend, called in one process:
# what ``pip wheel --no-deps --no-build-isolation`` does, minus pip's own start-up and
# one hook subprocess per step, which is most of the time of building a small pack.
_BUILD = """\
import importlib, os, sys, tomllib
system = {}
if os.path.exists("pyproject.toml"):
    with open("pyproject.toml", "rb") as file:
        system = tomllib.load(file).get("build-system", {})
sys.path[:0] = [os.path.abspath(p) for p in system.get("backend-path", [])]
name, _, attrs = system.get("build-backend", "setuptools.build_meta:__legacy__").partition(":")
backend = importlib.import_module(name)
for attr in filter(None, attrs.split(".")):
    backend = getattr(backend, attr)
os.makedirs(sys.argv[1], exist_ok=True)
backend.build_wheel(sys.argv[1])
"""


def _skipped(name: str) -> bool:
    return name in _SKIPPED or name.endswith(".egg-info")


def source_state(project: Path) -> str:
    """A digest of every source file's (path, mtime, size): the half of a cache key that
    changes when a file is edited, added, removed or replaced by an older copy."""
    entries = []
    for folder, dirs, files in os.walk(project):
        dirs[:] = sorted(d for d in dirs if not _skipped(d))
        for name in sorted(files):
            stat = os.stat(os.path.join(folder, name))
            entries.append(
                f"{os.path.relpath(folder, project)}/{name}\0{stat.st_mtime_ns}\0{stat.st_size}"
            )
    return hashlib.sha256("\n".join(entries).encode()).hexdigest()


class WheelCache:
    """Wheels built from project directories, keyed by (resolved path, source state).

    Each build runs on a copy of the sources (a setuptools build writes ``build/`` and
    ``*.egg-info`` into the tree it builds), and several projects build in parallel.
    The build backend and its requirements must already be installed: builds run
    without isolation, offline.
    """

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(root)
        self._built: dict[tuple[Path, str], Path] = {}
        self._lock = threading.Lock()

    def wheel(self, project: Pack) -> Path:
        """The wheel of ``project``, built now unless its sources are unchanged."""
        return self.wheels(project)[0]

    def wheels(self, *projects: Pack) -> list[Path]:
        """The wheels of ``projects``, in order; the missing ones build in parallel."""
        keys = [_key(Path(p)) for p in projects]
        with self._lock:
            todo = [key for key in dict.fromkeys(keys) if key not in self._built]
            started = [self._start(key[0], len(self._built) + i) for i, key in enumerate(todo)]
            for key, (build, out) in zip(todo, started, strict=True):
                self._built[key] = _finish(key[0], build, out)
            return [self._built[key] for key in keys]

    def _start(self, project: Path, number: int) -> tuple[subprocess.Popen[bytes], Path]:
        source = self.root / f"src-{number}-{project.name}"
        out = self.root / f"wheel-{number}-{project.name}"
        shutil.rmtree(source, ignore_errors=True)
        shutil.copytree(project, source, ignore=lambda _d, names: [n for n in names if _skipped(n)])
        build = subprocess.Popen(
            [sys.executable, "-c", _BUILD, str(out)],
            cwd=source,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        return build, out


def _key(project: Path) -> tuple[Path, str]:
    project = project.resolve()
    if not (project / "pyproject.toml").is_file() and not (project / "setup.py").is_file():
        raise PackBuildError(f"{project}: not a Python project (no pyproject.toml or setup.py)")
    check_build_requirements(project)
    return project, source_state(project)


def check_build_requirements(project: Path) -> None:
    """Raise ``PackBuildError`` saying what to install when this environment lacks what
    ``project``'s ``[build-system] requires`` asks for.

    Builds run without isolation, so the requirements must be installed here; checked
    up front because a backend's own failure (setuptools 65's "invalid command
    'bdist_wheel'", a bare "No module named 'setuptools'") does not say what to do.
    """
    from packaging.requirements import Requirement  # pytest's own dependency

    system: dict[str, Any] = {}
    if (project / "pyproject.toml").is_file():
        system = read_toml(project / "pyproject.toml").get("build-system", {})
    wanted = [Requirement(r) for r in system.get("requires", ["setuptools>=40.8.0"])]
    for requirement in wanted:
        if requirement.marker is not None and not requirement.marker.evaluate():
            continue
        have = _installed_version(requirement.name)
        if have is None or not requirement.specifier.contains(have, prereleases=True):
            found = f"{requirement.name} {have}" if have else f"no {requirement.name}"
            raise PackBuildError(
                f"cannot build {project.name}: its [build-system] requires "
                f"'{requirement}', but this environment has {found}. tooldeck_install builds "
                f"without isolation, with this environment's packages: install it here "
                f"(python -m pip install '{requirement}'), for example through the pack's "
                "test extra."
            )
    backend = system.get("build-backend", "setuptools.build_meta:__legacy__")
    setuptools = _installed_version("setuptools")
    if (
        backend.startswith("setuptools")
        and setuptools
        and _older(setuptools, "70.1")
        and (_installed_version("wheel") is None)
    ):
        raise PackBuildError(
            f"cannot build {project.name}: setuptools {setuptools} builds wheels only with "
            "the 'wheel' package, which is not installed (setuptools 70.1 and later need "
            "none). Install a newer setuptools here: python -m pip install 'setuptools>=70.1'"
        )


def _installed_version(name: str) -> str | None:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return None


def _older(version: str, than: str) -> bool:
    from packaging.version import InvalidVersion, Version

    try:
        return Version(version) < Version(than)
    except InvalidVersion:
        return False


def _finish(project: Path, build: subprocess.Popen[bytes], out: Path) -> Path:
    output, _ = build.communicate(timeout=TIMEOUT)
    wheels = sorted(out.glob("*.whl"))
    if build.returncode != 0 or len(wheels) != 1:
        text = output.decode(errors="replace").strip()
        raise PackBuildError(
            f"building a wheel of {project} failed (build_wheel exited "
            f"{build.returncode}, {len(wheels)} wheels):\n{text}"
        )
    return wheels[0]
