"""Session scopes: registrations for one conversation, on top of the Location's."""

from __future__ import annotations

import asyncio
import gc
import tracemalloc
import weakref

import pytest

from tooldeck import Location, Registration, Tool, ToolCall, ToolResult, ToolService, run_tool_call
from tooldeck.errors import SessionError, TooldeckError


def run(inp, ctx):
    return ToolResult(f"ran in {ctx.session_id or 'no session'}")


def make(name, description="A tool.", **options):
    return Tool(name=name, description=description, execute=run, **options)


def adder(*tools):
    return lambda editor: [editor.add(t) for t in tools]


def described(snapshot):
    return {d.name: d.description for d in snapshot.definitions}


@pytest.fixture
def service(tmp_path):
    service = ToolService(Location(tmp_path, data_dir=tmp_path / "data"))
    service.transform(adder(make("read", "Location read."), make("shell")), source="builtin")
    return service


# -- opening and closing ---------------------------------------------------------------------
def test_the_same_id_gives_the_same_open_scope(service):
    scope = service.session("chat-1")
    assert service.session("chat-1") is scope
    assert service.session("chat-2") is not scope
    assert service.sessions == ("chat-1", "chat-2")
    assert scope.id == "chat-1" and not scope.closed


def test_session_registrations_apply_to_that_session_only(service):
    scope = service.session("a")
    registration = scope.transform(adder(make("todo")), source="host")
    assert isinstance(registration, Registration) and registration.source == "host"
    assert service.snapshot(session="a").names == ("read", "shell", "todo")
    assert service.session("b") and service.snapshot(session="b").names == ("read", "shell")
    assert service.snapshot().names == ("read", "shell")
    assert service.registrations == ("builtin",)
    assert scope.registrations == ("host",)


def test_a_session_overrides_and_removes_for_itself_and_dispose_reveals(service):
    scope = service.session("a")
    over = scope.transform(adder(make("read", "Session read.")), source="host")
    gone = scope.transform(lambda editor: editor.remove("shell"), source="host")
    assert described(service.snapshot(session="a")) == {"read": "Session read."}
    over.dispose()
    over.dispose()  # idempotent
    assert described(service.snapshot(session="a")) == {"read": "Location read."}
    gone.dispose()
    assert service.snapshot(session="a").names == ("read", "shell")
    assert described(service.snapshot()) == {"read": "Location read.", "shell": "A tool."}


def test_close_disposes_every_registration_and_is_idempotent(service):
    with service.session("a") as scope:
        first = scope.transform(adder(make("one")), source="host")
        second = scope.transform(adder(make("two")), source="host")
    assert scope.closed and not first.active and not second.active
    scope.close()
    assert service.sessions == ()
    assert service.snapshot(session="a").names == ("read", "shell")
    assert service.session("a") is not scope  # the id opens a new, empty scope
    assert service.snapshot(session="a").names == ("read", "shell")


def test_a_closed_scope_refuses_use_with_a_clear_error(service):
    scope = service.session("a")
    scope.close()
    with pytest.raises(SessionError) as raised:
        scope.transform(adder(make("late")), source="host")
    assert raised.value.session_id == "a"
    assert str(raised.value) == (
        "session 'a': cannot register a transform: the session is closed; open it again "
        "with session('a')"
    )
    with (
        pytest.raises(SessionError, match="cannot batch changes: the session is closed"),
        scope.batch(),
    ):
        pass
    with pytest.raises(SessionError, match="cannot read its catalog"):
        scope.catalog  # noqa: B018
    assert scope.diagnostics == () and scope.registrations == ()
    assert isinstance(raised.value, TooldeckError)


def test_dropping_the_scope_object_does_not_close_it(service):
    scope = service.session("a")
    scope.transform(adder(make("todo")), source="host")
    ref = weakref.ref(scope)
    del scope
    gc.collect()
    assert ref() is not None and "a" in service.sessions
    assert "todo" in service.snapshot(session="a").names


def test_close_sessions_closes_every_open_one(service):
    scopes = [service.session(f"s{i}") for i in range(3)]
    service.close_sessions()
    service.close_sessions()
    assert all(scope.closed for scope in scopes) and service.sessions == ()


