"""Real installs of tool packs into throwaway directories, and subprocesses that see them.

Entry points come from real installed distributions, so a pack is tested the way users
get it: built into a wheel (``WheelCache``), installed with ``pip install --target``
into a directory, and run by a subprocess with that directory first on ``PYTHONPATH``.
Everything else the subprocess imports (tooldeck, the pack's dependencies) comes from
the running environment, but the *tool packs* of the running environment are disabled
there: a site loads only the packs installed in it (see ``Site.env``).
"""

from __future__ import annotations

import copy
import csv
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import IO

from tooldeck.errors import PackBuildError
from tooldeck.host.plugins.discovery import normalize_dist, scan_entry_points
from tooldeck.testing.wheels import TIMEOUT, Pack, WheelCache

__all__ = ["Site"]


class Site:
    """A ``pip install --target`` directory, and subprocesses that run with it.

    ``home`` holds the subprocesses' XDG config, data and cache directories, so no user
    config leaks in; it is also their default working directory. ``TOOLDECK_*``
    variables of this process are not passed on, and the tool packs installed in the
    running environment (a developer's editable install, the pack tox installed with
    ``package = wheel``) are disabled, so what a subprocess loads is what this site holds.
    """

    timeout: float = TIMEOUT
    """Seconds a subprocess (``run``/``python``/``tooldeck``) may take."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        home: str | os.PathLike[str],
        *,
        wheels: WheelCache | None = None,
    ) -> None:
        self.path = Path(path)
        self.home = Path(home)
        self.wheels = wheels if wheels is not None else WheelCache(self.home / ".wheels")

    @classmethod
    def create(cls, where: str | os.PathLike[str], *, wheels: WheelCache | None = None) -> Site:
        """An empty site in ``where/site`` with its home in ``where/home``."""
        where = Path(where)
        (where / "site").mkdir(parents=True)
        (where / "home").mkdir()
        return cls(where / "site", where / "home", wheels=wheels)

    # -- installing ------------------------------------------------------------------------
    def install(self, *packs: Pack) -> Site:
        """Install project directories (built through ``wheels``) and ``.whl`` files.

        Dependencies are not installed: the subprocesses import them from the running
        environment. Reinstalling a distribution replaces it.
        """
        wheels = [self._wheel(Path(pack)) for pack in packs]
        if not wheels:
            return self
        # pip --target never uninstalls: an older version's dist-info would stay behind.
        installed = self.distributions()
        self.uninstall(*dict.fromkeys(n for n in map(_wheel_name, wheels) if n in installed))
        command = [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            "--no-compile",
            "--disable-pip-version-check",
            "--upgrade",
            "--target",
            str(self.path),
            *map(str, wheels),
        ]
        done = subprocess.run(command, capture_output=True, text=True, timeout=self.timeout)
        if done.returncode != 0:
            raise PackBuildError(
                f"pip install --target {self.path} failed:\n{(done.stdout + done.stderr).strip()}"
            )
        return self

    def _wheel(self, pack: Path) -> Path:
        if pack.suffix == ".whl" and pack.is_file():
            return pack
        if pack.is_dir():
            return self.wheels.wheel(pack)
        raise PackBuildError(f"{pack}: not a project directory or a .whl file")

    def distributions(self) -> dict[str, str]:
        """Installed distributions: normalized name → version, sorted by name."""
        found = {}
        for info in self.path.glob("*.dist-info"):
            name, version = _name_version(info)
            found[name] = version
        return dict(sorted(found.items()))

    def uninstall(self, *dists: str) -> Site:
        """Remove distributions by name, every file their ``RECORD`` lists, as pip does."""
        for dist in dists:
            info = self._dist_info(dist)
            with (info / "RECORD").open(encoding="utf-8", newline="") as record:
                for path in [row[0] for row in csv.reader(record) if row]:
                    self._remove(path)
            shutil.rmtree(info, ignore_errors=True)
        return self

    def _remove(self, recorded: str) -> None:
        """Delete one RECORD entry, never a file outside the site (``../bin`` scripts)."""
        path = (self.path / recorded).resolve()
        if path.is_relative_to(self.path.resolve()):
            path.unlink(missing_ok=True)

    def _dist_info(self, dist: str) -> Path:
        for info in sorted(self.path.glob("*.dist-info")):
            if _name_version(info)[0] == normalize_dist(dist):
                return info
        installed = ", ".join(self.distributions()) or "nothing"
        raise PackBuildError(f"{dist!r} is not installed in {self.path} (installed: {installed})")

    def copy(self, where: str | os.PathLike[str]) -> Site:
        """An independent copy of this site, its installs included, under ``where``.

        A shallow copy of this object (a subclass and its attributes carry over) with
        ``where/site`` as its path and a fresh ``where/home``; the wheel cache is shared.
        """
        where = Path(where)
        shutil.copytree(self.path, where / "site", symlinks=True)
        (where / "home").mkdir()
        clone = copy.copy(self)
        clone.path, clone.home = where / "site", where / "home"
        return clone

    # -- running ---------------------------------------------------------------------------
    def env(self, **extra: str) -> dict[str, str]:
        """The subprocess environment: this one minus ``TOOLDECK_*``, plus the site.

        ``TOOLDECK_DISABLE_PLUGINS`` names every pack of the running environment that
        this site does not hold (joined with one passed in ``extra``): without it, such a
        pack would shadow a site pack sorted before it, or stay loaded after
        ``uninstall`` removed the site's copy.
        """
        env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLDECK_")}
        paths = [str(self.path), *filter(None, [env.get("PYTHONPATH")])]
        env.update(
            PYTHONPATH=os.pathsep.join(paths),
            XDG_CONFIG_HOME=str(self.home / "config"),
            XDG_DATA_HOME=str(self.home / "data"),
            XDG_CACHE_HOME=str(self.home / "cache"),
        )
        disabled = [
            *filter(None, [extra.pop("TOOLDECK_DISABLE_PLUGINS", "")]),
            *self.outside_packs(),
        ]
        if disabled:
            env["TOOLDECK_DISABLE_PLUGINS"] = ",".join(disabled)
        env.update(extra)
        return env

    def outside_packs(self) -> list[str]:
        """Tool packs of the running environment that this site does not hold, by name."""
        inside = self.distributions()
        site = self.path.resolve()
        return sorted(
            {
                record.distribution
                for record in scan_entry_points()
                if record.distribution not in inside
                and not Path(record.location).resolve().is_relative_to(site)
            }
        )

    def run(
        self,
        *args: str,
        cwd: str | os.PathLike[str] | None = None,
        stdin: str | None = None,
        **env: str,
    ) -> subprocess.CompletedProcess[str]:
        """``python ARGS`` (this interpreter) in a subprocess that sees the site.

        Keyword arguments other than ``cwd`` and ``stdin`` are extra environment variables.
        """
        return subprocess.run(
            [sys.executable, *args],
            cwd=cwd or self.home,
            input=stdin,
            env=self.env(**env),
            capture_output=True,
            text=True,
            timeout=self.timeout,
        )

    def python(
        self, code: str, *args: str, cwd: str | os.PathLike[str] | None = None, **env: str
    ) -> subprocess.CompletedProcess[str]:
        """``python -c CODE ARGS`` in a subprocess that sees the site."""
        return self.run("-c", code, *args, cwd=cwd, **env)

    def tooldeck(
        self, *args: str, cwd: str | os.PathLike[str] | None = None, **env: str
    ) -> subprocess.CompletedProcess[str]:
        """The ``tooldeck`` CLI (``python -m tooldeck ARGS``) in a subprocess that sees the site."""
        return self.run("-m", "tooldeck", *args, cwd=cwd, **env)

    def __repr__(self) -> str:
        return f"<Site {str(self.path)!r} {list(self.distributions())}>"


def _wheel_name(wheel: Path) -> str:
    """The normalized distribution name in a wheel's file name (``name-version-...whl``)."""
    return normalize_dist(wheel.name.partition("-")[0])


def _name_version(info: Path) -> tuple[str, str]:
    """(normalized name, version) from a ``.dist-info`` directory's METADATA headers."""
    found: dict[str, str] = {}
    with (info / "METADATA").open(encoding="utf-8") as file:
        _headers(file, found)
    return normalize_dist(found.get("Name", info.name.partition("-")[0])), found.get("Version", "")


def _headers(file: IO[str], found: dict[str, str]) -> None:
    for line in file:
        if not line.strip():
            return
        key, _, value = line.partition(":")
        if key in ("Name", "Version") and key not in found:
            found[key] = value.strip()
