"""Shared fixtures: real tool-pack distributions and a clean environment.

Entry points come from real installed distributions: the packs under ``tests/packs``
are built into wheels once per session and ``pip install --target``-ed into a
directory per test, which subprocesses put on ``PYTHONPATH``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PACKS = Path(__file__).parent / "packs"

# The PEP 517 build_wheel hook, one process per pack, all in parallel: what `python -m
# build --wheel --no-isolation` does, without its two subprocesses per pack.
_BUILD = "import sys, setuptools.build_meta as b; b.build_wheel(sys.argv[1])"


@pytest.fixture(scope="session")
def pack_wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Wheels of every pack under ``tests/packs``, by distribution name (built once)."""
    sources = tmp_path_factory.mktemp("pack-sources")
    shutil.copytree(PACKS, sources, dirs_exist_ok=True)
    out = tmp_path_factory.mktemp("wheels")
    builds = [subprocess.Popen([sys.executable, "-c", _BUILD, str(out)], cwd=folder,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
              for folder in sorted(sources.iterdir()) if (folder / "pyproject.toml").is_file()]
    for build in builds:
        _, stderr = build.communicate(timeout=120)
        assert build.returncode == 0, stderr.decode()
    return {w.name.split("-")[0].replace("_", "-"): w for w in out.glob("*.whl")}


class Site:
    """A ``pip install --target`` directory and subprocesses that run with it."""

    def __init__(self, path: Path, wheels: dict[str, Path], home: Path) -> None:
        self.path = path
        self.wheels = wheels
        self.home = home

    def install(self, *dists: str) -> None:
        wheels = [str(self.wheels[d]) for d in dists]
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                        "--no-index", "--no-compile", "--upgrade", "--target",
                        str(self.path), *wheels], check=True, capture_output=True)

    def copy(self, where: Path) -> Site:
        """An independent copy of this site (its installs included) under ``where``."""
        shutil.copytree(self.path, where / "site", symlinks=True)
        (where / "home").mkdir()
        return Site(where / "site", self.wheels, where / "home")

    def uninstall(self, dist: str) -> None:
        """Delete every file the dist's RECORD lists, as ``pip uninstall`` does."""
        info = next(self.path.glob(f"{dist.replace('-', '_')}-*.dist-info"))
        for line in (info / "RECORD").read_text().splitlines():
            (self.path / line.split(",")[0]).unlink(missing_ok=True)
        shutil.rmtree(info, ignore_errors=True)

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLDECK_")}
        env.update(PYTHONPATH=str(self.path), XDG_CONFIG_HOME=str(self.home / "config"),
                   XDG_DATA_HOME=str(self.home / "data"), XDG_CACHE_HOME=str(self.home / "cache"))
        env.update(extra)
        return env

    def tooldeck(self, *args: str, cwd: Path | None = None,
                 **env: str) -> subprocess.CompletedProcess[str]:
        """``python -m tooldeck ARGS`` in a subprocess that sees this site."""
        return subprocess.run([sys.executable, "-m", "tooldeck", *args], cwd=cwd or self.home,
                              env=self.env(**env), capture_output=True, text=True, timeout=60)

    def plugins(self, cwd: Path | None = None, **env: str) -> dict[str, dict[str, object]]:
        """``tooldeck plugins --json`` of the test packs, by name, in load order."""
        done = self.tooldeck("plugins", "--json", cwd=cwd, **env)
        assert done.returncode == 0, done.stderr
        return {p["name"]: p for p in json.loads(done.stdout) if p["name"].startswith("tdtest")}


def new_site(where: Path, wheels: dict[str, Path]) -> Site:
    (where / "site").mkdir()
    (where / "home").mkdir()
    return Site(where / "site", wheels, where / "home")


@pytest.fixture
def site(tmp_path: Path, pack_wheels: dict[str, Path]) -> Site:
    """An empty install target; ``site.install("tdtest-greet")`` puts packs in it."""
    return new_site(tmp_path, pack_wheels)


@pytest.fixture(scope="module")
def full_site(tmp_path_factory: pytest.TempPathFactory, pack_wheels: dict[str, Path]) -> Site:
    """Every test pack installed once per module; treat it as read-only (``copy`` it)."""
    site = new_site(tmp_path_factory.mktemp("full"), pack_wheels)
    site.install(*sorted(pack_wheels))
    return site


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No ``TOOLDECK_*`` variables; user config and data dirs inside ``tmp_path``."""
    for name in [n for n in os.environ if n.startswith("TOOLDECK_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    return tmp_path
