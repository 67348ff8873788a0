"""``PostgresStore``: one store shared by several hosts, in a PostgreSQL database.

Install ``tooldeck[postgres]`` (psycopg 3 and its pool) and pass
``store=PostgresStore(conninfo)`` to ``Host.open``. Tables live in one schema
(``tooldeck`` unless named), so several deployments can share a database. The behaviour
is ``SqliteStore``'s: every method is one transaction and ``transition`` is a single
conditional ``UPDATE``, which PostgreSQL applies atomically under its row lock.

**Connections** come from a pool (``psycopg_pool``) of ``pool_min_size`` to
``pool_max_size``, so a replica's threads reach the database side by side; no lock of
this class is held while a query runs. **Every operation is bounded** by ``timeout_s``:
waiting for a pooled connection, connecting (``connect_timeout``), the statement on the
server (``statement_timeout``) and unacknowledged data on a dead network
(``tcp_user_timeout``). Past it the operation raises ``StoreUnavailable`` naming the
server and what failed.

**A dropped connection** (the server restarted, ``pg_terminate_backend``) costs the
operation that meets it nothing but time: the pool's idle connections are checked at
once, the broken ones replaced (the pool reconnects with exponential backoff while the
server is down), and the operation runs again on a fresh connection within its
``timeout_s``. Running again is safe for every method: reads and ``add_approvals`` are
idempotent, ``add_pending`` inserts a new id (``ON CONFLICT DO NOTHING``), and a
``transition`` whose commit may have been lost looks first whether the row already is
what it wrote (its owner is unique to one resume), so a call is never claimed twice.
"""

from __future__ import annotations

import logging
import math
import re
import time
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from tooldeck._public import public
from tooldeck.errors import StoreUnavailable, UsageError
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

_log = logging.getLogger("tooldeck.host.store")

_SCHEMA_LOCK = 0x746F6F6C  # one advisory lock id: creating tables concurrently races

_T = TypeVar("_T")

Work = Callable[[Any, bool], _T]
"""One transaction's work: ``work(connection, retried)``; ``retried`` is True when an
earlier attempt lost its connection (and its commit may or may not have landed)."""


