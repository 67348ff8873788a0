from __future__ import annotations

import json
import subprocess
import sys

import pytest
from pydantic import BaseModel

from tooldeck import Location, Tool, ToolCall, ToolFailure, ToolResult, ToolService


class ReadInput(BaseModel):
    path: str
    offset: int = 0


class ReadOutput(BaseModel):
    lines: int


def make(name, description="A tool.", version="v1", **options):
    def run(inp, ctx):
        return ToolResult(version)

    return Tool(name=name, description=description, input=ReadInput, execute=run, **options)


@pytest.fixture
def service(tmp_path):
    return ToolService(Location(tmp_path, data_dir=tmp_path / "data"))


def test_definitions_are_sorted_by_effective_name(service):
    service.transform(lambda e: [e.add(make(n)) for n in ("zeta", "alpha", "mid")], source="s")
    service.transform(lambda e: e.add(make("status", namespace="git")), source="g")
    assert service.snapshot().names == ("alpha", "git_status", "mid", "zeta")


def test_snapshot_of_an_unchanged_state_is_the_same_object(service):
    service.transform(lambda e: e.add(make("a")), source="s")
    first = service.snapshot()
    assert service.snapshot() is first
    assert first.definitions_for("openai") is first.definitions_for("openai")
    service.transform(lambda e: e.add(make("b")), source="t")
    assert service.snapshot() is not first


def test_snapshot_survives_disposal_reload_and_replacement(service):
    registration = service.transform(lambda e: e.add(make("read", version="old")), source="a")
    snap = service.snapshot()
    registration.dispose()
    service.transform(lambda e: e.add(make("read", version="new")), source="b")
    service.reload()
    assert snap.names == ("read",)
    assert snap.execute_sync(ToolCall("1", "read", '{"path": "x"}')).content[0].text == "old"
    fresh = service.snapshot()
    assert fresh.execute_sync(ToolCall("1", "read", '{"path": "x"}')).content[0].text == "new"


def test_published_definitions_are_frozen(service):
    service.transform(lambda e: e.add(make("read")), source="s")
    (definition,) = service.snapshot().definitions_for("openai")
    with pytest.raises(TypeError):
        definition["function"]["parameters"]["properties"]["path"]["type"] = "integer"
    with pytest.raises(TypeError):
        definition["function"]["name"] = "x"


def test_provider_formats(service):
    tool = make("read", "Read a file.", namespace="fs").replace(output=ReadOutput)
    service.transform(lambda e: e.add(tool), source="s")
    snap = service.snapshot()
    parameters = snap.definitions[0].input_schema
    assert parameters["additionalProperties"] is False
    assert snap.definitions_for("openai") == (
        {
            "type": "function",
            "function": {
                "name": "fs_read",
                "description": "Read a file.",
                "parameters": parameters,
            },
        },
    )
    assert snap.definitions_for("anthropic") == (
        {"name": "fs_read", "description": "Read a file.", "input_schema": parameters},
    )
    (gemini,) = snap.definitions_for("gemini")
    assert gemini["name"] == "fs_read" and "additionalProperties" not in gemini["parameters"]
    (mcp,) = snap.definitions_for("mcp")
    assert mcp["inputSchema"] == parameters
    assert mcp["outputSchema"]["properties"]["lines"]["type"] == "integer"
    json.dumps(snap.definitions_for("mcp"))
    with pytest.raises(ValueError, match="unknown definition format 'nope'"):
        snap.definitions_for("nope")


def test_mcp_omits_non_object_output_schemas(service):
    from pydantic import TypeAdapter

    tool = make("count").replace(output=TypeAdapter(int))
    service.transform(lambda e: e.add(tool), source="s")
    (mcp,) = service.snapshot().definitions_for("mcp")
    assert "outputSchema" not in mcp


class HideActions:
    def __init__(self, *actions):
        self.actions = frozenset(actions)

    def hidden(self, action):
        return action in self.actions

    def __hash__(self):
        return hash(self.actions)

    def __eq__(self, other):
        return isinstance(other, HideActions) and other.actions == self.actions


def test_visibility_hides_by_permission_action_and_hidden_tools_are_not_callable(service):
    service.transform(
        lambda e: [
            e.add(make("edit")),
            e.add(make("write", permission="edit")),
            e.add(make("read")),
        ],
        source="s",
    )
    snap = service.snapshot(permissions=HideActions("edit"))
    assert snap.names == ("read",)
    with pytest.raises(ToolFailure, match="Tool 'write' is not available"):
        snap.execute_sync(ToolCall("1", "write", '{"path": "x"}'))
    assert service.snapshot(permissions=HideActions("edit")) is snap
    assert service.snapshot().names == ("edit", "read", "write")


class FakeCodeMode:
    """A minimal code-mode provider (``tooldeck.codemode`` is the package that will plug in)."""

    def __init__(self, available=True):
        self._available = available
        self.seen = None

    def available(self, location):
        return self._available

    def build(self, snapshot, tools):
        self.seen = [entry.name for entry in tools]
        return Tool(
            name="execute",
            description="Run a program.",
            codemode=False,
            execute=lambda inp, ctx: ToolResult("ran"),
        )


