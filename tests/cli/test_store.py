"""``TOOLDECK_STORE_URL``: the commands that open a Host keep approvals in PostgreSQL."""

from __future__ import annotations

import io
import uuid

import pytest

from tooldeck import PermissionRule, PostgresStore

from ..docs_blocks import page
from .test_call import Terminal

ERRORS = page("approvals.md").take("text", "TOOLDECK_STORE_URL selects a PostgreSQL store")
"""The errors docs/approvals.md shows for a store that cannot be opened."""


def shown(start: str) -> bool:
    """Whether the page shows one error line starting with ``start``."""
    return sum(line.startswith(start) for line in ERRORS.code.splitlines()) == 1


@pytest.fixture
def schema(postgres_dsn, monkeypatch):
    """A fresh schema of the test session's PostgreSQL server, named in the environment."""
    name = f"t_{uuid.uuid4().hex[:16]}"
    monkeypatch.setenv("TOOLDECK_STORE_URL", postgres_dsn)
    monkeypatch.setenv("TOOLDECK_STORE_SCHEMA", name)
    return name


def test_an_always_answer_lands_in_the_shared_store_and_another_machine_honours_it(
    tooldeck, schema, postgres_dsn, clean_env, monkeypatch
):
    monkeypatch.setattr("sys.stdin", Terminal("a\n"))
    assert tooldeck("call", "secret")[0] == 0
    saved = PostgresStore(postgres_dsn, schema=schema)
    assert saved.approvals() == (PermissionRule(action="secret", resource="vault", effect="allow"),)
    saved.close()
    assert not list(clean_env.glob("xdg-data/tooldeck/locations/*/tooldeck.sqlite3"))
    # another machine: its own data dir (so its own trust) and the same store
    monkeypatch.setenv("XDG_DATA_HOME", str(clean_env / "elsewhere"))
    monkeypatch.setenv("TOOLDECK_TRUST", "1")
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    assert tooldeck("call", "secret")[:2] == (0, "the secret\n")


@pytest.mark.parametrize(
    ("variables", "written", "detail"),
    [  # what tooldeck writes (as the page shows it, but the schema's), then psycopg's part
        (
            {"TOOLDECK_STORE_URL": "host=127.0.0.1 port=1 user=x password=hunter2"},
            "TOOLDECK_STORE_URL: could not open the PostgreSQL store: connection failed: ",
            "",
        ),
        (
            {"TOOLDECK_STORE_URL": "host=db password='hunter2 x' bogus=1"},
            "TOOLDECK_STORE_URL: not a valid PostgreSQL URL or conninfo: ",
            'invalid connection option "bogus"',
        ),
        (
            {"TOOLDECK_STORE_URL": "host=db password=hunter2", "TOOLDECK_STORE_SCHEMA": "No-Way"},
            "TOOLDECK_STORE_SCHEMA: schema 'No-Way' must be a lowercase SQL identifier",
            "",
        ),
    ],
    ids=["unreachable", "bad-conninfo", "bad-schema"],
)
def test_a_wrong_store_fails_the_command_naming_the_variable_not_the_password(
    tooldeck, monkeypatch, variables, written, detail
):
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    code, out, err = tooldeck("call", "greet", '{"name": "Ada"}')
    assert (code, out) == (2, "")
    assert f"tooldeck: error: {written}{detail}" in err
    assert shown(f"tooldeck: error: {written}") or "SCHEMA" in written
    assert "hunter2" not in err
    assert tooldeck("tools")[0] == 0  # listing never connects to the store


def test_without_psycopg_the_error_names_the_extra(tooldeck, monkeypatch):
    monkeypatch.setenv("TOOLDECK_STORE_URL", "postgresql://u:hunter2@db/x")
    monkeypatch.setitem(__import__("sys").modules, "psycopg", None)  # as if not installed
    code, _, err = tooldeck("run-code", "1")
    assert code == 2
    assert err.splitlines()[0] == ERRORS.code.splitlines()[0]  # as the page shows it
    assert "hunter2" not in err
