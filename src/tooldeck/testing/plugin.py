"""The ``tooldeck`` pytest plugin: fixtures for testing tool packs (and tooldeck itself).

Registered through the ``pytest11`` entry point, so every pytest run in an environment
with tooldeck installed loads this module. It therefore imports nothing but pytest and
the standard library at load time; tooldeck's internals load inside the fixtures, when
a test asks for one.

============================  ===============================================================
fixture                       gives
============================  ===============================================================
``tooldeck_env``              no ``TOOLDECK_*`` variables, user config/data dirs in tmp_path
``tooldeck_asker``            a fresh ``ScriptedAsker`` (replies "once" unless scripted)
``tooldeck_answerer``         a fresh ``ScriptedAnswerer`` (dismisses unless scripted)
``tooldeck_location``         a ``Location`` on tmp_path/project, data in tmp_path/data,
                              wired to the asker and the answerer
``tooldeck_host``             ``tooldeck_host(plugins=[...], builtins=..., config=...)`` →
                              a ``TestHost`` on that project
``tooldeck_wheels``           (session) the ``WheelCache`` that ``tooldeck_install`` builds with
``tooldeck_install``          ``tooldeck_install(*packs)`` → a ``Site`` with the packs installed
``tooldeck_loop_guard``       (async tests) a ``LoopGuard``: the test fails when its event
                              loop stalls longer than ``tooldeck_loop_stall_s`` (ini, 2 s)
============================  ===============================================================
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from tooldeck.host.location.location import Location
    from tooldeck.testing.asker import ScriptedAnswerer, ScriptedAsker
    from tooldeck.testing.host import Builtins, TestHost
    from tooldeck.testing.install import Site
    from tooldeck.testing.loop_guard import LoopGuard
    from tooldeck.testing.wheels import Pack, WheelCache

try:  # the loop guard is an async fixture: pytest-asyncio runs it, in either of its modes
    from pytest_asyncio import fixture as _async_fixture
except ImportError:  # pragma: no cover - without pytest-asyncio there is no test loop
    _async_fixture = None  # type: ignore[assignment]

__all__ = [
    "tooldeck_answerer",
    "tooldeck_asker",
    "tooldeck_env",
    "tooldeck_host",
    "tooldeck_install",
    "tooldeck_location",
    "tooldeck_loop_guard",
    "tooldeck_wheels",
]

CONFIG_FILE = "tooldeck.toml"
STALL_INI = "tooldeck_loop_stall_s"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addini(
        STALL_INI,
        "seconds the event loop may stall before tooldeck_loop_guard fails a test",
        default="2.0",
    )


@pytest.fixture
def tooldeck_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No ``TOOLDECK_*`` variables; ``XDG_CONFIG_HOME``/``XDG_DATA_HOME`` inside ``tmp_path``.

    So neither the developer's shell nor their user config changes what a test loads.
    Returns ``tmp_path``.
    """
    for name in [n for n in os.environ if n.startswith("TOOLDECK_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    return tmp_path


@pytest.fixture
def tooldeck_asker() -> ScriptedAsker:
    """A fresh ``ScriptedAsker``: every permission ask is recorded and answered "once"
    unless scripted (``tooldeck_asker.replies["shell"] = "reject"``)."""
    from tooldeck.testing.asker import ScriptedAsker

    return ScriptedAsker()


@pytest.fixture
def tooldeck_answerer() -> ScriptedAnswerer:
    """A fresh ``ScriptedAnswerer``: every question set is recorded and dismissed unless
    scripted (``tooldeck_answerer.on("Database", ["Postgres"])``)."""
    from tooldeck.testing.asker import ScriptedAnswerer

    return ScriptedAnswerer()


@pytest.fixture
def tooldeck_location(
    tooldeck_env: Path,
    tooldeck_asker: ScriptedAsker,
    tooldeck_answerer: ScriptedAnswerer,
) -> Location:
    """A ``Location`` on the empty directory ``tmp_path/project`` with its data dir in
    ``tmp_path/data``, asking ``tooldeck_asker`` and ``tooldeck_answerer``."""
    from tooldeck.host.location.location import Location

    root = tooldeck_env / "project"
    root.mkdir()
    return Location(
        root, data_dir=tooldeck_env / "data", asker=tooldeck_asker, answerer=tooldeck_answerer
    )


OpenHost = Callable[..., "TestHost"]


@pytest.fixture
def tooldeck_host(tooldeck_location: Location) -> OpenHost:
    """``tooldeck_host(plugins=(), *, builtins=True, config=None, ...)`` → ``TestHost``.

    Opens a real ``Host`` on ``tooldeck_location``'s project and data dirs, asker and
    answerer, with exactly ``plugins`` (plugin objects, or names of installed ones) and
    the built-ins ``builtins`` says (all, none, or a list of names). ``config`` (a
    mapping or TOML text) is written to the project's ``tooldeck.toml`` first.
    ``disable`` and ``visibility`` are passed on to ``TestHost.open``.
    """
    location = tooldeck_location

    def open_host(
        plugins: Sequence[str | object] = (),
        *,
        builtins: Builtins = True,
        config: Mapping[str, Any] | str | None = None,
        disable: Sequence[str] = (),
        visibility: bool = True,
    ) -> TestHost:
        from tooldeck.testing.host import TestHost

        if config is not None:
            write_config(location.root, config)
        return TestHost.open(
            location.root,
            plugins=plugins,
            builtins=builtins,
            disable=disable,
            asker=location.asker,
            answerer=location.answerer,
            data_dir=location.data_dir,
            visibility=visibility,
        )

    return open_host


def write_config(root: Path, config: Mapping[str, Any] | str) -> Path:
    """Write (replace) ``root/tooldeck.toml`` from TOML text or a mapping."""
    from tooldeck.testing._toml import dumps

    text = config if isinstance(config, str) else dumps(config)
    path = root / CONFIG_FILE
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def tooldeck_wheels(tmp_path_factory: pytest.TempPathFactory) -> WheelCache:
    """The session's wheel cache: each pack builds once per source state per session."""
    from tooldeck.testing.wheels import WheelCache

    return WheelCache(tmp_path_factory.mktemp("tooldeck-wheels"))


@pytest.fixture
def tooldeck_install(tmp_path: Path, tooldeck_wheels: WheelCache) -> Callable[..., Site]:
    """``tooldeck_install(*packs)`` → this test's ``Site`` with ``packs`` installed.

    A pack is a project directory (built into a wheel once per session) or a ``.whl``.
    Every call installs into the same site, created on the first call in
    ``tmp_path/tooldeck-site``; ``tooldeck_install()`` returns it empty.
    """
    sites: list[Site] = []

    def install(*packs: Pack) -> Site:
        from tooldeck.testing.install import Site

        if not sites:
            sites.append(Site.create(tmp_path / "tooldeck-site", wheels=tooldeck_wheels))
        return sites[0].install(*packs)

    return install


async def _loop_guard(request: pytest.FixtureRequest) -> AsyncIterator[LoopGuard]:
    """A ``LoopGuard`` on the test's event loop: the test fails (at teardown) when the
    loop stopped answering for longer than ``guard.threshold_s`` (ini
    ``tooldeck_loop_stall_s``, default 2 s; a test may raise it for itself). Use it in
    async tests: it needs pytest-asyncio."""
    from tooldeck.testing.loop_guard import LoopGuard

    threshold = float(request.config.getini(STALL_INI))
    guard = LoopGuard(asyncio.get_running_loop(), threshold_s=threshold).start()
    yield guard
    guard.stop()
    if guard.stalled:
        pytest.fail(guard.report(), pytrace=False)


if _async_fixture is not None:
    tooldeck_loop_guard = _async_fixture(_loop_guard, name="tooldeck_loop_guard")
