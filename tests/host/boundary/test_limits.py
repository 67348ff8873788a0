"""Per-tool limits at the call boundary: ``timeout_s``, ``max_concurrency``, ``sequential``,
declared on the ``Tool`` or set by ``[tools."NAME-or-PATTERN"]``; ``run_tool_calls``
respects them."""

from __future__ import annotations

import asyncio
import threading

import pytest

from tooldeck import (
    Location,
    Tool,
    ToolCall,
    ToolResult,
    ToolService,
    run_tool_call,
    run_tool_calls,
)
from tooldeck.errors import ConfigError
from tooldeck.host.config.config import Config
from tooldeck.host.config.config_files import load_config


class Probe:
    """Async tools that record how many calls run at once, and which ran when."""

    def __init__(self) -> None:
        self.running = 0
        self.most = 0
        self.events: list[str] = []

    def tool(self, name: str, **options) -> Tool:
        async def run(input, ctx):
            self.running += 1
            self.most = max(self.most, self.running)
            self.events.append(f"{name}+")
            for _ in range(3):  # let every other ready call start, if it may
                await asyncio.sleep(0)
            await asyncio.sleep(input.get("seconds", 0))
            self.events.append(f"{name}-")
            self.running -= 1
            return ToolResult(content=name)

        schema = {"type": "object", "properties": {"seconds": {"type": "number"}}}
        return Tool(
            name=name, description=name, input=schema, execute=run, codemode=False, **options
        )


def snapshot(tmp_path, *tools, config=None):
    location = Location(
        tmp_path, config=Config.model_validate(config or {}, strict=False), data_dir=tmp_path / "d"
    )
    service = ToolService(location)
    service.transform(lambda editor: [editor.add(t) for t in tools], source="test")
    return service.snapshot()


def calls(*names):
    return [ToolCall(f"c{i}", name, {}) for i, name in enumerate(names)]


def test_a_call_past_its_timeout_fails_naming_the_limit(tmp_path):
    probe = Probe()
    snap = snapshot(tmp_path, probe.tool("slow", timeout_s=0.05))
    outcome = asyncio.run(run_tool_call(snap, ToolCall("c1", "slow", {"seconds": 60})))
    assert (outcome.status, outcome.error.type) == ("failed", "tool.execution")
    assert "did not finish within its 0.05 s limit (timeout_s)" in outcome.error.message
    assert probe.running == 1  # cancelled mid-call: it never reached its end


def test_the_config_sets_a_limit_by_pattern_overriding_the_tools(tmp_path):
    probe = Probe()
    snap = snapshot(
        tmp_path,
        probe.tool("net_fetch", timeout_s=3600),
        probe.tool("other"),
        config={"tools": {"net_*": {"timeout_s": 0.05}}},
    )
    slow = asyncio.run(run_tool_call(snap, ToolCall("c1", "net_fetch", {"seconds": 60})))
    fine = asyncio.run(run_tool_call(snap, ToolCall("c2", "other", {})))
    assert slow.status == "failed" and "0.05 s limit" in slow.error.message
    assert fine.status == "completed"


def test_max_concurrency_holds_calls_back_in_order(tmp_path):
    probe = Probe()
    snap = snapshot(tmp_path, probe.tool("one_at_a_time", max_concurrency=1), probe.tool("free"))
    turn = asyncio.run(run_tool_calls(snap, calls("one_at_a_time", "one_at_a_time", "free")))
    assert [o.status for o in turn.outcomes] == ["completed"] * 3
    limited = [e for e in probe.events if e.startswith("one")]
    assert limited == ["one_at_a_time+", "one_at_a_time-"] * 2
    assert probe.most == 2  # ``free`` ran alongside


def test_a_sequential_call_runs_alone_in_its_session(tmp_path):
    probe = Probe()
    snap = snapshot(tmp_path, probe.tool("write", sequential=True), probe.tool("read"))
    turn = asyncio.run(run_tool_calls(snap, calls("read", "read", "write", "read"), session_id="s"))
    assert [o.status for o in turn.outcomes] == ["completed"] * 4
    at = probe.events.index("write+")
    assert probe.events[at + 1] == "write-"  # nothing started or ended while it ran
    assert probe.events[:2] == ["read+", "read+"]  # the first two reads ran together
    assert probe.events[-2:] == ["read+", "read-"]  # the last waited for the write


