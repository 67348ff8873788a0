"""Resumes in real processes: killed at each step, killed at random, racing each other.

Whatever happens, a payment is made at most once, a call that ran is never reported as
not run, and the store ends consistent: every resumed call ``done`` with one outcome
that every later resume returns.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tooldeck import Host, ToolCall, run_tool_call

from .payments import Payments, effects

HERE = Path(__file__).parent
RESUMER = """
import asyncio, json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from payments import Payments, crashing
from tooldeck import Host, PostgresStore, SqliteStore

here, spec, root, data, effects, start, *ids = sys.argv[1:]
kind, _, rest = spec.partition(":")
if kind == "sqlite":
    store = SqliteStore(rest)
else:
    schema, _, dsn = rest.partition(":")
    store = PostgresStore(dsn, schema=schema)
host = Host.open(root, plugins=[Payments(Path(effects))], data_dir=data, store=crashing(store))
print("ready", flush=True)
while not Path(start).exists():
    pass

async def main():
    for pending_id in ids:
        outcome = await host.resume(pending_id, "once")
        print(json.dumps([pending_id, outcome.status]), flush=True)

asyncio.run(main())
"""


class World:
    """The parent's host on the test's store and a way to start resumers."""

    def __init__(self, tmp_path: Path, store, store_spec: str) -> None:
        self.tmp = tmp_path
        self.spec = store_spec
        self.root = tmp_path / "root"
        self.root.mkdir()
        self.effects = tmp_path / "effects"
        self.host = Host.open(
            self.root,
            plugins=[Payments(self.effects)],
            data_dir=tmp_path / "data",
            store=store,
            on_ask="defer",
        )
        self.start = tmp_path / "start"

    async def defer(self, to: str, tool: str = "pay") -> str:
        outcome = await run_tool_call(self.host.snapshot(), ToolCall(f"c-{to}", tool, {"to": to}))
        assert outcome.status == "pending"
        return outcome.pending.id

    async def resumer(
        self, *ids: str, crash: str = "", delay: float = 0.0
    ) -> subprocess.Popen[str]:
        """A resuming child process, started and awaited "ready" off the event loop (its
        start takes seconds on a loaded machine: the loop guard would see a stall)."""
        return await asyncio.to_thread(self._resumer, ids, crash, delay)

    def _resumer(self, ids: tuple[str, ...], crash: str, delay: float) -> subprocess.Popen[str]:
        env = {**os.environ, "TOOLDECK_TEST_CRASH": crash, "TOOLDECK_TEST_DELAY": str(delay)}
        args = [str(HERE), self.spec, str(self.root), str(self.tmp / "data")]
        child = subprocess.Popen(
            [sys.executable, "-c", RESUMER, *args, str(self.effects), str(self.start), *ids],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert child.stdout is not None and child.stdout.readline() == "ready\n"
        return child

    def paid(self, to: str) -> int:
        return effects(self.effects).count(to)


@pytest.fixture
def world(tmp_path, store, store_spec):
    made = World(tmp_path, store, store_spec)
    yield made
    made.host.close()


EXPECTED = {  # crash point -> (outcome status, error type, payments made)
    "claimed": ("completed", None, 1),  # never started: the next resume runs it
    "before-effect": ("failed", "unknown", 0),  # started: unclear, so never re-run
    "after-effect": ("failed", "unknown", 1),
    "recording": ("failed", "unknown", 1),
}


async def test_a_crash_at_each_step_of_resume(world):
    """One process per crash point, all at once (each resuming its own call)."""
    ids = {point: await world.defer(point) for point in EXPECTED}
    ids["idempotent"] = await world.defer("idempotent", tool="refund")
    world.start.touch()
    children = {point: await world.resumer(ids[point], crash=point) for point in EXPECTED}
    children["idempotent"] = await world.resumer(ids["idempotent"], crash="after-effect")
    for child in children.values():  # waited for off the loop: the guard watches it
        assert await asyncio.to_thread(child.wait, 120) == -signal.SIGKILL
        child.stdout.close()
    for point, (status, error, paid) in EXPECTED.items():
        outcome = await world.host.resume(ids[point], "once")
        assert (point, outcome.status, outcome.error and outcome.error.type) == (
            point,
            status,
            error,
        )
        assert world.paid(point) == paid
        assert await world.host.resume(ids[point], "reject") == outcome  # recorded
        assert world.paid(point) == paid
    # A tool that declared itself idempotent opts into running again.
    assert (await world.host.resume(ids["idempotent"], "once")).status == "completed"
    assert world.paid("idempotent") == 2


async def test_killed_at_random_moments_nothing_is_paid_twice(world):
    rng = random.Random(25)
    names = [f"r{i}" for i in range(5)]
    ids = {name: await world.defer(name) for name in names}
    left = list(names)
    reported: dict[str, str] = {}
    while left:
        child = await world.resumer(*(ids[n] for n in left), delay=0.01)
        world.start.touch()
        await asyncio.sleep(rng.uniform(0.0, 0.08))
        child.kill()
        await asyncio.to_thread(child.wait, 120)
        for line in child.stdout.read().splitlines():
            pending_id, status = json.loads(line)
            reported[pending_id] = status
        child.stdout.close()
        world.start.unlink()
        done = [n for n in left if world.host.location.store.get_pending(ids[n]).state == "done"]
        left = [n for n in left if n not in done][1:]  # one more settled per round, at least
    for name in names:
        outcome = await world.host.resume(ids[name], "once")
        assert world.paid(name) <= 1
        if outcome.status == "completed":
            assert world.paid(name) == 1
        else:
            assert (outcome.status, outcome.error.type) == ("failed", "unknown")
        assert reported.get(ids[name], outcome.status) == outcome.status
        assert world.host.location.store.get_pending(ids[name]).state == "done"


async def test_two_processes_resuming_at_once_run_the_tool_once(world):
    pending_id = await world.defer("dave")
    children = [await world.resumer(pending_id, delay=0.3) for _ in range(2)]
    world.start.touch()
    outputs = [(await asyncio.to_thread(child.communicate, None, 120))[0] for child in children]
    assert [child.returncode for child in children] == [0, 0]
    assert [json.loads(out) for out in outputs] == [[pending_id, "completed"]] * 2
    assert world.paid("dave") == 1
