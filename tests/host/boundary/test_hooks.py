"""``tool_call`` wrappers of plugins at the call boundary: rewrite, refuse, answer, replace,
order, ownership by the plugin's registration, and a defect failing only its plugin."""

from __future__ import annotations

import asyncio
import json
import types

import pytest

from tooldeck import (
    Host,
    PermissionDeclined,
    Tool,
    ToolCall,
    ToolFailure,
    ToolResult,
    hookimpl,
    run_tool_call,
    tool,
)

pytestmark = pytest.mark.usefixtures("clean_env", "no_builtins")


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def greet(name: str) -> str:
    """Greet someone."""
    return f"hello {name}"


class Tools:
    @hookimpl
    def tool_transform(self, editor):
        editor.add(add.replace(codemode=False))
        editor.add(greet.replace(codemode=False))
        editor.add(
            Tool(
                name="measure",
                description="A length, as declared output.",
                input={"type": "object", "properties": {}},
                output={
                    "type": "object",
                    "properties": {"n": {"type": "integer"}},
                    "required": ["n"],
                },
                execute=lambda i, c: ToolResult(content="3", output={"n": 3}),
                codemode=False,
            )
        )


def wrapper(name, body):
    """A plugin object named ``name`` whose ``tool_call`` wrapper is ``body``."""
    plugin = types.ModuleType(name)
    plugin.tool_call = hookimpl(wrapper=True)(body)
    return plugin


def open_host(tmp_path, *plugins):
    return Host.open(tmp_path, plugins=[Tools(), *plugins], trust=True)


def call(snapshot, name, arguments, **options):
    return asyncio.run(run_tool_call(snapshot, ToolCall("c1", name, arguments), **options))


def text(outcome):
    return outcome.content[0].text


def test_a_wrapper_sees_the_call_and_its_context_and_the_result(tmp_path):
    seen = []

    def tool_call(call, context):
        result = yield
        seen.append((call, context.name, context.source, context.via, context.session_id))
        seen.append((context.message_id, context.mounted, context.overrides, result))
        return result

    with open_host(tmp_path, wrapper("watch", tool_call)) as host:
        outcome = call(host.snapshot(), "add", {"a": 1, "b": 2}, session_id="s", message_id="m")
    assert (outcome.status, text(outcome)) == ("completed", "3")
    assert seen[0] == (ToolCall("c1", "add", {"a": 1, "b": 2}), "add", "Tools", "native", "s")
    assert seen[1][:3] == ("m", False, ())
    assert seen[1][3].output == 3


def test_a_rewritten_input_is_validated_like_the_models(tmp_path):
    def tool_call(call, context):
        arguments = dict(call.input)
        if context.name == "add":
            arguments["b"] *= 10
        else:
            arguments["name"] = ["not", "a", "name"]
        return (yield call._replace(input=arguments))

    with open_host(tmp_path, wrapper("scale", tool_call)) as host:
        assert text(call(host.snapshot(), "add", {"a": 1, "b": 2})) == "21"
        refused = call(host.snapshot(), "greet", {"name": "ada"})
    assert refused.status == "failed" and refused.error.type == "tool.execution"
    assert "Invalid input for tool 'greet'" in text(refused)


def test_a_wrapper_refuses_declines_or_answers_without_running_the_tool(tmp_path):
    ran = []

    @tool
    def spy() -> str:
        """Record that it ran."""
        ran.append(1)
        return "ran"

    class Spy:
        @hookimpl
        def tool_transform(self, editor):
            editor.add(spy.replace(codemode=False))

    def tool_call(call, context):
        mode = json.loads(call.input).get("mode") if isinstance(call.input, str) else None
        if context.name == "spy" and mode is None:
            raise ToolFailure("spying is not allowed")
        if context.name == "greet":
            raise PermissionDeclined("greet")
        if context.name == "add":
            return ToolResult(content="cached", output=99)
        return (yield)

    with open_host(tmp_path, Spy(), wrapper("gate", tool_call)) as host:
        snapshot = host.snapshot()
        refused = call(snapshot, "spy", "{}")
        declined = call(snapshot, "greet", {"name": "x"})
        answered = call(snapshot, "add", {"a": 1, "b": 1})
    assert (refused.status, refused.error.type, text(refused)) == (
        "failed",
        "tool.execution",
        "spying is not allowed",
    )
    assert declined.status == "declined"
    assert (answered.status, text(answered)) == ("completed", "cached")
    assert ran == []