@pytest.mark.parametrize("bad", [None, 42, b"a"])
def test_a_session_id_must_be_a_str(service, bad):
    with pytest.raises(TypeError, match="a session id must be a str"):
        service.session(bad)
    if bad is not None:  # snapshot(session=None) is the Location's own snapshot
        with pytest.raises(TypeError, match="a session id must be a str"):
            service.snapshot(session=bad)


def test_a_session_id_must_not_be_empty(service):
    with pytest.raises(ValueError, match="non-empty"):
        service.session("")


def test_a_transform_must_be_callable(service):
    with pytest.raises(TypeError, match="transform must be callable, got int"):
        service.session("a").transform(42, source="host")
    with pytest.raises(TypeError, match="session transform must be callable"):
        service.session_transform(42, source="host")


# -- snapshots -------------------------------------------------------------------------------
def test_an_unchanged_session_gives_the_same_snapshot(service):
    service.session("a").transform(adder(make("todo")), source="host")
    snapshot = service.snapshot(session="a")
    assert service.snapshot(session="a") is snapshot
    assert snapshot.session_id == "a"
    service.transform(adder(make("grep")), source="later")
    assert service.snapshot(session="a") is not snapshot


def test_an_id_that_is_not_open_sees_the_location_knowing_its_id(service):
    snapshot = service.snapshot(session="never")
    assert snapshot.names == service.snapshot().names and snapshot.session_id == "never"
    assert "never" not in service.sessions  # reading does not open a session


def test_location_changes_reach_every_session_and_old_snapshots_stay(service):
    for session_id in ("a", "b"):
        service.session(session_id).transform(
            lambda editor, s=session_id: editor.update(
                "read", lambda tool: tool.replace(description=f"{tool.description} ({s})")
            ),
            source="host",
        )
    before = service.snapshot(session="a")
    registration = service.transform(adder(make("read", "New read.")), source="pack")
    assert described(service.snapshot(session="a"))["read"] == "New read. (a)"
    assert described(service.snapshot(session="b"))["read"] == "New read. (b)"
    assert described(before)["read"] == "Location read. (a)"
    registration.dispose()
    assert described(service.snapshot(session="a"))["read"] == "Location read. (a)"


def test_reload_calls_session_transforms_again(service):
    data = {"description": "first"}
    scope = service.session("a")
    scope.transform(lambda editor: editor.add(make("live", data["description"])), source="host")
    assert described(service.snapshot(session="a"))["live"] == "first"
    data["description"] = "second"
    assert described(service.snapshot(session="a"))["live"] == "first"  # no reload yet
    service.reload()
    assert described(service.snapshot(session="a"))["live"] == "second"


def test_a_batch_of_session_changes_is_one_rebuild(service):
    scope = service.session("a")
    before = service.snapshot(session="a")
    with scope.batch():
        scope.transform(adder(make("one")), source="host")
        scope.transform(adder(make("two")), source="host")
        assert service.snapshot(session="a") is before
    assert service.snapshot(session="a").names == ("one", "read", "shell", "two")


def test_permission_visibility_applies_to_session_tools(service):
    class Deny:
        def hidden(self, action):
            return action in ("edit", "shell")

    service.session("a").transform(
        adder(make("mine_edit", permission="edit"), make("mine")), source="host"
    )
    assert service.snapshot(Deny(), session="a").names == ("mine", "read")
    assert service.snapshot(session="a").names == ("mine", "mine_edit", "read", "shell")


# -- the snapshot knows its session ----------------------------------------------------------
def test_calls_default_to_the_snapshot_session(service):
    service.session("a")
    snapshot = service.snapshot(session="a")
    assert snapshot.execute_sync(ToolCall("1", "read")).content[0].text == "ran in a"
    explicit = snapshot.execute_sync(ToolCall("1", "read"), session_id="a")
    assert explicit.content[0].text == "ran in a"
    outcome = asyncio.run(run_tool_call(snapshot, ToolCall("1", "read")))
    assert outcome.content[0].text == "ran in a"


def test_another_session_id_on_a_session_snapshot_is_refused_before_running(service):
    calls = []
    service.session("a").transform(
        adder(
            Tool(
                name="count",
                description="Counts.",
                execute=lambda inp, ctx: calls.append(ctx) or ToolResult("ok"),
            )
        ),
        source="host",
    )
    snapshot = service.snapshot(session="a")
    with pytest.raises(SessionError, match=r"cannot run a call of session 'b'"):
        snapshot.execute_sync(ToolCall("1", "count"), session_id="b")
    with pytest.raises(SessionError, match=r"take host.snapshot\(session='b'\)"):
        asyncio.run(snapshot.execute(ToolCall("1", "count"), session_id="b"))
    with pytest.raises(SessionError):
        asyncio.run(run_tool_call(snapshot, ToolCall("1", "count"), session_id="b"))
    assert calls == []


