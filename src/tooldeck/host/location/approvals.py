"""The "always" replies of one Location: ``<data_dir>/permissions.json``, shared safely
by every process on the Location (the layer ``permission.py`` puts above the policy)."""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import tempfile
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path

from tooldeck.errors import ConfigError
from tooldeck.host.location.config import PermissionRule
from tooldeck.host.location.wildcard import Ruleset

_log = logging.getLogger(__name__)


class Approvals:
    """The "always" replies of one Location, persisted as JSON in its data dir.

    Saving re-reads the file and merges, under an exclusive lock on a sidecar file
    (``permissions.json.lock``), then replaces the file atomically: two processes on one
    Location (a CLI and an MCP server) keep each other's approvals, and readers see the
    old file or the new one, never half of it. A write that fails keeps the approval for
    this process and logs a warning: the user said yes, the call should not fail.

    A file that is not valid approvals JSON (empty, truncated, edited by hand) must not
    stop every tool: it is moved aside to ``permissions.json.corrupt``, a warning names
    both files, and the Location carries on with its configured rules (asks that the
    lost approvals answered come back).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file_lock = path.with_name(path.name + ".lock")
        self._lock = threading.Lock()
        self.rules = Ruleset(self._load())

    def _load(self) -> tuple[PermissionRule, ...]:
        """An unreadable file only costs extra asks; a corrupt one is set aside.

        Setting aside happens under the file lock after reading again, so a good file
        another process just wrote is never mistaken for the corrupt one it replaced.
        """
        try:
            try:
                return self._read()
            except ConfigError:
                with _exclusive(self._file_lock):
                    return self._read_or_set_aside()
        except OSError as exc:
            _log.warning("could not read permission approvals from %s: %s", self.path, exc)
            return ()

    def add(self, new: Iterable[PermissionRule]) -> None:
        with self._lock:
            mine = (*self.rules.rules, *new)
            try:
                with _exclusive(self._file_lock):
                    merged = _unique((*self._read_or_set_aside(), *mine))
                    self._write(merged)
            except OSError as exc:
                _log.warning("could not save permission approvals to %s: %s", self.path, exc)
                merged = _unique(mine)
            self.rules = Ruleset(merged)

    def _read_or_set_aside(self) -> tuple[PermissionRule, ...]:
        """The saved rules; only call it holding the file lock."""
        try:
            return self._read()
        except ConfigError as exc:
            self._set_aside(exc)
            return ()

    def _read(self) -> tuple[PermissionRule, ...]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            return tuple(PermissionRule.model_validate(item) for item in data["rules"])
        except FileNotFoundError:
            return ()
        except (ValueError, KeyError, TypeError) as exc:
            expected = 'expected {"rules": [{"action", "resource", "effect"}, ...]}'
            raise ConfigError(str(self.path), "rules", f"{expected}: {exc}") from exc

    def _set_aside(self, problem: ConfigError) -> None:
        aside = self.path.with_name(self.path.name + ".corrupt")
        try:
            os.replace(self.path, aside)
        except FileNotFoundError:
            return  # another process set it aside first, and said so
        except OSError as exc:
            _log.warning(
                "permission approvals in %s are not valid and could not be moved aside "
                "(%s); they are ignored. %s",
                self.path,
                exc,
                problem,
            )
            return
        _log.warning(
            "permission approvals in %s were not valid and are ignored; the file was moved "
            "to %s. Tools keep working on the configured rules, and earlier 'always' "
            "answers will be asked again. %s",
            self.path,
            aside,
            problem,
        )

    def _write(self, rules: tuple[PermissionRule, ...]) -> None:
        """Atomic: readers see the old file or the new one, never half of it."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"rules": [rule.model_dump() for rule in rules]}, indent=2)
        fd, temp = tempfile.mkstemp(dir=self.path.parent, prefix=".permissions-")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as file:
                file.write(text + "\n")
                file.flush()
                os.fsync(file.fileno())
            os.replace(temp, self.path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise


@contextlib.contextmanager
def _exclusive(lock_path: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``lock_path`` (created if needed) for a block.

    The lock is on a sidecar, not on ``permissions.json`` itself, because that file is
    replaced by a rename: a lock on it would guard a file that is no longer there.
    """
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _unique(rules: Iterable[PermissionRule]) -> tuple[PermissionRule, ...]:
    return tuple(dict.fromkeys(rules))
