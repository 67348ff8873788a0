"""``Host``: one registration per plugin, isolation, layers, refresh, the load report.

Plugins here are plugin objects, fake built-ins and Location files; installed
distributions are exercised in ``tests/test_real_distributions.py``.
"""

from __future__ import annotations

import asyncio
import sys
import types
import weakref

import pytest

from tooldeck import Host, Ruleset, Tool, ToolCall, ToolResult, hookimpl, run_tool_call
from tooldeck.builtin_plugins import BUILTIN_PLUGINS as SHIPPED
from tooldeck.errors import ConfigError

pytestmark = pytest.mark.usefixtures("clean_env")


def run(input, ctx):
    return ToolResult(content="ok")


def make_tool(name, description=None, **options):
    return Tool(
        name=name, description=description or f"{name} tool", execute=run, codemode=False, **options
    )


def adds(name, *tools, description=None):
    """A module-like plugin object whose tool_transform adds ``tools``."""
    plugin = types.ModuleType(name)
    plugin.tool_transform = hookimpl(
        lambda editor: [editor.add(make_tool(t, description)) for t in tools]
    )
    return plugin


def open_host(tmp_path, *plugins, **options):
    # These projects are written by the tests themselves: trusted, so their
    # .tooldeck/plugins files load (tests/host/plugins/test_trust.py covers untrusted).
    return Host.open(tmp_path, plugins=list(plugins), trust=True, **options)


def by_name(host):
    return {info.name: info for info in host.plugins}


def description(host, name):
    return host.service.catalog.tools[name].tool.description


@pytest.fixture(autouse=True)
def no_builtins(monkeypatch):
    """These tests must not depend on which built-ins ship; ``fake_builtin`` adds one."""
    monkeypatch.setattr("tooldeck.builtin_plugins.BUILTIN_PLUGINS", ())


@pytest.fixture
def fake_builtin(monkeypatch):
    """``builtin:fake_read`` adding ``read``, loaded through the built-in path."""
    module = types.ModuleType("tooldeck.builtin_plugins.fake_read")
    module.tool_transform = hookimpl(lambda editor: editor.add(make_tool("read", "builtin")))
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr("tooldeck.builtin_plugins.BUILTIN_PLUGINS", ("fake_read",))
    return module


def write_plugin(root, stem, body):
    folder = root / ".tooldeck" / "plugins"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{stem}.py").write_text(body)


LOCAL = """\
from tooldeck import Tool, ToolResult, hookimpl
with open({log!r}, "a") as log:
    log.write("{stem}\\n")

@hookimpl
def tool_transform(editor):
    editor.add(Tool(name="shared", description="from {stem}", codemode=False,
                    execute=lambda i, c: ToolResult(content="{stem}")))
    editor.add(Tool(name="only_{stem}", description="{stem}", codemode=False,
                    execute=lambda i, c: ToolResult(content="{stem}")))
"""


def local(root, stem):
    write_plugin(root, stem, LOCAL.format(log=str(root / "imports.log"), stem=stem))


def imports(root):
    return (root / "imports.log").read_text().split()


# -- the hooks -------------------------------------------------------------------------------
def test_hook_tool_transform(tmp_path):
    seen = []

    class Weather:
        @hookimpl
        def tool_transform(self, editor, location):
            seen.append(location)
            editor.add(make_tool("forecast"))

    host = open_host(tmp_path, Weather())
    assert host.snapshot().names == ("forecast",)
    assert seen == [host.location]
    result = host.snapshot().execute_sync(ToolCall("1", "forecast", "{}"))
    assert result.content[0].text == "ok"


def test_hook_tool_call(tmp_path):
    seen = []

    class Audit:
        @hookimpl
        def tool_transform(self, editor):
            editor.add(make_tool("forecast"))

        @hookimpl(wrapper=True)
        def tool_call(self, call, context):
            result = yield
            seen.append((call.name, context.source, result.content[0].text))
            return ToolResult(content="audited " + result.content[0].text)

    host = open_host(tmp_path, Audit())
    outcome = asyncio.run(run_tool_call(host.snapshot(), ToolCall("1", "forecast", "{}")))
    assert (outcome.status, outcome.content[0].text) == ("completed", "audited ok")
    assert seen == [("forecast", "Audit", "ok")]
    assert by_name(host)["Audit"].status == "active"


