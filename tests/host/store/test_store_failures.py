"""A store that fails or stalls: never on the event loop, never for longer than the
Location's bound, never remembered as "no approvals", recovered from without a restart.

The stores here are real ones (SQLite) with one method wrapped to fail or to wait on an
event, standing for a database that is down or a disk that stopped answering.
"""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from tooldeck import Location, PermissionRule, SqliteStore, StoreUnavailable
from tooldeck.host.config.config import Config, StoreConfig
from tooldeck.host.permissions.asks import asks_deferred
from tooldeck.host.store import calls

SOURCE = {"type": "tool", "message_id": "m", "id": "c"}
ALLOW_A = PermissionRule(action="edit", resource="a.py", effect="allow")


class Flaky(SqliteStore):
    """A SQLite store whose ``approvals`` fails while ``down`` is set and waits while
    ``stalled`` is clear."""

    def __init__(self, path):
        super().__init__(path)
        self.down = threading.Event()
        self.stalled = threading.Event()
        self.stalled.set()
        self.reads = 0

    def approvals(self, principal=None):
        self.reads += 1
        self.stalled.wait(30)
        if self.down.is_set():
            raise StoreUnavailable("the database is down")
        return super().approvals(principal)


@pytest.fixture
def flaky(tmp_path):
    store = Flaky(tmp_path / "store.sqlite3")
    yield store
    store.stalled.set()
    store.close()


def location(tmp_path, store, asker=None, timeout_s=0.3):
    root = tmp_path / "root"
    root.mkdir(exist_ok=True)
    config = Config(store=StoreConfig(timeout_s=timeout_s))
    return Location(root, config=config, data_dir=tmp_path / "data", store=store, asker=asker)


class Asker:
    def __init__(self):
        self.asked = []

    def __call__(self, request):
        self.asked.append(request.resources)
        return "once"


async def test_a_failed_read_is_not_remembered_as_no_approvals(tmp_path, flaky, monkeypatch):
    monkeypatch.setattr(calls, "GRACE_S", 0.0)
    flaky.add_approvals([ALLOW_A])
    flaky.down.set()
    asker = Asker()
    place = location(tmp_path, flaky, asker)
    await place.permission.assert_("edit", ["a.py"], source=SOURCE)  # down: a person is asked
    assert asker.asked == [("a.py",)]
    flaky.down.clear()  # back: the saved approval answers, no one is asked
    await place.permission.assert_("edit", ["a.py"], source=SOURCE)
    assert asker.asked == [("a.py",)]


async def test_a_deferred_ask_fails_clearly_when_the_approvals_cannot_be_read(
    tmp_path, flaky, monkeypatch
):
    monkeypatch.setattr(calls, "GRACE_S", 0.0)
    flaky.down.set()
    place = location(tmp_path, flaky)
    with asks_deferred("defer"), pytest.raises(StoreUnavailable, match="the database is down"):
        await place.permission.assert_("edit", ["a.py"], source=SOURCE)


async def test_a_stalled_store_never_holds_the_loop_or_the_call_past_its_bound(
    tmp_path, flaky, monkeypatch, tooldeck_loop_guard
):
    monkeypatch.setattr(calls, "GRACE_S", 0.0)
    flaky.stalled.clear()  # every read now hangs until the test lets it go
    place = location(tmp_path, flaky)
    started = time.monotonic()
    with asks_deferred("defer"), pytest.raises(StoreUnavailable, match=r"within 0\.3 s"):
        await place.permission.assert_("edit", ["a.py"], source=SOURCE)
    assert time.monotonic() - started < 10
    flaky.stalled.set()  # the disk answers again: the next check reads normally
    flaky.add_approvals([ALLOW_A])
    with asks_deferred("defer"):
        await place.permission.assert_("edit", ["a.py"], source=SOURCE)


def test_opening_the_store_holds_no_lock_others_wait_on_past_the_bound(tmp_path, monkeypatch):
    """The first caller opens the store; a second one waits for it at most the bound,
    then is told, while the first is still opening. An open that failed is tried again."""
    from tooldeck.host.store import sqlite

    opening = threading.Event()
    release = threading.Event()
    real = sqlite.SqliteStore.in_dir.__func__
    attempts = []

    def slow_in_dir(cls, data_dir):
        attempts.append(data_dir)
        opening.set()
        release.wait(30)
        if len(attempts) == 1:
            raise OSError("the disk went away")
        return real(cls, data_dir)

    monkeypatch.setattr(sqlite.SqliteStore, "in_dir", classmethod(slow_in_dir))
    monkeypatch.setattr(calls, "GRACE_S", 0.0)
    place = location(tmp_path, None)
    first: list[BaseException] = []
    opener = threading.Thread(target=lambda: _store_or(place, first))
    opener.start()
    assert opening.wait(30)
    with pytest.raises(StoreUnavailable, match=r"did not open within 0\.3 s"):
        place.store  # noqa: B018 - the property opens the store
    release.set()
    opener.join(30)
    assert isinstance(first[0], OSError)
    store = place.store  # tried again, and opened
    assert store.approvals() == ()
    place.close()


def _store_or(place, errors):
    try:
        place.store  # noqa: B018 - the property opens the store
    except BaseException as exc:
        errors.append(exc)


async def test_off_loop_waits_at_most_its_bound_and_passes_the_context(tooldeck_loop_guard):
    import contextvars

    marker = contextvars.ContextVar("marker", default="unset")
    marker.set("the caller's")
    assert await calls.off_loop(marker.get, wait_s=5, what="reading") == "the caller's"
    never = threading.Event()
    with pytest.raises(StoreUnavailable, match=r"did not answer within 0\.1 s while reading"):
        await calls.off_loop(lambda: never.wait(30), wait_s=0.1, what="reading")
    never.set()
    await asyncio.sleep(0)
