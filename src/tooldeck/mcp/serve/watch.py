"""Keep a served catalog live: notice config and Location-plugin changes, and tell clients.

Polling, twice a second, because it needs nothing installed and sees what file events
miss on some systems: ``.tooldeck/plugins/`` created after the server started, a file
replaced by an editor's rename. A changed config file opens a new host (rules, servers,
plugins may all differ) and closes the old one; a changed plugin folder refreshes the
plugins. Whatever changed the catalog (a mounted server's list included), the server is
given the snapshots before and after, and tells its clients what differs (tools,
resources, prompts, subscribed resources).
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TypeGuard

import anyio

from tooldeck.errors import TooldeckError
from tooldeck.host.config.config_files import (
    PROJECT_FILE,
    PYPROJECT_FILE,
    user_config_path,
)
from tooldeck.host.config.paths import LOCAL_PLUGIN_DIR
from tooldeck.host.trust.store import trust_store_path

if TYPE_CHECKING:
    from tooldeck import Host, Snapshot

Changed = Callable[["Snapshot", "Snapshot"], Awaitable[None]]

POLL_S = 0.5

Stamp = tuple[tuple[str, int, int], ...]


class Stamps(NamedTuple):
    """What the files that shape a Location's catalog look like right now."""

    config: Stamp
    plugins: Stamp

    @classmethod
    def of(cls, root: Path) -> Stamps:
        # the trust store too: trusting (or revoking) the folder reopens it
        files = [root / PROJECT_FILE, root / PYPROJECT_FILE, user_config_path(), trust_store_path()]
        folder = root / LOCAL_PLUGIN_DIR
        plugins = sorted(folder.glob("*.py")) if folder.is_dir() else []
        return cls(_stamp(files), _stamp(plugins))


def _stamp(paths: list[Path]) -> Stamp:
    found = []
    for path in paths:
        try:
            info = os.stat(path)
        except OSError:
            continue
        found.append((str(path), info.st_mtime_ns, info.st_size))
    return tuple(found)


class Serving:
    """The host being served, ``host``; replaced as a whole when the config changes.

    The server and the client sessions read ``host`` on every request: a plain attribute,
    so a new host is seen by the next request, and nothing is called to find it.
    """

    def __init__(self, open_host: Callable[[], Host]) -> None:
        self._open = open_host
        self.host = open_host()
        self._each: list[Callable[[Host], object]] = []

    def each_host(self, opened: Callable[[Host], object]) -> None:
        """Call ``opened(host)`` for the host served now and for every one opened later."""
        self._each.append(opened)
        opened(self.host)

    async def reopen(self) -> None:
        """A new host from the changed config; the old one closes (its servers end).

        A config that does not open (being edited, or broken) is reported and the last
        good host keeps serving; the next change of the files tries again. An ``OSError``
        (no descriptors left to read it) propagates: the watcher retries at its next tick.
        """
        try:
            host = await anyio.to_thread.run_sync(self._open)
        except TooldeckError as exc:
            if _out_of_descriptors(exc.__cause__):
                raise exc.__cause__ from exc  # not the file's fault: try again
            _report(f"config change not applied, still serving the last good config: {exc}")
            return
        for opened in self._each:
            opened(host)
        old, self.host = self.host, host
        await anyio.to_thread.run_sync(old.close)

    async def refresh(self) -> None:
        await anyio.to_thread.run_sync(self.host.refresh_plugins)


async def watch(serving: Serving, changed: Changed, root: Path) -> None:
    """Poll forever: apply file changes, and call ``changed(before, after)`` (the server's,
    which notifies its clients) when the Location's snapshot changed.

    A poll that fails for want of descriptors (``EMFILE``: a flood of connections) is
    reported once and retried at the next tick; the watcher never ends the server.
    """
    stamps = Stamps.of(root)
    listed = serving.host.snapshot()
    failing = False
    while True:
        await anyio.sleep(POLL_S)
        try:
            now = Stamps.of(root)
            if now.config != stamps.config:
                await serving.reopen()
            elif now.plugins != stamps.plugins:
                await serving.refresh()
            stamps = now
            current = serving.host.snapshot()
        except (OSError, TooldeckError) as exc:
            if not failing:
                _report(f"watching the Location failed, retrying: {exc}")
            failing = True
            continue
        failing = False
        if current is not listed:
            before, listed = listed, current
            await changed(before, current)


def _out_of_descriptors(exc: BaseException | None) -> TypeGuard[OSError]:
    return isinstance(exc, OSError) and exc.errno in (errno.EMFILE, errno.ENFILE)


def _report(message: str) -> None:
    """One line on stderr, where ``tooldeck mcp serve`` says everything it has to say."""
    print(f"tooldeck: {message}", file=sys.stderr, flush=True)
