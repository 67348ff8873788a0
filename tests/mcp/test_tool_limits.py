"""``[tools."NAME"]`` limits (``timeout_s``, ``max_concurrency``, ``sequential``) hold for
a mounted MCP server's tools and for calls served through ``tooldeck mcp serve``: a real
server process reports how its calls overlapped."""

from __future__ import annotations

import asyncio

import anyio
import pytest

from tooldeck import Host, ToolCall, grant_trust, run_tool_call, trust_status

from .conftest import make_project, stdio_server, wait_for
from .serve.test_serve import served

LIMITS = """
[tools."ov_work"]
max_concurrency = 1
[tools."ov_other"]
timeout_s = 0.5
[tools."ov_solo"]
sequential = true
[[permission]]
action = "ov_*"
effect = "allow"
"""


def overlap_project(root):
    return make_project(
        root, stdio_server("ov", "overlap_server.py", extra="codemode = false") + LIMITS
    )


@pytest.fixture(scope="module")
def host(tmp_path_factory, module_env):
    with Host.open(overlap_project(tmp_path_factory.mktemp("limits") / "p"), plugins=[]) as opened:
        yield opened


def run_all(snapshot, *calls):
    async def together():
        return await asyncio.gather(
            *(
                run_tool_call(snapshot, ToolCall(f"c{i}", name, {"seconds": s}))
                for i, (name, s) in enumerate(calls)
            )
        )

    return asyncio.run(together())


def cancelled(host):
    outcome = asyncio.run(run_tool_call(host.snapshot(), ToolCall("c", "ov_cancelled", {})))
    return outcome.output["result"]


def overlaps(outcomes):
    assert [o.status for o in outcomes] == ["completed"] * len(outcomes), outcomes
    return [o.output["result"] for o in outcomes]


def test_max_concurrency_holds_a_mounted_tools_calls_back(host):
    outcomes = run_all(host.snapshot(), ("ov_work", 0.2), ("ov_work", 0.2), ("ov_work", 0.2))
    assert overlaps(outcomes) == [0, 0, 0]
    free = run_all(host.snapshot(), ("ov_free", 0.3), ("ov_free", 0.3))
    assert overlaps(free) == [1, 1]  # without a limit the same calls do overlap


def test_a_sequential_mounted_tool_never_runs_beside_another_call_of_its_session(host):
    snapshot = host.snapshot(session="s1")
    outcomes = run_all(snapshot, ("ov_free", 0.3), ("ov_solo", 0.2), ("ov_free", 0.3))
    # Unlimited, ``ov_solo`` would overlap both; it waits for the first ``ov_free`` and
    # holds the second back until it ends.
    assert overlaps(outcomes)[1] == 0


def test_a_mounted_call_past_its_timeout_fails_naming_the_limit_and_is_cancelled(host):
    before = cancelled(host)
    [outcome] = run_all(host.snapshot(), ("ov_other", 60))
    assert (outcome.status, outcome.error.type) == ("failed", "tool.execution")
    assert "did not finish within its 0.5 s limit (timeout_s)" in outcome.error.message
    wait_for(lambda: cancelled(host) > before)  # the server was told: request cancelled


def test_limits_hold_for_calls_served_through_mcp_serve(tooldeck_env):
    root = overlap_project(tooldeck_env / "project")
    grant_trust(trust_status(root))  # the serve process mounts the project's server

    async def scenario():
        async with served(root, "--no-codemode") as client:
            results = {}

            async def call(key, name, seconds):
                results[key] = await client.call_tool(name, {"seconds": seconds})

            async with anyio.create_task_group() as group:
                for key in ("w1", "w2", "w3"):
                    group.start_soon(call, key, "ov_work", 0.2)
            async with anyio.create_task_group() as group:
                for key in ("x1", "x2"):
                    group.start_soon(call, key, "ov_free", 0.3)
            async with anyio.create_task_group() as group:
                group.start_soon(call, "f1", "ov_free", 0.3)
                group.start_soon(call, "solo", "ov_solo", 0.2)
                group.start_soon(call, "f2", "ov_free", 0.3)
            await call("late", "ov_other", 60)
            return results

    results = anyio.run(scenario)
    texts = {key: (r.is_error, r.content[0].text) for key, r in results.items()}
    assert [texts[k] for k in ("w1", "w2", "w3", "solo")] == [(False, "0")] * 4
    assert not texts["f1"][0] and not texts["f2"][0]
    assert texts["x1"] == texts["x2"] == (False, "1")  # served calls do run concurrently
    assert texts["late"][0] is True
    assert "did not finish within its 0.5 s limit (timeout_s)" in texts["late"][1]
