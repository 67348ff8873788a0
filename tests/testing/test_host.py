"""``TestHost`` and the ``tooldeck_host`` fixture: selection, calls, catalog assertions."""

from __future__ import annotations

import re
import sys
import types

import pytest

from tooldeck import Host, Tool, ToolFailure, ToolResult, hookimpl
from tooldeck.builtin_plugins import BUILTIN_PLUGINS
from tooldeck.errors import ConfigError, UsageError
from tooldeck.host.config.config import Config, PermissionRule
from tooldeck.host.location.location import Location
from tooldeck.testing import TestHost, text_of

GREET_INPUT = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def greet(input, ctx):
    return ToolResult(content=f"Hello, {input['name']}!")


class GreetPack:
    """Adds ``greet``; a plugin object as a pack author would write one."""

    @hookimpl
    def tool_transform(self, editor):
        editor.add(
            Tool(
                name="greet",
                description="Greet someone.",
                input=GREET_INPUT,
                execute=greet,
                codemode=False,
            )
        )


class SafeRead:
    """Replaces the built-in ``read``."""

    @hookimpl
    def tool_transform(self, editor):
        editor.add(
            Tool(
                name="read",
                description="Read safely.",
                codemode=False,
                execute=lambda i, c: ToolResult(content="safe"),
            )
        )


class Broken:
    @hookimpl
    def tool_transform(self, editor):
        raise RuntimeError("broken on purpose")


class Refused:
    @hookimpl
    def tool_transform(self, editor):
        editor.add(Tool(name="bad name!" * 10, description="x", execute=greet))


class Guarded:
    """``vault`` asks permission; ``pick`` asks a question."""

    @hookimpl
    def tool_transform(self, editor):
        async def vault(input, ctx):
            await ctx.permission.assert_("vault", ["secret/key"])
            return ToolResult(content="opened")

        async def pick(input, ctx):
            (labels,) = await ctx.question.ask([{"question": "Which one?", "header": "Pick"}])
            return ToolResult(content=", ".join(labels))

        editor.add(Tool(name="vault", description="Open it.", execute=vault, codemode=False))
        editor.add(Tool(name="pick", description="Pick one.", execute=pick, codemode=False))


def message(excinfo):
    return str(excinfo.value)


# -- selection -------------------------------------------------------------------------------
def test_only_the_named_plugins_and_no_builtins(tooldeck_host):
    host = tooldeck_host([GreetPack()], builtins=False)
    assert host.tools == {"greet": "native"}
    assert [p.name for p in host.plugins if p.status == "active"] == ["GreetPack"]


def test_all_builtins_by_default(tooldeck_host):
    host = tooldeck_host()
    assert [p.name for p in host.plugins if p.layer == "builtin"] == [
        f"builtin:{m}" for m in BUILTIN_PLUGINS
    ]
    host.assert_tool("read", provided_by="builtin:read", overrides=[])


def test_a_subset_of_builtins_by_name(tooldeck_host):
    host = tooldeck_host(builtins=["read", "builtin:write"])
    assert host.tools == {"read": "native", "write": "native"}
    assert host.plugin("builtin:shell").status == "disabled"


def test_an_unknown_builtin_names_the_real_ones(tooldeck_host):
    with pytest.raises(ValueError, match="unknown built-in 'nope'; tooldeck's built-ins are read"):
        tooldeck_host(builtins=["read", "nope"])
    with pytest.raises(TypeError, match="not 'read'"):
        tooldeck_host(builtins="read")
    with pytest.raises(TypeError, match="plugins must be a list"):
        tooldeck_host("greet")


def test_an_installed_plugin_that_is_missing_is_reported(tooldeck_host):
    host = tooldeck_host(["no-such-pack"], builtins=False)
    info = host.plugin("No_Such.Pack")
    assert (info.status, info.reason) == (
        "failed",
        "not found (requested by Host.open(plugins=[...]))",
    )


def test_config_is_written_to_the_project(tooldeck_host, tooldeck_location):
    host = tooldeck_host(
        [GreetPack()],
        config={"plugins": {"disable": ["builtin:shell"]}, "output": {"max_lines": 3}},
    )
    assert host.location.config.output.max_lines == 3
    assert host.plugin("builtin:shell").reason == "disabled by project config plugins.disable"
    assert (tooldeck_location.root / "tooldeck.toml").is_file()
    with pytest.raises(ConfigError, match=r"tooldeck\.toml"):
        tooldeck_host(config="[output]\nmax_lines = 'many'\n")


def test_the_host_uses_the_location_dirs_asker_and_answerer(tooldeck_host, tooldeck_location):
    host = tooldeck_host(builtins=False)
    assert host.root == tooldeck_location.root
    assert host.location.data_dir == tooldeck_location.data_dir
    assert host.location.asker is tooldeck_location.asker
    assert host.location.answerer is tooldeck_location.answerer


