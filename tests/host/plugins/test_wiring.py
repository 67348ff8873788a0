"""Candidates, selection, order and pluggy wiring (no distributions needed here)."""

from __future__ import annotations

import random
import sys
import types

import pytest

from tooldeck import Tool, ToolResult, hookimpl
from tooldeck.errors import PluginError
from tooldeck.host.config.config import PluginsConfig
from tooldeck.host.location.location import Location
from tooldeck.host.plugins.discovery import (
    MCP_SLOT,
    EntryPointRecord,
    _name_version,
    builtin_candidates,
    entry_point_candidates,
    forget_modules,
    load_entry_point,
    local_candidates,
    normalize_dist,
    object_candidates,
)
from tooldeck.host.plugins.selection import Selection, canonical, ordered
from tooldeck.host.plugins.wiring import PluginWiring
from tooldeck.host.registry.editor import ToolEditor


def record(dist, name="main", value="mod"):
    return EntryPointRecord(dist, "1.0", name, value, "/site")


def run(input, ctx):
    return ToolResult(content="ok")


def make_tool(name):
    return Tool(name=name, description=f"{name} tool", execute=run, codemode=False)


# -- names -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Tooldeck_Weather", "tooldeck-weather"),
        ("a..b__c--d", "a-b-c-d"),
        ("plain", "plain"),
    ],
)
def test_distribution_names_are_pep503_normalized(raw, expected):
    assert normalize_dist(raw) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("My_Pack", "my-pack"),
        ("My_Pack:Entry_Point", "my-pack:Entry_Point"),
        ("builtin:read", "builtin:read"),
        ("local:My_File", "local:My_File"),
    ],
)
def test_canonical_names(raw, expected):
    assert canonical(raw) == expected


def test_an_entry_point_is_named_by_its_distribution_unless_it_has_siblings():
    names = [
        c.name
        for c in entry_point_candidates([record("solo"), record("duo", "a"), record("duo", "b")])
    ]
    assert names == ["solo", "duo:a", "duo:b"]


def test_builtins_are_named_and_ordered_like_builtin_plugins():
    candidates = builtin_candidates(["read", "shell"])
    assert [(c.name, c.layer, c.origin) for c in candidates] == [
        ("builtin:read", "builtin", "tooldeck.builtin_plugins.read"),
        ("builtin:shell", "builtin", "tooldeck.builtin_plugins.shell"),
    ]


def test_plugin_objects_get_unique_names():
    module = types.ModuleType("my_tools")
    names = [c.name for c in object_candidates([module, module, Selection()])]
    assert names == ["my_tools", "my_tools#2", "Selection"]


# -- order -----------------------------------------------------------------------------------
def layered():
    return [
        *builtin_candidates(["read", "shell"]),
        MCP_SLOT,
        *entry_point_candidates(
            [record("zeta"), record("alpha", "b"), record("alpha", "a"), record("mid")]
        ),
        *object_candidates([types.ModuleType("obj")]),
    ]


def test_order_is_layers_then_explicit_keys_whatever_the_input_order():
    expected = ["builtin:read", "builtin:shell", "mcp", "alpha:a", "alpha:b", "mid", "zeta", "obj"]
    for seed in range(5):
        shuffled = layered()
        random.Random(seed).shuffle(shuffled)
        assert [c.name for c in ordered(shuffled)] == expected


def test_local_plugins_sort_by_file_name(tmp_path):
    folder = tmp_path / ".tooldeck" / "plugins"
    folder.mkdir(parents=True)
    for name in ("b.py", "a.py", "c.txt", "B.py"):
        (folder / name).write_text("")
    assert [c.name for c in local_candidates(tmp_path)] == ["local:B", "local:a", "local:b"]


def test_order_moves_listed_plugins_last_in_the_listed_order():
    moved = ordered(layered(), ["zeta", "builtin:read", "Alpha", "not-installed"])
    assert [c.name for c in moved] == [
        "builtin:shell",
        "mcp",
        "mid",
        "obj",
        "zeta",
        "builtin:read",
        "alpha:a",
        "alpha:b",
    ]


# -- selection -------------------------------------------------------------------------------
def select(plugins=None, disable=(), config=None, **environ):
    return Selection.build(
        plugins=plugins, disable=disable, config=config or PluginsConfig(), environ=environ
    )


def verdicts(selection):
    return {c.name: selection.excluded(c) for c in layered() if c.load is not None}


def test_everything_loads_by_default():
    assert set(verdicts(select()).values()) == {None}


