"""tooldeck as a peer in the shared benchmark (../shared/bench): W1-W6 adapters.

Run through `bench/run.sh`, which passes this file to every shared driver with
`--adapters`, so tooldeck is measured in the same process and run as the floors and the
peers, and only ratios are compared. The work done matches the peers' (see the shared
README's "rules for a fair comparison").
"""

import json

from tooldeck import Location, Tool, ToolCall, ToolResult, ToolService, run_tool_call, tool

DIST = "tooldeck"
_LOCATION = Location(".", data_dir="/tmp/tooldeck-bench-data")


def _executor(fn):
    return lambda inp, ctx: ToolResult(json.dumps(fn(inp)))


# ---- W1: 100 plugins x 10 tools -> 1,000 OpenAI definitions -------------------------------
def w1_tooldeck(bench):
    plugins = bench.fixture("model")
    service = ToolService(_LOCATION)  # the host object: created untimed, like MCPServer()
    t0 = bench.clock()
    for plugin in plugins:
        tools = [
            Tool(name=ts.name, description=ts.description, input=ts.model, execute=_executor(ts.fn))
            for ts in plugin.tools
        ]
        service.transform(
            lambda editor, tools=tools: [editor.add(t) for t in tools], source=plugin.name
        )
    t1 = bench.clock()
    defs = service.snapshot().definitions_for("openai")
    t2 = bench.clock()
    t3 = bench.clock()
    defs2 = service.snapshot().definitions_for("openai")
    t4 = bench.clock()
    return bench._finish("tooldeck", defs, defs2, t0, t1, t2, t3, t4)


W1_PEERS = {"tooldeck": w1_tooldeck}


# ---- W2: override churn: dispose #50, then #100 (reveals #99) -----------------------------
class W2Tooldeck:
    name, dist = "tooldeck", "tooldeck"

    def setup(self):
        b = self.bench
        schema = b.schema()
        self.tools = {
            p: [
                Tool(
                    name=n,
                    description=b.desc(p, t),
                    input=schema,
                    execute=_executor(b._flat_fn(p, t)),
                )
                for t, n in enumerate(b.NAMES)
            ]
            for p in range(1, b.N_PLUGINS + 1)
        }

    def reset(self):
        self.service = ToolService(_LOCATION)
        self.registrations = {
            p: self.service.transform(
                lambda e, tools=tools: [e.add(t) for t in tools], source=f"plugin{p}"
            )
            for p, tools in self.tools.items()
        }
        self.service.snapshot()  # a running host has its state built before the churn

    def remove(self, p):
        self.registrations[p].dispose()
        return list(self.service.snapshot().definitions_for("openai"))


W2_PEERS = [W2Tooldeck]


# ---- W3: validated call of add(a, b) from the JSON string --------------------------------
_ADD_SCHEMA = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    "required": ["a", "b"],
    "additionalProperties": False,
}


def _snapshot(*tools):
    service = ToolService(_LOCATION)
    service.transform(lambda editor: [editor.add(t) for t in tools], source="bench")
    return service.snapshot()


def _add_tool():
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    return tool(add)


def _unwrap(result):
    return result.output


def w3_execute_async():
    snap = _snapshot(_add_tool())
    execute, call = snap.execute, ToolCall
    return "async", (lambda s: execute(call("c1", "add", s))), _unwrap


def w3_execute_sync():
    snap = _snapshot(_add_tool())
    execute, call = snap.execute_sync, ToolCall
    return "sync", (lambda s: execute(call("c1", "add", s))), _unwrap


def w3_run_tool_call():
    snap = _snapshot(_add_tool())
    call = ToolCall
    return "async", (lambda s: run_tool_call(snap, call("c1", "add", s))), _unwrap


def w3_execute_json_schema():
    add = Tool(
        name="add",
        description="Add two integers.",
        input=_ADD_SCHEMA,
        output={"type": "integer"},
        execute=lambda args, ctx: ToolResult(output=args["a"] + args["b"]),
    )
    snap = _snapshot(add)
    execute, call = snap.execute, ToolCall
    return "async", (lambda s: execute(call("c1", "add", s))), _unwrap


def w3_execute_async_tool():
    async def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    snap = _snapshot(tool(add))
    execute, call = snap.execute, ToolCall
    return "async", (lambda s: execute(call("c1", "add", s))), _unwrap


W3_PEERS = {
    "tooldeck execute (sync add)": (w3_execute_async, DIST),
    "tooldeck execute (async add)": (w3_execute_async_tool, DIST),
    "tooldeck execute_sync (sync add)": (w3_execute_sync, DIST),
    "tooldeck execute JSON-Schema input": (w3_execute_json_schema, DIST),
    "tooldeck run_tool_call (sync add)": (w3_run_tool_call, DIST),
}