def test_hook_namespace_descriptions(tmp_path):
    class Weather:
        @hookimpl
        def namespace_descriptions(self, editor):
            editor.namespace("weather", "Forecasts and alerts.")

        @hookimpl
        def tool_transform(self, editor):
            editor.add(make_tool("forecast", namespace="weather"))

    host = open_host(tmp_path, Weather())
    catalog = host.service.catalog
    assert catalog.namespaces["weather"].description == "Forecasts and alerts."
    assert catalog.namespaces["weather"].source == "Weather"
    assert list(catalog.tools) == ["weather_forecast"]


def test_hook_session_transform(tmp_path):
    seen = []

    class Notes:
        @hookimpl
        def tool_transform(self, editor):
            editor.add(make_tool("shared", "for everyone"))

        @hookimpl
        def session_transform(self, editor, session_id, location):
            seen.append((session_id, location))
            editor.add(make_tool(f"notes_{session_id}"))
            editor.update("shared", lambda tool: tool.replace(description=f"for {session_id}"))

    host = open_host(tmp_path, Notes())
    assert host.snapshot().names == ("shared",)
    with host.session("a") as scope:
        assert seen == [("a", host.location)]  # ran as the scope opened
        assert host.session("a") is scope
        snapshot = host.snapshot(session="a")
        assert snapshot.names == ("notes_a", "shared")
        assert snapshot.get("shared").description == "for a"
        assert snapshot.session_id == "a"
        assert host.snapshot(session="b").names == ("shared",)  # b is not open
        assert host.snapshot().get("shared").description == "for everyone"
    assert host.snapshot(session="a").names == ("shared",)
    assert snapshot.names == ("notes_a", "shared")  # taken before the close: unchanged


def test_a_raising_session_transform_is_reported_and_the_session_opens(tmp_path):
    class Broken:
        @hookimpl
        def tool_transform(self, editor):
            editor.add(make_tool("fine"))

        @hookimpl
        def session_transform(self, editor, session_id):
            editor.add(make_tool("half"))
            raise RuntimeError(f"no state for {session_id}")

    host = open_host(tmp_path, Broken(), adds("other", "x"))
    scope = host.session("s1")
    [diagnostic] = scope.diagnostics
    assert diagnostic.source == "Broken"
    assert "hook 'session_transform' raised RuntimeError: no state for s1" in diagnostic.reason
    assert "RuntimeError" in diagnostic.traceback
    assert host.snapshot(session="s1").names == ("fine", "x")  # nothing of the failed hook
    assert [(p.name, p.status) for p in host.plugins] == [("Broken", "active"), ("other", "active")]
    assert host.service.diagnostics == ()


def test_session_transforms_follow_plugins_in_and_out(tmp_path):
    write_plugin(tmp_path, "first", LOCAL_SESSION.format(tool="one"))
    host = Host.open(tmp_path, trust=True)
    host.session("s")
    assert host.snapshot(session="s").names == ("one",)
    write_plugin(tmp_path, "late", LOCAL_SESSION.format(tool="late"))
    host.refresh_plugins()  # installed while the session is open: joins it
    assert host.snapshot(session="s").names == ("late", "one")
    (tmp_path / ".tooldeck" / "plugins" / "late.py").unlink()
    host.refresh_plugins()  # removed: leaves every session too
    assert host.snapshot(session="s").names == ("one",)
    assert host.snapshot().names == ()


# -- a plugin's state in a session -----------------------------------------------------------
class Pad:
    """One session's note, kept in the Notes plugin's session state."""

    __slots__ = ("__weakref__", "text")

    def __init__(self):
        self.text = ""


