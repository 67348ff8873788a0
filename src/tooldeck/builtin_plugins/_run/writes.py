"""Writing files so that nothing is lost or torn: one writer per file, a recheck, an
atomic replace. ``write``, ``edit`` and ``patch`` share it.

* **One writer per file.** ``writing(location, *targets)`` holds a lock per real path
  of one Location from the read to the write, the ask included, so two calls editing
  one file take turns: the second reads what the first wrote and its diff is true.
  The locks work across threads and event loops (``execute_sync`` runs a private loop
  per call); locks of several files are taken in path order, so patches cannot deadlock.
* **A recheck.** The lock only orders this Location's writers; an editor, another
  process or another Location can still change the file while the user is asked.
  ``Target.replace`` therefore checks, right before writing, that the path still leads
  to the same real file (a symlink swapped while the ask was pending would otherwise
  redirect the write outside the project) and that the file still holds exactly the
  bytes that were read. Either change fails the call, with nothing written.
* **An atomic replace.** New content goes to a temporary file in the same directory,
  is flushed to disk, takes the old file's mode (and owner, when allowed), and is
  renamed over the file: a failure part-way (disk full, a file-size limit) leaves the
  old content whole. The rename replaces the final path component itself and never
  follows it, and reads open it with ``O_NOFOLLOW``. Like any editor that saves this
  way, a hard link to the old file keeps the old content.

What remains is the moment between the recheck and the rename, and directories
swapped above the file: this guards against surprises, not against a hostile tree.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import stat
import threading
import weakref
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tooldeck._tool import ToolFailure
from tooldeck.builtin_plugins._run.files import os_failure, read_regular

if TYPE_CHECKING:
    from tooldeck.builtin_plugins._run.files import FileServices
    from tooldeck.host.location.location import Location
    from tooldeck.host.permissions.permission import PermissionGate


# -- reading -----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Target:
    """A file a tool will write: the lexical ``path`` that asks and messages name, and the
    ``real`` file it led to before anything was asked, which is what is read and replaced."""

    path: Path
    real: Path
    shown: str

    @classmethod
    def of(cls, path: Path, shown: str) -> Target:
        """The target ``path`` leads to now (for a path already resolved and approved)."""
        return cls(path, Path(os.path.realpath(path)), shown)

    @classmethod
    async def resolve(cls, services: FileServices, gate: PermissionGate, raw: str) -> Target:
        """Resolve ``raw`` like ``services.resolve`` (asking ``external_directory`` when it
        leads outside), taking the real file *before* any ask so a swap is caught."""
        real = Path(os.path.realpath(services.lexical(raw)))
        path = await services.resolve(gate, raw, "file")
        return cls(path, real, services.shown(path))

    def read(self, *, verb: str = "read") -> bytes | None:
        """The bytes of the file now, or ``None`` when it does not exist.

        Anything but a regular file is refused before a byte is read (a FIFO would block,
        ``/dev/zero`` never ends), and so is one larger than the file tools load.
        """
        return read_regular(self.real, self.shown, follow=False, verb=verb)

    def check_unchanged(self, expected: bytes | None) -> None:
        """Fail unless the path still leads to ``real`` and it still holds ``expected``."""
        now = Path(os.path.realpath(self.path))
        if now != self.real:
            raise ToolFailure(
                f"{self.shown} changed while waiting for approval: it now leads to {now} "
                f"instead of {self.real}. Nothing was written; check the path and try again."
            )
        if read_regular(self.real, self.shown, follow=False, whole=True) != expected:
            raise ToolFailure(
                f"{self.shown} changed on disk after it was read (another program or tool "
                "call wrote it). Nothing was written: read it again and redo the change."
            )

    def replace(self, expected: bytes | None, data: bytes) -> None:
        """``check_unchanged``, then atomically replace the file's content with ``data``."""
        self.check_unchanged(expected)
        try:
            stage(self.real, data, self.shown, like=self.real).commit()
        except OSError as exc:
            raise os_failure(exc, self.shown, "write") from exc


# -- writing -----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Staged:
    """New content flushed to a temporary file next to ``real``, ready to be renamed."""

    real: Path
    temp: Path
    shown: str

    def commit(self) -> None:
        """Rename the temporary file over ``real`` (atomic on one file system).

        Raises ``OSError`` (the temporary file removed): the caller knows what else it
        has done and says so.
        """
        try:
            os.replace(self.temp, self.real)
        except OSError:
            self.discard()
            raise
        _sync_directory(self.real.parent)

    def discard(self) -> None:
        with contextlib.suppress(OSError):
            os.unlink(self.temp)


