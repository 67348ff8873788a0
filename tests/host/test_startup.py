"""What opening a host and taking a snapshot must not import (W4 startup, in bench/).

Each entry is loaded on first use by the code that needs it; importing it at startup
again would cost every process that only lists or calls a few tools.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tooldeck.builtin_plugins import BUILTIN_PLUGINS

NOT_AT_OPEN = (
    # the built-ins' code and what only it needs
    "asyncio",
    "subprocess",
    "difflib",
    "shlex",
    "httpx",
    "bs4",
    "markdownify",
    "pathspec",
    "tooldeck.builtin_plugins._run.webfetch_convert",
    # config files, failures, logging, reports, asks: only when there is one
    "tomllib",
    "traceback",
    "logging",
    "argparse",
    "tooldeck.host.permissions.permission",
    "tooldeck.host.permissions.approvals",
    "tooldeck.host.location.questions",
    "tooldeck.host.call.bounding",
    "tooldeck.host.plugins.report",
    # pydantic's TypeAdapter and JSON Schema generator
    "pydantic.type_adapter",
    # the code-mode sandbox and what only a program run needs (stubs included)
    "pydantic_monty",
    "tooldeck.codemode.runner",
    "tooldeck.codemode.sandbox",
    "tooldeck.codemode.plan",
    "tooldeck.codemode.stubs",
    "tooldeck.codemode.execute_tool",
    # OpenTelemetry and the tracing plugin: only when telemetry is turned on
    "opentelemetry",
    "opentelemetry.trace",
    "tooldeck.telemetry.tracing",
    "tooldeck.telemetry.asks",
    # the MCP layer and its SDK: only when the config names a server
    "tooldeck.mcp",
    "mcp",
    "anyio",
)

PROBE = """
import json, sys, tooldeck
host = tooldeck.Host.open(sys.argv[1], plugins=[])
snapshot = host.snapshot()
loaded = sorted(m for m in sys.modules
                if m.startswith("tooldeck.builtin_plugins._run") or m in json.loads(sys.argv[2]))
print(json.dumps({"tools": sorted(snapshot.names), "loaded": loaded}))
"""


CODE_TOOL = """
import tooldeck

@tooldeck.hookimpl
def tool_transform(editor):
    editor.add(tooldeck.Tool(name="add", description="Add.", input={"type": "object"},
                             execute=lambda i, c: tooldeck.ToolResult("2")))
"""

CLI_PROBE = """
import json, sys
from tooldeck.cli import main
code = main(["--location", sys.argv[1], "tools"])
loaded = [m for m in sys.modules if m in json.loads(sys.argv[2]) and m != "argparse"]
print(json.dumps(sorted(loaded)), file=sys.stderr)
"""


def test_opening_a_host_loads_only_what_the_catalog_needs(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(tmp_path), json.dumps(NOT_AT_OPEN)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    result = json.loads(done.stdout)
    assert result["loaded"] == []
    assert set(result["tools"]) >= set(BUILTIN_PLUGINS)


def test_a_code_mode_catalog_is_listed_without_the_sandbox(tmp_path):
    plugins = tmp_path / ".tooldeck" / "plugins"
    plugins.mkdir(parents=True)
    (plugins / "adder.py").write_text(CODE_TOOL)
    # Only the built-ins and this project's plugin: an installed pack (tox -e packs has
    # all the example packs) would widen the table and import what it needs.
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("TOOLDECK_")},
        "TOOLDECK_LOAD_PLUGINS": "local:adder",
        "TOOLDECK_TRUST": "1",  # the test wrote this project's plugin: trust it
    }
    done = subprocess.run(
        [sys.executable, "-c", CLI_PROBE, str(tmp_path), json.dumps(NOT_AT_OPEN)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        timeout=120,
    )
    assert "add       code" in done.stdout
    assert json.loads(done.stderr.strip().splitlines()[-1]) == []