class Notes:
    """Keeps one note per session in its session ``state``; counts its hook runs."""

    def __init__(self):
        self.runs = 0

    @hookimpl
    def session_transform(self, editor, state):
        self.runs += 1
        pad = state.setdefault("pad", Pad())

        def write(input, ctx):
            pad.text = input["text"]
            return ToolResult(content="saved")

        editor.add(
            Tool(
                name="note_write",
                description="Keep one note.",
                codemode=False,
                input={"type": "object", "properties": {"text": {"type": "string"}}},
                execute=write,
            )
        )
        editor.add(
            Tool(
                name="note_read",
                description="Read the note.",
                codemode=False,
                execute=lambda input, ctx: ToolResult(content=pad.text or "(empty)"),
            )
        )


def write_note(host, session_id, text):
    call = ToolCall("w", "note_write", {"text": text})
    assert host.snapshot(session=session_id).execute_sync(call).content[0].text == "saved"


def read_note(host, session_id):
    snapshot = host.snapshot(session=session_id)
    return snapshot.execute_sync(ToolCall("r", "note_read")).content[0].text


def test_session_state_belongs_to_one_host_even_for_equal_ids(tmp_path):
    notes = Notes()  # one plugin object in two hosts: the worst case for sharing
    (tmp_path / "one").mkdir(), (tmp_path / "two").mkdir()
    with open_host(tmp_path / "one", notes) as one, open_host(tmp_path / "two", notes) as two:
        one.session("chat"), two.session("chat")
        write_note(one, "chat", "one's note")
        assert read_note(two, "chat") == "(empty)"
        write_note(two, "chat", "two's note")
        assert read_note(one, "chat") == "one's note"


@pytest.mark.usefixtures("no_gc")
def test_a_closed_session_id_opens_again_with_empty_state(tmp_path):
    host = open_host(tmp_path, Notes())
    with host.session("chat"):
        write_note(host, "chat", "old")
    host.session("chat")
    assert read_note(host, "chat") == "(empty)"


def test_replays_find_the_same_session_state(tmp_path):
    notes = Notes()
    host = open_host(tmp_path, notes)
    host.session("chat")
    write_note(host, "chat", "kept")
    host.service.reload()  # runs every hook again
    assert read_note(host, "chat") == "kept"
    assert notes.runs == 2


class Token:
    """A per-session secret the hook keeps in its state; its tools hold none of it."""

    __slots__ = ("__weakref__", "user")

    def __init__(self, user):
        self.user = user


class Credentials:
    def __init__(self):
        self.tokens = []

    @hookimpl
    def session_transform(self, editor, session_id, state):
        token = state.setdefault("token", Token(f"user of {session_id}"))
        self.tokens.append(weakref.ref(token))
        editor.add(make_tool("whoami", f"Acts as {token.user}."))


@pytest.mark.usefixtures("no_gc")
def test_the_state_of_a_closed_scope_is_gone_at_once(tmp_path):
    credentials = Credentials()
    host = open_host(tmp_path, credentials)
    scope = host.session("chat")
    before = host.snapshot(session="chat")  # still in use after the close
    [token] = credentials.tokens
    assert token() is not None
    scope.close()
    assert token() is None
    assert before.get("whoami").description == "Acts as user of chat."
    host.session("chat")
    assert credentials.tokens[-1]() is not None and len(credentials.tokens) == 2


LOCAL_SESSION = """\
from tooldeck import Tool, ToolResult, hookimpl

@hookimpl
def session_transform(editor):
    editor.add(Tool(name="{tool}", description="{tool}", codemode=False,
                    execute=lambda i, c: ToolResult(content="{tool}")))
"""


def test_close_closes_every_open_session(tmp_path):
    host = open_host(tmp_path, adds("pack", "x"))
    scope = host.session("s")
    scope.transform(lambda editor: editor.add(make_tool("mine")), source="host")
    with host:
        assert host.snapshot(session="s").names == ("mine", "x")
    assert scope.closed and host.service.sessions == ()
    assert host.snapshot(session="s").names == ("x",)


