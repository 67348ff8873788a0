"""``SqliteStore``: the default store, one SQLite database in the Location's data dir.

WAL mode lets readers run beside a writer; every change is one ``BEGIN IMMEDIATE``
transaction, so two processes approving at once both land (no read-merge-write of a
file, no file lock). A database SQLite cannot open or that fails its quick check is
set aside as ``<name>.corrupt`` with one warning and a new one is created: losing saved
approvals and pending calls costs asks, never the host. A disk failing under a database
(full, read-only, I/O errors) is not a broken database: it raises ``StoreUnavailable``
naming the file and leaves it in place. Setting aside happens under an
exclusive lock on a sidecar file, after checking again, so a healthy database another
process just created is never taken for the broken one it replaced.

The connection is shared by the threads of a process under a lock, and no operation
waits for that lock longer than SQLite waits for another process (``BUSY_TIMEOUT_MS``):
a database on a disk that stopped answering (a dead network mount) holds the thread
that met it, and every later operation raises ``StoreUnavailable`` after the bound
instead of queueing behind it.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
import weakref
from collections.abc import Iterable, Iterator
from pathlib import Path

from tooldeck._public import public
from tooldeck.errors import StoreUnavailable
from tooldeck.host.config.config import PermissionRule
from tooldeck.host.config.files import locked
from tooldeck.host.store.base import (
    PENDING_COLUMNS,
    PendingChange,
    PendingEntry,
    PendingState,
    pending_row,
    rule_key,
    transition_row,
)

_log = logging.getLogger("tooldeck.host.store")

DATABASE_NAME = "tooldeck.sqlite3"
BUSY_TIMEOUT_MS = 10_000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS approvals (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    action TEXT NOT NULL, resource TEXT NOT NULL, effect TEXT NOT NULL,
    UNIQUE (action, resource, effect)
);
CREATE TABLE IF NOT EXISTS principal_approvals (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, principal TEXT NOT NULL,
    action TEXT NOT NULL, resource TEXT NOT NULL, effect TEXT NOT NULL,
    UNIQUE (principal, action, resource, effect)
);
CREATE TABLE IF NOT EXISTS pending (
    id TEXT PRIMARY KEY, session_id TEXT NOT NULL,
    created_at REAL NOT NULL, expires_at REAL NOT NULL, data TEXT NOT NULL,
    state TEXT NOT NULL, owner TEXT NOT NULL, lease_until REAL NOT NULL,
    reply TEXT, outcome TEXT
);
CREATE INDEX IF NOT EXISTS pending_open ON pending (state, session_id, created_at);
"""