# ---- W4: whole-process startup with 50 installed plugin distributions ---------------------
# Run by the shared driver as `/tmp/w4-venv/bin/python -c CODE` (empty cwd, scrubbed env)
# after `bench/w4_fixture.py` installed tooldeck and the 50 `tooldeck-bench-plugin-NN`
# dists (entry-point group `tooldeck`, one tool each) there. One-liners, double quotes only.
W4_COMMANDS = {
    # The target: open a Location with the 50 plugins loaded and take a snapshot.
    # Built-ins may add tools, so count the bench tools by name.
    # The bench tools are code-mode tools (the default): they are in the snapshot behind
    # `execute`, whose stubs are rendered only when a model request needs them.
    "tooldeck Host.open 50 + snapshot": (
        'import tooldeck; host = tooldeck.Host.open("."); snap = host.snapshot(); '
        'names = [e.name for e in snap.codemode_catalog if e.name.startswith("bench_plugin_")]; '
        "assert len(names) == 50, len(names)"
    ),
    # Reference: the same without the built-in tools (the pluggy row below has none).
    "tooldeck Host.open 50 + snapshot, built-ins disabled (ref)": (
        "import tooldeck; from tooldeck.builtin_plugins import BUILTIN_PLUGINS; "
        'host = tooldeck.Host.open(".", disable=[f"builtin:{m}" for m in BUILTIN_PLUGINS]); '
        "snap = host.snapshot(); names = [e.name for e in snap.codemode_catalog]; "
        'assert len(names) == 50 and snap.names == ("execute",), snap.names'
    ),
    # The same 50 tooldeck dists through plain pluggy: discover + import them and call
    # the hook once, collecting the tools into a stand-in editor (the denominator).
    "pluggy load 50 tooldeck dists": (
        'import types, pluggy, tooldeck.hookspecs; pm = pluggy.PluginManager("tooldeck"); '
        "pm.add_hookspecs(tooldeck.hookspecs); "
        'n = pm.load_setuptools_entrypoints("tooldeck"); assert n == 50, n; '
        "tools = []; pm.hook.tool_transform(editor=types.SimpleNamespace(add=tools.append), "
        "location=None); assert len({t.name for t in tools}) == 50, len(tools)"
    ),
    # What the `tooldeck` console script does (pip's generated script), minus the exec.
    "tooldeck --version": (
        "import re, sys; from tooldeck.cli import main; "
        'sys.argv = ["tooldeck", "--version"]; sys.exit(main())'
    ),
    "tooldeck --help": (
        "import re, sys; from tooldeck.cli import main; "
        'sys.argv = ["tooldeck", "--help"]; sys.exit(main())'
    ),
    # Reference: how much of both numbers above is importing pydantic (the plugins'
    # input models need it either way).
    "import pydantic (ref)": "import pydantic",
}


# ---- W5: code mode, one program making 100 nested calls of add(a, b) -----------------------
# Run by the shared driver in the W5 venv (PEERS_VENV, from requirements-peers-w5.txt, with
# tooldeck installed). The program is the bench's, in tooldeck's calling convention
# (`tools.add`); it runs as a model's would: `run_tool_call(snapshot, execute call)`, each
# nested call going through `snapshot.execute` (validation, output contract), a fresh
# sandbox session per program, on one warm worker pool.
W5_PROGRAM = "total = 0\nfor i in range(100):\n    total += await tools.add(a=i, b=1)\ntotal"


def _w5(type_check):
    from tooldeck import CodeMode, Config

    config = Config.model_validate({"codemode": {"type_check": type_check}})
    location = Location(".", config=config, data_dir="/tmp/tooldeck-bench-data")
    provider = CodeMode()
    service = ToolService(location, codemode=provider)
    service.transform(lambda editor: editor.add(_add_tool()), source="bench")
    snap = service.snapshot()
    call = ToolCall("w5", "execute", {"code": W5_PROGRAM})

    async def run():
        outcome = await run_tool_call(snap, call)
        if outcome.status != "completed":
            raise AssertionError(outcome.content)
        return outcome.output["result"]

    return "async", run, provider.close


def w5_tooldeck():
    """`run_tool_call(snapshot, ToolCall("execute", {"code": PROGRAM}))` with `[codemode]
    type_check = false`: fresh checkout per program on the warm sync pool, manual
    future-protocol loop, each of the 100 `tools.add` calls through `snapshot.execute`."""
    return _w5(type_check=False)


