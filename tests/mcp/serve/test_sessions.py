"""Client sessions of ``tooldeck mcp serve`` on a real Host: idle ones close, busy ones refuse."""

from __future__ import annotations

import pytest

from tooldeck import Host
from tooldeck.mcp.serve.sessions import ClientSessions, client_key

WHOAMI = """
from tooldeck import Tool, ToolResult, hookimpl

@hookimpl
def session_transform(editor, session_id, state):
    state["opened"] = True
    editor.add(Tool(name="whoami", description="The session.", codemode=False,
                    execute=lambda i, c: ToolResult(session_id)))
"""


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def host(tooldeck_env):
    root = tooldeck_env / "project"
    (root / ".tooldeck" / "plugins").mkdir(parents=True)
    (root / ".tooldeck" / "plugins" / "whoami.py").write_text(WHOAMI)
    with Host.open(root, trust=True) as host:
        yield host


def tracked(host, clock, **limits):
    return ClientSessions(
        lambda: host,
        idle_timeout_s=limits.get("idle", 60.0),
        max_calls=limits.get("calls", 2),
        clock=clock,
    )


def test_an_idle_session_is_closed_and_forgotten(host):
    clock = Clock()
    sessions = tracked(host, clock)
    sessions.touch("mcp-a")
    scope = host.session("mcp-a")
    assert "whoami" in host.snapshot(session="mcp-a").names
    clock.now += 30
    sessions.touch("mcp-b")
    host.session("mcp-b")
    assert sessions.reap() == []
    clock.now += 30
    assert sessions.reap() == ["mcp-a"]
    assert scope.closed
    assert host.service.sessions == ("mcp-b",)
    assert sessions.keys == ("mcp-b",)


def test_a_session_with_a_call_in_flight_is_not_reaped(host):
    clock = Clock()
    sessions = tracked(host, clock)
    sessions.enter("mcp-a")
    host.session("mcp-a")
    clock.now += 120
    assert sessions.reap() == []
    sessions.leave("mcp-a")
    clock.now += 59
    assert sessions.reap() == []
    clock.now += 1
    assert sessions.reap() == ["mcp-a"]
    assert host.service.sessions == ()


def test_calls_past_the_limit_are_refused_per_session(host):
    sessions = tracked(host, Clock(), calls=2)
    assert sessions.enter("mcp-a")
    assert sessions.enter("mcp-a")
    assert not sessions.enter("mcp-a")
    assert sessions.enter("mcp-b")  # another client is not held back
    sessions.leave("mcp-a")
    assert sessions.enter("mcp-a")


def test_ending_a_session_closes_its_scope(host):
    sessions = tracked(host, Clock())
    sessions.touch("mcp-a")
    scope = host.session("mcp-a")
    sessions.end("mcp-a")
    assert scope.closed
    assert sessions.keys == ()
    sessions.end("mcp-never-opened")  # nothing to close: no error


class Request:
    def __init__(self, headers):
        self.headers = headers


def test_the_client_key_comes_from_the_transport():
    assert client_key(None) == "mcp-stdio"
    assert client_key(Request({"mcp-session-id": "abc"})) == "mcp-abc"
    assert client_key(Request({})) is None  # stateless: no scope
