"""``tool_call`` wrappers of one session: ``scope.call_hook`` and ``editor.add_call_hook``
in a session's replay wrap that session's calls only, and leave with their registration."""

from __future__ import annotations

import asyncio
import types

import pytest

from tooldeck import Host, ToolCall, ToolFailure, ToolResult, hookimpl, run_tool_call, tool

pytestmark = pytest.mark.usefixtures("clean_env", "no_builtins")


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


class Tools:
    @hookimpl
    def tool_transform(self, editor):
        editor.add(add.replace(codemode=False))
        editor.add(add.replace(name="plus"))  # a code-mode tool


def call(snapshot, name, arguments):
    return asyncio.run(run_tool_call(snapshot, ToolCall("c1", name, arguments)))


def text(outcome):
    return outcome.content[0].text


def tagging(tag, seen=None):
    """A wrapper appending ``tag`` to every result (and noting the call in ``seen``)."""

    def tool_call(call, context):
        if seen is not None:
            seen.append((context.name, context.via, context.session_id))
        result = yield
        return ToolResult(content=f"{result.content[0].text}{tag}", output=result.output)

    return tool_call


def test_a_session_hook_wraps_that_sessions_native_and_nested_calls_only(tmp_path):
    seen = []
    with Host.open(tmp_path, plugins=[Tools()], trust=True) as host:
        scope = host.session("s1")
        host.session("s2")
        scope.call_hook(tagging("!", seen), source="audit")
        native = call(host.snapshot(session="s1"), "add", {"a": 1, "b": 2})
        code = "await tools.plus(a=1, b=2)"
        program = call(host.snapshot(session="s1"), "execute", {"code": code})
        other = call(host.snapshot(session="s2"), "add", {"a": 1, "b": 2})
        location = call(host.snapshot(), "add", {"a": 1, "b": 2})
        untouched = (host.snapshot(session="s2").call_hooks, host.snapshot().call_hooks)
    assert text(native) == "3!"
    assert (program.status, text(program)) == ("completed", "3!")
    assert seen == [("add", "native", "s1"), ("execute", "native", "s1"), ("plus", "nested", "s1")]
    assert (text(other), text(location), untouched) == ("3", "3", (None, None))


def test_a_session_hook_leaves_with_its_registration_and_with_the_session(tmp_path):
    with Host.open(tmp_path, plugins=[Tools()], trust=True) as host:
        scope = host.session("s1")
        registration = scope.call_hook(tagging("!"))
        assert text(call(host.snapshot(session="s1"), "add", {"a": 1, "b": 2})) == "3!"
        registration.dispose()
        assert host.snapshot(session="s1").call_hooks is None
        scope.call_hook(tagging("?"))
        assert text(call(host.snapshot(session="s1"), "add", {"a": 1, "b": 2})) == "3?"
        scope.close()
        reopened = host.session("s1")
        assert host.snapshot(session="s1").call_hooks is None and reopened.registrations == ()


def test_session_hooks_nest_outside_the_location_plugins_in_registration_order(tmp_path):
    location = types.ModuleType("loc")
    location.tool_call = hookimpl(wrapper=True)(tagging("L"))
    with Host.open(tmp_path, plugins=[Tools(), location], trust=True) as host:
        scope = host.session("s1")
        scope.call_hook(tagging("1"))
        scope.call_hook(tagging("2"))
        outcome = call(host.snapshot(session="s1"), "add", {"a": 1, "b": 2})
    assert text(outcome) == "3L12"  # the last registered is outermost: it sees the result last


def test_a_plugins_session_transform_adds_a_hook_for_the_sessions_it_chooses(tmp_path):
    class Watched:
        @hookimpl
        def session_transform(self, editor, session_id):
            if session_id.startswith("watched"):
                editor.add_call_hook(self.refuse)

        def refuse(self, call, context):
            if call.input.get("a") == 13:
                raise ToolFailure(f"{context.session_id}: 13 is refused")
            return (yield)

    with Host.open(tmp_path, plugins=[Tools(), Watched()], trust=True) as host:
        with host.session("watched-1"), host.session("free"):
            refused = call(host.snapshot(session="watched-1"), "add", {"a": 13, "b": 0})
            free = call(host.snapshot(session="free"), "add", {"a": 13, "b": 0})
        row = next(p for p in host.plugins if p.name == "Watched")
    assert (refused.status, text(refused)) == ("failed", "watched-1: 13 is refused")
    assert (free.status, text(free)) == ("completed", "13")
    assert row.status == "active"


