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


OPENED = (
    "tooldeck._peer",
    "tooldeck._public",
    "tooldeck._tool",
    "tooldeck.builtin_plugins",
    "tooldeck.builtin_plugins._deferred",
    "tooldeck.builtin_plugins._model",
    "tooldeck.builtin_plugins.edit",
    "tooldeck.builtin_plugins.glob",
    "tooldeck.builtin_plugins.grep",
    "tooldeck.builtin_plugins.patch",
    "tooldeck.builtin_plugins.question",
    "tooldeck.builtin_plugins.read",
    "tooldeck.builtin_plugins.shell",
    "tooldeck.builtin_plugins.webfetch",
    "tooldeck.builtin_plugins.write",
    "tooldeck.codemode",
    "tooldeck.codemode.availability",
    "tooldeck.codemode.provider",
    "tooldeck.errors",
    "tooldeck.hookspecs",
    "tooldeck.host",
    "tooldeck.host.boundary",
    "tooldeck.host.boundary.active",
    "tooldeck.host.boundary.gates",
    "tooldeck.host.boundary.limits",
    "tooldeck.host.call",
    "tooldeck.host.call.layers",
    "tooldeck.host.call.sizes",
    "tooldeck.host.call.values",
    "tooldeck.host.config",
    "tooldeck.host.config.config",
    "tooldeck.host.config.config_files",
    "tooldeck.host.config.layers",
    "tooldeck.host.config.paths",
    "tooldeck.host.execution",
    "tooldeck.host.execution.definitions",
    "tooldeck.host.execution.lazy",
    "tooldeck.host.execution.reuse",
    "tooldeck.host.execution.snapshot",
    "tooldeck.host.handles",
    "tooldeck.host.location",
    "tooldeck.host.location.location",
    "tooldeck.host.permissions",
    "tooldeck.host.permissions.layers",
    "tooldeck.host.permissions.policy",
    "tooldeck.host.permissions.wildcard",
    "tooldeck.host.plugins",
    "tooldeck.host.plugins.discovery",
    "tooldeck.host.plugins.host",
    "tooldeck.host.plugins.instrument",
    "tooldeck.host.plugins.mcp_slot",
    "tooldeck.host.plugins.records",
    "tooldeck.host.plugins.selection",
    "tooldeck.host.plugins.sync",
    "tooldeck.host.plugins.trust_gate",
    "tooldeck.host.plugins.wiring",
    "tooldeck.host.registry",
    "tooldeck.host.registry.catalog",
    "tooldeck.host.registry.editor",
    "tooldeck.host.registry.features",
    "tooldeck.host.registry.names",
    "tooldeck.host.registry.overlay",
    "tooldeck.host.registry.record",
    "tooldeck.host.registry.state",
    "tooldeck.host.registry.steps",
    "tooldeck.host.schema",
    "tooldeck.host.schema.derive",
    "tooldeck.host.schema.frozen",
    "tooldeck.host.search",
    "tooldeck.host.search.deferral",
    "tooldeck.host.service",
    "tooldeck.telemetry",
    "tooldeck.telemetry.semconv",
    "tooldeck.telemetry.startup",
)
"""Every tooldeck module that opening a host and taking its first snapshot imports (the
built-ins, no installed plugin, no config file). A module that joins this list costs
every process that opens a host: load it where it is first needed instead, or add it
here on purpose."""

OFF = (
    # telemetry off: the tracing plugin, and ``Telemetry`` itself
    "tooldeck.telemetry.settings",
    "tooldeck.telemetry.tracing",
    # no plugin has a ``tool_call`` hook: the hooks layer
    "tooldeck.host.boundary.hooks",
    # nothing deferred: the search ranking
    "tooldeck.host.search.ranking",
    # no resource or prompt registered: their values and the checks of them
    "tooldeck._prompt",
    "tooldeck._resource",
    "tooldeck.host.registry.feature_checks",
    # no call made yet: the boundary, the call paths, validators, patterns and what they need
    "tooldeck.host.boundary.boundary",
    "tooldeck.host.boundary.outcome",
    "tooldeck.host.call.path",
    "tooldeck.host.call.content",
    "tooldeck.host.schema.validators",
    "tooldeck.host.schema.patterns",
    "tooldeck.host.schema.metaschema",
    "re2",
    # no project [plugins] order or disable: the guard of a user's tool_call hook
    "tooldeck.host.plugins.guarded",
    # nothing to trust: the trust modules, no trust store read, no digest of an item,
    # nothing withheld
    "tooldeck.host.plugins.withheld",
    "tooldeck.host.trust.project",
    "tooldeck.host.trust.store",
    "json",
)
"""What a feature that is off must not load at ``Host.open`` (the modules that load
when it is on)."""

OPEN_PROBE = """
import sys, tooldeck
before = set(sys.modules)
host = tooldeck.Host.open(sys.argv[1], plugins=[])
host.snapshot()
loaded = sorted(set(sys.modules) - before)
print(" ".join(loaded))
"""


def test_opening_a_host_imports_exactly_these_modules(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", OPEN_PROBE, str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    loaded = done.stdout.split()
    assert [m for m in loaded if m.startswith("tooldeck")] == list(OPENED)
    brought_by_metadata = set(_modules_loaded_by("import importlib.metadata"))
    assert [m for m in OFF if m in loaded and m not in brought_by_metadata] == []


def _modules_loaded_by(statement: str) -> list[str]:
    """What ``statement`` imports in a fresh interpreter: plugin discovery needs
    ``importlib.metadata``, which loads ``json`` itself from Python 3.13 on, so a
    module it brings cannot show that tooldeck loaded something it should not have."""
    probe = f"import sys\nbefore = set(sys.modules)\n{statement}\n"
    probe += "print(' '.join(sorted(set(sys.modules) - before)))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    return done.stdout.split()
