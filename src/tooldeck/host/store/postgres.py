"""``PostgresStore``: one store shared by several hosts, in a PostgreSQL database.

Install ``tooldeck[postgres]`` (psycopg 3) and pass ``store=PostgresStore(conninfo)`` to
``Host.open``. Tables live in one schema (``tooldeck`` unless named), so several
deployments can share a database. The behaviour is ``SqliteStore``'s: every method is
one transaction and ``transition`` is a single conditional ``UPDATE``, which PostgreSQL
applies atomically under its row lock.

**A dropped connection** (the server restarted, a proxy or ``pg_terminate_backend``
closed it) is replaced on the next operation. An operation that meets the drop itself is
retried once on a new connection when running it twice is harmless (reading, and
``add_approvals``, which ignores rows already there); ``add_pending`` and ``transition``
raise ``ExternalError`` instead, since the server may have applied them before the
connection went. A server that cannot be reached again raises ``ExternalError`` naming
it, and the operation after that tries again.
"""

from __future__ import annotations

import re
import threading
import weakref
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from tooldeck._public import public
from tooldeck.errors import ExternalError, UsageError
from tooldeck.host.config.config import PermissionRule
from tooldeck.host.store.base import (
    PENDING_COLUMNS,
    PendingChange,
    PendingEntry,
    PendingState,
    pending_row,
    rule_key,
    transition_row,
)

_SCHEMA_LOCK = 0x746F6F6C  # one advisory lock id: creating tables concurrently races

_T = TypeVar("_T")


