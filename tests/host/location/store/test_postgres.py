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