# -- calls -----------------------------------------------------------------------------------
async def test_call_goes_through_the_session_boundary(tooldeck_host):
    host = tooldeck_host([GreetPack()], builtins=False)
    outcome = await host.call("greet", name="Ada")
    assert outcome.status == "completed" and text_of(outcome) == "Hello, Ada!"
    invalid = await host.call("greet")
    assert invalid.status == "failed" and invalid.error.type == "tool.execution"
    assert "- name: " in text_of(invalid) or "name" in invalid.error.message
    unknown = await host.call("nope")
    assert "Tool 'nope' is not available" in unknown.error.message


async def test_call_with_takes_json_and_ids(tooldeck_host):
    seen = []

    class Echo:
        @hookimpl
        def tool_transform(self, editor):
            def run(input, ctx):
                seen.append((ctx.call_id, ctx.session_id, ctx.message_id))
                return ToolResult(content=input["name"])

            editor.add(
                Tool(name="greet", description="x", input=GREET_INPUT, execute=run, codemode=False)
            )

    host = tooldeck_host([Echo()], builtins=False)
    await host.call("greet", name="a")
    outcome = await host.call_with("greet", '{"name": "b"}', call_id="c9", session_id="s9")
    assert text_of(outcome) == "b"
    assert seen == [("call_1", "s1", "m1"), ("c9", "s9", "m1")]


def test_call_sync_runs_without_a_loop(tooldeck_host):
    host = tooldeck_host([GreetPack()], builtins=False)
    assert text_of(host.call_sync("greet", name="Bo")) == "Hello, Bo!"


async def test_call_sync_refuses_a_running_loop(tooldeck_host):
    host = tooldeck_host([GreetPack()], builtins=False)
    with pytest.raises(UsageError, match=r"use 'await host.call\('greet', ...\)'"):
        host.call_sync("greet", name="Bo")


async def test_asks_and_questions_reach_the_scripted_user(
    tooldeck_host, tooldeck_asker, tooldeck_answerer
):
    host = tooldeck_host([Guarded()], builtins=False)
    assert text_of(await host.call("vault")) == "opened"
    tooldeck_asker.on("vault", "reject", resource="secret/*")
    assert (await host.call("vault")).status == "declined"
    assert [r.resources for r in tooldeck_asker.asked("vault")] == [("secret/key",)] * 2
    assert (await host.call("pick")).status == "declined"
    tooldeck_answerer.on("Pick", "B")
    assert text_of(await host.call("pick")) == "B"


async def test_the_fixture_passes_visibility_on(tooldeck_host):
    deny = {"permission": [{"action": "vault", "resource": "*", "effect": "deny"}]}
    host = tooldeck_host([Guarded()], builtins=False, config=deny, visibility=False)
    assert (await host.call("vault")).error.type == "permission.rejected"


async def test_visibility_hides_wholly_denied_tools_unless_turned_off(tooldeck_location):
    deny = PermissionRule(action="vault", resource="*", effect="deny")
    location = Location(
        tooldeck_location.root,
        config=Config(permission=(deny,)),
        data_dir=tooldeck_location.data_dir,
        asker=tooldeck_location.asker,
    )
    offered = TestHost.for_location(location, plugins=[Guarded()], builtins=False)
    offered.assert_no_tool("vault")
    assert "not available" in (await offered.call("vault")).error.message
    everything = TestHost.for_location(
        location, plugins=[Guarded()], builtins=False, visibility=False
    )
    outcome = await everything.call("vault")
    assert outcome.error.type == "permission.rejected"


# -- assertions ------------------------------------------------------------------------------
def test_assert_tool_returns_the_effective_tool(tooldeck_host):
    host = tooldeck_host([SafeRead()], builtins=["read"])
    tool = host.assert_tool("read", mode="native", provided_by="SafeRead", overrides="builtin:read")
    assert tool.description == "Read safely."
    host.assert_tool("read", overrides=["builtin:read"])


def test_assert_tool_says_what_it_found_instead(tooldeck_host):
    host = tooldeck_host([SafeRead()], builtins=["read"])
    with pytest.raises(AssertionError) as excinfo:
        host.assert_tool("read", mode="code", provided_by="builtin:read", overrides=[])
    assert message(excinfo) == (
        "tool 'read': mode is 'native', expected 'code'; provided by 'SafeRead', expected "
        "'builtin:read'; overrides 'builtin:read', expected nothing\n"
        "  found: read (native, from SafeRead, overrides builtin:read)"
    )
    with pytest.raises(AssertionError, match="overrides 'builtin:read', expected 'other'"):
        host.assert_tool("read", overrides="other")
    with pytest.raises(ValueError, match="mode must be"):
        host.assert_tool("read", mode="Native")


def test_a_missing_tool_lists_the_offered_ones_and_the_nearest(tooldeck_host):
    host = tooldeck_host([GreetPack()], builtins=["read"])
    with pytest.raises(AssertionError) as excinfo:
        host.assert_tool("greeet")
    assert message(excinfo) == (
        "no tool 'greeet' is offered to the model\n"
        "  offered: greet (native, from GreetPack), read (native, from builtin:read)\n"
        "  did you mean: 'greet'"
    )


