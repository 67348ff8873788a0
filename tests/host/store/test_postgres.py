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
    """End the store's backends as a server restart would (found by application_name)."""
    ended = admin.execute(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = %s",
        (name,),
    ).fetchall()
    assert ended and all(ok for (ok,) in ended)


def victim(postgres_dsn, name, schema="dropped", **options):
    return PostgresStore(f"{postgres_dsn} application_name={name}", schema=schema, **options)


def test_a_read_after_the_connection_dropped_reconnects_and_answers(postgres_dsn, admin):
    store = victim(postgres_dsn, "drop_read")
    rule = PermissionRule(action="edit", resource="kept", effect="allow")
    store.add_approvals([rule])
    drop(admin, "drop_read")
    assert store.approvals() == (rule,)
    assert store.add_approvals([]) == (rule,)
    store.close()


def test_writes_that_meet_the_drop_land_once(postgres_dsn, admin):
    """The pooled connection a write takes was dropped: the write runs again on a fresh
    one, and lands exactly once (an insert of a new id, a compare-and-set)."""
    from tooldeck import PendingChange, PendingEntry

    store = victim(postgres_dsn, "drop_write", schema="dropped_write", pool_max_size=2)
    store.add_pending(PendingEntry("p0", "s1", 0.5, 100.5, "{}"))
    drop(admin, "drop_write")
    store.add_pending(PendingEntry("p1", "s1", 1.0, 101.0, "{}"))
    drop(admin, "drop_write")
    claim = PendingChange("claimed", "me", 123.0, reply='"once"')
    assert store.transition("p1", "open", "", claim) is True
    assert store.transition("p1", "open", "", claim) is False  # it moved: never twice
    assert [entry.id for entry in store.list_pending("s1")] == ["p0"]
    entry = store.get_pending("p1")
    assert (entry.state, entry.owner, entry.lease_until) == ("claimed", "me", 123.0)
    store.close()


def test_a_server_that_refuses_new_connections_is_named_and_then_recovered_from(
    postgres_dsn, admin
):
    from tooldeck import StoreUnavailable

    admin.execute("DROP ROLE IF EXISTS td_victim")
    admin.execute("CREATE ROLE td_victim LOGIN")
    admin.execute("GRANT CREATE ON DATABASE postgres TO td_victim")
    dsn = postgres_dsn.replace("user=tooldeck", "user=td_victim")
    # The store retries a refused login until its bound, then names the refusal; the
    # bound leaves room for a slow first connect on a loaded box.
    store = victim(dsn, "drop_refused", schema="dropped_refused", timeout_s=4.0)
    try:
        store.approvals()
        admin.execute("ALTER ROLE td_victim NOLOGIN")
        drop(admin, "drop_refused")
        with pytest.raises(StoreUnavailable, match=r"within 4 s .*not permitted to log in"):
            store.approvals()
        admin.execute("ALTER ROLE td_victim LOGIN")
        assert store.approvals() == ()  # recovered without a new store
    finally:
        store.close()
        admin.execute("DROP SCHEMA IF EXISTS dropped_refused CASCADE")
        admin.execute("REVOKE CREATE ON DATABASE postgres FROM td_victim")
        admin.execute("DROP ROLE td_victim")


def test_a_lost_commit_is_found_landed_not_applied_twice(postgres_dsn):
    """``transition`` after a lost connection first looks whether its own change is
    already in the row (the owner is one resume's alone): then it reports it applied."""
    from tooldeck import PendingChange, PendingEntry

    store = PostgresStore(postgres_dsn, schema="lost_commit")
    store.add_pending(PendingEntry("p1", "s1", 1.0, 101.0, "{}"))
    claim = PendingChange("claimed", "me", 123.0, reply='"once"')
    other = PendingChange("claimed", "someone-else", 123.0, reply='"once"')
    assert store.transition("p1", "open", "", claim)

    def landed(change):
        return store._run(lambda db, retried: store._landed(db, "p1", change))

    assert landed(claim) is True  # the same change, its first commit lost: found landed
    assert landed(other) is False  # another resume's claim is not taken for this one
    store.close()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"pool_min_size": 3, "pool_max_size": 2}, "expected 0 <= min <= max"),
        ({"timeout_s": 0}, "expected a positive number of seconds"),
    ],
)
def test_pool_sizes_and_the_timeout_are_checked(options, message):
    with pytest.raises(ValueError, match=message):
        PostgresStore("host=unused", **options)
