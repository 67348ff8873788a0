"""The user's and the project's rules: strictest wins between them, never position."""

from __future__ import annotations

import pytest

from tooldeck import Location
from tooldeck.host.config.config import Config, PermissionRule
from tooldeck.host.config.layers import ProjectLayer
from tooldeck.host.permissions.layers import LayeredRules, layered
from tooldeck.host.permissions.wildcard import Ruleset


def rule(action, effect, resource="*"):
    return PermissionRule(action=action, resource=resource, effect=effect)


def rules(*given):
    return Ruleset(tuple(given))


@pytest.mark.parametrize("allows", [True, False])
@pytest.mark.parametrize(
    ("user", "project", "expected"),
    [
        ((rule("shell", "deny"),), (rule("shell", "ask"),), "deny"),  # issue 34, case 2
        ((rule("shell", "deny"),), (rule("shell", "allow"),), "deny"),
        ((rule("shell", "allow"),), (rule("shell", "deny"),), "deny"),
        ((rule("shell", "allow"),), (rule("shell", "ask"),), "ask"),
        ((rule("shell", "ask"),), (rule("shell", "allow"),), "ask"),
        ((), (rule("shell", "deny"),), "deny"),
        ((), (), "ask"),
    ],
)
def test_the_stricter_layer_decides_whatever_the_order(user, project, expected, allows):
    combined = LayeredRules(rules(*user), rules(*project), allows)
    assert combined.evaluate("shell", "ls") == expected


def test_a_trusted_projects_allow_counts_where_the_user_says_nothing():
    assert LayeredRules(rules(), rules(rule("shell", "allow")), True).evaluate("shell", "ls") == (
        "allow"
    )
    assert LayeredRules(rules(), rules(rule("shell", "allow")), False).evaluate("shell", "ls") == (
        "ask"
    )


def test_an_untrusted_allow_is_no_opinion_not_a_deleted_rule():
    """Issue 34, case 2: the project's ask before its own allow must not override the
    user's allow for what that allow covered."""
    user = rules(rule("shell", "allow"))
    project = rules(rule("*", "ask"), rule("shell", "allow"))
    untrusted = LayeredRules(user, project, False)
    assert untrusted.evaluate("shell", "ls") == "allow"  # the user's own allow
    assert untrusted.evaluate("edit", "a.py") == "ask"  # the project's ask elsewhere
    assert untrusted.rule_for("shell", ("ls",)) == rule("shell", "allow")


def test_the_deciding_rule_is_the_stricter_ones():
    deny = rule("shell", "deny", "rm *")
    combined = LayeredRules(rules(rule("shell", "allow")), rules(deny), False)
    assert combined.rule_for("shell", ("rm -rf /",)) is deny


def test_hidden_when_either_layer_denies_every_resource():
    deny_all = rules(rule("shell", "deny"))
    assert LayeredRules(rules(rule("shell", "allow")), deny_all, False).hidden("shell")
    assert LayeredRules(deny_all, rules(rule("shell", "allow")), True).hidden("shell")
    narrow = rules(rule("shell", "deny", "rm *"))
    assert not LayeredRules(rules(), narrow, True).hidden("shell")


def test_one_layer_stays_a_ruleset():
    user = rules(rule("shell", "allow"))
    assert layered(user, (), project_allows=False) is user
    assert hash(layered(user, (rule("x", "ask"),), project_allows=False)) == hash(
        layered(user, (rule("x", "ask"),), project_allows=False)
    )


def location(tmp_path, user, project, principals=()):
    here = Location(tmp_path, config=Config(permission=tuple(user)))
    here.project = ProjectLayer(tuple(project), tuple(principals), trusted=False)
    return here


def test_a_location_decides_by_both_layers(tmp_path):
    here = location(tmp_path, [rule("shell", "allow")], [rule("shell", "ask", "rm *")])
    assert here.permission.evaluate("shell", "ls") == "allow"
    assert here.permission.evaluate("shell", "rm x") == "ask"
    assert here.permission.evaluate("read", "a.py") == "allow"  # the built-in default


def test_a_principal_has_each_layers_rules_then_its_own(tmp_path):
    config = Config.model_validate(
        {
            "permission": [{"action": "shell", "effect": "deny"}],
            "mcp": {
                "serve": {
                    "principals": {
                        "ci": {
                            "token_env": "CI",
                            "permission": [{"action": "shell", "effect": "allow"}],
                        }
                    }
                }
            },
        }
    )
    project = (("ci", (rule("shell", "ask", "rm *"),)),)
    here = Location(tmp_path, config=config)
    here.project = ProjectLayer((), project, trusted=True)
    ci = here.principal_policy("ci")
    assert ci.evaluate("shell", "ls") == "allow"  # the user's own rule for ci, after its deny
    assert ci.evaluate("shell", "rm x") == "ask"  # the project's rule for ci is stricter
    assert here.policy.evaluate("shell", "ls") == "deny"
    assert here.principal_policy("other") is here.policy
