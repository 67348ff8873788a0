"""Client sessions of ``tooldeck mcp serve`` on a real Host: idle ones close, busy ones refuse."""

from __future__ import annotations

import pytest

from tooldeck import Host, Tool, ToolResult
from tooldeck.mcp.serve.sessions import ClientSessions, client_key
from tooldeck.mcp.serve.watch import Serving

WHOAMI = """
from tooldeck import Tool, ToolResult, hookimpl

@hookimpl
def session_transform(editor, session_id, state):
    state["opened"] = True
    editor.add(Tool(name="whoami", description="The session.", codemode=False,
                    execute=lambda i, c: ToolResult(session_id)))

@hookimpl
def tool_transform(editor):
    editor.add(Tool(name="shared", description="Everyone's.", codemode=False,
                    execute=lambda i, c: ToolResult("shared")))
"""

PRINCIPALS = """
[mcp.serve.principals.alice]
token_env = "ALICE_TOKEN"
[[mcp.serve.principals.alice.permission]]
action = "shared"
effect = "deny"
"""


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def root(tooldeck_env):
    root = tooldeck_env / "project"
    (root / ".tooldeck" / "plugins").mkdir(parents=True)
    (root / ".tooldeck" / "plugins" / "whoami.py").write_text(WHOAMI)
    (root / "tooldeck.toml").write_text(PRINCIPALS)
    return root


@pytest.fixture
def host(root):
    with Host.open(root, trust=True) as host:
        yield host


def tracked(host, clock, **limits):
    return tracked_over(Serving(lambda: host), clock, **limits)


def tracked_over(serving, clock, **limits):
    return ClientSessions(
        serving,
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


def test_a_clients_view_is_kept_while_its_snapshot_stays_current(host):
    sessions = tracked(host, Clock())
    view = sessions.view("mcp-a", None)
    assert "whoami" in view.snapshot.names  # the session opened with it
    assert sessions.view("mcp-a", None) is view
    stateless = sessions.view(None, None)
    assert "whoami" not in stateless.snapshot.names  # the Location's view
    assert sessions.view(None, None) is stateless


def test_a_catalog_change_gives_the_client_a_new_view(host):
    sessions = tracked(host, Clock())
    view = sessions.view("mcp-a", None)
    stateless = sessions.view(None, None)
    host.service.transform(
        lambda editor: editor.add(
            Tool(name="later", description="Added.", execute=_ran, codemode=False)
        ),
        source="test",
    )
    for key, old in (("mcp-a", view), (None, stateless)):
        new = sessions.view(key, None)
        assert new is not old and "later" in new.snapshot.names
        assert new.rules is old.rules
        assert sessions.view(key, None) is new
    host.session("mcp-a").transform(
        lambda editor: editor.add(
            Tool(name="mine", description="Its own.", execute=_ran, codemode=False)
        ),
        source="test",
    )
    assert "mine" in sessions.view("mcp-a", None).snapshot.names  # a session change too


def test_a_principal_is_served_under_its_own_rules_until_the_host_changes(root, host):
    serving = Serving(lambda: host)
    sessions = tracked_over(serving, Clock())
    alice = sessions.view("mcp-a", "alice")
    assert alice.rules is not None and alice.rules.name == "alice"
    assert "shared" not in alice.snapshot.names  # denied to alice: not advertised
    assert sessions.view("mcp-a", "alice") is alice
    plain = sessions.view("mcp-a", None)  # the same session as no principal: the Location's
    assert plain.rules is None and "shared" in plain.snapshot.names
    with Host.open(root, trust=True) as reopened:  # what a config change does
        serving.host = reopened
        again = sessions.view("mcp-a", "alice")
        assert again.host is reopened and again.rules is not alice.rules
        assert "mcp-a" in reopened.service.sessions  # its scope opened on the new host


def test_an_ended_session_drops_its_view_and_reopens_on_its_next_request(host):
    sessions = tracked(host, Clock())
    sessions.touch("mcp-a")
    view = sessions.view("mcp-a", None)
    sessions.end("mcp-a")
    assert host.service.sessions == ()
    again = sessions.view("mcp-a", None)
    assert again is not view and "whoami" in again.snapshot.names
    assert host.service.sessions == ("mcp-a",)


def _ran(input, ctx):
    return ToolResult("ran")


def test_an_ending_session_is_told_to_whoever_holds_state_for_it(tooldeck_env):
    with Host.open(tooldeck_env, trust=True) as host:
        sessions = ClientSessions(Serving(lambda: host), idle_timeout_s=0.0, max_calls=4)
        ended = []
        sessions.on_end.append(ended.append)
        sessions.touch("mcp-a")
        sessions.touch("mcp-b")
        sessions.end("mcp-a")
        sessions.reap()
    assert ended == ["mcp-a", "mcp-b"]
