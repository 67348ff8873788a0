"""Moving ``permissions.json`` into the store once, and reading it so that nothing at
that path can block or crash a host."""

from __future__ import annotations

import json
import logging
import os
import threading

import pytest

from tooldeck import Location, PermissionRule

RULES = {"rules": [{"action": "edit", "resource": "a.py", "effect": "allow"}]}


def location(tmp_path, store=None):
    root = tmp_path / "root"
    root.mkdir(exist_ok=True)
    return Location(root, data_dir=tmp_path / "data", store=store)


def legacy(tmp_path, text):
    (tmp_path / "data").mkdir(exist_ok=True)
    path = tmp_path / "data" / "permissions.json"
    path.write_text(text)
    return path


def test_a_given_store_takes_the_file_in_only_when_told_to(tmp_path, store, caplog):
    """A store handed to the Location (shared by several hosts) is never filled from
    one machine's file by itself: opening it says the file is there and how to move it
    in; ``migrate_legacy`` (``tooldeck approvals migrate``) moves it once."""
    from tooldeck.host.store.legacy import migrate_legacy

    path = legacy(tmp_path, json.dumps(RULES))
    with caplog.at_level(logging.WARNING, logger="tooldeck"):
        first = location(tmp_path, store)
        assert first.permission.evaluate("edit", "a.py") == "ask"
    assert store.approvals() == ()
    assert path.exists()
    assert "run: tooldeck approvals migrate" in caplog.text
    rule = PermissionRule(action="edit", resource="a.py", effect="allow")
    assert migrate_legacy(store, tmp_path / "data") == (rule,)
    assert store.approvals() == (rule,)
    assert not path.exists()
    assert json.loads((tmp_path / "data" / "permissions.json.migrated").read_text()) == RULES
    assert migrate_legacy(store, tmp_path / "data") is None  # never read twice
    assert location(tmp_path, store).permission.evaluate("edit", "a.py") == "allow"


def test_the_default_store_is_sqlite_in_the_data_dir(tmp_path):
    legacy(tmp_path, json.dumps(RULES))
    place = location(tmp_path)
    assert place.permission.evaluate("edit", "a.py") == "allow"
    assert (tmp_path / "data" / "tooldeck.sqlite3").is_file()
    place.close()


@pytest.mark.parametrize(
    "content",
    [
        "",
        "{not json",
        '{"rules": [{"action": "edit", "effect": "sometimes"}]}',
        "[]",
        "[" * 100_000 + "]" * 100_000,
    ],
    ids=["empty", "truncated", "invalid-rule", "wrong-shape", "nested-too-deeply"],
)
def test_a_corrupt_approvals_file_is_set_aside_and_reported_once(tmp_path, caplog, content):
    path = legacy(tmp_path, content)
    with caplog.at_level(logging.WARNING, logger="tooldeck"):
        place = location(tmp_path, None)
        place.config = place.config.model_copy(
            update={
                "permission": (PermissionRule(action="edit", resource="src/*", effect="allow"),)
            }
        )
        service = place.permission
        again = location(tmp_path).permission
        service.evaluate("edit", "x"), again.evaluate("edit", "x")  # approvals read on use
    [warning] = caplog.records
    assert warning.getMessage().startswith(
        f"permission approvals in {path} were not valid and are ignored; the file was moved "
        f"to {path}.corrupt. Tools keep working on the configured rules"
    )
    assert (tmp_path / "data" / "permissions.json.corrupt").read_text() == content
    assert not path.exists()
    assert service.evaluate("edit", "src/a.py") == "allow"  # configured rules still apply
    assert service.evaluate("read", "a.py") == "allow"  # and the built-in defaults
    assert again.evaluate("edit", "a.py") == "ask"
    place.close()


def test_a_fifo_at_the_path_never_blocks(tmp_path, caplog, join_threads):
    (tmp_path / "data").mkdir()
    fifo = tmp_path / "data" / "permissions.json"
    os.mkfifo(fifo)
    effects = []
    place = location(tmp_path)
    # In a thread, so a read that blocked on the FIFO fails the test instead of hanging it.
    reader = threading.Thread(target=lambda: effects.append(place.permission.evaluate("edit", "a")))
    with caplog.at_level(logging.WARNING, logger="tooldeck"):
        reader.start()
        join_threads(reader)
    assert effects == ["ask"]
    assert f"{fifo} is not a regular file (a FIFO); it is left alone" in caplog.text
    assert fifo.exists()  # not ours to move
    place.close()


def test_a_directory_at_the_path_is_left_alone(tmp_path, caplog):
    (tmp_path / "data" / "permissions.json").mkdir(parents=True)
    with caplog.at_level(logging.WARNING, logger="tooldeck"):
        place = location(tmp_path)
        assert place.permission.evaluate("edit", "a.py") == "ask"
    assert "is not a regular file (a directory)" in caplog.text
    place.close()