def test_the_load_list_selects_third_party_plugins_only():
    result = verdicts(select(TOOLDECK_LOAD_PLUGINS="mid, alpha:b"))
    assert result["builtin:read"] is None and result["obj"] is None
    assert result["mid"] is None and result["alpha:b"] is None
    assert result["alpha:a"] == result["zeta"] == "not selected by TOOLDECK_LOAD_PLUGINS"


def test_an_empty_load_list_means_no_third_party_plugins():
    result = verdicts(select(TOOLDECK_LOAD_PLUGINS=""))
    assert [n for n, why in result.items() if why is None] == [
        "builtin:read",
        "builtin:shell",
        "obj",
    ]


def test_the_argument_wins_over_the_environment_which_wins_over_config():
    config = PluginsConfig(only=("zeta",))
    assert verdicts(select(config=config))["mid"] == "not selected by config plugins.only"
    assert verdicts(select(config=config, TOOLDECK_LOAD_PLUGINS="mid"))["mid"] is None
    chosen = select(["zeta"], config=config, TOOLDECK_LOAD_PLUGINS="mid")
    assert verdicts(chosen)["mid"] == "not selected by Host.open(plugins=[...])"


def test_disable_sources_add_up_and_apply_to_builtins():
    result = verdicts(
        select(
            disable=["zeta"],
            config=PluginsConfig(disable=("builtin:read",)),
            TOOLDECK_DISABLE_PLUGINS="ALPHA",
        )
    )
    assert result["zeta"] == "disabled by Host.open(disable=...)"
    assert result["builtin:read"] == "disabled by config plugins.disable"
    assert result["alpha:a"] == result["alpha:b"] == "disabled by TOOLDECK_DISABLE_PLUGINS"
    assert result["mid"] is None


def test_disable_entries_may_be_glob_patterns_in_every_source():
    by_argument = verdicts(select(disable=["builtin:*"]))
    assert (
        by_argument["builtin:read"]
        == by_argument["builtin:shell"]
        == ("disabled by Host.open(disable=...)")
    )
    assert by_argument["zeta"] is None and by_argument["alpha:a"] is None
    by_config = verdicts(select(config=PluginsConfig(disable=("Alpha:*",))))
    assert by_config["alpha:a"] == by_config["alpha:b"] == "disabled by config plugins.disable"
    by_environ = verdicts(select(TOOLDECK_DISABLE_PLUGINS="?eta, builtin:s*"))
    assert (
        by_environ["zeta"] == by_environ["builtin:shell"] == "disabled by TOOLDECK_DISABLE_PLUGINS"
    )
    assert by_environ["builtin:read"] is None and by_environ["mid"] is None


# -- loading ---------------------------------------------------------------------------------
def test_an_entry_point_that_does_not_resolve_names_plugin_and_entry_point():
    with pytest.raises(PluginError) as raised:
        load_entry_point("pack", record("pack", "main", "json:no_such_attr"))
    assert raised.value.plugin == "pack"
    assert "entry point 'main = json:no_such_attr' does not resolve" in str(raised.value)


def test_an_entry_point_whose_module_is_missing():
    with pytest.raises(PluginError, match="module 'no_such_module_x' not found"):
        load_entry_point("pack", record("pack", "main", "no_such_module_x"))


def test_a_local_plugin_that_raises_on_import_is_a_plugin_error(tmp_path):
    folder = tmp_path / ".tooldeck" / "plugins"
    folder.mkdir(parents=True)
    (folder / "boom.py").write_text("raise ValueError('nope')\n")
    candidate = local_candidates(tmp_path)[0]
    with pytest.raises(PluginError, match=r"executing boom.py raised ValueError: nope"):
        candidate.load()


# -- wiring ----------------------------------------------------------------------------------
@pytest.fixture
def wiring(tmp_path):
    return PluginWiring(Location(tmp_path))


def test_both_hooks_become_one_transform_namespaces_first(wiring):
    calls = []

    class Plugin:
        @hookimpl
        def tool_transform(self, editor, location):
            calls.append(("tool_transform", location.root))
            editor.add(make_tool("one"))

        @hookimpl
        def namespace_descriptions(self, editor):
            calls.append(("namespace_descriptions",))

    editor = ToolEditor()
    wiring.register("p", Plugin()).location(editor)
    assert calls == [("namespace_descriptions",), ("tool_transform", wiring._location.root)]
    assert [t.name for t in editor.list()] == ["one"]