def test_a_replaced_result_is_checked_against_the_declared_output(tmp_path):
    def tool_call(call, context):
        result = yield
        if context.name == "measure":
            return result._replace(output={"n": "three"})
        return ToolResult(content=text_of(result).upper(), output=result.output)

    def text_of(result):
        return result.content[0].text

    with open_host(tmp_path, wrapper("rewrite", tool_call)) as host:
        snapshot = host.snapshot()
        replaced = call(snapshot, "greet", {"name": "ada"})
        invalid = call(snapshot, "measure", {})
    assert (replaced.status, text(replaced), replaced.output) == (
        "completed",
        "HELLO ADA",
        "hello ada",
    )
    assert invalid.status == "failed"
    assert "does not match its declared schema" in text(invalid)


def test_the_last_loaded_plugin_is_the_outermost_wrapper(tmp_path):
    order = []

    def layer(name):
        def tool_call(call):
            order.append(f"{name} before")
            result = yield
            order.append(f"{name} after")
            return ToolResult(content=f"{name}({result.content[0].text})", output=result.output)

        return wrapper(name, tool_call)

    with open_host(tmp_path, layer("first"), layer("second")) as host:
        outcome = call(host.snapshot(), "add", {"a": 1, "b": 1})
    assert text(outcome) == "second(first(2))"
    assert order == ["second before", "first before", "first after", "second after"]


def test_a_wrapper_sees_a_failure_below_it_and_may_answer_instead(tmp_path):
    def tool_call(call, context):
        try:
            return (yield)
        except ToolFailure as exc:
            return ToolResult(content=f"recovered: {exc.message.splitlines()[0]}", output=0)

    with open_host(tmp_path, wrapper("recover", tool_call)) as host:
        outcome = call(host.snapshot(), "add", {"a": "x"})
    assert (outcome.status, text(outcome)) == (
        "completed",
        "recovered: Invalid input for tool 'add':",
    )


def test_a_raising_wrapper_fails_the_call_naming_its_plugin_and_only_that_plugin(tmp_path):
    def broken(call, context):
        raise ValueError("boom")
        yield  # a generator

    def passes(call):
        return (yield)

    with open_host(tmp_path, wrapper("fine", passes), wrapper("broken", broken)) as host:
        outcome = call(host.snapshot(), "add", {"a": 1, "b": 2})
        status = {p.name: p.status for p in host.plugins}
        again = call(host.snapshot(), "add", {"a": 1, "b": 2})
    assert (outcome.status, outcome.error.type) == ("failed", "unknown")
    assert "plugin 'broken'" in text(outcome) and "ValueError: boom" in text(outcome)
    assert status == {"Tools": "active", "fine": "active", "broken": "failed"}
    assert (again.status, text(again)) == ("completed", "3")


def test_a_wrapper_that_yields_a_renamed_call_is_that_plugins_defect(tmp_path):
    def renames(call):
        return (yield call._replace(name="greet"))

    with open_host(tmp_path, wrapper("renames", renames)) as host:
        outcome = call(host.snapshot(), "add", {"a": 1, "b": 2})
        failed = next(p for p in host.plugins if p.name == "renames")
    assert outcome.status == "failed" and "plugin 'renames'" in text(outcome)
    assert failed.status == "failed" and "rewrite a call's input only" in failed.reason


