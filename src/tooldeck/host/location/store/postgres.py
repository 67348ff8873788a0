"""``PostgresStore``: one store shared by several hosts, in a PostgreSQL database.

Install ``tooldeck[postgres]`` (psycopg 3) and pass ``store=PostgresStore(conninfo)`` to
``Host.open``. Tables live in one schema (``tooldeck`` unless named), so several
deployments can share a database. The behaviour is ``SqliteStore``'s: every method is
one transaction and ``transition`` is a single conditional ``UPDATE``, which PostgreSQL
applies atomically under its row lock.
"""

from __future__ import annotations

import re
import threading
import weakref
from collections.abc import Iterable
from typing import Any

from tooldeck.errors import UsageError
from tooldeck.host.location.config import PermissionRule
from tooldeck.host.location.store.base import (
    PENDING_COLUMNS,
    PendingChange,
    PendingEntry,
    PendingState,
    pending_row,
    rule_key,
    transition_row,
)

_SCHEMA_LOCK = 0x746F6F6C  # one advisory lock id: creating tables concurrently races


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
        self._lock = threading.Lock()
        self._db: Any = psycopg.connect(conninfo, autocommit=False)
        self._closer = weakref.finalize(self, self._db.close)  # closed even if dropped
        self._create()

    def _create(self) -> None:
        s = self.schema
        with self._lock, self._db.transaction():
            self._db.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
            self._db.execute(f"CREATE SCHEMA IF NOT EXISTS {s}")
            self._db.execute(
                f"CREATE TABLE IF NOT EXISTS {s}.approvals ("
                "seq BIGSERIAL PRIMARY KEY, action TEXT NOT NULL, resource TEXT NOT NULL, "
                "effect TEXT NOT NULL, UNIQUE (action, resource, effect))"
            )
            self._db.execute(
                f"CREATE TABLE IF NOT EXISTS {s}.principal_approvals ("
                "seq BIGSERIAL PRIMARY KEY, principal TEXT NOT NULL, action TEXT NOT NULL, "
                "resource TEXT NOT NULL, effect TEXT NOT NULL, "
                "UNIQUE (principal, action, resource, effect))"
            )
            self._db.execute(
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
        with self._lock, self._db.transaction(), self._db.cursor() as cursor:
            if principal is None:
                cursor.executemany(
                    f"INSERT INTO {self.schema}.approvals (action, resource, effect) "
                    "VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                    [rule_key(rule) for rule in rules],
                )
            else:
                cursor.executemany(
                    f"INSERT INTO {self.schema}.principal_approvals "
                    "(principal, action, resource, effect) "
                    "VALUES (%s, %s, %s, %s) ON CONFLICT DO NOTHING",
                    [(principal, *rule_key(rule)) for rule in rules],
                )
        return self.approvals(principal)

    def add_pending(self, entry: PendingEntry) -> None:
        with self._lock, self._db.transaction():
            self._db.execute(
                f"INSERT INTO {self.schema}.pending ({PENDING_COLUMNS}) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
                pending_row(entry),
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
        with self._lock, self._db.transaction():
            cursor = self._db.execute(
                f"UPDATE {self.schema}.pending SET state = %s, owner = %s, lease_until = %s, "
                "reply = COALESCE(%s, reply), outcome = COALESCE(%s, outcome) "
                "WHERE id = %s AND state = %s AND owner = %s",
                transition_row(pending_id, expect, owner, change),
            )
            return bool(cursor.rowcount == 1)

    def close(self) -> None:
        with self._lock:
            self._closer()

    def _fetch(self, query: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock, self._db.transaction():
            rows: list[tuple[Any, ...]] = self._db.execute(query, args).fetchall()
            return rows

    def __repr__(self) -> str:
        return f"PostgresStore(schema={self.schema!r})"