def test_each_plugin_is_exactly_one_registration(tmp_path, fake_builtin):
    local(tmp_path, "mine")
    host = open_host(tmp_path, adds("first", "a"), adds("second", "b"), "local:mine")
    assert host.service.registrations == ("builtin:fake_read", "first", "second", "local:mine")


# -- layers ----------------------------------------------------------------------------------
def test_layers_builtins_then_objects_then_location_files(tmp_path, fake_builtin):
    local(tmp_path, "b_second")
    local(tmp_path, "a_first")
    host = open_host(
        tmp_path, "local:b_second", adds("pack", "read", description="pack"), "local:a_first"
    )
    assert [(p.name, p.layer) for p in host.plugins] == [
        ("builtin:fake_read", "builtin"),
        ("pack", "object"),
        ("local:a_first", "local"),
        ("local:b_second", "local"),
    ]
    assert description(host, "read") == "pack"
    assert description(host, "shared") == "from b_second"
    info = by_name(host)
    assert info["pack"].overrides == (("read", "builtin:fake_read"),)
    assert info["builtin:fake_read"].overridden_by == (("read", "pack"),)
    assert info["builtin:fake_read"].distribution == "tooldeck"


def test_config_order_moves_a_plugin_last(tmp_path):
    local(tmp_path, "a_first")
    local(tmp_path, "b_second")
    (tmp_path / "tooldeck.toml").write_text('[plugins]\norder = ["local:a_first"]\n')
    host = Host.open(tmp_path, trust=True)
    assert [p.name for p in host.plugins] == ["local:b_second", "local:a_first"]
    assert description(host, "shared") == "from a_first"


def test_disabling_a_plugin_reveals_what_it_overrode(tmp_path, fake_builtin):
    pack = adds("pack", "read", description="pack")
    assert description(open_host(tmp_path, pack), "read") == "pack"
    host = open_host(tmp_path, pack, disable=["pack"])
    assert description(host, "read") == "builtin"
    assert by_name(host)["pack"].status == "disabled"
    assert by_name(host)["pack"].reason == "disabled by Host.open(disable=...)"


def test_builtins_can_be_disabled(tmp_path, fake_builtin):
    host = open_host(tmp_path, disable=["builtin:fake_read"])
    assert host.snapshot().names == ()
    assert by_name(host)["builtin:fake_read"].status == "disabled"


def test_a_disable_pattern_drops_every_builtin_it_matches(tmp_path, fake_builtin):
    pack = adds("pack", "write", description="pack")
    host = open_host(tmp_path, pack, disable=["builtin:*"])
    assert host.snapshot().names == ("write",)
    assert by_name(host)["builtin:fake_read"].reason == "disabled by Host.open(disable=...)"
    assert by_name(host)["pack"].status == "active"


def test_an_empty_plugin_list_loads_builtins_only(tmp_path, fake_builtin):
    local(tmp_path, "mine")
    host = open_host(tmp_path)
    assert [(p.name, p.status) for p in host.plugins] == [
        ("builtin:fake_read", "active"),
        ("local:mine", "disabled"),
    ]
    assert not (tmp_path / "imports.log").exists()


# -- isolation -------------------------------------------------------------------------------
def test_a_plugin_whose_tool_transform_raises_adds_nothing_to_sessions_either(tmp_path):
    plugin = types.ModuleType("half")

    def tool_transform(editor):
        raise RuntimeError("boom")

    plugin.tool_transform = hookimpl(tool_transform)
    plugin.session_transform = hookimpl(lambda editor: editor.add(make_tool("extra")))
    host = open_host(tmp_path, plugin)
    host.session("s")
    assert by_name(host)["half"].status == "failed"
    assert "extra" not in host.snapshot(session="s").names