def test_a_wrapper_must_be_a_generator_marked_wrapper(tmp_path):
    plain = types.ModuleType("plain")
    plain.tool_call = hookimpl(lambda call: None)
    with open_host(tmp_path, plain) as host:
        row = next(p for p in host.plugins if p.name == "plain")
    assert row.status == "failed" and "wrapper=True" in row.reason


def test_disabling_the_plugin_removes_its_wrapper(tmp_path):
    def shout(call):
        result = yield
        return ToolResult(content=result.content[0].text.upper(), output=result.output)

    with Host.open(tmp_path, plugins=[Tools(), wrapper("shout", shout)], trust=True) as host:
        assert text(call(host.snapshot(), "greet", {"name": "a"})) == "HELLO A"
    with Host.open(
        tmp_path, plugins=[Tools(), wrapper("shout", shout)], disable=["shout"], trust=True
    ) as host:
        assert text(call(host.snapshot(), "greet", {"name": "a"})) == "hello a"


def test_a_sessions_calls_run_the_location_plugins_wrappers(tmp_path):
    seen = []

    def tool_call(call, context):
        seen.append(context.session_id)
        return (yield)

    with open_host(tmp_path, wrapper("watch", tool_call)) as host, host.session("s1"):
        outcome = call(host.snapshot(session="s1"), "add", {"a": 1, "b": 2})
    assert (outcome.status, seen) == ("completed", ["s1"])


def test_without_a_wrapper_the_snapshot_holds_no_hooks(tmp_path):
    with open_host(tmp_path) as host:
        assert host.snapshot().call_hooks is None


def test_nested_code_mode_calls_cross_the_wrappers_with_their_program(tmp_path):
    seen = []

    class Coded:
        @hookimpl
        def tool_transform(self, editor):
            editor.add(add.replace(name="plus"))  # a code-mode tool

    def tool_call(call, context):
        seen.append((context.name, context.via, context.parent_id))
        result = yield
        if context.name == "plus":
            return ToolResult(content=result.content, output=result.output * 100)
        return result

    with Host.open(tmp_path, plugins=[Coded(), wrapper("watch", tool_call)], trust=True) as host:
        snapshot = host.snapshot()
        assert "execute" in snapshot.names
        code = "x = await tools.plus(a=1, b=2)\nx + 1"
        outcome = call(snapshot, "execute", {"code": code})
    assert (outcome.status, text(outcome)) == ("completed", "301")
    assert seen == [("execute", "native", ""), ("plus", "nested", "c1")]


def exits_before_the_tool(call):
    raise SystemExit(3)
    yield  # a generator


def exits_after_the_tool(call):
    yield
    raise SystemExit(3)


@pytest.mark.parametrize("body", [exits_before_the_tool, exits_after_the_tool])
def test_a_wrapper_raising_system_exit_fails_its_plugin_like_any_defect(tmp_path, body):
    with open_host(tmp_path, wrapper("exits", body)) as host:
        outcome = call(host.snapshot(), "add", {"a": 1, "b": 2})
        failed = next(p for p in host.plugins if p.name == "exits")
        again = call(host.snapshot(), "add", {"a": 1, "b": 2})
    assert (outcome.status, outcome.error.type) == ("failed", "unknown")
    assert "plugin 'exits'" in text(outcome) and "SystemExit: 3" in text(outcome)
    assert failed.status == "failed"
    assert (again.status, text(again)) == ("completed", "3")


def test_a_keyboard_interrupt_in_a_wrapper_still_stops_the_host(tmp_path):
    def interrupted(call):
        raise KeyboardInterrupt
        yield  # a generator

    with open_host(tmp_path, wrapper("ctrl_c", interrupted)) as host:
        with pytest.raises(KeyboardInterrupt):
            call(host.snapshot(), "add", {"a": 1, "b": 2})
        assert next(p for p in host.plugins if p.name == "ctrl_c").status == "active"
