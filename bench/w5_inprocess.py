"""W5's rows timed in one process, by wall and CPU time: an A/B tool for code mode.

    /tmp/peers-w5/bin/python bench/w5_inprocess.py [REPS] [PROGRAMS] [check|nocheck]
    PYTHONPATH=/other/tree/src /tmp/peers-w5/bin/python bench/w5_inprocess.py

Runs the shared W5 floors (``../shared/bench/w5_codemode.py``: the monty floor, with and
without type checking) and tooldeck's two W5 rows (``tooldeck_adapters.py``) in turns,
REPS rounds (default 9) of PROGRAMS programs each (default 10), and prints JSON: per row
the median and best over rounds of wall ms per program, this process's CPU ms per program
(``time.process_time``: every thread, the sandbox's included) and the monty workers'
CPU ms per program (their ``/proc`` times), and the per-round ratio to its floor
(``check``/``nocheck``: only the rows with or without type checking, in a process of
their own, so one row's threads never run during another's). On the
shared, loaded box CPU time is what stays comparable between trees and runs; wall time
is what W5 publishes.
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent.parent / "shared" / "bench"), str(HERE)]

import tooldeck_adapters  # noqa: E402
import w5_codemode  # noqa: E402

LOOP = w5_codemode.LOOP


def _children_cpu() -> float:
    """CPU seconds used so far by this process's child processes (the monty workers)."""
    total, me = 0.0, str(os.getpid())
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == me:  # ppid
            total += (int(fields[11]) + int(fields[12])) / tick
    return total


def _runner(factory: Callable[[], Any], programs: int) -> Callable[[], tuple[float, float, float]]:
    got = factory()
    kind, fn = got[0], got[1]
    if len(got) > 2 and got[2] is not None:
        w5_codemode._CLEANUP.append(got[2])

    async def many() -> list[Any]:
        return [await fn() for _ in range(programs)]

    def run() -> tuple[float, float, float]:
        workers, cpu, wall = _children_cpu(), time.process_time(), time.perf_counter()
        if kind == "sync":
            results = [fn() for _ in range(programs)]
        else:
            results = LOOP.run_until_complete(many())
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        workers = _children_cpu() - workers
        assert results == [w5_codemode.EXPECTED] * programs, results[:1]
        return wall / programs, cpu / programs, workers / programs

    run()  # warm-up: the worker spawned, the first checkout
    return run


ROWS = {
    "floor": (w5_codemode.floor_monty, None),
    "floor+typecheck": (w5_codemode.floor_monty_typecheck, None),
    "tooldeck (no type check)": (tooldeck_adapters.w5_tooldeck, "floor"),
    "tooldeck + type check": (tooldeck_adapters.w5_tooldeck_typecheck, "floor+typecheck"),
}


def main() -> None:
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    programs = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    rows = ROWS
    if len(sys.argv) > 3:  # "check" or "nocheck": one row and its floor, alone in this process
        checked = {"floor+typecheck", "tooldeck + type check"}
        rows = {n: v for n, v in ROWS.items() if (n in checked) == (sys.argv[3] == "check")}
    runners = {name: _runner(factory, programs) for name, (factory, _) in rows.items()}
    samples: dict[str, list[tuple[float, float, float]]] = {name: [] for name in rows}
    gc.disable()
    try:
        for _ in range(reps):
            for name, run in runners.items():
                samples[name].append(run())
    finally:
        gc.enable()
        for close in reversed(w5_codemode._CLEANUP):
            close()
    report: dict[str, Any] = {"reps": reps, "programs": programs, "loadavg": os.getloadavg()}
    for name, (_, floor) in rows.items():
        rows = samples[name]
        row: dict[str, Any] = {}
        for i, metric in enumerate(("wall_ms", "cpu_ms", "worker_cpu_ms")):
            values = [r[i] * 1e3 for r in rows]
            row[metric] = round(statistics.median(values), 2)
            row[metric + "_best"] = round(min(values), 2)
        if floor is not None:
            for i, metric in enumerate(("wall", "cpu")):
                ratios = [r[i] / f[i] for r, f in zip(rows, samples[floor], strict=True)]
                row[f"{metric}_ratio"] = round(statistics.median(ratios), 3)
        report[name] = row
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