def stage(real: Path, data: bytes, shown: str, *, like: Path | None) -> Staged:
    """Write ``data`` to a new temporary file beside ``real`` and flush it to disk.

    It takes the mode and owner of ``like`` when that exists (the file it replaces, or a
    moved file's source); a new file gets the default mode. Parents are created. On any
    failure the temporary file is gone and the ``ToolFailure`` says what went wrong.
    """
    try:
        real.parent.mkdir(parents=True, exist_ok=True)
        old = _stat(like)
        fd, temp = _create_temp(real, 0o600 if old is not None else 0o666)
    except OSError as exc:
        raise os_failure(exc, shown, "write") from exc
    try:
        with open(fd, "wb") as file:
            if old is not None:
                _copy_owner_and_mode(fd, old)
            file.write(data)
            file.flush()
            os.fsync(fd)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise os_failure(exc, shown, "write") from exc
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    return Staged(real, temp, shown)


def _stat(path: Path | None) -> os.stat_result | None:
    if path is None:
        return None
    try:
        info = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return None
    return info if stat.S_ISREG(info.st_mode) else None


def _create_temp(real: Path, mode: int) -> tuple[int, Path]:
    """A new file ``.<name>.<random>.tmp`` beside ``real``, created exclusively."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC
    while True:
        temp = real.with_name(f".{real.name[:200]}.{secrets.token_hex(4)}.tmp")
        try:
            return os.open(temp, flags, mode), temp
        except FileExistsError:
            continue


def _copy_owner_and_mode(fd: int, old: os.stat_result) -> None:
    """The replaced file's owner (best effort: only root may give a file away) and mode."""
    if hasattr(os, "fchown"):
        with contextlib.suppress(OSError):
            os.fchown(fd, old.st_uid, old.st_gid)
    os.fchmod(fd, stat.S_IMODE(old.st_mode))


def _sync_directory(directory: Path) -> None:
    """Make the rename itself durable; some file systems cannot, which is not an error."""
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


# -- one writer per file -----------------------------------------------------------------------
class _PathLocks:
    """The write locks of one Location's files, keyed by real path.

    A lock exists while someone holds or awaits it. Waiters are futures of any event
    loop; a release wakes them all and each tries again, so a waiter that was cancelled
    never strands the lock.
    """

    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._held: set[Path] = set()
        self._users: dict[Path, int] = {}
        self._waiters: dict[Path, list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]]] = {}

    @contextlib.asynccontextmanager
    async def hold(self, reals: Iterable[Path]) -> AsyncIterator[None]:
        paths = sorted(set(reals))
        with self._guard:
            for path in paths:
                self._users[path] = self._users.get(path, 0) + 1
        acquired: list[Path] = []
        try:
            for path in paths:
                await self._acquire(path)
                acquired.append(path)
            yield
        finally:
            for path in reversed(acquired):
                self._release(path)
            with self._guard:
                for path in paths:
                    self._users[path] -= 1
                    if not self._users[path]:
                        del self._users[path]

    async def _acquire(self, path: Path) -> None:
        loop = asyncio.get_running_loop()
        while True:
            with self._guard:
                if path not in self._held:
                    self._held.add(path)
                    return
                waiter = (loop, loop.create_future())
                self._waiters.setdefault(path, []).append(waiter)
            try:
                await waiter[1]
            finally:
                with self._guard:
                    waiting = self._waiters.get(path, [])
                    if waiter in waiting:
                        waiting.remove(waiter)

    def _release(self, path: Path) -> None:
        with self._guard:
            self._held.discard(path)
            waiters = self._waiters.pop(path, [])
        for loop, future in waiters:
            with contextlib.suppress(RuntimeError):  # that loop closed: its waiter is gone
                loop.call_soon_threadsafe(_wake, future)


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


_locks: weakref.WeakKeyDictionary[Location, _PathLocks] = weakref.WeakKeyDictionary()
_locks_guard = threading.Lock()


def writing(location: Location, *targets: Target) -> contextlib.AbstractAsyncContextManager[None]:
    """Hold the write locks of the ``targets``' real files in ``location`` for a block."""
    with _locks_guard:
        locks = _locks.get(location)
        if locks is None:
            locks = _locks[location] = _PathLocks()
    return locks.hold(target.real for target in targets)
