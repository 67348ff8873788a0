"""Tests for tooldeck-todo, through tooldeck's public API only.

Each test opens a Host on a temp dir with the pack's module as the only third-party
plugin, opens sessions with ``host.session(id)`` and runs calls through
``run_tool_call`` against ``host.snapshot(session=id)``, as an agent loop does. Every
test runs with code mode on (the default) and off: the todo tools are native in both.
"""

from __future__ import annotations

import gc

import pytest
import tooldeck

import tooldeck_todo

PLAN = {
    "todos": [
        {"content": "Read the code", "status": "completed"},
        {"content": "Fix the bug", "status": "in_progress"},
        {"content": "Add a test"},
    ]
}


@pytest.fixture(params=["code", "native"])
def project(request, tmp_path, monkeypatch):
    """A project dir, no user config leaking in; ``native``: code mode turned off."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    if request.param == "native":
        (tmp_path / "tooldeck.toml").write_text("[codemode]\nenabled = false\n")
    return tmp_path


@pytest.fixture
def host(project):
    with tooldeck.Host.open(project, plugins=[tooldeck_todo]) as host:
        yield host


async def call(host, session, tool_name, arguments=None):
    snapshot = host.snapshot(session=session)
    return await tooldeck.run_tool_call(
        snapshot, tooldeck.ToolCall("call_1", tool_name, arguments or {})
    )


async def test_write_then_read_the_list(host):
    host.session("chat-1")
    written = await call(host, "chat-1", "todo_write", PLAN)
    assert written.status == "completed"
    read = await call(host, "chat-1", "todo_read")
    assert read.content[0].text == ("1. [x] Read the code\n2. [~] Fix the bug\n3. [ ] Add a test")
    assert read.metadata["todos"][2] == {"content": "Add a test", "status": "pending"}


async def test_each_session_has_its_own_list(host):
    host.session("chat-1")
    host.session("chat-2")
    await call(host, "chat-1", "todo_write", PLAN)
    other = await call(host, "chat-2", "todo_read")
    assert other.content[0].text == "The todo list is empty."


async def test_the_tools_exist_in_sessions_only(host):
    assert "todo_write" not in host.snapshot().names
    assert "todo_write" not in host.snapshot(session="never-opened").names
    host.session("chat-1")
    assert {"todo_read", "todo_write"} <= set(host.snapshot(session="chat-1").names)
    outside = await tooldeck.run_tool_call(host.snapshot(), tooldeck.ToolCall("c", "todo_read", {}))
    assert outside.status == "failed" and "not available" in outside.content[0].text


async def test_an_invalid_list_is_reported_to_the_model(host):
    host.session("chat-1")
    outcome = await call(host, "chat-1", "todo_write", {"todos": [{"status": "done"}]})
    assert outcome.status == "failed"
    assert "- todos[0].content: Field required" in outcome.error.message
    assert "- todos[0].status: " in outcome.error.message


@pytest.fixture
def no_gc():
    """The cycle collector off: what the tests see dropped is dropped at the close."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@pytest.mark.usefixtures("no_gc")
async def test_closing_the_session_drops_its_list_at_once(host):
    scope = host.session("chat-1")
    await call(host, "chat-1", "todo_write", PLAN)
    scope.close()
    assert "todo_read" not in host.snapshot(session="chat-1").names
    host.session("chat-1")  # the same id right away: a new session, a new list
    again = await call(host, "chat-1", "todo_read")
    assert again.content[0].text == "The todo list is empty."


async def test_two_hosts_keep_separate_lists_for_the_same_session_id(project):
    with (
        tooldeck.Host.open(project, plugins=[tooldeck_todo]) as one,
        tooldeck.Host.open(project, plugins=[tooldeck_todo]) as two,
    ):
        one.session("chat-1")
        two.session("chat-1")
        await call(one, "chat-1", "todo_write", PLAN)
        other = await call(two, "chat-1", "todo_read")
        assert other.content[0].text == "The todo list is empty."
        mine = await call(one, "chat-1", "todo_read")
        assert mine.content[0].text.startswith("1. [x] Read the code")


async def test_the_list_survives_a_replay_of_the_session(host):
    host.session("chat-1")
    await call(host, "chat-1", "todo_write", PLAN)
    host.service.reload()  # every hook runs again
    read = await call(host, "chat-1", "todo_read")
    assert read.content[0].text.startswith("1. [x] Read the code")


async def test_a_snapshot_taken_before_closing_keeps_its_list(host):
    with host.session("chat-1"):
        await call(host, "chat-1", "todo_write", PLAN)
        snapshot = host.snapshot(session="chat-1")
    outcome = await tooldeck.run_tool_call(snapshot, tooldeck.ToolCall("c", "todo_read", {}))
    assert outcome.content[0].text.startswith("1. [x] Read the code")


def test_the_installed_entry_point_loads_the_pack(project):
    """Needs the pack installed (``pip install .``): found by its distribution name."""
    with tooldeck.Host.open(project, plugins=["tooldeck-todo"]) as host:
        [info] = [p for p in host.plugins if p.name == "tooldeck-todo"]
        assert info.status == "active", info.reason
        assert info.provides == ()  # nothing for the Location itself
        host.session("s")
        catalog = host.snapshot(session="s").catalog
        assert catalog.tools["todo_write"].source == "tooldeck-todo"
