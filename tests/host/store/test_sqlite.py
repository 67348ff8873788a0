"""The SQLite store: WAL, a corrupt database set aside once, a failing disk reported, several
processes at once."""

from __future__ import annotations

import contextlib
import logging
import sqlite3

import pytest

from tooldeck import Location, PermissionRule, SqliteStore


def test_the_database_runs_in_wal_mode(tmp_path):
    store = SqliteStore(tmp_path / "s.sqlite3")
    with contextlib.closing(sqlite3.connect(tmp_path / "s.sqlite3")) as db:
        (mode,) = db.execute("PRAGMA journal_mode").fetchone()
    assert mode == "wal"
    store.close()


def test_a_corrupt_database_is_set_aside_with_one_warning(tmp_path, caplog):
    path = tmp_path / "data" / "tooldeck.sqlite3"
    path.parent.mkdir()
    path.write_bytes(b"this is not a database" * 100)
    with caplog.at_level(logging.WARNING, logger="tooldeck"):
        store = SqliteStore(path)
        again = SqliteStore(path)
    [warning] = caplog.records
    assert warning.getMessage().startswith(
        f"the tooldeck database {path} could not be used (file is not a database); it was "
        f"moved to {path}.corrupt and a new one was created."
    )
    assert (tmp_path / "data" / "tooldeck.sqlite3.corrupt").read_bytes().startswith(b"this is")
    rule = PermissionRule(action="edit", resource="a", effect="allow")
    assert store.add_approvals([rule]) == again.approvals() == (rule,)
    store.close()
    again.close()


async def test_a_host_keeps_working_over_a_corrupt_database(tmp_path, caplog):
    from tooldeck.testing import TestHost

    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "tooldeck.sqlite3").write_bytes(b"\x00garbage")
    root = tmp_path / "root"
    root.mkdir()
    (root / "a.txt").write_text("hello\n")
    location = Location(root, data_dir=tmp_path / "data")
    host = TestHost.for_location(location, builtins=["read"])
    with caplog.at_level(logging.WARNING, logger="tooldeck"):
        outcome = await host.call("read", path="a.txt")
    assert outcome.status == "completed"
    assert "could not be used" in caplog.text
    location.close()


def test_an_unwritable_database_keeps_approvals_in_memory(tmp_path, caplog):
    (tmp_path / "data").write_text("a file where the data dir should be")
    root = tmp_path / "root"
    root.mkdir()
    location = Location(root, data_dir=tmp_path / "data")
    with caplog.at_level(logging.WARNING, logger="tooldeck"):
        location.permission.save("edit", ["a.py"])
    assert "could not save permission approvals" in caplog.text
    assert location.permission.evaluate("edit", "a.py") == "allow"


_HOLDER = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA locking_mode = EXCLUSIVE")
db.execute("BEGIN EXCLUSIVE")
db.execute("SELECT count(*) FROM approvals").fetchone()
print("locked", flush=True)
sys.stdin.read()
"""


def test_a_database_another_process_holds_locked_is_reported_not_set_aside(tmp_path, monkeypatch):
    import subprocess
    import sys

    from tooldeck.host.store import sqlite as module

    SqliteStore.in_dir(tmp_path).close()
    path = tmp_path / module.DATABASE_NAME
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline() == "locked\n"
        monkeypatch.setattr(module, "BUSY_TIMEOUT_MS", 200)
        with pytest.raises(sqlite3.OperationalError, match="database is locked"):
            SqliteStore(path)
    finally:
        holder.communicate("", timeout=60)
    assert not path.with_name(path.name + ".corrupt").exists()
    assert SqliteStore(path).approvals() == ()


# -- a failing disk ----------------------------------------------------------------------------
_LIMITED = """
import resource, signal, sys
from tooldeck import PermissionRule, SqliteStore, StoreUnavailable

signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes past the limit fail with EFBIG
path, limit, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
try:
    store = SqliteStore(path)
    store.add_approvals([PermissionRule(action="edit", resource="x" * size, effect="allow")])
except StoreUnavailable as exc:
    print(exc)
"""


def _saved(path) -> list[str]:
    with contextlib.closing(sqlite3.connect(path)) as db:
        return [resource for (resource,) in db.execute("SELECT resource FROM approvals")]


@pytest.mark.parametrize(
    ("limit", "size", "failed"),
    [(0, 1, "cannot be opened"), (40_000, 60_000, "cannot be written")],
)
def test_a_failing_disk_is_reported_and_the_database_kept_whole(tmp_path, limit, size, failed):
    """A file-size limit (as a full disk) is the disk's trouble, not a corrupt file: the
    database with its approvals stays where it is and the error names it."""
    import subprocess
    import sys

    path = tmp_path / "tooldeck.sqlite3"
    store = SqliteStore(path)
    store.add_approvals([PermissionRule(action="edit", resource="a.py", effect="allow")])
    store.close()
    done = subprocess.run(
        [sys.executable, "-c", _LIMITED, str(path), str(limit), str(size)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"the tooldeck database {path} {failed}: disk I/O error")
    assert "the disk under it is full, read-only or failing" in done.stdout
    assert not path.with_name(path.name + ".corrupt").exists()
    assert _saved(path) == ["a.py"]


_WRITER = """
import sys
from tooldeck import PermissionRule, SqliteStore
store = SqliteStore(sys.argv[1])
for i in range(50):
    rule = PermissionRule(action="edit", resource=f"{sys.argv[2]}{i}", effect="allow")
    store.add_approvals([rule])
"""


def test_processes_creating_and_writing_one_database_at_once_lose_nothing(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "tooldeck.sqlite3"  # not there yet: all three create it at once
    writers = [subprocess.Popen([sys.executable, "-c", _WRITER, str(path), name]) for name in "abc"]
    assert [writer.wait(timeout=120) for writer in writers] == [0, 0, 0]
    assert sorted(_saved(path)) == sorted(f"{name}{i}" for name in "abc" for i in range(50))