def test_a_signature_mismatch_names_plugin_and_hook(wiring):
    class Plugin:
        @hookimpl
        def tool_transform(self, editor, extra):
            pass

    with pytest.raises(PluginError) as raised:
        wiring.register("bad-pack", Plugin())
    assert raised.value.plugin == "bad-pack"
    assert "invalid hookimpl" in raised.value.message
    assert "tool_transform" in raised.value.message and "extra" in raised.value.message


def test_a_signature_mismatch_says_what_the_hook_takes(wiring):
    """A misspelt argument (``editr``) is fixed by reading the names the hook offers."""

    class Plugin:
        @hookimpl
        def namespace_descriptions(self, editr):
            pass

    with pytest.raises(PluginError) as raised:
        wiring.register("bad-pack", Plugin())
    assert raised.value.message.endswith("; namespace_descriptions takes any of: editor, location")


def test_an_unknown_hook_is_refused_and_leaves_nothing_registered(wiring):
    class Plugin:
        @hookimpl
        def tool_transfrom(self, editor):
            pass

    with pytest.raises(PluginError, match="unknown hook 'tool_transfrom'"):
        wiring.register("typo", Plugin())
    wiring.register("typo", types.SimpleNamespace(tool_transform=hookimpl(lambda editor: None)))


def test_wrappers_are_refused(wiring):
    class Plugin:
        @hookimpl(wrapper=True)
        def tool_transform(self, editor):
            return (yield)

    with pytest.raises(PluginError, match="wrappers are not supported"):
        wiring.register("wrap", Plugin())


def test_a_plugin_without_hookimpls_says_what_is_missing(wiring):
    module = types.ModuleType("undecorated")
    module.tool_transform = lambda editor: None
    with pytest.raises(PluginError, match=r"missing its @tooldeck\.hookimpl decorator"):
        wiring.register("undecorated", module)


def test_a_raising_hook_is_reported_with_plugin_and_hook(wiring):
    class Plugin:
        @hookimpl
        def tool_transform(self, editor):
            raise KeyError("x")

    transform = wiring.register("raiser", Plugin()).location
    with pytest.raises(PluginError, match="hook 'tool_transform' raised KeyError") as raised:
        transform(ToolEditor())
    assert isinstance(raised.value.__cause__, KeyError)


def test_tracing_prints_every_hook_call(tmp_path, capsys):
    class Plugin:
        @hookimpl
        def namespace_descriptions(self, editor):
            pass

        @hookimpl
        def tool_transform(self, location):
            raise RuntimeError("boom")

    transform = PluginWiring(Location(tmp_path), trace=True).register("traced", Plugin()).location
    with pytest.raises(PluginError):
        transform(ToolEditor())
    assert capsys.readouterr().err.splitlines() == [
        "tooldeck: trace: traced: namespace_descriptions(editor=<ToolEditor with 0 tools>) -> ok",
        f"tooldeck: trace: traced: tool_transform(location={Location(tmp_path)!r})"
        " -> raised RuntimeError: boom",
    ]


def test_an_upgraded_entry_point_forgets_only_its_own_modules(tmp_path, monkeypatch):
    for name, where in (
        ("fgpack", tmp_path),
        ("fgpack.sub", tmp_path),
        ("fgpackage", tmp_path),
        ("fgpack.elsewhere", tmp_path.parent / "other"),
    ):
        module = types.ModuleType(name)
        module.__file__ = str(where / f"{name}.py")
        monkeypatch.setitem(sys.modules, name, module)
    old = entry_point_candidates([EntryPointRecord("fg", "1", "m", "fgpack.sub:x", str(tmp_path))])[
        0
    ]
    forget_modules(old)
    assert [n for n in sys.modules if n.startswith("fgpack")] == ["fgpackage", "fgpack.elsewhere"]


def test_async_hooks_are_refused(wiring):
    class Plugin:
        @hookimpl
        async def tool_transform(self, editor):
            pass

    with pytest.raises(PluginError, match="must be a plain function, not async"):
        wiring.register("async", Plugin())


def _dist(folder, metadata: str | None):
    from importlib.metadata import PathDistribution

    folder.mkdir(parents=True)
    if metadata is not None:
        (folder / "METADATA").write_text(metadata)
    return PathDistribution(folder)


def test_a_wheels_name_and_version_come_from_its_dist_info_name(tmp_path):
    # The directory name wins: the METADATA here would say otherwise, and is not read.
    dist = _dist(tmp_path / "fancy_pack-2.0.1.dist-info", "Name: other\nVersion: 9\n")
    assert _name_version(dist) == ("fancy_pack", "2.0.1")


