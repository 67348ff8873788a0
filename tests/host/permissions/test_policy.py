"""The policy: built-in defaults under the configured rules, used for visibility."""

from __future__ import annotations

from tooldeck.host.config.config import PermissionRule
from tooldeck.host.permissions.policy import DEFAULT_RULES, policy


def test_the_unvalidated_defaults_equal_validated_rules():
    validated = tuple(PermissionRule.model_validate(rule.model_dump()) for rule in DEFAULT_RULES)
    assert validated == DEFAULT_RULES
    assert [hash(r) for r in validated] == [hash(r) for r in DEFAULT_RULES]
    assert [r.model_fields_set for r in validated] == [r.model_fields_set for r in DEFAULT_RULES]


def test_configured_rules_come_after_the_defaults():
    deny_read = PermissionRule(action="read", effect="deny")
    ruleset = policy([deny_read])
    assert ruleset.rules == (*DEFAULT_RULES, deny_read)
    assert ruleset.hidden("read") and not policy([]).hidden("read")
    assert policy([]).evaluate("glob", "x") == "allow"
    assert policy([]).evaluate("edit", "x") == "ask"


def test_host_snapshot_hides_what_the_config_denies(tooldeck_host):
    host = tooldeck_host(config={"permission": [{"action": "shell", "effect": "deny"}]})
    assert "shell" not in host.snapshot().names
    assert "shell" in host.service.snapshot().names
    assert host.snapshot() is host.snapshot()  # the policy is cached, so is the snapshot


def test_a_location_rebuilds_its_policy_only_when_its_config_changes(tooldeck_location):
    location = tooldeck_location
    first = location.policy
    assert location.policy is first and first.rules == DEFAULT_RULES
    assert location.permission.visibility() is first
    location.config = location.config.model_copy(
        update={"permission": (PermissionRule(action="shell", effect="deny"),)}
    )
    assert location.policy is not first and location.policy.hidden("shell")
