"""What is PostgreSQL's own in ``PostgresStore`` (the contract is in ``test_store.py``)."""

from __future__ import annotations

import pytest

from tooldeck import PermissionRule, PostgresStore


@pytest.mark.parametrize("schema", ["Upper", "a-b", "x; DROP TABLE y", "", "a" * 64])
def test_a_schema_that_is_not_a_plain_identifier_is_refused(schema):
    with pytest.raises(ValueError, match="must be a lowercase SQL identifier"):
        PostgresStore("host=unused", schema=schema)


def test_schemas_keep_deployments_apart(postgres_dsn):
    first = PostgresStore(postgres_dsn, schema="deploy_one")
    second = PostgresStore(postgres_dsn, schema="deploy_two")
    rule = PermissionRule(action="edit", resource="a", effect="allow")
    first.add_approvals([rule])
    assert (first.approvals(), second.approvals()) == ((rule,), ())
    first.close()
    second.close()


# -- a dropped connection --------------------------------------------------------------------
@pytest.fixture
def admin(postgres_dsn):
    import psycopg

    with psycopg.connect(postgres_dsn, autocommit=True) as connection:
        yield connection


def drop(admin, name):
    """End the store's backend as a server restart would (found by its application_name)."""
    ended = admin.execute(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s",
        (name,),
    ).fetchall()
    assert ended == [(True,)]


def victim(postgres_dsn, name, schema="dropped"):
    return PostgresStore(f"{postgres_dsn} application_name={name}", schema=schema)


def test_a_read_after_the_connection_dropped_reconnects_and_answers(postgres_dsn, admin):
    store = victim(postgres_dsn, "drop_read")
    rule = PermissionRule(action="edit", resource="kept", effect="allow")
    store.add_approvals([rule])
    drop(admin, "drop_read")
    assert store.approvals() == (rule,)
    assert store.add_approvals([]) == (rule,)
    store.close()


def test_a_write_that_meets_the_drop_fails_clearly_and_the_next_one_reconnects(postgres_dsn, admin):
    from tooldeck import PendingEntry
    from tooldeck.errors import ExternalError

    store = victim(postgres_dsn, "drop_write", schema="dropped_write")
    drop(admin, "drop_write")
    first = PendingEntry("p1", "s1", 1.0, 101.0, "{}")
    with pytest.raises(ExternalError, match="lost its connection to PostgreSQL during this write"):
        store.add_pending(first)
    store.add_pending(PendingEntry("p2", "s1", 2.0, 102.0, "{}"))
    assert [entry.id for entry in store.list_pending("s1")] == ["p2"]
    store.close()


def test_a_server_that_refuses_the_new_connection_is_named(postgres_dsn, admin):
    from tooldeck.errors import ExternalError

    admin.execute("DROP ROLE IF EXISTS td_victim")
    admin.execute("CREATE ROLE td_victim LOGIN")
    admin.execute("GRANT CREATE ON DATABASE postgres TO td_victim")
    dsn = postgres_dsn.replace("user=tooldeck", "user=td_victim")
    store = victim(dsn, "drop_refused", schema="dropped_refused")
    try:
        admin.execute("ALTER ROLE td_victim NOLOGIN")
        drop(admin, "drop_refused")
        with pytest.raises(ExternalError, match=r"could not reconnect: .*not permitted to log in"):
            store.approvals()
        admin.execute("ALTER ROLE td_victim LOGIN")
        assert store.approvals() == ()  # the operation after that tries again
    finally:
        store.close()
        admin.execute("DROP SCHEMA IF EXISTS dropped_refused CASCADE")
        admin.execute("REVOKE CREATE ON DATABASE postgres FROM td_victim")
        admin.execute("DROP ROLE td_victim")