def test_disposing_the_session_template_removes_its_hook_from_open_sessions(tmp_path):
    def template(editor, session_id, state):
        editor.add_call_hook(tagging("!"))

    with Host.open(tmp_path, plugins=[Tools()], trust=True) as host:
        registration = host.service.session_transform(template, source="watch")
        host.session("s1")
        assert text(call(host.snapshot(session="s1"), "add", {"a": 1, "b": 2})) == "3!"
        registration.dispose()  # what disabling or uninstalling its plugin does
        assert host.snapshot(session="s1").call_hooks is None
        assert text(call(host.snapshot(session="s1"), "add", {"a": 1, "b": 2})) == "3"


def test_a_defective_session_hook_fails_its_source_in_that_session_only(tmp_path):
    def broken(call, context):
        raise ValueError("boom")
        yield  # a generator

    with Host.open(tmp_path, plugins=[Tools()], trust=True) as host:
        one, two = host.session("s1"), host.session("s2")
        one.call_hook(broken, source="flaky")
        two.call_hook(tagging("!"), source="flaky")
        failed = call(host.snapshot(session="s1"), "add", {"a": 1, "b": 2})
        again = call(host.snapshot(session="s1"), "add", {"a": 1, "b": 2})
        other = call(host.snapshot(session="s2"), "add", {"a": 1, "b": 2})
        diagnostics = one.diagnostics
        location = host.service.diagnostics
    assert (failed.status, failed.error.type) == ("failed", "unknown")
    assert "plugin 'flaky'" in text(failed) and "ValueError: boom" in text(failed)
    assert (text(again), text(other)) == ("3", "3!")
    assert [d.source for d in diagnostics] == ["flaky"] and "boom" in diagnostics[0].reason
    assert location == ()


def test_add_call_hook_is_refused_outside_a_session_or_for_a_plain_function(tmp_path):
    class Location:
        @hookimpl
        def tool_transform(self, editor):
            editor.add_call_hook(tagging("!"))

    with Host.open(tmp_path, plugins=[Tools(), Location()], trust=True) as host:
        scope = host.session("s1")
        scope.call_hook(lambda call, context: None, source="plain")
        location = [d.reason for d in host.service.diagnostics if d.source == "Location"]
        session = [d.reason for d in scope.diagnostics if d.source == "plain"]
        hooks = (host.snapshot().call_hooks, host.snapshot(session="s1").call_hooks)
    assert location == ["add_call_hook works in a session's replay only; use a tool_call hookimpl"]
    assert len(session) == 1 and "expects a generator function" in session[0]
    assert hooks == (None, None)


def test_a_plugin_failed_in_the_location_loses_its_session_hooks_and_tools(tmp_path):
    class Flaky:
        @hookimpl
        def session_transform(self, editor):
            editor.add(add.replace(name="extra", codemode=False))
            editor.add_call_hook(tagging("!"))

        @hookimpl(wrapper=True)
        def tool_call(self, call, context):
            if call.input.get("a") == 13:
                raise ValueError("unlucky")
            return (yield)

    with Host.open(tmp_path, plugins=[Tools(), Flaky()], trust=True) as host:
        host.session("s1")
        assert text(call(host.snapshot(session="s1"), "extra", {"a": 1, "b": 2})) == "3!"
        failed = call(host.snapshot(session="s1"), "add", {"a": 13, "b": 0})
        snapshot = host.snapshot(session="s1")
        after = call(snapshot, "add", {"a": 1, "b": 2})
        row = next(p for p in host.plugins if p.name == "Flaky")
    assert failed.status == "failed" and "plugin 'Flaky'" in text(failed)
    assert row.status == "failed"
    assert "extra" not in snapshot.names and snapshot.call_hooks is None
    assert text(after) == "3"
