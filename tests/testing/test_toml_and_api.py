"""The tiny TOML writer behind ``config=``, and the curated ``tooldeck.testing`` API."""

from __future__ import annotations

import importlib
import tomllib

import pytest

import tooldeck.testing
from tooldeck.testing import write_config
from tooldeck.testing._toml import dumps

CONFIG = {
    "plugins": {"disable": ["builtin:shell"], "order": []},
    "permission": [{"action": "edit", "resource": "src/**", "effect": "deny"}],
    "mcp": {"servers": {"my server": {"command": ["python", "-m", "srv"]}}},
    "output": {"max_lines": 10, "max_bytes": 1.5e3},
    "codemode": {"enabled": False},
    "odd key": 'quote " backslash \\ tab \t newline \n del \x7f é',
}


def test_dumps_round_trips_through_tomllib():
    assert tomllib.loads(dumps(CONFIG)) == CONFIG


def test_dumps_names_what_toml_cannot_hold():
    with pytest.raises(
        TypeError,
        match=r"config key 'output.max_lines': TOML cannot hold "
        r"NoneType None",
    ):
        dumps({"output": {"max_lines": None}})
    with pytest.raises(TypeError, match="TOML keys are strings"):
        dumps({"output": {1: 2}})


def test_write_config_replaces_the_project_file(tmp_path):
    write_config(tmp_path, "[output]\nmax_lines = 1\n")
    path = write_config(tmp_path, {"output": {"max_lines": 2}})
    assert path == tmp_path / "tooldeck.toml"
    assert tomllib.loads(path.read_text()) == {"output": {"max_lines": 2}}


def test_all_is_sorted_and_resolves():
    assert tooldeck.testing.__all__ == sorted(tooldeck.testing.__all__)
    for name in tooldeck.testing.__all__:
        assert getattr(tooldeck.testing, name) is getattr(
            importlib.import_module(tooldeck.testing._LOCATIONS[name]), name
        )
    assert dir(tooldeck.testing) == tooldeck.testing.__all__
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        tooldeck.testing.nope  # noqa: B018


def test_the_plugin_lists_its_fixtures():
    from tooldeck.testing import plugin

    fixtures = sorted(n for n in vars(plugin) if n.startswith("tooldeck_"))
    assert plugin.__all__ == fixtures
    for name in fixtures:
        assert f"``{name}``" in plugin.__doc__