def test_a_raising_hook_fails_its_whole_plugin_and_others_keep_serving(tmp_path):
    class Flaky:
        @hookimpl
        def tool_transform(self, editor):
            editor.add(make_tool("half_done"))
            raise ValueError("bad data")

    host = open_host(tmp_path, adds("good", "fine"), Flaky())
    assert host.snapshot().names == ("fine",)
    flaky = by_name(host)["Flaky"]
    assert flaky.status == "failed"
    assert "hook 'tool_transform' raised ValueError: bad data" in flaky.reason
    assert "ValueError: bad data" in flaky.traceback
    assert by_name(host)["good"].status == "active"


def test_a_hook_failing_on_a_later_replay_is_reported_then(tmp_path):
    state = {"broken": False}

    class Later:
        @hookimpl
        def tool_transform(self, editor):
            if state["broken"]:
                raise RuntimeError("source data went bad")
            editor.add(make_tool("later"))

    host = open_host(tmp_path, Later())
    assert by_name(host)["Later"].status == "active"
    state["broken"] = True
    host.service.reload()
    assert by_name(host)["Later"].status == "failed"
    assert host.snapshot().names == ()


def test_load_failures_are_isolated(tmp_path):
    write_plugin(tmp_path, "broken", "raise ImportError('missing dependency')\n")
    write_plugin(
        tmp_path,
        "badsig",
        "from tooldeck import hookimpl\n@hookimpl\ndef tool_transform(editor, extra): pass\n",
    )
    local(tmp_path, "works")
    host = Host.open(tmp_path, trust=True)
    info = by_name(host)
    assert info["local:broken"].status == "failed"
    assert info["local:broken"].reason == (
        "executing broken.py raised ImportError: missing dependency"
    )
    assert "missing dependency" in info["local:broken"].traceback
    assert info["local:badsig"].status == "failed"
    assert "extra" in info["local:badsig"].reason
    assert info["local:works"].status == "active"
    assert "only_works" in host.snapshot().names


def test_refused_tools_appear_as_diagnostics_of_their_plugin(tmp_path):
    host = open_host(tmp_path, adds("pack", "ok", "bad name!" * 10))
    info = by_name(host)["pack"]
    assert info.status == "active"
    assert info.provides == ("ok",)
    assert len(info.diagnostics) == 1 and "source 'pack'" in info.diagnostics[0]


def test_removals_are_reported(tmp_path, fake_builtin):
    remover = types.ModuleType("remover")
    remover.tool_transform = hookimpl(lambda editor: editor.remove("read"))
    host = open_host(tmp_path, remover)
    assert host.snapshot().names == ()
    assert by_name(host)["remover"].removed == (("read", "builtin:fake_read"),)


def test_an_invalid_config_raises_config_error(tmp_path):
    (tmp_path / "tooldeck.toml").write_text('[plugins]\ndisable = "x"\n')
    with pytest.raises(ConfigError, match=r"plugins\.disable: expected a list of strings"):
        Host.open(tmp_path, trust=True)


def test_snapshot_hides_tools_the_location_wholly_denies(tmp_path):
    (tmp_path / "tooldeck.toml").write_text('[[permission]]\naction = "secret"\neffect = "deny"\n')
    host = open_host(tmp_path, adds("pack", "secret", "public"))
    assert host.snapshot().names == ("public",)
    assert host.service.snapshot().names == ("public", "secret")


def test_each_permissions_value_means_the_same_for_host_and_service(tmp_path):
    (tmp_path / "tooldeck.toml").write_text('[[permission]]\naction = "secret"\neffect = "deny"\n')
    host = open_host(tmp_path, adds("pack", "secret", "public", "other"))
    hide_other = Ruleset.from_rules([{"action": "other", "effect": "deny"}])
    for snapshot in (host.snapshot, host.service.snapshot):
        assert snapshot("location").names == ("other", "public")
        assert snapshot(None).names == ("other", "public", "secret")
        assert snapshot(hide_other).names == ("public", "secret")
    assert host.snapshot() is host.snapshot("location") is host.service.snapshot("location")
    assert host.service.snapshot() is host.snapshot(None)


