"""The one-time move of ``<data_dir>/permissions.json`` (the approvals file of earlier
versions) into a store, read so that no file at that path can stall or crash a host.

The Location's own SQLite store takes the file in when it opens: both are this
machine's. A shared store never does by itself (``not_migrated`` only says the file is
there): the file holds one machine's answers, and copying them into the store every
replica reads is the operator's decision, ``tooldeck approvals migrate``
(``migrate_legacy`` on that store).

The path is checked before it is read: anything but a regular file (a FIFO, a socket, a
device, a directory) is left alone with one warning; a FIFO opened for reading would
otherwise block until a writer appears. The file is opened ``O_NONBLOCK`` and checked
again on the open descriptor, so a swap between the check and the open cannot block
either. Text that is not approvals JSON, including JSON nested too deeply for the
parser, is corrupt: it is moved aside to ``permissions.json.corrupt`` with a warning and
the Location carries on with its configured rules.
"""

from __future__ import annotations

import json
import logging
import os
import stat
from pathlib import Path

from tooldeck.errors import ConfigError
from tooldeck.host.config.config import PermissionRule
from tooldeck.host.store.base import Store

_log = logging.getLogger("tooldeck.host.store")

LEGACY_NAME = "permissions.json"
BACKUP_SUFFIX = ".migrated"
MAX_LEGACY_BYTES = 16 << 20
"""Far above any real approvals file; a larger one is not read into memory."""


def migrate_legacy(store: Store, data_dir: Path) -> tuple[PermissionRule, ...] | None:
    """Copy the approvals of ``permissions.json`` into ``store`` once, then rename the
    file to ``permissions.json.migrated`` (the backup); the rules copied, ``None`` when
    there was no file to read. A crash between the copy and the rename only copies
    again next time, and adding an approval twice keeps one."""
    path = data_dir / LEGACY_NAME
    try:
        rules = read_legacy(path)
    except ConfigError as exc:
        _set_aside(path, exc)
        return None
    except OSError as exc:
        _log.warning("could not read permission approvals from %s: %s", path, exc)
        return None
    if rules is None:
        return None
    store.add_approvals(rules)
    try:
        os.replace(path, path.with_name(LEGACY_NAME + BACKUP_SUFFIX))
    except FileNotFoundError:
        pass  # another process migrated it at the same moment
    except OSError as exc:
        _log.warning("approvals of %s were copied to the store but the file stays: %s", path, exc)
    return rules


def not_migrated(store: Store, data_dir: Path) -> None:
    """Say once, when a shared ``store`` opens, that this machine's ``permissions.json``
    was left out of it and how to move it in."""
    path = data_dir / LEGACY_NAME
    if os.path.lexists(path):
        _log.warning(
            "%s holds approvals saved on this machine by an earlier version; they are not "
            "copied into the shared store %r by themselves. To share them with every host "
            "of the store, run: tooldeck approvals migrate",
            path,
            store,
        )


def read_legacy(path: Path) -> tuple[PermissionRule, ...] | None:
    """The rules in ``path``; ``None`` when there is no regular file to read.

    Raises ``ConfigError`` for text that is not approvals JSON, ``OSError`` when the
    file cannot be read.
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return None
    if not stat.S_ISREG(mode):
        _log.warning(
            "%s is not a regular file (%s); it is left alone and its approvals, if any, "
            "are not loaded",
            path,
            _kind(mode),
        )
        return None
    text = _read_regular(path)
    if text is None:
        return None
    return _parse(path, text)


def _read_regular(path: Path) -> str | None:
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(file.fileno())
        if not stat.S_ISREG(info.st_mode):
            return None  # swapped for something else since the check: leave it
        if info.st_size > MAX_LEGACY_BYTES:
            raise ConfigError(str(path), "rules", f"{info.st_size} bytes is not an approvals file")
        return file.read(MAX_LEGACY_BYTES + 1).decode("utf-8", "replace")


def _parse(path: Path, text: str) -> tuple[PermissionRule, ...]:
    expected = 'expected {"rules": [{"action", "resource", "effect"}, ...]}'
    try:
        data = json.loads(text)
        return tuple(PermissionRule.model_validate(item) for item in data["rules"])
    except RecursionError:
        raise ConfigError(str(path), "rules", f"{expected}: JSON nested too deeply") from None
    except (ValueError, KeyError, TypeError) as exc:
        raise ConfigError(str(path), "rules", f"{expected}: {exc}") from exc


def _set_aside(path: Path, problem: ConfigError) -> None:
    aside = path.with_name(path.name + ".corrupt")
    try:
        os.replace(path, aside)
    except FileNotFoundError:
        return  # another process set it aside first, and said so
    except OSError as exc:
        _log.warning(
            "permission approvals in %s are not valid and could not be moved aside (%s); "
            "they are ignored. %s",
            path,
            exc,
            problem,
        )
        return
    _log.warning(
        "permission approvals in %s were not valid and are ignored; the file was moved to "
        "%s. Tools keep working on the configured rules, and earlier 'always' answers will "
        "be asked again. %s",
        path,
        aside,
        problem,
    )


def _kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "not a regular file"