@public
class SqliteStore:
    """A ``Store`` in one SQLite file (``<data_dir>/tooldeck.sqlite3`` by default).

    One connection per store, shared by threads under a lock; each method is one
    transaction. Safe across processes: SQLite's own locking orders the writers.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._db = _open(self.path)
        # A Location dropped without ``close()`` still closes its database when the store
        # is collected (an unclosed connection is a ResourceWarning from Python 3.13 on).
        self._closer = weakref.finalize(self, self._db.close)

    @classmethod
    def in_dir(cls, data_dir: Path) -> SqliteStore:
        """The store of one Location's data dir."""
        return cls(data_dir / DATABASE_NAME)

    def approvals(self, principal: str | None = None) -> tuple[PermissionRule, ...]:
        with self._locked():
            if principal is None:
                rows = self._db.execute(
                    "SELECT action, resource, effect FROM approvals ORDER BY seq"
                ).fetchall()
            else:
                rows = self._db.execute(
                    "SELECT action, resource, effect FROM principal_approvals "
                    "WHERE principal = ? ORDER BY seq",
                    (principal,),
                ).fetchall()
        return tuple(PermissionRule(action=a, resource=r, effect=e) for a, r, e in rows)

    def add_approvals(
        self, rules: Iterable[PermissionRule], principal: str | None = None
    ) -> tuple[PermissionRule, ...]:
        with self._transaction() as db:
            if principal is None:
                db.executemany(
                    "INSERT OR IGNORE INTO approvals (action, resource, effect) VALUES (?, ?, ?)",
                    [rule_key(rule) for rule in rules],
                )
            else:
                db.executemany(
                    "INSERT OR IGNORE INTO principal_approvals "
                    "(principal, action, resource, effect) VALUES (?, ?, ?, ?)",
                    [(principal, *rule_key(rule)) for rule in rules],
                )
        return self.approvals(principal)

    def add_pending(self, entry: PendingEntry) -> None:
        with self._transaction() as db:
            db.execute(
                f"INSERT INTO pending ({PENDING_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?)",
                pending_row(entry),
            )

    def get_pending(self, pending_id: str) -> PendingEntry | None:
        with self._locked():
            row = self._db.execute(
                f"SELECT {PENDING_COLUMNS} FROM pending WHERE id = ?", (pending_id,)
            ).fetchone()
        return PendingEntry(*row) if row is not None else None

    def list_pending(self, session_id: str | None = None) -> tuple[PendingEntry, ...]:
        query = f"SELECT {PENDING_COLUMNS} FROM pending WHERE state = 'open'"
        args: tuple[str, ...] = ()
        if session_id is not None:
            query += " AND session_id = ?"
            args = (session_id,)
        with self._locked():
            rows = self._db.execute(query + " ORDER BY created_at, id", args).fetchall()
        return tuple(PendingEntry(*row) for row in rows)

    def transition(
        self, pending_id: str, expect: PendingState, owner: str, change: PendingChange
    ) -> bool:
        with self._transaction() as db:
            cursor = db.execute(
                "UPDATE pending SET state = ?, owner = ?, lease_until = ?, "
                "reply = COALESCE(?, reply), outcome = COALESCE(?, outcome) "
                "WHERE id = ? AND state = ? AND owner = ?",
                transition_row(pending_id, expect, owner, change),
            )
            return cursor.rowcount == 1

    def close(self) -> None:
        with self._locked():
            self._closer()

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """Hold the connection's lock, waiting at most ``BUSY_TIMEOUT_MS`` for it."""
        if not self._lock.acquire(timeout=BUSY_TIMEOUT_MS / 1000):
            raise StoreUnavailable(
                f"{self!r}: an earlier operation has held the database for over "
                f"{BUSY_TIMEOUT_MS / 1000:g} s (a disk that stopped answering?); try again later"
            )
        try:
            yield
        finally:
            self._lock.release()

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE``: take the write lock first, so the transaction never has to
        upgrade a read lock (which SQLite would refuse with ``SQLITE_BUSY``)."""
        with self._locked():
            db = self._db
            try:
                db.execute("BEGIN IMMEDIATE")
                try:
                    yield db
                    db.execute("COMMIT")
                finally:
                    if db.in_transaction:  # failed, or a COMMIT SQLite did not undo
                        db.execute("ROLLBACK")
            except sqlite3.DatabaseError as exc:
                _refuse_on_disk_trouble(self.path, exc, "cannot be written")
                raise

    def __repr__(self) -> str:
        return f"SqliteStore({str(self.path)!r})"


def _open(path: Path) -> sqlite3.Connection:
    """Open (creating) the database; a broken one is set aside and replaced, once."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        return _connect(path)
    except sqlite3.DatabaseError as exc:
        if _busy(exc):
            raise
        _refuse_on_disk_trouble(path, exc)
        with locked(path.with_name(path.name + ".lock")):
            try:
                return _connect(path)  # another process may have replaced it already
            except sqlite3.DatabaseError as exc:
                if _busy(exc):
                    raise
                _refuse_on_disk_trouble(path, exc)
                _set_aside(path, exc)
                return _connect(path)


def _busy(exc: sqlite3.DatabaseError) -> bool:
    """Whether another connection holds the database locked: it is healthy, only busy,
    so it is reported, never set aside."""
    code = getattr(exc, "sqlite_errorcode", 0) & 0xFF
    return code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


# The disk failing under the file (full, a file-size limit, read-only, I/O errors): the
# database itself may be whole, so it is reported and left in place, never set aside.
_DISK_TROUBLE = frozenset(
    (
        sqlite3.SQLITE_PERM,
        sqlite3.SQLITE_READONLY,
        sqlite3.SQLITE_IOERR,
        sqlite3.SQLITE_FULL,
        sqlite3.SQLITE_CANTOPEN,
        sqlite3.SQLITE_NOLFS,
    )
)


def _refuse_on_disk_trouble(
    path: Path, exc: sqlite3.DatabaseError, failed: str = "cannot be opened"
) -> None:
    """Raise ``StoreUnavailable`` naming ``path`` when ``exc`` is the disk's, not the file's."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is None or code & 0xFF not in _DISK_TROUBLE:
        return
    name = getattr(exc, "sqlite_errorname", "")
    raise StoreUnavailable(
        f"the tooldeck database {path} {failed}: {exc} ({name}); the disk under it is "
        "full, read-only or failing. The database was left as it was: free space or fix "
        "the disk, then try again"
    ) from exc


def _connect(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(
        path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
    )
    try:
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = FULL")  # a recorded outcome survives a crash
        (check,) = db.execute("PRAGMA quick_check").fetchone()
        if check != "ok":
            raise sqlite3.DatabaseError(f"quick_check: {check}")
        db.executescript(_SCHEMA)
    except BaseException:
        db.close()
        raise
    return db


def _set_aside(path: Path, problem: sqlite3.DatabaseError) -> None:
    aside = path.with_name(path.name + ".corrupt")
    for suffix in ("-wal", "-shm"):  # the journal belongs to the broken file
        with contextlib.suppress(FileNotFoundError):
            os.replace(path.with_name(path.name + suffix), aside.with_name(aside.name + suffix))
    os.replace(path, aside)
    _log.warning(
        "the tooldeck database %s could not be used (%s); it was moved to %s and a new one "
        "was created. Saved 'always' answers will be asked again and pending calls in it "
        "cannot be resumed.",
        path,
        problem,
        aside,
    )