def test_a_location_snapshot_runs_calls_of_any_session(service):
    snapshot = service.snapshot()
    assert snapshot.session_id == ""
    assert snapshot.execute_sync(ToolCall("1", "read")).content[0].text == "ran in no session"
    done = asyncio.run(run_tool_call(snapshot, ToolCall("1", "read"), session_id="z"))
    assert done.content[0].text == "ran in z"


# -- diagnostics -----------------------------------------------------------------------------
def test_session_diagnostics_are_the_session_own(service):
    service.transform(adder(make("bad", "")), source="pack")
    scope = service.session("a")
    scope.transform(adder(make("worse", "")), source="host")
    assert [d.tool for d in service.diagnostics] == ["bad"]
    assert [(d.source, d.tool) for d in scope.diagnostics] == [("host", "worse")]
    assert [d.tool for d in service.snapshot(session="a").catalog.diagnostics] == ["bad", "worse"]


def test_a_raising_session_transform_disables_its_source_in_that_session_only(service):
    def broken(editor, session_id, state):
        editor.add(make("half"))
        if session_id == "bad":
            raise RuntimeError("no credentials")

    service.session_transform(broken, source="creds")
    bad, good = service.session("bad"), service.session("good")
    [diagnostic] = bad.diagnostics
    assert diagnostic.source == "creds" and "RuntimeError: no credentials" in diagnostic.reason
    assert "RuntimeError" in diagnostic.traceback
    assert "half" not in service.snapshot(session="bad").names
    assert "half" in service.snapshot(session="good").names and good.diagnostics == ()


# -- session templates -----------------------------------------------------------------------
def test_session_templates_run_in_every_session_before_its_own(service):
    seen = []

    def template(editor, session_id, state):
        seen.append(session_id)
        editor.add(make("todo", f"todo of {session_id}"))

    registration = service.session_transform(template, source="todo-pack")
    scope = service.session("a")
    assert seen == ["a"]  # ran as the scope opened
    scope.transform(
        lambda editor: editor.update(
            "todo", lambda tool: tool.replace(description=tool.description + "!")
        ),
        source="host",
    )
    assert described(service.snapshot(session="a"))["todo"] == "todo of a!"
    service.session("b")
    assert described(service.snapshot(session="b"))["todo"] == "todo of b"
    assert "todo" not in service.snapshot().names
    service.transform(adder(make("grep")), source="later")
    service.snapshot(session="a")
    assert seen == ["a", "b"]  # a pure template is not called again on Location changes
    registration.dispose()
    assert "todo" not in service.snapshot(session="a").names


def test_a_template_registered_later_joins_the_open_sessions(service):
    service.session("a")
    service.session_transform(
        lambda editor, session_id, state: editor.add(make("late")), source="late"
    )
    assert "late" in service.snapshot(session="a").names


# -- a template's state in a session ---------------------------------------------------------
class Kept:
    """Something a template keeps in its session state (and that its tools do not hold)."""

    __slots__ = ("__weakref__", "runs")

    def __init__(self):
        self.runs = 0


def keeping(seen):
    """A template that counts its runs in its session state and reports each state."""

    def template(editor, session_id, state):
        kept = state.setdefault("kept", Kept())
        kept.runs += 1
        seen.append((session_id, state))
        editor.add(make("kept", f"run {kept.runs} in {session_id}"))

    return template


def test_a_template_finds_its_state_again_on_every_replay(service):
    seen = []
    service.session_transform(keeping(seen), source="pack")
    service.session("a")
    service.reload()  # calls the template again
    assert described(service.snapshot(session="a"))["kept"] == "run 2 in a"
    [(_, first), (_, second)] = seen
    assert first is second and first["kept"].runs == 2