@public
class PostgresStore:
    """A ``Store`` in PostgreSQL. ``conninfo`` is a libpq connection string or URL.

    ``pool_min_size``/``pool_max_size`` size the connection pool (``[store]`` in the
    config, for the ``tooldeck`` commands); ``timeout_s`` bounds every operation.
    Connects once at construction (creating the tables), so a wrong ``conninfo`` fails
    here with psycopg's own error; later failures raise ``StoreUnavailable``.
    """

    def __init__(
        self,
        conninfo: str,
        *,
        schema: str = "tooldeck",
        pool_min_size: int = 1,
        pool_max_size: int = 8,
        timeout_s: float = 10.0,
    ) -> None:
        if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", schema):
            raise ValueError(
                f"schema {schema!r} must be a lowercase SQL identifier "
                "(letters, digits, underscores; at most 63 characters)"
            )
        if not 0 <= pool_min_size <= pool_max_size or pool_max_size < 1:
            raise ValueError(
                f"pool sizes {pool_min_size}..{pool_max_size}: expected 0 <= min <= max, max >= 1"
            )
        if not 0 < timeout_s < math.inf:
            raise ValueError(f"timeout_s {timeout_s!r}: expected a positive number of seconds")
        try:
            import psycopg
            from psycopg_pool import ConnectionPool
        except ImportError as exc:
            raise UsageError(
                "PostgresStore needs psycopg 3 and psycopg_pool: pip install 'tooldeck[postgres]'"
            ) from exc
        self.schema = schema
        self.timeout_s = timeout_s
        self._server = _server_name(conninfo)
        kwargs = _bounded_kwargs(conninfo, timeout_s)
        # connect once now: a wrong conninfo fails here, with libpq's reason
        with psycopg.connect(conninfo, **kwargs) as first, first.transaction():
            self._create(first)
        self._connect_error: BaseException | None = None
        self._pool: Any = ConnectionPool(
            conninfo,
            connection_class=_recording(self, psycopg.Connection),
            kwargs=kwargs,
            min_size=pool_min_size,
            max_size=pool_max_size,
            open=False,
            configure=self._configure,
            timeout=timeout_s,
            reconnect_timeout=max(5.0, timeout_s),
            reconnect_failed=self._reconnect_failed,
            name=f"tooldeck-{schema}",
        )
        self._pool.open(wait=False)

    def _configure(self, db: Any) -> None:
        """Each new connection: statements end on the server past the store's bound."""
        db.execute(f"SET statement_timeout = {int(self.timeout_s * 1000)}")

    def _reconnect_failed(self, pool: Any) -> None:
        _log.warning(
            "%r: no connection to PostgreSQL for %g s; the next operation tries again",
            self,
            pool.reconnect_timeout,
        )

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

        def insert(db: Any, retried: bool) -> None:  # rows already there are ignored
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

        if keys:
            self._run(insert)
        return self.approvals(principal)

    def add_pending(self, entry: PendingEntry) -> None:
        # ON CONFLICT: the id is a new uuid, so a row with it is this insert's, landed
        # before a lost connection; inserting again changes nothing.
        self._run(
            lambda db, retried: db.execute(
                f"INSERT INTO {self.schema}.pending ({PENDING_COLUMNS}) "
                "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT (id) DO NOTHING",
                pending_row(entry),
            )
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
        def update(db: Any, retried: bool) -> bool:
            if retried and self._landed(db, pending_id, change):
                return True  # the lost attempt's commit did land
            cursor = db.execute(
                f"UPDATE {self.schema}.pending SET state = %s, owner = %s, lease_until = %s, "
                "reply = COALESCE(%s, reply), outcome = COALESCE(%s, outcome) "
                "WHERE id = %s AND state = %s AND owner = %s",
                transition_row(pending_id, expect, owner, change),
            )
            return bool(cursor.rowcount == 1)

        return self._run(update)

    def _landed(self, db: Any, pending_id: str, change: PendingChange) -> bool:
        """Whether the row already is exactly what ``change`` writes. The owner is unique
        to one resume and the lease a time it chose, so a match is this change's commit."""
        row = db.execute(
            f"SELECT state, owner, lease_until, reply, outcome FROM {self.schema}.pending "
            "WHERE id = %s",
            (pending_id,),
        ).fetchone()
        if row is None:
            return False
        state, owner, lease_until, reply, outcome = row
        return bool(
            (state, owner, lease_until) == (change.state, change.owner, change.lease_until)
            and change.reply in (None, reply)
            and change.outcome in (None, outcome)
        )

    def close(self) -> None:
        self._pool.close()

    def _fetch(self, query: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        return self._run(lambda db, retried: db.execute(query, args).fetchall())

    def _run(self, work: Work[_T]) -> _T:
        """``work`` in one transaction on a pooled connection, within ``timeout_s``; run
        again on a fresh connection when the one it met was dropped (module docstring)."""
        import psycopg
        from psycopg_pool import PoolClosed, PoolTimeout

        deadline = time.monotonic() + self.timeout_s
        lost: BaseException | None = None
        while True:
            try:
                db = self._pool.getconn(timeout=max(deadline - time.monotonic(), 0.001))
            except PoolTimeout as exc:
                cause = self._connect_error or lost or exc  # why there is no connection
                raise self._unavailable(cause) from cause
            except PoolClosed:
                raise UsageError(f"{self!r} was closed") from None
            try:
                with db.transaction():
                    return work(db, lost is not None)
            except psycopg.OperationalError as exc:
                if not db.broken:  # the server answered: a statement timeout, a shutdown
                    raise self._unavailable(exc) from exc
                lost = exc
            finally:
                self._pool.putconn(db)
            self._pool.check()  # the other idle connections met the same drop: replace them

    def _unavailable(self, cause: BaseException) -> StoreUnavailable:
        reason = " ".join(str(cause).split()) or type(cause).__name__
        return StoreUnavailable(
            f"{self!r} did not answer within {self.timeout_s:g} s ([store] timeout_s): "
            f"{reason}. Nothing was left half-done; try again once the database is back."
        )

    def __repr__(self) -> str:
        return f"PostgresStore({self._server}, schema={self.schema!r})"


def _recording(store: PostgresStore, base: Any) -> Any:
    """A connection class for the pool that keeps its last failure to connect on
    ``store``: the pool only logs it, and ``StoreUnavailable`` should say why."""

    class Recording(base):  # type: ignore[misc]  # psycopg.Connection, imported late
        @classmethod
        def connect(cls, *args: Any, **kwargs: Any) -> Any:
            try:
                connection = super().connect(*args, **kwargs)
            except Exception as exc:
                store._connect_error = exc
                raise
            store._connect_error = None
            return connection

    return Recording


def _bounded_kwargs(conninfo: str, timeout_s: float) -> dict[str, Any]:
    """Connection options that bound connecting and a dead network by ``timeout_s``,
    unless the conninfo sets its own; autocommit, so ``transaction()`` is the one
    transaction of each operation."""
    from psycopg.conninfo import conninfo_to_dict

    given = conninfo_to_dict(conninfo)
    kwargs: dict[str, Any] = {"autocommit": True}
    if "connect_timeout" not in given:
        kwargs["connect_timeout"] = max(2, math.ceil(timeout_s))
    if "tcp_user_timeout" not in given:
        kwargs["tcp_user_timeout"] = int(timeout_s * 1000)
    return kwargs


def _server_name(conninfo: str) -> str:
    """``host:port/dbname`` of a conninfo, for messages (never its password)."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        given = conninfo_to_dict(conninfo)
    except Exception:  # libpq reports a malformed conninfo when connecting
        return "?"
    host = str(given.get("host") or given.get("hostaddr") or "localhost")
    return f"{host}:{given.get('port') or 5432}/{given.get('dbname') or given.get('user') or ''}"