def test_without_limits_the_snapshot_holds_none(tmp_path):
    assert snapshot(tmp_path, Probe().tool("free")).call_limits is None


@pytest.mark.parametrize(
    ("options", "words"),
    [({"timeout_s": 0}, "timeout_s must be"), ({"max_concurrency": 0}, "max_concurrency must")],
)
def test_an_invalid_limit_skips_the_tool_naming_it(tmp_path, options, words):
    location = Location(tmp_path, data_dir=tmp_path / "d")
    service = ToolService(location)
    service.transform(lambda editor: editor.add(Probe().tool("bad", **options)), source="test")
    [diagnostic] = service.catalog.diagnostics
    assert words in diagnostic.reason and diagnostic.tool == "bad"


def test_an_invalid_limit_in_the_config_is_refused(clean_env):
    root = clean_env / "project"
    root.mkdir()
    (root / "tooldeck.toml").write_text('[tools."x"]\nmax_concurrency = 0\n')
    with pytest.raises(ConfigError, match="max_concurrency"):
        load_config(root)


def test_a_sessions_own_tool_keeps_its_limit_across_its_snapshots(tmp_path):
    probe = Probe()
    service = ToolService(Location(tmp_path, data_dir=tmp_path / "d"))
    service.transform(lambda editor: editor.add(probe.tool("free")), source="test")
    scope = service.session("s")
    scope.transform(lambda editor: editor.add(probe.tool("mine", max_concurrency=1)), source="s")
    first = service.snapshot(session="s")
    service.transform(lambda editor: editor.add(probe.tool("later")), source="more")
    second = service.snapshot(session="s")
    assert first is not second and first.call_limits is not None

    async def both():
        call = ToolCall("c", "mine", {})
        return await asyncio.gather(run_tool_call(first, call), run_tool_call(second, call))

    assert [o.status for o in asyncio.run(both())] == ["completed"] * 2
    assert probe.most == 1


def test_a_nested_call_past_its_timeout_fails_inside_the_program(tmp_path, monkeypatch):
    """The limit holds at the boundary for a call a code-mode program makes too."""
    from tooldeck import Host, hookimpl

    monkeypatch.setattr("tooldeck.builtin_plugins.BUILTIN_PLUGINS", ())
    probe = Probe()

    class Slow:
        @hookimpl
        def tool_transform(self, editor):
            editor.add(probe.tool("slow", timeout_s=0.05).replace(codemode=True))

    code = (
        "try:\n    await tools.slow(seconds=60)\n    r = 'finished'\n"
        "except Exception as exc:\n    r = str(exc)\nr"
    )
    with Host.open(tmp_path, plugins=[Slow()], trust=True) as host:
        outcome = asyncio.run(
            run_tool_call(host.snapshot(), ToolCall("c1", "execute", {"code": code}))
        )
    assert outcome.status == "completed"
    assert "did not finish within its 0.05 s limit (timeout_s)" in outcome.content[0].text


class ThreadProbe:
    """A limited tool called from several threads, each running its own event loop."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.running = 0
        self.most = 0

    def tool(self, **options) -> Tool:
        async def run(input, ctx):
            with self.lock:
                self.running += 1
                self.most = max(self.most, self.running)
            try:
                for _ in range(50):  # a while, or until another call runs alongside
                    if self.most > 1:
                        break
                    await asyncio.sleep(0.01)
            finally:
                with self.lock:
                    self.running -= 1
            return ToolResult(content="done")

        return Tool(name="one", description="one", input={}, execute=run, codemode=False, **options)


def test_max_concurrency_holds_across_threads_and_event_loops(tmp_path):
    probe = ThreadProbe()
    snap = snapshot(tmp_path, probe.tool(max_concurrency=1))
    outcomes = []
    start = threading.Barrier(3)

    def caller(i):
        start.wait()
        outcomes.append(asyncio.run(run_tool_call(snap, ToolCall(f"c{i}", "one", {}))))

    threads = [threading.Thread(target=caller, args=(i,)) for i in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [o.status for o in outcomes] == ["completed"] * 3
    assert probe.most == 1
