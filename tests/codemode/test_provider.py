"""``CodeMode`` as ``Host.open`` wires it: the pool's lifetime and unavailable sandboxes."""

from __future__ import annotations

import subprocess
import sys

from tooldeck import Host, ToolCall, run_tool_call
from tooldeck.codemode import CodeMode, availability

from .conftest import Adder


def run(host, code):
    import asyncio

    return asyncio.run(run_tool_call(host.snapshot(), ToolCall("c", "execute", {"code": code})))


def test_host_close_stops_the_sandbox_workers(tmp_path):
    with Host.open(tmp_path, plugins=[Adder()], data_dir=tmp_path / "d") as host:
        assert run(host, "await tools.add(a=1, b=2)").output["result"] == "3"
        provider = host.service._codemode
        pool = provider._pool
    assert pool._pool is None and pool._closed  # workers stopped with the Location
    outcome = run(host, "1")
    assert outcome.status == "failed" and "closed with its Location" in outcome.error.message


def test_the_pool_is_made_on_the_first_program_only(tmp_path):
    host = Host.open(tmp_path, plugins=[Adder()], data_dir=tmp_path / "d")
    assert host.snapshot().names[-1] == "execute"
    assert host.service._codemode._pool is None
    host.close()


def test_workers_end_with_the_interpreter(tmp_path):
    script = (
        "import asyncio, sys\n"
        "from tooldeck import Location, ToolService, ToolCall, run_tool_call, Tool, ToolResult\n"
        "from tooldeck.codemode import CodeMode\n"
        "d = sys.argv[1]\n"
        "s = ToolService(Location(d, data_dir=d + '/x'), codemode=CodeMode())\n"
        "s.transform(lambda e: e.add(Tool(name='t', description='T.', "
        "execute=lambda i, c: ToolResult('ok'))))\n"
        "o = asyncio.run(run_tool_call(s.snapshot(), ToolCall('c', 'execute', "
        "{'code': 'await tools.t()'})))\n"
        "print(o.output['result'])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "ok\n", "")


def test_without_the_sandbox_every_tool_is_native(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pydantic_monty", None)  # what an unimportable package does
    availability.sandbox_missing.cache_clear()
    try:
        with Host.open(tmp_path, plugins=[Adder()], data_dir=tmp_path / "d") as host:
            assert "add" in host.snapshot().names and "execute" not in host.snapshot().names
            reason = CodeMode().unavailable_reason(host.location)
            assert reason is not None and "pydantic-monty is not installed" in reason
    finally:
        availability.sandbox_missing.cache_clear()