def test_a_wrong_permissions_value_is_a_clear_error(tmp_path):
    host = open_host(tmp_path, adds("pack", "a"))
    with pytest.raises(ValueError, match=r"permissions='locations'\): expected 'location', "):
        host.snapshot("locations")
    with pytest.raises(TypeError, match=r"must be hashable .* unhashable Unhashable"):
        host.snapshot(Unhashable())


class Unhashable:
    __hash__ = None

    def hidden(self, action):
        return False


def test_trace_env_prints_hook_calls(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("TOOLDECK_TRACE_PLUGINS", "1")
    open_host(tmp_path, adds("pack", "a")).snapshot()
    assert "tooldeck: trace: pack: tool_transform(editor=" in capsys.readouterr().err


# -- refresh ---------------------------------------------------------------------------------
def test_refresh_inserts_at_the_sorted_position_without_reimporting(tmp_path):
    local(tmp_path, "a")
    local(tmp_path, "c")
    host = Host.open(tmp_path, trust=True)
    first = host._plugins.records[0].registration
    local(tmp_path, "b")
    host.refresh_plugins()
    assert host.service.registrations == ("local:a", "local:b", "local:c")
    assert host._plugins.records[0].registration is first  # before the insertion point: kept
    assert sorted(imports(tmp_path)) == ["a", "b", "c"]  # a and c were not re-imported
    assert description(host, "shared") == "from c"


def test_refresh_disposes_removed_plugins_and_reloads_changed_ones(tmp_path):
    local(tmp_path, "a")
    local(tmp_path, "b")
    host = Host.open(tmp_path, trust=True)
    (tmp_path / ".tooldeck" / "plugins" / "b.py").unlink()
    host.refresh_plugins()
    assert description(host, "shared") == "from a"
    assert [p.name for p in host.plugins] == ["local:a"]
    local(tmp_path, "a")  # rewritten: a new size/mtime
    (tmp_path / ".tooldeck" / "plugins" / "a.py").write_text(
        LOCAL.format(log=str(tmp_path / "imports.log"), stem="a") + "# changed\n"
    )
    host.refresh_plugins()
    assert imports(tmp_path).count("a") == 2
    assert host.service.registrations == ("local:a",)


def test_refresh_with_nothing_changed_keeps_every_registration(tmp_path):
    local(tmp_path, "a")
    host = open_host(tmp_path, adds("pack", "x"), "local:a")
    before = [r.registration for r in host._plugins.records]
    host.refresh_plugins()
    assert [r.registration for r in host._plugins.records] == before
    assert imports(tmp_path) == ["a"]


class CountingFinder:
    """A meta path finder that finds nothing and counts ``invalidate_caches`` calls."""

    def __init__(self):
        self.invalidated = 0

    def find_spec(self, name, path=None, target=None):
        return None

    def invalidate_caches(self):
        self.invalidated += 1


def test_open_keeps_the_import_caches_and_refresh_clears_them(tmp_path, monkeypatch):
    finder = CountingFinder()
    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, finder])
    host = open_host(tmp_path, adds("p", "a"))
    assert finder.invalidated == 0
    host.refresh_plugins()
    assert finder.invalidated == 1
    assert "a" in host.snapshot().names


def test_a_requested_plugin_that_does_not_exist_is_reported(tmp_path):
    host = open_host(tmp_path, adds("pack", "a"), "no-such-pack", "local:nope")
    missing = {p.name: p for p in host.plugins if p.status == "failed"}
    assert missing["no-such-pack"].reason == "not found (requested by Host.open(plugins=[...]))"
    assert missing["no-such-pack"].layer == "entrypoint"
    assert missing["local:nope"].layer == "local"
    assert host.snapshot().names == ("a",)


