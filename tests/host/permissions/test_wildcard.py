from __future__ import annotations

import hypothesis.strategies as st
import pydantic
import pytest
from hypothesis import given, settings

from tooldeck.host.config.config import PermissionRule
from tooldeck.host.permissions.wildcard import (
    Ruleset,
    is_path_pattern,
    match,
    matches_everything,
)

from ...examples import examples


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        # bare `*` matches everything, slashes and the empty string included
        ("*", "/abs/dir/file.py", True),
        ("*", "", True),
        ("**", "a/b/c", True),
        # actions and names: literal, `*` any run, `?` one character
        ("read", "read", True),
        ("read", "reads", False),
        ("mcp_*", "mcp_github_search", True),
        ("?at", "cat", True),
        ("?at", "at", False),
        ("a.b", "axb", False),
        ("a+b(c)[d].py", "a+b(c)[d].py", True),
        # command mode: `*` crosses `/`, a trailing " *" also matches the bare command
        ("git status *", "git status --short", True),
        ("git status *", "git status", True),
        ("git status *", "git statusx", False),
        ("git status *", "git stat", False),
        ("git diff *", "git diff src/a.py", True),
        ("rm -rf /*", "rm -rf /usr/lib", True),
        ("echo *", "echo one\ntwo", True),
        ("*.env", "/home/me/app/.env", True),
        ("*.env", "/home/me/app/.envrc", False),
        # path mode: `*` and `?` stay in one segment, `**` crosses, `**/` is 0+ dirs
        ("src/*.py", "src/a.py", True),
        ("src/*.py", "src/x/a.py", False),
        ("src/a?b", "src/axb", True),
        ("src/a?b", "src/a/b", False),
        ("src/**/*.py", "src/a.py", True),
        ("src/**/*.py", "src/x/y/a.py", True),
        ("src/**/*.py", "srcx/a.py", False),
        ("src/**", "src/x/y", True),
        ("src/**", "src", False),
        ("**/*.py", "a.py", True),
        ("**/*.py", "/abs/dir/a.py", True),
        ("**/*.py", "/abs/dir/a.pyc", False),
        # the external_directory resource is itself "<dir>/*"
        ("/tmp/a/*", "/tmp/a/*", True),
        ("/tmp/a/*", "/tmp/a/b/*", False),
        ("/tmp/a/**", "/tmp/a/b/*", True),
    ],
)
def test_match(pattern, text, expected):
    assert match(pattern, text) is expected


def test_a_leading_tilde_is_the_home_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    assert match("~/notes/*", f"{tmp_path}/notes/a.md")
    assert not match("~/notes/*", "~/notes/a.md")
    assert match("~", str(tmp_path))


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("*", True),
        ("**", True),
        ("***", True),
        ("", False),
        ("*.py", False),
        ("a*", False),
        ("*/*", False),
    ],
)
def test_matches_everything(pattern, expected):
    assert matches_everything(pattern) is expected


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [("src/*", True), ("/abs/**", True), ("git diff src/*", False), ("*", False), ("*.py", False)],
)
def test_is_path_pattern(pattern, expected):
    assert is_path_pattern(pattern) is expected


def rules(*triples):
    return Ruleset.from_rules({"action": a, "resource": r, "effect": e} for a, r, e in triples)


def test_last_matching_rule_wins_and_nothing_matching_asks():
    ruleset = rules(
        ("edit", "*", "allow"), ("edit", "*.lock", "deny"), ("edit", "keep.lock", "ask")
    )
    assert ruleset.evaluate("edit", "a.py") == "allow"
    assert ruleset.evaluate("edit", "poetry.lock") == "deny"
    assert ruleset.evaluate("edit", "keep.lock") == "ask"
    assert ruleset.evaluate("bash", "ls") == "ask"
    assert rules().evaluate("edit", "a.py") == "ask"


def test_rule_for_matches_any_alias_of_a_resource():
    ruleset = rules(("edit", "src/**", "allow"))
    rule = ruleset.rule_for("edit", ("/root/src/a.py", "src/a.py"))
    assert rule == PermissionRule(action="edit", resource="src/**", effect="allow")
    assert ruleset.rule_for("edit", ("/root/src/a.py",)) is None


@pytest.mark.parametrize(
    ("triples", "hidden"),
    [
        ([], False),
        ([("edit", "*", "deny")], True),
        ([("edit", "**", "deny")], True),
        ([("*", "*", "deny")], True),
        ([("e*", "*", "deny")], True),
        ([("edit", "*", "allow"), ("edit", "*", "deny")], True),
        ([("edit", "*", "deny"), ("edit", "src/**", "allow")], False),
        ([("edit", "*", "deny"), ("ed?t", "x", "ask")], False),
        ([("edit", "*", "deny"), ("*", "x", "allow")], False),
        ([("edit", "*.env", "deny")], False),
        ([("edit", "*", "deny"), ("edit", "*.env", "deny")], True),
        ([("edit", "*", "deny"), ("read", "*", "allow")], True),
        ([("edit", "/**", "deny")], False),
    ],
)
def test_hidden_only_when_every_resource_is_denied(triples, hidden):
    assert rules(*triples).hidden("edit") is hidden


def test_rulesets_are_frozen_values():
    first = rules(("edit", "*", "deny"))
    second = Ruleset.from_rules([PermissionRule(action="edit", resource="*", effect="deny")])
    assert first == second
    assert hash(first) == hash(second)
    assert {first: 1}[second] == 1


def test_from_rules_validates_plain_dicts():
    with pytest.raises(pydantic.ValidationError):
        Ruleset.from_rules([{"action": "edit", "resource": "*", "effect": "maybe"}])
    assert Ruleset.from_rules([{"action": "edit", "effect": "deny"}]).hidden("edit")


def test_a_pattern_that_backtracks_is_matched_in_linear_time(join_threads):
    import threading

    from tooldeck.host.permissions.wildcard import match

    found: list[bool] = []
    pattern = "*a" * 10 + "*b"  # a backtracking regex takes ages on 200 a's
    thread = threading.Thread(target=lambda: found.append(match(pattern, "a" * 200)))
    thread.start()
    join_threads(thread)
    assert found == [False]
    assert match(pattern, "a" * 10 + "b")


def hidden_by_walking(ruleset, action):
    """``Ruleset.hidden`` without its shortcut for a ruleset that denies nothing."""
    for rule in reversed(ruleset.rules):
        if not match(rule.action, action):
            continue
        if rule.effect != "deny":
            return False
        if matches_everything(rule.resource):
            return True
    return False


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["edit", "e*", "*", "read", "ed?t"]),
            st.sampled_from(["*", "**", "src/**", "*.env", "x"]),
            st.sampled_from(["allow", "ask", "deny"]),
        ),
        max_size=5,
    ),
    st.sampled_from(["edit", "read", "bash"]),
)
def test_hidden_agrees_with_walking_the_rules(triples, action):
    ruleset = rules(*triples)
    assert ruleset.hidden(action) is hidden_by_walking(ruleset, action)
    if not any(effect == "deny" for *_, effect in triples):
        assert ruleset.hidden(action) is False  # decided without matching a pattern
