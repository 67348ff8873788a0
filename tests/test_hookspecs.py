"""The hookspecs are the contract: each is specified, documented, and tested."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pluggy
import pytest

from tooldeck import hookimpl, hookspec, hookspecs
from tooldeck.host.plugins.wiring import LOCATION_HOOKS

DOCS = Path(__file__).parent.parent / "docs" / "hooks.md"
HOST_TESTS = Path(__file__).parent / "host" / "plugins" / "test_host.py"


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


def doc_examples():
    return re.findall(r"```python\n(.*?)```", DOCS.read_text(), flags=re.S)


@pytest.mark.usefixtures("clean_env")
@pytest.mark.parametrize("index", range(len(doc_examples())))
def test_every_documented_example_runs(index, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    exec(compile(doc_examples()[index], f"docs/hooks.md example {index}", "exec"), {})