@public
class PostgresStore:
    """A ``Store`` in PostgreSQL. ``conninfo`` is a libpq connection string or URL."""

    def __init__(self, conninfo: str, *, schema: str = "tooldeck") -> None:
        if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", schema):
            raise ValueError(
                f"schema {schema!r} must be a lowercase SQL identifier "
                "(letters, digits, underscores; at most 63 characters)"
            )
        try:
            import psycopg
        except ImportError as exc:
            raise UsageError(
                "PostgresStore needs psycopg 3: pip install 'tooldeck[postgres]'"
            ) from exc
        self.schema = schema
        self._conninfo = conninfo
        self._lock = threading.Lock()
        self._closed = False
        self._db: Any = psycopg.connect(conninfo, autocommit=False)
        self._closer = weakref.finalize(self, self._db.close)  # closed even if dropped
        self._run(self._create, retry=True)

    def _create(self, db: Any) -> None:
        s = self.schema
        db.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
        db.execute(f"CREATE SCHEMA IF NOT EXISTS {s}")
        db.execute(
            f"CREATE TABLE IF NOT EXISTS {s}.approvals ("
            "seq BIGSERIAL PRIMARY KEY, action TEXT NOT NULL, resource TEXT NOT NULL, "
            "effect TEXT NOT NULL, UNIQUE (action, resource, effect))"
        )
        db.execute(
            f"CREATE TABLE IF NOT EXISTS {s}.principal_approvals ("
            "seq BIGSERIAL PRIMARY KEY, principal TEXT NOT NULL, action TEXT NOT NULL, "
            "resource TEXT NOT NULL, effect TEXT NOT NULL, "
            "UNIQUE (principal, action, resource, effect))"
        )
        db.execute(
            f"CREATE TABLE IF NOT EXISTS {s}.pending ("
            "id TEXT PRIMARY KEY, session_id TEXT NOT NULL, "
            "created_at DOUBLE PRECISION NOT NULL, expires_at DOUBLE PRECISION NOT NULL, "
            "data TEXT NOT NULL, state TEXT NOT NULL, owner TEXT NOT NULL, "
            "lease_until DOUBLE PRECISION NOT NULL, reply TEXT, outcome TEXT)"
        )

    def approvals(self, principal: str | None = None) -> tuple[PermissionRule, ...]:
        if principal is None:
            rows = self._fetch(
                f"SELECT action, resource, effect FROM {self.schema}.approvals ORDER BY seq"
            )
        else:
            rows = self._fetch(
                f"SELECT action, resource, effect FROM {self.schema}.principal_approvals "
                "WHERE principal = %s ORDER BY seq",
                (principal,),
            )
        return tuple(PermissionRule(action=a, resource=r, effect=e) for a, r, e in rows)

    def add_approvals(
        self, rules: Iterable[PermissionRule], principal: str | None = None
    ) -> tuple[PermissionRule, ...]:
        keys = [rule_key(rule) for rule in rules]

        def insert(db: Any) -> None:
            with db.cursor() as cursor:
                if principal is None:
                    cursor.executemany(
                        f"INSERT INTO {self.schema}.approvals (action, resource, effect) "
                        "VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                        keys,
                    )
                else:
                    cursor.executemany(
                        f"INSERT INTO {self.schema}.principal_approvals "
                        "(principal, action, resource, effect) "
                        "VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING",
                        [(principal, *key) for key in keys],
                    )

        self._run(insert, retry=True)  # rows already there are ignored: safe to repeat
        return self.approvals(principal)

    def add_pending(self, entry: PendingEntry) -> None:
        self._run(
            lambda db: db.execute(
                f"INSERT INTO {self.schema}.pending ({PENDING_COLUMNS}) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                pending_row(entry),
            ),
            retry=False,
        )

    def get_pending(self, pending_id: str) -> PendingEntry | None:
        rows = self._fetch(
            f"SELECT {PENDING_COLUMNS} FROM {self.schema}.pending WHERE id = %s", (pending_id,)
        )
        return PendingEntry(*rows[0]) if rows else None

    def list_pending(self, session_id: str | None = None) -> tuple[PendingEntry, ...]:
        query = f"SELECT {PENDING_COLUMNS} FROM {self.schema}.pending WHERE state = 'open'"
        args: tuple[str, ...] = ()
        if session_id is not None:
            query += " AND session_id = %s"
            args = (session_id,)
        rows = self._fetch(query + " ORDER BY created_at, id", args)
        return tuple(PendingEntry(*row) for row in rows)

    def transition(
        self, pending_id: str, expect: PendingState, owner: str, change: PendingChange
    ) -> bool:
        def update(db: Any) -> bool:
            cursor = db.execute(
                f"UPDATE {self.schema}.pending SET state = %s, owner = %s, lease_until = %s, "
                "reply = COALESCE(%s, reply), outcome = COALESCE(%s, outcome) "
                "WHERE id = %s AND state = %s AND owner = %s",
                transition_row(pending_id, expect, owner, change),
            )
            return bool(cursor.rowcount == 1)

        return self._run(update, retry=False)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._closer()

    def _fetch(self, query: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        return self._run(lambda db: db.execute(query, args).fetchall(), retry=True)

    def _run(self, work: Callable[[Any], _T], *, retry: bool) -> _T:
        """``work(connection)`` in one transaction, on a live connection (module docstring:
        a dropped one is replaced; ``retry`` says whether running ``work`` twice is safe)."""
        import psycopg

        with self._lock:
            if self._db.broken and not self._closed:
                self._reconnect()
            try:
                with self._db.transaction():
                    return work(self._db)
            except psycopg.OperationalError as exc:
                if not self._db.broken or self._closed:
                    raise
                if not retry:
                    raise ExternalError(
                        f"{self!r} lost its connection to PostgreSQL during this write, which "
                        f"may or may not have been applied: {exc}. The next operation "
                        "reconnects."
                    ) from exc
                self._reconnect()
                with self._db.transaction():
                    return work(self._db)

    def _reconnect(self) -> None:
        import psycopg

        try:
            fresh = psycopg.connect(self._conninfo, autocommit=False)
        except psycopg.OperationalError as exc:
            raise ExternalError(
                f"{self!r} lost its connection to PostgreSQL and could not reconnect: "
                f"{exc}. The next operation tries again."
            ) from exc
        self._closer()  # the broken connection's socket
        self._db = fresh
        self._closer = weakref.finalize(self, fresh.close)

    def __repr__(self) -> str:
        return f"PostgresStore(schema={self.schema!r})"