def w5_tooldeck_typecheck():
    """as above with type checking on (the default): the program is checked against the
    stubs of every code-mode tool before it runs."""
    return _w5(type_check=True)


W5_PEERS = {
    "tooldeck execute (no type check)": (w5_tooldeck, DIST),
    "tooldeck execute + type check": (w5_tooldeck_typecheck, DIST),
}


# ---- W6: MCP over stdio, both directions ---------------------------------------------------
# Client side: tooldeck mounts the bench's MCPServer process (`add` + 1,000 tools) from a
# Location config and calls `w6_add` through the session boundary. Server side (W6d): the
# SDK client spawns `tooldeck mcp serve` on a Location whose plugin provides `add`.
W6_MOUNT_CONFIG = """
[mcp.servers.w6]
command = {command}
timeout_s = 60
codemode = false

[[permission]]
action = "w6_*"
effect = "allow"
"""

W6_SERVE_PLUGIN = '''
from tooldeck import hookimpl, tool

@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b

@hookimpl
def tool_transform(editor):
    editor.add(add.replace(codemode=False))
'''


def _w6_location(config="", plugin=None):
    import tempfile
    from pathlib import Path

    root = Path(tempfile.mkdtemp(prefix="tooldeck-w6-"))
    (root / "tooldeck.toml").write_text(config)
    if plugin is not None:
        (root / ".tooldeck" / "plugins").mkdir(parents=True)
        (root / ".tooldeck" / "plugins" / "w6.py").write_text(plugin)
    return root


class TooldeckMcpClient:
    """tooldeck mounting the server: `Host.open` on a Location whose `[mcp.servers.w6]`
    runs the server command (connect = spawn, handshake, first listing and mounting);
    each call is `run_tool_call(snapshot, ToolCall("w6_add", ...))` (validation,
    permission rule, the hop to the Location's MCP loop thread, result conversion,
    bounding); each listing lists the server again (all pages) and returns the mounted
    names of the refreshed snapshot. The driver's connect ends with one listing: here
    that is the one `Host.open` made, so the first `list_names` after `connect` reads
    the first snapshot instead of listing a second time (the SDK peer lists once too).
    The mounted tools are native (`codemode = false`), so the names are the same
    whether or not code mode is available in the venv."""

    def __init__(self, server_command):
        self.config = W6_MOUNT_CONFIG.format(command=json.dumps(list(server_command)))
        self.host = None
        self.snapshot = None
        self.fresh = False
        self.calls = 0

    async def connect(self):
        from tooldeck import Host

        # the bench wrote this Location's server table: trusted for this process
        self.host = Host.open(_w6_location(self.config), plugins=[], trust=True)
        self.snapshot = self.host.snapshot()
        self.fresh = True

    @property
    def protocol_version(self):
        layer = self.host._groups["mcp"] if self.host else None  # bench-only peek
        return layer.connection("w6").protocol_version if layer else None

    async def call(self, a, b):
        self.calls += 1
        outcome = await run_tool_call(
            self.snapshot, ToolCall(f"c{self.calls}", "w6_add", {"a": a, "b": b})
        )
        return outcome.output["result"]

    async def list_names(self):
        import asyncio

        if self.fresh:  # connect's own listing: the one Host.open made
            self.fresh = False
            return [n[3:] for n in self.snapshot.names if n.startswith("w6_")]
        # The layer's refresh blocks on its loop thread: run it off this event loop.
        await asyncio.to_thread(self.host._groups["mcp"].refresh, "w6")
        self.snapshot = self.host.snapshot()
        return [n[3:] for n in self.snapshot.names if n.startswith("w6_")]

    async def close(self):
        host, self.host = self.host, None
        if host is not None:
            host.close()


W6_PEERS = {"tooldeck mount (stdio)": (TooldeckMcpClient, "tooldeck")}


def w6_serve_command():
    """`python -m tooldeck mcp serve --location DIR`, DIR's Location plugin providing
    `add` (native); the built-in tools are served too."""
    import sys

    root = _w6_location(plugin=W6_SERVE_PLUGIN)
    # The bench wrote the plugin: trusted for the served process (TOOLDECK_TRUST=1, set
    # here because the SDK's stdio client passes the server only a safe environment).
    trusted = (
        "import os, runpy; os.environ['TOOLDECK_TRUST'] = '1'; "
        "runpy.run_module('tooldeck', run_name='__main__')"
    )
    return [sys.executable, "-c", trusted, "mcp", "serve", "--location", str(root)]


W6_SERVE = {"tooldeck mcp serve (stdio)": (w6_serve_command, "add", "tooldeck")}
