"""Built-ins declare their tools cheaply and load their code on the first call."""

from __future__ import annotations

import json
import subprocess
import sys

from tooldeck.builtin_plugins import BUILTIN_PLUGINS
from tooldeck.builtin_plugins._deferred import deferred

# What opening a host must not import: the built-ins' code and what only it needs.
NOT_AT_OPEN = ("asyncio", "subprocess", "difflib", "shlex", "httpx", "bs4", "markdownify",
               "pathspec", "tomllib")

PROBE = """
import json, sys, tooldeck
host = tooldeck.Host.open(sys.argv[1], plugins=[])
snapshot = host.snapshot()
loaded = sorted(m for m in sys.modules
                if m.startswith("tooldeck.builtin_plugins._run") or m in json.loads(sys.argv[2]))
print(json.dumps({"tools": sorted(snapshot.names), "loaded": loaded}))
"""


def test_opening_a_host_loads_no_builtin_code(tmp_path):
    done = subprocess.run([sys.executable, "-c", PROBE, str(tmp_path), json.dumps(NOT_AT_OPEN)],
                          capture_output=True, text=True, check=True)
    result = json.loads(done.stdout)
    assert result["loaded"] == []
    assert set(result["tools"]) >= set(BUILTIN_PLUGINS)


async def test_the_first_call_builds_the_executor_once(location):
    execute = deferred("write", location)
    assert execute.__name__ == "write"
    code = execute.__code__
    await _write(execute, location, "a.txt", "one")
    run = _captured_run(execute)
    await _write(execute, location, "a.txt", "two")
    assert _captured_run(execute) is run and execute.__code__ is code
    assert (location.root / "a.txt").read_text() == "two"


async def _write(execute, location, path, content):  # the asker allows "edit" once
    from tooldeck.builtin_plugins.write import WriteInput
    from tooldeck.tool import ToolContext

    ctx = ToolContext(location, "s", "m", "c", None, None)
    return await execute(WriteInput(path=path, content=content), ctx)


def _captured_run(execute):
    (cell,) = [c for c, name in zip(execute.__closure__, execute.__code__.co_freevars,
                                    strict=True) if name == "run"]
    return cell.cell_contents
