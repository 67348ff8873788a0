"""The files tooldeck keeps for its user: written whole, changed under a lock, and a
write the disk refuses said plainly (``tooldeck.host.config.files``). The stores that
use them are tested under a failing disk and concurrent writers beside their own code
(``tests/host/trust/test_store.py``, ``tests/mcp/client/oauth/test_tokens.py``,
``tests/host/store/test_sqlite.py``)."""

from __future__ import annotations

import stat
import threading
import time

import pytest

from tooldeck.host.config.files import locked, unwritten, write_atomically


def test_a_file_is_replaced_whole_and_kept_private(tmp_path):
    path = tmp_path / "entry.json"
    write_atomically(path, "first")
    write_atomically(path, "second")
    assert path.read_text() == "second"
    assert [p.name for p in tmp_path.iterdir()] == ["entry.json"]  # no temporary left
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_refused_write_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "entry.json"
    write_atomically(path, "first")
    with pytest.raises(TypeError):
        write_atomically(path, 3)  # type: ignore[arg-type]  # fails midway, as a full disk would
    assert path.read_text() == "first"
    assert [p.name for p in tmp_path.iterdir()] == ["entry.json"]


def test_the_lock_keeps_a_second_holder_out_until_the_first_is_done(tmp_path):
    lock = tmp_path / "entry.json.lock"
    order: list[str] = []
    inside = threading.Event()

    def second() -> None:
        inside.wait(30)
        with locked(lock):
            order.append("second")

    thread = threading.Thread(target=second)
    thread.start()
    with locked(lock):
        inside.set()
        time.sleep(0.2)  # the second holder is waiting on the lock meanwhile
        order.append("first")
    thread.join(30)
    assert order == ["first", "second"]


def test_the_error_names_the_file_and_the_one_that_failed(tmp_path):
    path = tmp_path / "trust.json"
    error = unwritten(path, "trust store", OSError(27, "File too large", str(path)))
    assert str(path) in str(error) and "cannot be written: File too large;" in str(error)
    other = unwritten(path, "trust store", OSError(20, "Not a directory", str(tmp_path / "x")))
    assert f"Not a directory ({tmp_path / 'x'})" in str(other)
