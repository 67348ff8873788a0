"""The user's trust store: which folders they trusted, with what fingerprint.

One JSON file in the user's data dir (``$XDG_DATA_HOME/tooldeck/trust.json``), keyed by
each folder's resolved real path; each entry keeps the fingerprint and the items it
covered, so a folder whose project changed is untrusted again and the report can say
what changed. The store lives with the user, never in the project: a cloned repository
cannot ship its own trust.

Writes are atomic and serialized: a writer takes an exclusive lock on a sibling lock
file, reads the current store, changes it, writes a temporary file in the same
directory, fsyncs it and renames it over the store. Readers never lock: a rename is
atomic, so they see the old or the new file, never a torn one, and concurrent writers
(two terminals trusting two folders) lose nothing.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from tooldeck._public import public
from tooldeck.errors import ConfigError
from tooldeck.host.config.config_files import ConfigSource, config_sources, user_data_dir
from tooldeck.host.config.files import locked, unwritten, write_atomically
from tooldeck.host.trust.items import TrustItem, changes_between, fingerprint
from tooldeck.host.trust.project import TrustStatus, explicit_trust, project_items

STORE_VERSION = 1

Entry = dict[str, Any]


def trust_store_path() -> Path:
    """``$XDG_DATA_HOME/tooldeck/trust.json`` (``~/.local/share/...`` when unset)."""
    return user_data_dir() / "trust.json"


class TrustStore:
    """The trust file at ``path`` (default: ``trust_store_path()``)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else trust_store_path()

    # -- reading ------------------------------------------------------------------------------
    def folders(self) -> dict[str, Entry]:
        """Every trusted folder's entry, by real path. Raises ``ConfigError`` naming the
        file when it is not a trust store (the caller decides whether that is fatal)."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(str(self.path), "trust store", f"cannot be read: {exc}") from exc
        import json  # only with a store to read: most folders have nothing to trust

        try:
            data = json.loads(text)
            folders = data["folders"]
            if data.get("version") != STORE_VERSION or not isinstance(folders, dict):
                raise ValueError(f"expected version {STORE_VERSION} with a folders table")
        except (ValueError, KeyError, TypeError) as exc:
            raise ConfigError(str(self.path), "trust store", f"not one ({exc})") from exc
        return folders

    def entry(self, root: Path) -> Entry | None:
        return self.folders().get(_key(root))

    # -- writing ------------------------------------------------------------------------------
    def grant(self, status: TrustStatus) -> None:
        """Trust ``status.root`` for exactly ``status.items`` (their fingerprint)."""
        entry = {
            "fingerprint": status.fingerprint,
            "trusted_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "items": [item.to_json() for item in status.items],
        }
        self._update(lambda folders: folders.__setitem__(_key(status.root), entry))

    def revoke(self, root: Path) -> bool:
        """Forget the folder at ``root``; ``False`` when it was not trusted."""
        found: list[bool] = []
        self._update(lambda folders: found.append(folders.pop(_key(root), None) is not None))
        return found[0]

    def _update(self, change: Callable[[dict[str, Entry]], object]) -> None:
        """Change the store under its lock; a disk that refuses the write (full, a size
        limit, a file where a folder should be) leaves the old store whole and raises
        ``ConfigError`` naming the store and why."""
        try:
            self._update_locked(change)
        except OSError as exc:
            raise unwritten(self.path, "trust store", exc) from exc

    def _update_locked(self, change: Callable[[dict[str, Entry]], object]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with locked(self.path.with_name(self.path.name + ".lock")):
            try:
                folders = self.folders()
            except ConfigError as exc:  # keep the broken file for the user to inspect
                aside = self.path.with_name(f"{self.path.name}.broken-{int(time.time())}")
                os.replace(self.path, aside)
                import logging  # only for this rare case: most processes never log

                logging.getLogger("tooldeck").warning(
                    "tooldeck: %s; moved it to %s and started a new one", exc, aside
                )
                folders = {}
            change(folders)
            import json  # writers only: opening a folder never writes the store

            data = {"version": STORE_VERSION, "folders": folders}
            write_atomically(self.path, json.dumps(data, indent=1, sort_keys=True))


def _key(root: Path) -> str:
    return os.path.realpath(root)


# -- the decision ------------------------------------------------------------------------------
def evaluate(
    root: Path,
    items: tuple[TrustItem, ...],
    *,
    trust: bool | None = None,
    environ: Mapping[str, str] | None = None,
    store: TrustStore | None = None,
) -> TrustStatus:
    """Decide whether ``items`` of the folder at ``root`` may run.

    In order: ``trust`` (``Host.open(trust=...)``), ``TOOLDECK_TRUST``, nothing to
    trust (trusted), then the store: trusted when it holds this folder with this
    fingerprint. A store entry with another fingerprint lists what changed. An
    unreadable store trusts nothing and says why.
    """
    printed = fingerprint(items)
    explicit = explicit_trust(trust, os.environ if environ is None else environ)
    if explicit is not None:  # first: it also covers plugin files added while open
        return TrustStatus(root, items, printed, explicit[0], explicit[1])
    if not items:
        return TrustStatus(root, items, printed, True, "nothing to trust")
    try:
        entry = (store or TrustStore()).entry(root)
    except ConfigError as exc:
        return TrustStatus(root, items, printed, False, "untrusted", problem=str(exc))
    if entry is None:
        return TrustStatus(root, items, printed, False, "untrusted")
    if entry.get("fingerprint") == printed:
        return TrustStatus(root, items, printed, True, "store")
    before = _stored_items(entry)
    return TrustStatus(root, items, printed, False, "untrusted", changes_between(before, items))


def _stored_items(entry: Entry) -> list[TrustItem]:
    items = []
    for data in entry.get("items", ()):
        with contextlib.suppress(KeyError, TypeError, ValueError):
            items.append(TrustItem.from_json(data))
    return items


# -- the public functions ----------------------------------------------------------------------
@public
def trust_status(path: str | os.PathLike[str] = ".", *, trust: bool | None = None) -> TrustStatus:
    """What the project at ``path`` would run, and whether it may (nothing runs here).

    The same decision ``Host.open(path, trust=trust)`` makes. ``status.describe()`` is the
    text to show a person; on their yes, ``grant_trust(status)``. Raises ``ConfigError``
    for an invalid project config file, like ``Host.open``.
    """
    return inspect_folder(Path(path), trust)[2]


def inspect_folder(
    root: Path, trust: bool | None, environ: Mapping[str, str] | None = None
) -> tuple[ConfigSource | None, ConfigSource | None, TrustStatus]:
    """(user config layer, project config layer, trust decision) of the folder ``root``.

    ``environ``: where ``TOOLDECK_TRUST`` is read (default ``os.environ``; ``{}`` asks
    the store alone, as ``tooldeck trust`` does).
    """
    resolved = root.expanduser().resolve()
    user, project = config_sources(resolved)
    items = project_items(resolved, project.data if project is not None else None)
    return user, project, evaluate(resolved, items, trust=trust, environ=environ)


@public
def grant_trust(status: TrustStatus) -> None:
    """Trust ``status.root`` for exactly what ``status`` describes (its fingerprint).

    Anything the project changes afterwards (a new plugin file, an edited server
    command, a new allow rule) makes the folder untrusted again until granted anew.
    """
    TrustStore().grant(status)


@public
def revoke_trust(path: str | os.PathLike[str] = ".") -> bool:
    """Forget the trust of the folder at ``path``; ``False`` when it was not trusted."""
    return TrustStore().revoke(Path(path).expanduser().resolve())


@public
def trusted_folders() -> dict[str, str]:
    """Every folder in the user's trust store (real path → when it was trusted, UTC)."""
    return {
        path: str(entry.get("trusted_at", ""))
        for path, entry in sorted(TrustStore().folders().items())
    }