@pytest.mark.parametrize("folder", ["Fancy_Pack.egg-info", "fancy-pack.dist-info"])
def test_other_layouts_read_the_metadata_headers(tmp_path, folder):
    dist = _dist(
        tmp_path / folder,
        "Metadata-Version: 2.1\nName: Fancy.Pack\nVersion: 1.2\n\nName: not-a-header\n",
    )
    assert _name_version(dist) == ("Fancy.Pack", "1.2")


def _installed(site, folder, entry_points, metadata=None):
    info = site / folder
    info.mkdir(parents=True)
    (info / "entry_points.txt").write_text(entry_points)
    if metadata is not None:
        (info / "METADATA").write_text(metadata)


def test_the_scan_finds_what_importlib_metadata_finds(tmp_path, monkeypatch):
    from importlib.metadata import entry_points

    from tooldeck.host.plugins.discovery import scan_entry_points

    first, second = tmp_path / "first", tmp_path / "second"
    _installed(first, "Dup_Pack-1.0.dist-info", "[tooldeck]\nold = dup_old\n")
    _installed(first, "quiet-1.0.dist-info", "[console_scripts]\nq = quiet:main\n")
    _installed(first, "eggy.egg-info", "[tooldeck]\negg = eggy\n", "Name: eggy\n")
    _installed(second, "dup.pack-2.0.dist-info", "[tooldeck]\nnew = dup_new\n")
    _installed(second, "quiet-2.0.dist-info", "[tooldeck]\nloud = quiet\n")
    monkeypatch.setattr(sys, "path", [str(first), str(second), *sys.path])

    planted = {"old", "egg", "new", "loud"}  # this test's; the venv may hold packs too
    ours = sorted((r.name, r.value) for r in scan_entry_points("tooldeck") if r.name in planted)
    theirs = [(ep.name, ep.value) for ep in entry_points(group="tooldeck") if ep.name in planted]
    assert ours == sorted(theirs)
    names = {name for name, _ in ours}
    assert names >= {"old", "egg"}  # a name installed twice: the first copy on sys.path
    assert not {"new", "loud"} & names  # even where the first copy has no tooldeck group


def test_session_transform_becomes_a_separate_session_transform(wiring):
    calls = []

    class Plugin:
        @hookimpl
        def tool_transform(self, editor):
            calls.append("tool_transform")

        @hookimpl
        def session_transform(self, session_id, editor, location):
            calls.append(("session_transform", session_id, location.root))

    transforms = wiring.register("p", Plugin())
    transforms.location(ToolEditor())
    assert calls == ["tool_transform"]
    assert transforms.session is not None
    transforms.session(ToolEditor(), "chat-1", {})
    assert calls[1:] == [("session_transform", "chat-1", wiring._location.root)]


def test_session_transform_gets_the_state_it_is_given(wiring, capsys):
    class Plugin:
        @hookimpl
        def session_transform(self, state, session_id):
            state.setdefault("runs", []).append(session_id)

    traced = PluginWiring(wiring._location, trace=True)
    session = traced.register("p", Plugin()).session
    assert session is not None
    state = {}
    session(ToolEditor(), "s1", state)
    session(ToolEditor(), "s1", state)
    assert state == {"runs": ["s1", "s1"]}
    assert capsys.readouterr().err.splitlines()[-1] == (
        "tooldeck: trace: p: session_transform(state=<state with keys ['runs']>, "
        "session_id='s1') -> ok"
    )


def test_a_plugin_with_only_session_transform_has_an_empty_location_transform(wiring):
    class Plugin:
        @hookimpl
        def session_transform(self, editor):
            editor.add(Tool(name="todo", description="Todo.", execute=run))

    transforms = wiring.register("p", Plugin())
    editor = ToolEditor()
    transforms.location(editor)
    assert editor.list() == []
    assert transforms.session is not None
    transforms.session(editor, "s", {})
    assert [t.name for t in editor.list()] == ["todo"]
    assert (
        wiring.register(
            "q", types.SimpleNamespace(tool_transform=hookimpl(lambda editor: None))
        ).session
        is None
    )


def test_a_raising_session_transform_names_plugin_and_hook(wiring):
    class Plugin:
        @hookimpl
        def session_transform(self, session_id):
            raise ValueError(session_id)

    session = wiring.register("raiser", Plugin()).session
    assert session is not None
    with pytest.raises(PluginError, match="hook 'session_transform' raised ValueError: s1"):
        session(ToolEditor(), "s1", {})