def test_codemode_catalog_hide_behind_execute_which_comes_last(tmp_path):
    provider = FakeCodeMode()
    service = ToolService(Location(tmp_path, data_dir=tmp_path / "d"), codemode=provider)
    service.transform(
        lambda e: [
            e.add(make("zz_native", codemode=False)),
            e.add(make("aa_native", codemode=False)),
            e.add(make("coded")),
            e.add(make("also_coded", namespace="ns")),
        ],
        source="s",
    )
    snap = service.snapshot()
    assert snap.names == ("aa_native", "zz_native", "execute")
    assert provider.seen is None  # built when first needed, not for every snapshot
    assert [d.name for d in snap.definitions] == ["aa_native", "zz_native", "execute"]
    assert provider.seen == ["coded", "ns_also_coded"]
    assert snap.execute_sync(ToolCall("1", "execute", "{}")).content[0].text == "ran"
    # Hidden from the model, still callable by effective name (hosts, tests, tooldeck call).
    assert snap.execute_sync(ToolCall("2", "coded", {"path": "x"})).content[0].text == "v1"
    with pytest.raises(ToolFailure, match="not available"):
        snap.execute_sync(ToolCall("3", "missing", "{}"))


def test_without_codemode_catalog_execute_is_never_built(tmp_path):
    provider = FakeCodeMode()
    service = ToolService(Location(tmp_path, data_dir=tmp_path / "d"), codemode=provider)
    service.transform(lambda e: e.add(make("native", codemode=False)), source="s")
    snap = service.snapshot()
    assert [d.name for d in snap.definitions] == ["native"] and provider.seen is None


@pytest.mark.parametrize("mode", ["unavailable", "denied"])
def test_without_codemode_every_visible_tool_is_native(tmp_path, mode):
    provider = FakeCodeMode(available=mode != "unavailable")
    service = ToolService(Location(tmp_path, data_dir=tmp_path / "d"), codemode=provider)
    service.transform(
        lambda e: [e.add(make("coded")), e.add(make("native", codemode=False))], source="s"
    )
    permissions = HideActions("execute") if mode == "denied" else None
    assert service.snapshot(permissions=permissions).names == ("coded", "native")


def test_get_returns_advertised_tools_only(service):
    tool = make("read")
    service.transform(lambda e: e.add(tool), source="s")
    snap = service.snapshot()
    assert snap.get("read") is tool and snap.get("nope") is None


def test_gemini_keeps_a_property_named_like_a_dropped_keyword(service):
    schema = {
        "type": "object",
        "properties": {"additionalProperties": {"type": "string", "additionalProperties": False}},
    }
    tool = Tool(
        name="odd", description="Odd.", input=schema, execute=lambda inp, ctx: ToolResult("ok")
    )
    service.transform(lambda e: e.add(tool), source="s")
    (gemini,) = service.snapshot().definitions_for("gemini")
    assert gemini["parameters"]["properties"] == {"additionalProperties": {"type": "string"}}


# -- execute_sync from many threads -----------------------------------------------------------
_THREADS = """
import json, sys, threading
from tooldeck import Location, Tool, ToolCall, ToolResult, ToolService

async def hello(data, ctx):
    return ToolResult("hi")

root = sys.argv[1]
service = ToolService(Location(root, data_dir=root + "/data"))
tool = Tool(name="hello", description="Say hi.", execute=hello, codemode=False)
service.transform(lambda editor: editor.add(tool), source="test")
snapshot = service.snapshot()
assert "asyncio" not in sys.modules, "asyncio was imported before the threads started"
start = threading.Barrier(8)
results = []

def call():
    start.wait()
    try:
        results.append(snapshot.execute_sync(ToolCall("c", "hello", "{}")).content[0].text)
    except BaseException as exc:
        results.append(f"{type(exc).__name__}: {exc}")

threads = [threading.Thread(target=call) for _ in range(8)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(json.dumps(results))
"""


def test_execute_sync_from_eight_threads_before_asyncio_is_imported(tmp_path):
    """The first async call imports asyncio; eight threads doing it at once were handed a
    partly initialized module ("has no attribute 'events'"). A fresh process per try,
    since the race exists only until asyncio is imported."""
    children = [
        subprocess.Popen(
            [sys.executable, "-c", _THREADS, str(tmp_path / str(n))],
            stdout=subprocess.PIPE,
            text=True,
        )
        for n in range(3)
    ]
    for child in children:
        out, _ = child.communicate(timeout=60)
        assert child.returncode == 0
        assert json.loads(out) == ["hi"] * 8


def _ran(start):
    import asyncio
    import inspect

    try:
        done = start()
        result = asyncio.run(done) if inspect.iscoroutine(done) else done
    except ToolFailure as failure:
        return ("failed", failure.message)
    return ("done", result)


@pytest.mark.parametrize(
    "call",
    [
        ToolCall("c1", "alpha", {"path": "a"}),
        ToolCall("c2", "later", {"path": "b"}),
        ToolCall("c3", "alpha", {"path": 3}),
        ToolCall("c4", "nowhere", {}),
    ],
    ids=["sync", "async", "invalid", "unknown"],
)
def test_run_without_layers_is_what_crossing_no_layers_gives(service, call):
    """``Snapshot.run`` writes ``cross``'s no-layer case out inline (a speed trick): the
    same result, or the same failure, as the plain path through ``cross``."""
    from tooldeck.host.call.layers import cross

    async def later(inp, ctx):
        return ToolResult(f"later {inp.path}")

    service.transform(
        lambda e: [
            e.add(make("alpha")),
            e.add(Tool(name="later", description="Later.", input=ReadInput, execute=later)),
        ],
        source="s",
    )
    snapshot = service.snapshot()
    assert snapshot.layers == ()
    scope = snapshot.default_scope
    plain = _ran(lambda: cross((), snapshot._start, call, scope, None))
    assert _ran(lambda: snapshot.run(call, scope)) == plain