def test_a_missing_tool_names_failed_plugins_and_refused_tools(tooldeck_host):
    host = tooldeck_host([Broken(), Refused()], builtins=False)
    with pytest.raises(AssertionError) as excinfo:
        host.assert_tool("greet")
    text = message(excinfo)
    assert "offered: nothing" in text
    assert "plugin 'Broken' failed: " in text and "broken on purpose" in text
    assert re.search(r"refused: source 'Refused', tool .*bad name", text)


def test_a_hidden_tool_says_which_action_is_denied(tooldeck_host):
    deny = {"permission": [{"action": "secret", "resource": "*", "effect": "deny"}]}
    pack = types.SimpleNamespace(
        tool_transform=hookimpl(
            lambda editor: editor.add(
                Tool(
                    name="vault",
                    description="x",
                    execute=greet,
                    permission="secret",
                    codemode=False,
                )
            )
        )
    )
    host = tooldeck_host([pack], builtins=False, config=deny)
    with pytest.raises(
        AssertionError,
        match=(
            r"in the catalog \(from SimpleNamespace\) but hidden, because the permission "
            r"rules deny every resource of its action 'secret'"
        ),
    ):
        host.assert_tool("vault")


def test_assert_no_tool(tooldeck_host):
    host = tooldeck_host([SafeRead()], builtins=["read"])
    host.assert_no_tool("write")
    with pytest.raises(AssertionError) as excinfo:
        host.assert_no_tool("read")
    assert message(excinfo) == (
        "tool 'read' is offered: read (native, from SafeRead, overrides builtin:read)"
    )


def test_plugin_and_assert_plugin(tooldeck_host):
    host = tooldeck_host([GreetPack(), Broken()], builtins=["read"])
    assert host.plugin("GreetPack").provides == ("greet",)
    assert host.assert_plugin("builtin:read").status == "active"
    assert host.assert_plugin("builtin:shell", "disabled").reason.startswith("disabled by")
    with pytest.raises(AssertionError) as excinfo:
        host.assert_plugin("Broken")
    text = message(excinfo)
    assert text.startswith("plugin 'Broken' is 'failed', expected 'active'\n  reason: ")
    assert "traceback:" in text and "RuntimeError: broken on purpose" in text
    with pytest.raises(AssertionError) as excinfo:
        host.plugin("GreetPak")
    others = [f"builtin:{m} (disabled)" for m in BUILTIN_PLUGINS if m != "read"]
    listed = ", ".join(["builtin:read (active)", *others, "GreetPack (active)", "Broken (failed)"])
    assert message(excinfo) == (
        f"no plugin 'GreetPak' in the load report\n  plugins: {listed}\n  did you mean: 'GreetPack'"
    )


# -- for_location ----------------------------------------------------------------------------
@pytest.fixture
def unlisted_builtin(monkeypatch):
    """``tooldeck.builtin_plugins.draft``: a built-in module not in BUILTIN_PLUGINS."""
    module = types.ModuleType("tooldeck.builtin_plugins.draft")
    module.tool_transform = hookimpl(
        lambda editor: editor.add(
            Tool(name="draft", description="x", execute=greet, codemode=False)
        )
    )
    monkeypatch.setitem(sys.modules, module.__name__, module)
    return module


def test_for_location_loads_builtins_that_are_not_shipped_yet(
    tooldeck_location, unlisted_builtin, tooldeck_host
):
    host = TestHost.for_location(tooldeck_location, builtins=["draft", "read"])
    assert [p.name for p in host.plugins] == ["builtin:read", "builtin:draft"]
    host.assert_tool("draft", provided_by="builtin:draft")
    with pytest.raises(ValueError, match="unknown built-in 'draft'"):
        tooldeck_host(builtins=["draft"])


def test_for_location_ignores_the_environment(tooldeck_location, monkeypatch):
    monkeypatch.setenv("TOOLDECK_DISABLE_PLUGINS", "builtin:read")
    host = TestHost.for_location(tooldeck_location, plugins=[GreetPack()])
    host.assert_tool("read")
    assert "greet" in host.tools


def test_for_location_matches_host_open(tooldeck_location, tooldeck_host):
    """Drift guard: both constructors load the same plugins into the same catalog."""
    plugins = [SafeRead(), GreetPack(), Broken()]
    opened = tooldeck_host(plugins)
    built = TestHost.for_location(tooldeck_location, plugins=plugins)
    reference = Host.open(tooldeck_location.root, plugins=plugins)
    for host in (opened.host, built.host):
        assert [(p.name, p.status, p.provides, p.overrides) for p in host.plugins] == [
            (p.name, p.status, p.provides, p.overrides) for p in reference.plugins
        ]
        assert [d.name for d in host.snapshot().definitions] == [
            d.name for d in reference.snapshot().definitions
        ]


def test_repr_and_tool_failure_text(tooldeck_host):
    class Fails:
        @hookimpl
        def tool_transform(self, editor):
            def run(input, ctx):
                raise ToolFailure("nope")

            editor.add(Tool(name="fails", description="x", execute=run, codemode=False))

    host = tooldeck_host([Fails()], builtins=False)
    assert repr(host).endswith("tools=['fails']>")
    assert text_of(host.call_sync("fails")) == "nope"