def test_each_session_and_each_template_has_its_own_state(service):
    seen, other = [], []
    service.session_transform(keeping(seen), source="pack")
    service.session_transform(keeping(other), source="other")
    service.session("a"), service.session("b")
    states = [state for _, state in seen + other]
    assert [session_id for session_id, _ in seen + other] == ["a", "b", "a", "b"]
    assert len({id(state) for state in states}) == 4


def test_two_services_with_the_same_session_id_have_separate_state(tmp_path):
    seen = []
    template = keeping(seen)
    services = []
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        services.append(ToolService(Location(tmp_path / name, data_dir=tmp_path / name / "d")))
        services[-1].session_transform(template, source="pack")
        services[-1].session("chat")
    [(first_id, one), (second_id, two)] = seen
    assert first_id == second_id == "chat"
    assert one is not two and one["kept"] is not two["kept"]
    services[0].reload()
    assert described(services[0].snapshot(session="chat"))["kept"] == "run 2 in chat"
    assert described(services[1].snapshot(session="chat"))["kept"] == "run 1 in chat"


@pytest.mark.usefixtures("no_gc")
def test_a_reopened_id_starts_with_empty_state(service):
    seen = []
    service.session_transform(keeping(seen), source="pack")
    service.session("a").close()
    service.session("a")
    assert described(service.snapshot(session="a"))["kept"] == "run 1 in a"
    [(_, closed), (_, reopened)] = seen
    assert reopened is not closed and reopened["kept"] is not closed["kept"]


@pytest.mark.usefixtures("no_gc")
def test_closing_a_session_frees_its_state_at_once(service):
    seen = []
    service.session_transform(keeping(seen), source="pack")
    scope = service.session("a")
    before = service.snapshot(session="a")  # a snapshot taken earlier does not keep it
    kept = weakref.ref(seen.pop()[1]["kept"])
    assert kept() is not None
    scope.close()
    assert kept() is None
    assert before.execute_sync(ToolCall("1", "kept")).content[0].text == "ran in a"


@pytest.mark.usefixtures("no_gc")
def test_a_disposed_template_frees_its_state_in_open_sessions(service):
    seen = []
    registration = service.session_transform(keeping(seen), source="pack")
    service.session("a")
    before = service.snapshot(session="a")
    kept = weakref.ref(seen.pop()[1]["kept"])
    registration.dispose()
    assert "kept" not in service.snapshot(session="a").names
    assert kept() is None
    assert "kept" in before.names


# -- memory ----------------------------------------------------------------------------------
class Executor:
    """A session's tool state: what the tool captured."""

    def __call__(self, inp, ctx):
        return ToolResult("ok")


def test_closing_a_session_frees_what_its_tools_captured(service):
    executor = Executor()
    ref = weakref.ref(executor)
    scope = service.session("a")
    scope.transform(
        adder(Tool(name="heavy", description="Heavy.", execute=executor)), source="host"
    )
    service.snapshot(session="a").definitions_for("openai")
    del executor
    gc.collect()
    assert ref() is not None  # held by the open session
    scope.close()
    gc.collect()
    assert ref() is None


def test_closed_sessions_give_their_memory_back(service):
    service.snapshot()

    def cycle(count):
        for i in range(count):
            scope = service.session(f"s{i}")
            scope.transform(adder(make(f"t{i}")), source="host")
            service.snapshot(session=f"s{i}").definitions_for("openai")
        service.close_sessions()
        gc.collect()

    cycle(50)  # warm caches (schema derivation, validators, interned strings)
    tracemalloc.start()
    try:
        baseline = tracemalloc.get_traced_memory()[0]
        cycle(200)
        retained = tracemalloc.get_traced_memory()[0] - baseline
    finally:
        tracemalloc.stop()
    assert retained < 200 * 100  # under 100 bytes per closed session: none is kept


def test_a_session_catalog_knows_who_provides_what(service):
    scope = service.session("a")
    scope.transform(adder(make("read", "Session read.")), source="host")
    scope.transform(lambda editor: editor.remove("shell"), source="tidy")
    catalog = scope.catalog
    assert catalog.base is service.catalog
    assert catalog.lineage("read") == ("host", "builtin")
    assert catalog.effects("host").overrides == (("read", "builtin"),)
    assert catalog.removals == (("tidy", "shell", "builtin"),)
    assert {name: entry and entry.source for name, entry in catalog.changes.items()} == {
        "read": "host",
        "shell": None,
    }
    assert service.catalog.lineage("read") == ("builtin",)
