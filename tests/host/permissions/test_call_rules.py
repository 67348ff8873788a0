"""A served principal's rules stand in for the Location's policy during its calls."""

from __future__ import annotations

import pytest

from tooldeck import Location
from tooldeck.errors import PermissionBlocked
from tooldeck.host.config.config import Config, PermissionRule
from tooldeck.host.permissions.call_rules import applying
from tooldeck.host.permissions.permission import principal_rules
from tooldeck.host.permissions.wildcard import Ruleset

SOURCE = {"type": "tool", "message_id": "m1", "id": "call_1"}


def rule(action, resource, effect):
    return PermissionRule(action=action, resource=resource, effect=effect)


def always(request):
    return "always"


def make(tmp_path, *rules):
    root = tmp_path / "root"
    root.mkdir(exist_ok=True)
    config = Config(permission=tuple(rules))
    return Location(root, data_dir=tmp_path / "data", asker=always, config=config)


def principal(location, name, *own):
    return principal_rules(location.permission, name, Ruleset((*location.policy.rules, *own)))


async def test_a_principals_rules_come_after_the_locations(tmp_path):
    location = make(tmp_path, rule("edit", "*", "deny"))
    alice = principal(location, "alice", rule("edit", "docs/*", "allow"))
    with applying(alice):
        assert location.permission.evaluate("edit", "docs/a.md") == "allow"
        assert location.permission.evaluate("edit", "src/a.py") == "deny"
    assert location.permission.evaluate("edit", "docs/a.md") == "deny"


async def test_always_answers_are_kept_for_the_principal_alone(tmp_path):
    location = make(tmp_path)
    alice, bob = principal(location, "alice"), principal(location, "bob")
    with applying(alice):
        await location.permission.assert_("edit", ["a.py"], source=SOURCE)
        assert location.permission.evaluate("edit", "a.py") == "allow"
    with applying(bob):
        assert location.permission.evaluate("edit", "a.py") == "ask"
    assert location.permission.evaluate("edit", "a.py") == "ask"
    assert location.store.approvals() == ()  # the principal's answer stayed its own
    saved = [(r.action, r.resource) for r in location.store.approvals("alice")]
    assert saved == [("edit", "a.py")]  # in the store, under alice's name
    assert location.store.approvals("bob") == ()


async def test_a_principals_saved_answers_are_read_back_by_a_new_location(tmp_path):
    first = make(tmp_path)
    with applying(principal(first, "alice")):
        await first.permission.assert_("edit", ["a.py"], source=SOURCE)
    first.close()
    again = make(tmp_path)  # the same data dir, as after a restart
    with applying(principal(again, "alice")):
        assert again.permission.evaluate("edit", "a.py") == "allow"
    with applying(principal(again, "bob")):
        assert again.permission.evaluate("edit", "a.py") == "ask"
    again.close()


async def test_location_approvals_apply_to_every_principal_but_never_lift_its_deny(tmp_path):
    location = make(tmp_path)
    await location.permission.assert_("edit", ["a.py"], source=SOURCE)  # saved for all
    saved = [(r.action, r.resource, r.effect) for r in location.store.approvals()]
    assert saved == [("edit", "a.py", "allow")]
    alice = principal(location, "alice")
    carol = principal(location, "carol", rule("edit", "*", "deny"))
    with applying(alice):
        assert location.permission.evaluate("edit", "a.py") == "allow"
    with applying(carol), pytest.raises(PermissionBlocked):
        await location.permission.assert_("edit", ["a.py"], source=SOURCE)
