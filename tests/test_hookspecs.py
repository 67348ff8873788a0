"""The hookspecs are the contract: each is specified, documented, and tested."""

from __future__ import annotations

import inspect
import tomllib

import pluggy
import pytest

from tooldeck import Host, hookimpl, hookspec, hookspecs
from tooldeck.host.plugins.wiring import LOCATION_HOOKS

from .docs_blocks import ROOT, page

DOCS = ROOT / "docs" / "hooks.md"
HOST_TESTS = ROOT / "tests" / "host" / "plugins" / "test_host.py"
PAGE = page("hooks.md")
EXAMPLES = [PAGE.claim(b) for b in PAGE.blocks if b.lang == "python"]
ENTRY_POINTS = PAGE.take("toml", "[project.entry-points.tooldeck]")
PACK_MODULE = """\
from tooldeck import hookimpl, tool


@tool
def forecast(city: str) -> str:
    \"\"\"Today's weather in a city.\"\"\"
    return city


@hookimpl
def tool_transform(editor):
    editor.add(forecast)
"""


def spec_functions():
    return {name: getattr(hookspecs, name) for name in hookspecs.HOOKS}


def test_markers_belong_to_the_tooldeck_project():
    assert hookimpl.project_name == hookspec.project_name == "tooldeck"


def test_hooks_are_the_specified_functions_in_call_order():
    manager = pluggy.PluginManager("tooldeck")
    manager.add_hookspecs(hookspecs)
    specified = [n for n in dir(manager.hook) if not n.startswith("_")]
    assert sorted(specified) == sorted(hookspecs.HOOKS)
    assert hookspecs.TRANSFORM_HOOKS == (
        "namespace_descriptions",
        "tool_transform",
        "session_transform",
    )
    assert (*hookspecs.TRANSFORM_HOOKS, "tool_call") == hookspecs.HOOKS
    assert LOCATION_HOOKS == ("namespace_descriptions", "tool_transform")


def parameters(name):
    return list(inspect.signature(spec_functions()[name]).parameters)


@pytest.mark.parametrize("name", hookspecs.TRANSFORM_HOOKS)
def test_every_transform_hook_takes_editor_first_and_location_last(name):
    assert parameters(name)[0] == "editor" and parameters(name)[-1] == "location"


def test_location_hooks_take_editor_and_location_and_the_session_hook_its_id_and_state():
    assert all(parameters(name) == ["editor", "location"] for name in LOCATION_HOOKS)
    assert parameters("session_transform") == ["editor", "session_id", "state", "location"]


@pytest.mark.parametrize("name", hookspecs.TRANSFORM_HOOKS)
def test_every_transform_docstring_states_the_contract(name):
    doc = inspect.getdoc(spec_functions()[name])
    for words in (
        "every replay",
        "deterministic",
        "Ordering",
        "If it raises",
        "``editor``",
        "``location``",
        "subset",
    ):
        assert words in doc, f"{name}: the docstring does not say {words!r}"


def test_the_call_hook_takes_the_call_and_its_context_and_states_its_contract():
    assert parameters("tool_call") == ["call", "context"]
    doc = inspect.getdoc(hookspecs.tool_call)
    for words in (
        "wrapper=True",
        "every call",
        "Ordering",
        "outermost",
        "If it raises",
        "``call``",
        "``context``",
        "subset",
    ):
        assert words in doc, f"tool_call: the docstring does not say {words!r}"


@pytest.mark.parametrize("name", hookspecs.HOOKS)
def test_every_hook_is_documented_with_its_signature(name):
    assert f"## `{name}({', '.join(parameters(name))})`" in DOCS.read_text()


@pytest.mark.parametrize("name", hookspecs.HOOKS)
def test_every_hook_has_a_test(name):
    assert f"def test_hook_{name}(" in HOST_TESTS.read_text()


@pytest.mark.usefixtures("clean_env")
@pytest.mark.parametrize("block", EXAMPLES, ids=str)
def test_every_documented_example_runs(block, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    exec(compile(block.code, str(block), "exec"), {})


def test_the_entry_point_snippet_publishes_a_pack(clean_env, tmp_path, monkeypatch):
    """The snippet's table, installed as pip writes it (``entry_points.txt`` in a
    ``dist-info`` on ``sys.path``) next to the module it names: the host loads it."""
    table = tomllib.loads(ENTRY_POINTS.code)["project"]["entry-points"]
    (group,) = table
    (module,) = table[group].values()
    lines = "".join(f"{name} = {value}\n" for name, value in table[group].items())
    site = tmp_path / "site"
    info = site / "tooldeck_weather-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: tooldeck-weather\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{group}]\n{lines}")
    (site / f"{module}.py").write_text(PACK_MODULE)
    monkeypatch.syspath_prepend(str(site))
    with Host.open(tmp_path) as host:
        [plugin] = [p for p in host.plugins if p.layer == "entrypoint"]
        assert (plugin.name, plugin.status) == ("tooldeck-weather", "active")
        assert "forecast" in {entry.name for entry in host.snapshot().codemode_catalog}
