"""Who hears a permission service's asks: nobody by default, every settled ask otherwise."""

from __future__ import annotations

import pytest

from tooldeck import Location
from tooldeck.errors import PermissionBlocked, PermissionDeclined
from tooldeck.host.config.config import Config, PermissionRule
from tooldeck.host.permissions.observer import NO_OBSERVER, AskObserver, NoObserver

SOURCE = {"type": "tool", "message_id": "m1", "id": "call_1"}


class Heard:
    def __init__(self):
        self.events = []

    def asked(self, action, resources):
        self.events.append(("asked", action, resources))

    def answered(self, reply, by):
        self.events.append((reply, by))

    def allowed(self, reply):
        self.events.append((reply(), "rules"))


def make(tmp_path, *rules, asker=None):
    root = tmp_path / "root"
    root.mkdir(exist_ok=True)
    config = Config(permission=rules)
    return Location(root, data_dir=tmp_path / "data", config=config, asker=asker)


def test_the_default_observer_hears_nothing_and_fits_the_protocol(tmp_path):
    observer: AskObserver = NoObserver()
    observer.asked("edit", ("a.py",))
    observer.allowed(lambda: pytest.fail("the default observer never judges"))
    assert make(tmp_path).permission.observer is NO_OBSERVER


async def test_an_observer_hears_which_layer_settled_each_ask(tmp_path):
    location = make(
        tmp_path,
        PermissionRule(action="edit", resource="docs/*", effect="allow"),
        PermissionRule(action="shell", effect="deny"),
        asker=lambda request: "always",
    )
    heard = location.permission.observer = Heard()
    await location.permission.assert_("edit", ["docs/a.md"], source=SOURCE)
    await location.permission.assert_("edit", ["b.py"], source=SOURCE)
    await location.permission.assert_("edit", ["b.py"], source=SOURCE)
    with pytest.raises(PermissionBlocked):
        await location.permission.assert_("shell", ["ls"], source=SOURCE)
    location.asker = None
    with pytest.raises(PermissionDeclined):
        await location.permission.assert_("edit", ["c.py"], source=SOURCE)
    assert [event for event in heard.events if event[0] != "asked"] == [
        ("allowed", "rules"),
        ("always", "asker"),
        ("saved", "rules"),
        ("denied", "rules"),
        ("declined", "host"),
    ]
