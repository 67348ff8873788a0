"""The project layer: its rules and plugin selection kept apart, the rest merged."""

from __future__ import annotations

from tooldeck.host.config.config import PermissionRule
from tooldeck.host.config.config_files import ConfigSource
from tooldeck.host.config.layers import NO_PROJECT, layered_config

USER = ConfigSource(
    "config.toml",
    "",
    {
        "plugins": {"disable": ["u"], "order": ["u"]},
        "permission": [{"action": "shell", "effect": "allow"}],
        "output": {"max_lines": 10},
        "mcp": {
            "serve": {
                "principals": {
                    "alice": {
                        "token_env": "A",
                        "permission": [{"action": "edit", "effect": "allow"}],
                    }
                }
            }
        },
    },
)
PROJECT = ConfigSource(
    "tooldeck.toml",
    "",
    {
        "plugins": {"disable": ["p"]},
        "permission": [{"action": "shell", "effect": "ask"}],
        "output": {"max_bytes": 100},
        "mcp": {
            "serve": {
                "principals": {
                    "alice": {
                        "token_env": "A2",
                        "permission": [{"action": "edit", "effect": "deny"}],
                    },
                    "bob": {"token_env": "B"},
                }
            }
        },
    },
)


def test_rules_and_plugin_selection_stay_in_their_own_layer():
    config, layer = layered_config(USER, PROJECT, trusted=False)
    assert [(r.action, r.effect) for r in config.permission] == [("shell", "allow")]
    assert config.plugins.disable == ("u",) and config.plugins.order == ("u",)
    alice = config.mcp.serve.principals["alice"]
    assert [(r.action, r.effect) for r in alice.permission] == [("edit", "allow")]
    assert alice.token_env == "A2"  # a plain setting: the project's replaces the user's
    assert set(config.mcp.serve.principals) == {"alice", "bob"}
    assert (config.output.max_lines, config.output.max_bytes) == (10, 100)
    assert layer.permission == (PermissionRule(action="shell", effect="ask"),)
    assert layer.principal_rules("alice") == (PermissionRule(action="edit", effect="deny"),)
    assert layer.principal_rules("bob") == ()
    assert layer.plugins.disable == ("p",)
    assert layer.trusted is False


def test_no_project_no_layer():
    config, layer = layered_config(USER, None, trusted=True)
    assert layer is NO_PROJECT and layer.empty
    assert config.plugins.disable == ("u",)


def test_the_servers_only_the_user_names_are_the_users():
    def source(label, *names):
        servers = {name: {"command": [name]} for name in names}
        return ConfigSource(label, "", {"mcp": {"servers": servers}})

    user = source("config.toml", "a", "b")
    _, layer = layered_config(user, source("tooldeck.toml", "b", "c"), trusted=True)
    assert layer.user_servers == {"a"}  # "b" the project names too: the project's now
    _, layer = layered_config(user, ConfigSource("tooldeck.toml", "", {}), trusted=False)
    assert layer.user_servers == {"a", "b"}  # what narrowing left out is not the project's
    config, layer = layered_config(user, None, trusted=True)
    assert layer.user_servers == {"a", "b"} and layer.empty  # no project rules, still
    assert set(config.mcp.servers) == {"a", "b"}