@pytest.mark.parametrize("enabled", [True, False])
def test_loading_pauses_the_garbage_collector_and_restores_it(tmp_path, enabled):
    import gc

    plugins = tmp_path / ".tooldeck" / "plugins"
    plugins.mkdir(parents=True)
    (plugins / "probe.py").write_text(  # records the collector's state while it loads
        "import gc, pathlib\n"
        f"pathlib.Path({str(tmp_path / 'seen')!r}).write_text(str(gc.isenabled()))\n"
        "from tooldeck import hookimpl\n"
        "@hookimpl\n"
        "def tool_transform(editor):\n"
        "    pass\n"
    )
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        host = Host.open(tmp_path, plugins=["local:probe"], trust=True)
        after = gc.isenabled()
    finally:
        (gc.enable if was else gc.disable)()
    assert after is enabled
    assert (tmp_path / "seen").read_text() == "False"
    assert [p.status for p in host.plugins if p.name == "local:probe"] == ["active"]


def test_close_runs_location_closers_once_in_reverse_order(tmp_path):
    calls = []
    with Host.open(tmp_path, plugins=[], data_dir=tmp_path / "data") as host:
        host.location.on_close(lambda: calls.append("first"))
        host.location.on_close(lambda: calls.append("second"))
    assert calls == ["second", "first"]
    host.close()
    assert calls == ["second", "first"] and host.location.closed


def test_a_closer_registered_after_close_runs_at_once(tmp_path):
    host = Host.open(tmp_path, plugins=[], data_dir=tmp_path / "data")
    host.close()
    calls = []
    host.location.on_close(lambda: calls.append("late"))
    assert calls == ["late"]


def test_every_closer_runs_even_when_one_fails(tmp_path):
    host = Host.open(tmp_path, plugins=[], data_dir=tmp_path / "data")
    calls = []

    def broken():
        raise OSError("socket already gone")

    host.location.on_close(lambda: calls.append("first"))
    host.location.on_close(broken)
    with pytest.raises(OSError, match="socket already gone"):
        host.close()
    assert calls == ["first"]


def test_builtin_star_disables_every_shipped_builtin(tmp_path, monkeypatch):
    monkeypatch.setattr("tooldeck.builtin_plugins.BUILTIN_PLUGINS", SHIPPED)
    with open_host(tmp_path, disable=["builtin:*"]) as host:
        builtins = [p for p in host.plugins if p.layer == "builtin"]
        assert host.snapshot().names == () and host.warnings == ()
    assert len(builtins) == len(SHIPPED)
    assert {(p.status, p.reason) for p in builtins} == {
        ("disabled", "disabled by Host.open(disable=...)")
    }


def test_disable_entries_that_match_nothing_are_reported_with_their_origin(
    tmp_path, fake_builtin, monkeypatch, caplog
):
    (tmp_path / "tooldeck.toml").write_text('[plugins]\ndisable = ["mcp:*"]\n')
    monkeypatch.setenv("TOOLDECK_DISABLE_PLUGINS", "ghost-pack, builtin:fake_read")
    with open_host(tmp_path, disable=["builtins:*"]) as host:
        warnings = host.warnings
        host.refresh_plugins()
        assert host.warnings == warnings
    assert warnings == tuple(
        f"disable entry {name!r} (from {origin}) matches no plugin or MCP server here, so it "
        "disables nothing; names look like builtin:read, local:STEM, a distribution name or "
        "mcp:SERVER, and a pattern may use * ? [...]"
        for name, origin in [
            ("builtins:*", "Host.open(disable=...)"),
            ("ghost-pack", "TOOLDECK_DISABLE_PLUGINS"),
            ("mcp:*", "project config plugins.disable"),
        ]
    )
    logged = [r.getMessage() for r in caplog.records if r.name == "tooldeck"]
    assert logged == list(warnings)  # once each, not again on refresh


def test_a_disable_entry_naming_a_configured_server_matches(tmp_path):
    (tmp_path / "tooldeck.toml").write_text(
        '[mcp.servers.calc]\ncommand = ["no-such-server-program"]\n'
    )
    with open_host(tmp_path, disable=["mcp:calc"]) as host:
        assert host.warnings == ()
        assert by_name(host)["mcp:calc"].status == "disabled"


def test_disable_must_be_a_list_not_a_string(tmp_path):
    with pytest.raises(TypeError, match="disable must be a list of names or patterns"):
        Host.open(tmp_path, disable="builtin:*", trust=True)
