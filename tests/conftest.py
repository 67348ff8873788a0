"""Shared fixtures: real tool-pack distributions and a clean environment.

Entry points come from real installed distributions: the packs under ``tests/packs``
are built into wheels once per session (``tooldeck_wheels``) and installed into a
``tooldeck.testing.Site`` per test, which subprocesses put on ``PYTHONPATH``.

The suite is hermetic: packs the developer installed in this environment (say, an
example pack after following the pack guide) are invisible to it. In-process
discovery skips them (``hide_installed_packs``), and a ``Site``'s subprocesses disable
them (``Site.env``).
"""

from __future__ import annotations

import gc
import json
import os
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tooldeck.host.plugins import discovery
from tooldeck.testing import Site as BaseSite
from tooldeck.testing import WheelCache
from tooldeck.testing import host as testing_host

PACKS = Path(__file__).parent / "packs"


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto`` (pyproject.toml's addopts): one worker more than the machine has cores.

    Many tests wait on a real process rather than compute (a server starting, a
    deadline running out); the extra worker keeps the cores busy meanwhile. On the
    two-core box, one idle run each: two workers 231 s, three 199 s, four 203 s.
    """
    return (os.cpu_count() or 1) + 1


INSTALLED_PACKS = frozenset(r.distribution for r in discovery.scan_entry_points())
"""Tool packs installed in the running environment when the session starts (the suite's
own packs are only ever installed in per-test sites)."""


@pytest.fixture(autouse=True)
def hide_installed_packs(monkeypatch: pytest.MonkeyPatch) -> None:
    """In-process discovery sees the suite's own packs, never the developer's."""
    if not INSTALLED_PACKS:
        return
    scan = discovery.scan_entry_points

    def scan_without_installed(group: str = discovery.GROUP) -> tuple[object, ...]:
        return tuple(r for r in scan(group) if r.distribution not in INSTALLED_PACKS)

    monkeypatch.setattr(discovery, "scan_entry_points", scan_without_installed)
    monkeypatch.setattr(testing_host, "scan_entry_points", scan_without_installed)


@pytest.fixture(scope="session")
def pack_wheels(tooldeck_wheels: WheelCache) -> dict[str, Path]:
    """Wheels of every pack under ``tests/packs``, by distribution name (built once)."""
    projects = sorted(p for p in PACKS.iterdir() if (p / "pyproject.toml").is_file())
    return {w.name.split("-")[0].replace("_", "-"): w for w in tooldeck_wheels.wheels(*projects)}


class Site(BaseSite):
    """A ``Site`` that installs the test packs by distribution name."""

    def __init__(self, path: Path, home: Path, *, packs: dict[str, Path]) -> None:
        super().__init__(path, home)
        self.packs = packs

    def install(self, *dists: str) -> Site:
        super().install(*(self.packs[d] for d in dists))
        return self

    def plugins(self, cwd: Path | None = None, **env: str) -> dict[str, dict[str, object]]:
        """``tooldeck plugins --json`` of the test packs, by name, in load order."""
        done = self.tooldeck("plugins", "--json", cwd=cwd, **env)
        assert done.returncode == 0, done.stderr
        return {p["name"]: p for p in json.loads(done.stdout) if p["name"].startswith("tdtest")}


def new_site(where: Path, packs: dict[str, Path]) -> Site:
    (where / "site").mkdir()
    (where / "home").mkdir()
    return Site(where / "site", where / "home", packs=packs)


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
def clean_env(tooldeck_env: Path) -> Path:
    """No ``TOOLDECK_*`` variables; user config and data dirs inside ``tmp_path``."""
    return tooldeck_env


@pytest.fixture
def no_builtins(monkeypatch: pytest.MonkeyPatch) -> None:
    """No built-in plugins: the test's catalog is only what it registers itself."""
    monkeypatch.setattr("tooldeck.builtin_plugins.BUILTIN_PLUGINS", ())


@pytest.fixture
def join_threads() -> Callable[..., None]:
    """Join threads, failing the test instead of hanging it if one never ends (a deadlock
    is what the thread tests look for)."""

    def join(*threads: threading.Thread) -> None:
        for thread in threads:
            thread.join(timeout=60)
        stuck = [thread.name for thread in threads if thread.is_alive()]
        assert not stuck, f"threads still running after 60 s: {stuck}"

    return join


@pytest.fixture
def no_gc() -> Iterator[None]:
    """The cycle collector off: only reference counting frees, so what a test sees freed
    was freed at once, not at some later collection."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


# -- a real PostgreSQL server for the store tests -----------------------------------------
@pytest.fixture(scope="session")
def postgres_dsn() -> Iterator[str]:
    """A PostgreSQL server this session starts (``initdb`` + ``postgres``) on a temporary
    directory and a free port, stopped and removed when the session ends.

    Under pytest-xdist each worker that runs a store test starts its own (a second or two
    of ``initdb``): the tests name fixed schemas and roles (``tests/host/store``), which
    one server shared by workers running at once would mix up.
    """
    from .postgres import PostgresServer

    server = PostgresServer(prefix="tooldeck-pg-")
    try:
        server.start()
        yield f"{server.dsn} connect_timeout=5"
    finally:
        server.close()


@pytest.fixture(params=["sqlite", "postgres"])
def store_spec(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a test's store lives, as text a subprocess can open with ``open_store``:
    ``sqlite:<path>`` or ``postgres:<schema>:<dsn>`` (a fresh schema per test)."""
    if request.param == "sqlite":
        return f"sqlite:{tmp_path / 'store.sqlite3'}"
    dsn = request.getfixturevalue("postgres_dsn")
    return f"postgres:t_{uuid.uuid4().hex[:16]}:{dsn}"


def open_store(spec: str) -> Any:
    """The store ``store_spec`` names (also used by the tests' subprocesses)."""
    kind, _, rest = spec.partition(":")
    if kind == "sqlite":
        from tooldeck import SqliteStore

        return SqliteStore(rest)
    from tooldeck import PostgresStore

    schema, _, dsn = rest.partition(":")
    return PostgresStore(dsn, schema=schema)


@pytest.fixture
def store(store_spec: str) -> Iterator[Any]:
    """The same store suite runs on SQLite and on a real PostgreSQL server."""
    opened = open_store(store_spec)
    yield opened
    opened.close()


@pytest.fixture
def reopen(store_spec: str) -> Iterator[Callable[[], Any]]:
    """Open another store object on the same database (as a second process would)."""
    opened: list[Any] = []

    def another() -> Any:
        opened.append(open_store(store_spec))
        return opened[-1]

    yield another
    for each in opened:
        each.close()
